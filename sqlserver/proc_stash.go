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
//	CALL dolt_stash('push', 'name' [, '-m', 'message'])
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

func doltStash(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	if len(args) < 2 {
		return nil, errors.New("dolt_stash: invalid arguments: give a subcommand (push, pop, apply, drop or clear) and a stash name, as in dolt_stash('push', 'mystash')")
	}
	sub, list, rest := strings.ToLower(args[0]), args[1], args[2:]
	message, index := "", 0
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case (a == "-m" || a == "--message") && sub == "push" && i+1 < len(rest):
			message = rest[i+1]
			i++
		case strings.HasPrefix(a, "stash@{") && strings.HasSuffix(a, "}") && sub != "push" && sub != "clear":
			n, err := strconv.Atoi(a[len("stash@{") : len(a)-1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("dolt_stash: %q is not a stash (stash@{0} is the newest)", a)
			}
			index = n
		default:
			return nil, fmt.Errorf("dolt_stash: unexpected argument %q to %s", a, sub)
		}
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	db := d.DB()
	switch sub {
	case "push":
		author, err := commitIdentity(ctx)
		if err != nil {
			return nil, err
		}
		err = d.updateBranchWith(ctx, func() error {
			_, err := d.Stash(ctx, list, message, author)
			return err
		})
		if errors.Is(err, verso.ErrNothingToStash) {
			return nil, errors.New("dolt_stash: no local changes to save")
		}
		if err != nil {
			return nil, engineError(err)
		}
	case "pop", "apply":
		if err := d.updateBranchWith(ctx, func() error {
			_, err := d.StashApply(ctx, list, index, sub == "pop")
			return err
		}); err != nil {
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
	default:
		return nil, fmt.Errorf("dolt_stash: %q is not a subcommand: give push, pop, apply, drop or clear", args[0])
	}
	return statusRow(0), nil
}
