package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// dolt_clean, dolt_rm and dolt_count_commits, as Dolt's:
//
//	CALL dolt_clean(['--dry-run'] [, '-x'] [, table, ...])
//	                   drop the untracked tables (new, never staged) but
//	                   those dolt_ignore ignores (-x: those too), or those
//	                   named
//	CALL dolt_rm(['--cached',] table, ...)
//	                   drop tables and stage their removal (--cached: from
//	                   the staged root only)
//	CALL dolt_count_commits('--from', rev, '--to', rev)
//	                   ahead: commits of from's history not in to's;
//	                   behind: the reverse

var cleanProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_clean", Schema: statusSchema, Function: doltClean},
	{Name: "dolt_rm", Schema: statusSchema, Function: doltRm},
	{Name: "dolt_count_commits", Schema: countCommitsSchema, Function: doltCountCommits},
}

var countCommitsSchema = sql.Schema{
	{Name: "ahead", Type: types.Uint64, Nullable: false},
	{Name: "behind", Type: types.Uint64, Nullable: false},
}

var (
	cleanSpec = optSpec{proc: "dolt_clean", opts: map[string]bool{"dry-run": false, "x": false}, shorts: map[byte]string{'x': "x"}}
	rmSpec    = optSpec{proc: "dolt_rm", opts: map[string]bool{"cached": false}}
	countSpec = optSpec{proc: "dolt_count_commits", opts: map[string]bool{"from": true, "to": true}, shorts: map[byte]string{'f': "from", 't': "to"}}
)

func doltClean(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := cleanSpec.parse(args)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	opts := verso.CleanOptions{Tables: a.pos, DryRun: a.has("dry-run"), IncludeIgnored: a.has("x")}
	err = d.updateBranchWith(ctx, func() error {
		_, err := d.Clean(ctx, opts)
		return err
	})
	var nt *verso.TableNotFoundError
	if errors.As(err, &nt) {
		return nil, fmt.Errorf("failed to clean; table not found: '%s'", nt.Table)
	}
	if err != nil {
		return nil, engineError(err)
	}
	return statusRow(0), nil
}

func doltRm(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := rmSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if len(a.pos) == 0 {
		return nil, errors.New("Nothing specified, nothing removed. Which tables should I remove?")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range a.pos {
		if _, _, ok, err := verso.FindTable(ctx, d.Root(), n); err != nil {
			return nil, err
		} else if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("error: the table(s) %s do not exist", strings.Join(missing, ", "))
	}
	err = d.updateBranchWith(ctx, func() error { return d.Remove(ctx, a.pos, a.has("cached")) })
	var re *verso.RemoveError
	switch {
	case errors.As(err, &re) && re.Staged:
		return nil, fmt.Errorf("error: the table(s) %s have changes saved in the index. Use --cached or commit.", strings.Join(re.Tables, ", "))
	case errors.As(err, &re):
		return nil, fmt.Errorf("error: the table(s) %s have unstaged changes.", strings.Join(re.Tables, ", "))
	case err != nil:
		return nil, engineError(err)
	}
	return statusRow(0), nil
}

// doltCountCommits counts the commits each of two revisions has that the
// other lacks. Dolt 2.3.1 counts first-parent steps to the merge base
// instead, which undercounts after merges; verso counts the commits
// (commitgraph.DB.CountUnique), at a cost that follows the divergence.
func doltCountCommits(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := countSpec.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case !a.has("from"):
		return nil, errors.New("missing from ref")
	case !a.has("to"):
		return nil, errors.New("missing to ref")
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	from, err := resolveRevision(ctx, db, a.vals["from"])
	if err != nil {
		return nil, err
	}
	to, err := resolveRevision(ctx, db, a.vals["to"])
	if err != nil {
		return nil, err
	}
	g := db.st.graph
	ahead, err := g.CountUnique(ctx, from, to)
	if err != nil {
		return nil, err
	}
	behind, err := g.CountUnique(ctx, to, from)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(sql.Row{ahead, behind}), nil
}
