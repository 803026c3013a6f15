package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_branch_status('base', 'rev', ...): for each revision after the
// first, how many commits its history has that base's lacks
// (commits_ahead) and base's has that its lacks (commits_behind), as
// Dolt's table function answers: a row per revision, in the order given,
// named as given. The counts are commitgraph.DB.CountUnique's, at a cost
// that follows how far the two histories have diverged. The revisions are
// resolved when the query runs.

const branchStatusName = "dolt_branch_status"

var branchStatusSchema = sql.Schema{
	{Name: "branch", Type: types.Text, Nullable: false, Source: branchStatusName},
	{Name: "commits_ahead", Type: types.Uint64, Nullable: false, Source: branchStatusName},
	{Name: "commits_behind", Type: types.Uint64, Nullable: false, Source: branchStatusName},
}

// branchStatusFunc plans dolt_branch_status(args): the arguments are
// constant strings (a NULL or a number refused in Dolt's words).
func branchStatusFunc(ctx *sql.Context, d *Database, args []sql.Expression) (rowsFunc, sql.Schema, error) {
	if len(args) == 0 {
		return nil, nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(branchStatusName), "at least 1", 0)
	}
	revs := make([]string, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, nil, fmt.Errorf("received '%v' when expecting string", shownValue(v))
		}
		revs[i] = s
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		base, err := resolveRevision(ctx, d, revs[0])
		if err != nil {
			return nil, err
		}
		g := d.st.graph
		rows := make([]sql.Row, 0, len(revs)-1)
		for _, rev := range revs[1:] {
			c, err := resolveRevision(ctx, d, rev)
			if err != nil {
				return nil, err
			}
			ahead, err := g.CountUnique(ctx, c, base)
			if err != nil {
				return nil, err
			}
			behind, err := g.CountUnique(ctx, base, c)
			if err != nil {
				return nil, err
			}
			rows = append(rows, sql.Row{rev, ahead, behind})
		}
		return sql.RowsToRowIter(rows...), nil
	}, branchStatusSchema, nil
}

// shownValue is a value as Dolt's messages show it: <nil> for NULL.
func shownValue(v any) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(v)
}
