package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/verso-db/verso/systables"
)

// The history table functions, as Dolt names them:
//
//	dolt_log(['rev', ...][, '--not', 'rev'][, '--parents'] ...)
//	dolt_diff('from', 'to', 'table')   or dolt_diff('from..to', 'table')
//	dolt_preview_merge_conflicts_summary('ours', 'theirs')
//	dolt_preview_merge_conflicts('ours', 'theirs', 'table')
//
// Their arguments must be constants (string literals or expressions of
// them): the columns of dolt_diff depend on the table, so they are fixed
// when the query is planned.

// historyTableFunctions are the table functions over the commit graph.
var historyTableFunctions = []sql.TableFunction{&historyFunc{name: "dolt_log"}, &historyFunc{name: "dolt_diff"},
	&historyFunc{name: systables.PreviewSummaryName}, &historyFunc{name: systables.PreviewConflictsName}}

// historyFunc is an instance of dolt_log(...) or dolt_diff(...).
type historyFunc struct {
	name   string
	db     *Database
	args   []sql.Expression
	sch    sql.Schema
	rowsFn func(ctx *sql.Context) (sql.RowIter, error)
}

var (
	_ sql.TableFunction = (*historyFunc)(nil)
	_ sql.ExecSourceRel = (*historyFunc)(nil)
)

// unwrapDatabase returns the verso database under db (the engine wraps
// databases for privilege checks).
func unwrapDatabase(db sql.Database) (*Database, bool) {
	for db != nil {
		if d, ok := db.(*Database); ok {
			return d, true
		}
		u, ok := db.(interface{ Unwrap() sql.Database })
		if !ok {
			return nil, false
		}
		db = u.Unwrap()
	}
	return nil, false
}

// NewInstance implements sql.TableFunction.
func (f *historyFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	d, ok := unwrapDatabase(db)
	if !ok || d.temp {
		return nil, fmt.Errorf("%s: no verso database selected (USE one first)", f.name)
	}
	if err := checkPreviewArgs(ctx, f.name, args); err != nil {
		return nil, err
	}
	strs := make([]string, len(args))
	for i, a := range args {
		if _, bind := a.(*expression.BindVar); bind || !a.Resolved() {
			return nil, fmt.Errorf("%s: argument %d must be a constant string", f.name, i+1)
		}
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", f.name, i+1, err)
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: argument %d must be a string, not %v", f.name, i+1, v)
		}
		strs[i] = s
	}
	out := &historyFunc{name: f.name, db: d, args: args}
	// The columns are fixed now; the rows are read when the query runs,
	// from the view of that statement (a prepared statement may run
	// later).
	var err error
	switch f.name {
	case "dolt_log":
		out.rowsFn, out.sch, err = logFunc(ctx, d, strs)
	case "dolt_diff":
		out.rowsFn, out.sch, err = diffFunc(ctx, d, strs)
	case systables.PreviewSummaryName:
		out.rowsFn, out.sch, err = previewSummaryFunc(ctx, d, strs)
	case systables.PreviewConflictsName:
		out.rowsFn, out.sch, err = previewConflictsFunc(ctx, d, strs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *historyFunc) Name() string { return f.name }

func (f *historyFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", f.name, strings.Join(parts, ", "))
}

func (f *historyFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *historyFunc) IsReadOnly() bool                            { return true }
func (f *historyFunc) Schema(*sql.Context) sql.Schema              { return f.sch }
func (f *historyFunc) Children() []sql.Node                        { return nil }
func (f *historyFunc) Expressions() []sql.Expression               { return f.args }
func (f *historyFunc) Collation() sql.CollationID                  { return sql.Collation_Default }
func (f *historyFunc) Database() sql.Database                      { return f.db }
func (f *historyFunc) WithDatabase(sql.Database) (sql.Node, error) { return f, nil }

func (f *historyFunc) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *historyFunc) WithExpressions(_ *sql.Context, exprs ...sql.Expression) (sql.Node, error) {
	if len(exprs) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(exprs), len(f.args))
	}
	n := *f
	n.args = exprs
	return &n, nil
}

// RowIter implements sql.ExecSourceRel.
func (f *historyFunc) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	if f.rowsFn == nil {
		return nil, fmt.Errorf("%s: not instantiated", f.name)
	}
	return f.rowsFn(ctx)
}

type rowsFunc = func(ctx *sql.Context) (sql.RowIter, error)

func logFunc(ctx *sql.Context, d *Database, args []string) (rowsFunc, sql.Schema, error) {
	open := func(ctx *sql.Context) (*systables.LogQuery, error) {
		view, err := d.systemView(ctx)
		if err != nil {
			return nil, err
		}
		return systables.NewLogQuery(ctx, view, "dolt_log", args)
	}
	q, err := open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		q, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return q.RowIter(ctx)
	}, q.Schema(), nil
}

func diffFunc(ctx *sql.Context, d *Database, args []string) (rowsFunc, sql.Schema, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, nil, fmt.Errorf("%w: dolt_diff takes ('from', 'to', 'table') or ('from..to', 'table'), not %d arguments",
			systables.ErrBadArgument, len(args))
	}
	open := func(ctx *sql.Context) (*systables.TableDiff, error) {
		view, err := d.systemView(ctx)
		if err != nil {
			return nil, err
		}
		if len(args) == 2 {
			return systables.NewTableDiff(ctx, view, "dolt_diff", args[0], "", args[1])
		}
		return systables.NewTableDiff(ctx, view, "dolt_diff", args[0], args[1], args[2])
	}
	td, err := open(ctx)
	if err != nil {
		return nil, nil, err
	}
	sch := td.Schema()
	return func(ctx *sql.Context) (sql.RowIter, error) {
		td, err := open(ctx)
		if err != nil {
			return nil, err
		}
		if len(td.Schema()) != len(sch) {
			return nil, fmt.Errorf("dolt_diff: the table's columns changed since the query was planned; run it again")
		}
		rows, err := td.Rows(ctx)
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(rows...), nil
	}, sch, nil
}
