package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/systables"
)

// The history table functions, as Dolt names them:
//
//	dolt_log(['rev', ...][, '--not', 'rev'][, '--parents'] ...)  (systables.LogQuery)
//	dolt_diff('from', 'to', 'table')   or dolt_diff('from..to', 'table')
//	dolt_diff_stat, dolt_diff_summary, dolt_schema_diff, dolt_patch
//	                                   ('from', 'to'[, 'table']) or ('from..to'[, 'table'])
//	dolt_query_diff('query1', 'query2')
//	dolt_preview_merge_conflicts_summary('ours', 'theirs')
//	dolt_preview_merge_conflicts('ours', 'theirs', 'table')
//	dolt_branch_status('base', 'rev', ...)          (branchstatusfunc.go)
//
// Their arguments must be constants (literals, user variables, or
// expressions of them): the columns of dolt_diff depend on the table and
// those of dolt_query_diff on the queries, so they are fixed when the
// query is planned. difffuncs.go reads the diff functions' arguments.

// historyTableFunctions are the table functions over the commit graph.
var historyTableFunctions = []sql.TableFunction{
	&historyFunc{name: "dolt_log"}, &historyFunc{name: "dolt_diff"},
	&historyFunc{name: systables.DiffStatName}, &historyFunc{name: systables.DiffSummaryName},
	&historyFunc{name: systables.SchemaDiffName}, &historyFunc{name: systables.PatchName},
	&historyFunc{name: queryDiffName},
	&historyFunc{name: systables.PreviewSummaryName}, &historyFunc{name: systables.PreviewConflictsName},
	&historyFunc{name: systables.TestRunName}, &historyFunc{name: branchStatusName},
}

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
	out := &historyFunc{name: f.name, db: d, args: args}
	// The columns are fixed now; the rows are read when the query runs,
	// from the view of that statement (a prepared statement may run
	// later).
	var err error
	switch f.name {
	case "dolt_log":
		var strs []string
		if strs, err = logArgs(ctx, args); err == nil {
			out.rowsFn, out.sch, err = logFunc(ctx, d, strs)
		}
	case "dolt_diff":
		out.rowsFn, out.sch, err = diffFunc(ctx, d, args)
	case queryDiffName:
		out.rowsFn, out.sch, err = queryDiffFunc(ctx, d, args)
	case systables.TestRunName:
		out.rowsFn, out.sch, err = testRunFunc(ctx, d, args)
	case branchStatusName:
		out.rowsFn, out.sch, err = branchStatusFunc(ctx, d, args)
	case systables.PreviewSummaryName, systables.PreviewConflictsName:
		var strs []string
		if err = checkPreviewArgs(ctx, f.name, args); err == nil {
			strs, err = stringArgs(ctx, f.name, args)
		}
		if err == nil && f.name == systables.PreviewSummaryName {
			out.rowsFn, out.sch, err = previewSummaryFunc(ctx, d, strs)
		} else if err == nil {
			out.rowsFn, out.sch, err = previewConflictsFunc(ctx, d, strs)
		}
	default:
		out.rowsFn, out.sch, err = rangeFunc(ctx, d, f.name, args)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// logArgs evaluates dolt_log's arguments: constant strings, a NULL being
// no argument, and anything else refused in Dolt's words.
func logArgs(ctx *sql.Context, args []sql.Expression) ([]string, error) {
	strs := make([]string, 0, len(args))
	for i, a := range args {
		if _, bind := a.(*expression.BindVar); bind || !a.Resolved() {
			return nil, fmt.Errorf("dolt_log: argument %d must be a constant string", i+1)
		}
		if !types.IsText(a.Type(ctx)) {
			return nil, sql.ErrInvalidArgumentDetails.New("dolt_log", a.String())
		}
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("dolt_log: argument %d: %w", i+1, err)
		}
		if v == nil {
			continue // a NULL string is no argument, as Dolt takes it
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("dolt_log: argument %d must be a string, not %v", i+1, v)
		}
		strs = append(strs, s)
	}
	return strs, nil
}

// stringArgs evaluates arguments that must be constant strings.
func stringArgs(ctx *sql.Context, name string, args []sql.Expression) ([]string, error) {
	strs := make([]string, len(args))
	for i, a := range args {
		if _, bind := a.(*expression.BindVar); bind || !a.Resolved() {
			return nil, fmt.Errorf("%s: argument %d must be a constant string", name, i+1)
		}
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", name, i+1, err)
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: argument %d must be a string, not %v", name, i+1, v)
		}
		strs[i] = s
	}
	return strs, nil
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

// logFunc plans dolt_log(args): its warnings are given once, when the
// query is planned; a revision that names nothing fails in Dolt's words.
func logFunc(ctx *sql.Context, d *Database, args []string) (rowsFunc, sql.Schema, error) {
	open := func(ctx *sql.Context) (*systables.LogQuery, error) {
		view, err := d.systemView(ctx)
		if err != nil {
			return nil, err
		}
		q, err := systables.NewLogQuery(ctx, view, "dolt_log", args)
		if rev := (*verso.RevisionError)(nil); errors.As(err, &rev) {
			return nil, revisionError(rev.Rev, rev.Err)
		}
		return q, err
	}
	q, err := open(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range q.Warnings() {
		ctx.Warn(1287, "%s", w)
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		q, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return q.RowIter(ctx)
	}, q.Schema(), nil
}
