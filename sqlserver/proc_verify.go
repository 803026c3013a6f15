package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// CALL dolt_verify_constraints(['-a' | '--all'] [, '-o' | '--output-only']
// [, table...]) -> violations
//
// checks the foreign keys and CHECK constraints of the working set's
// tables (all of them, or those named and the children of their foreign
// keys), as Dolt's does: the rows changed since the head commit, or every
// row with --all. The violations it finds are recorded in the working
// root (dolt_constraint_violations_<t>), unless --output-only; the
// transaction then commits only with @@dolt_force_transaction_commit.
// Its one row is 1 if it found violations, else 0.

var verifyProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_verify_constraints", Schema: verifySchema, Function: doltVerifyConstraints},
}

var (
	verifySchema = sql.Schema{{Name: "violations", Type: types.Int64, Nullable: false}}
	verifySpec   = optSpec{proc: "dolt_verify_constraints", opts: map[string]bool{"all": false, "output-only": false}, shorts: map[byte]string{'a': "all", 'o': "output-only"}}
)

func doltVerifyConstraints(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := verifySpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	root := d.Root()
	names := a.pos
	for _, n := range names {
		if _, _, ok, err := verso.FindTable(ctx, root, n); err != nil {
			return nil, err
		} else if !ok {
			return nil, sql.ErrTableNotFound.New(n)
		}
	}
	if len(names) == 0 {
		ents, err := root.Entries(ctx, commitgraph.TablePrefix)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			names = append(names, strings.TrimPrefix(e.Name, commitgraph.TablePrefix))
		}
	}
	var related []string // the tables' exact names
	for _, n := range names {
		exact, _, _, err := verso.FindTable(ctx, root, n)
		if err != nil {
			return nil, err
		}
		related = append(related, exact)
	}
	var prior *commitgraph.RootValue
	if !a.has("all") {
		head, _, err := d.st.graph.BranchState(ctx, d.Branch())
		if err != nil {
			return nil, err
		}
		hr, err := d.st.graph.OpenRoot(ctx, head.Root)
		if err != nil {
			return nil, err
		}
		prior = &hr
	}
	found, err := newViolations(ctx, db, root, prior, related, chunks.Address{})
	if err != nil {
		return nil, fmt.Errorf("dolt_verify_constraints: %w", err)
	}
	if len(found) == 0 {
		return sql.RowsToRowIter(sql.Row{int64(0)}), nil
	}
	if !a.has("output-only") {
		r, err := recordViolations(ctx, d.st.graph.NodeStore(), root, found)
		if err != nil {
			return nil, err
		}
		d.SetRoot(r)
	}
	return sql.RowsToRowIter(sql.Row{int64(1)}), nil
}
