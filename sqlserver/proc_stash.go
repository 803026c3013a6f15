package sqlserver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
)

// dolt_stash: the current branch's uncommitted changes put aside, and
// back (verso's stash.go), in named lists as Dolt's:
//
//	CALL dolt_stash('push', 'name' [, '-m', 'message'] [, '-u'])
//	CALL dolt_stash('pop', 'name' [, 'stash@{n}'])
//	CALL dolt_stash('apply', 'name' [, 'stash@{n}'])   (verso's own)
//	CALL dolt_stash('drop', 'name' [, 'stash@{n}'])
//	CALL dolt_stash('clear', 'name')
//
// It returns status 0, as Dolt's does; dolt_stashes lists the stashes.
// Dolt's command line keeps its stashes in the list dolt-cli, as verso's
// does.

var stashProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_stash", Schema: statusSchema, Function: doltStash},
}

var stashSpec = optSpec{proc: "dolt_stash", opts: map[string]bool{"message": true, "include-untracked": false, "all": false},
	shorts: map[byte]string{'m': "message", 'u': "include-untracked", 'a': "all"}}

// errStashArgs is Dolt's refusal of a dolt_stash without a subcommand and
// a stash name.
var errStashArgs = errors.New("error: invalid arguments. Must provide valid subcommand and stash name")

func doltStash(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	if len(args) < 2 {
		return nil, errStashArgs
	}
	sub := args[0]
	a, err := stashSpec.parse(args[1:])
	if err != nil {
		return nil, err
	}
	if len(a.pos) == 0 {
		return nil, errStashArgs
	}
	switch sub {
	case "push", "pop", "apply", "drop", "clear":
	default:
		return nil, fmt.Errorf("unknown stash subcommand %s", sub)
	}
	list := a.pos[0]
	message, index := a.vals["message"], 0
	for _, p := range a.pos[1:] {
		ok := sub != "push" && sub != "clear" && strings.HasPrefix(p, "stash@{") && strings.HasSuffix(p, "}")
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "stash@{"), "}"))
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("error: %s is not a valid reference", p)
		}
		index = n
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	db := d.DB()
	if sub != "push" && sub != "clear" {
		stashes, err := db.Stashes(ctx, list)
		if err != nil {
			return nil, err
		}
		switch {
		case len(stashes) == 0:
			return nil, errors.New("No stash entries found.")
		case index >= len(stashes):
			return nil, fmt.Errorf("fatal: log for 'stash' only has %d entries", len(stashes))
		}
	}
	switch sub {
	case "push":
		author, err := commitIdentity(ctx)
		if err != nil {
			return nil, err
		}
		// Untracked tables stay unless -u (or -a), as in Dolt.
		stash := d.StashTracked
		if a.has("include-untracked") || a.has("all") {
			stash = d.Stash
		}
		err = d.updateBranchWith(ctx, func() error {
			_, err := stash(ctx, list, message, author)
			return err
		})
		if errors.Is(err, verso.ErrNothingToStash) {
			return nil, errors.New("No local changes to save")
		}
		if err != nil {
			return nil, engineError(err)
		}
	case "pop", "apply":
		err := d.updateBranchWith(ctx, func() error {
			_, err := d.StashApply(ctx, list, index, sub == "pop")
			return err
		})
		var sc *verso.StashConflictError
		if errors.As(err, &sc) {
			return nil, fmt.Errorf("error: Your local changes to the following tables would be overwritten by applying stash %d:\n\t{'%s'}\n"+
				"Please commit your changes or stash them before you merge.\nAborting\nThe stash entry is kept in case you need it again.\n", index, strings.Join(sc.Tables, "', '"))
		}
		if err != nil {
			return nil, engineError(err)
		}
	case "drop":
		if _, err := db.StashDrop(ctx, list, index); err != nil {
			return nil, engineError(err)
		}
	case "clear":
		if err := db.StashClear(ctx, list); err != nil {
			return nil, engineError(err)
		}
	}
	return statusRow(0), nil
}
