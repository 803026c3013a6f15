package sqlserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// The plan of one execution of a fast-path statement (see fastpath.go).

// fastSelect is the plan of one execution of a fast-path statement: the
// lookup prepare chose, or, when the fast path does not apply, the
// statement bound and analyzed by the engine at RowIter.
type fastSelect struct {
	f      *fastPath
	t      *fastTemplate
	query  string
	orig   sqlparser.Statement
	values []sql.Expression // the bound key, or the range's ends

	read *fastRead // set by prepare when the fast path applies

	fallback sql.Node // the engine's analyzed plan, once RowIter made it
}

// fastRead is what a fast-path execution reads.
type fastRead struct {
	table  *Table // projected on the columns read
	lookup sql.IndexLookup
	sch    sql.Schema // the result columns, as the engine reports them
	shape  *fastShape
}

// fields returns the description of the result columns for ctx's
// character_set_results (see fastShape.fields).
func (r *fastRead) fields(ctx *sql.Context) []*querypb.Field {
	results := ctx.GetCharacterSetResults()
	if sf := r.shape.fields.Load(); sf != nil && sf.results == results {
		return sf.fields
	}
	fields := ResultFields(ctx, r.sch)
	r.shape.fields.Store(&shapeFields{results: results, fields: fields})
	return fields
}

var _ sql.ExecSourceRel = (*fastSelect)(nil)

func (n *fastSelect) Resolved() bool       { return true }
func (n *fastSelect) IsReadOnly() bool     { return true }
func (n *fastSelect) Children() []sql.Node { return nil }
func (n *fastSelect) String() string       { return "FastSelect(" + n.query + ")" }

func (n *fastSelect) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// Schema implements sql.Node: the result columns of the fast path, or of
// the engine's plan once RowIter made it (the engine asks for the schema
// after building the iterator); nil before that.
func (n *fastSelect) Schema(ctx *sql.Context) sql.Schema {
	if n.read != nil {
		return n.read.sch
	}
	if n.fallback != nil {
		return n.fallback.Schema(ctx)
	}
	return nil
}

// RowIter implements sql.ExecSourceRel.
func (n *fastSelect) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	// The engine counts a statement as a select by its tables.
	sql.IncrementStatusVariable(ctx, "Com_select", 1)
	if n.read != nil {
		iter, err := n.rows(ctx)
		if err == nil {
			n.f.hits.Add(1)
		}
		return iter, err
	}
	analyzed, err := n.plan(ctx)
	if err != nil {
		return nil, err
	}
	n.fallback = analyzed
	return n.f.e.Analyzer.ExecBuilder.Build(ctx, analyzed, row)
}

// plan binds and analyzes the statement as the engine does for any
// prepared statement, with the values already bound.
func (n *fastSelect) plan(ctx *sql.Context) (node sql.Node, err error) {
	// The engine's binder reports some errors by panicking, and recovers
	// them only in its own entry points.
	defer func() {
		if r := recover(); r != nil {
			node, err = nil, fmt.Errorf("%v", r)
		}
	}()
	var bindings map[string]sqlparser.Expr
	if n.t.lo != "" { // placeholders: bind them to the values bound already
		bindings = map[string]sqlparser.Expr{n.t.lo: sqlparser.InjectedExpr{Expression: boundValue{n.values[0]}, Auth: ignoreAuth}}
		if n.t.rng {
			bindings[n.t.hi] = sqlparser.InjectedExpr{Expression: boundValue{n.values[1]}, Auth: ignoreAuth}
		}
	}
	return n.f.e.BoundQueryPlan(ctx, n.query, n.orig, bindings)
}

// ignoreAuth marks the bound values: privileges are the statement's.
var ignoreAuth = sqlparser.AuthInformation{AuthType: sqlparser.AuthType_IGNORE}

// boundValue gives the engine a value it bound already.
type boundValue struct{ e sql.Expression }

func (b boundValue) WithResolvedChildren(context.Context, []any) (any, error) { return b.e, nil }

// prepare decides whether the fast path applies to this execution and
// if so sets n.read.
func (n *fastSelect) prepare(ctx *sql.Context) error {
	t := n.t
	if ok, _ := sql.HasDefaultValue(ctx, ctx.Session, "sql_select_limit"); !ok {
		return nil
	}
	dbName := t.db
	if dbName == "" {
		dbName = ctx.GetCurrentDatabase()
	}
	if dbName == "" || strings.Contains(dbName, "/") {
		return nil
	}
	st, ok := n.f.p.state(dbName)
	if !ok {
		return nil
	}
	db := n.f.p.database(ctx, st)
	tbl, found, err := db.GetTableInsensitive(ctx, t.table)
	if err != nil || !found {
		return nil
	}
	table, ok := tbl.(*Table)
	if !ok || table.name != t.table || table.lookup != nil || table.proj != nil {
		return nil
	}
	sh := t.shape.Load()
	if sh == nil || sh.info != table.info || sh.db != db.Name() {
		old := sh
		if sh, err = n.shape(ctx, db, table); sh == nil || err != nil {
			return err
		}
		sh.takeFields(old)
		t.shape.Store(sh)
	}
	lo, ok := keyValue(ctx, sh.keyType, n.values[0])
	if !ok {
		return nil
	}
	var hi any
	if t.rng {
		if hi, ok = keyValue(ctx, sh.keyType, n.values[1]); !ok {
			return nil
		}
	}
	// The lookup the engine's index builder makes for these filters: one
	// closed range of the key, none when the range is upside down.
	var ranges sql.MySQLRangeCollection
	if !t.rng {
		ranges = sql.MySQLRangeCollection{{sql.ClosedRangeColumnExpr(lo, lo, sh.keyType)}}
	} else if c, err := sh.keyType.Compare(ctx, lo, hi); err != nil {
		return err
	} else if c <= 0 {
		ranges = sql.MySQLRangeCollection{{sql.ClosedRangeColumnExpr(lo, hi, sh.keyType)}}
	}
	lookup := sql.IndexLookup{Index: sh.pk, Ranges: ranges, IsPointLookup: !t.rng}
	pt := *table
	pt.proj = sh.proj
	n.read = &fastRead{table: &pt, lookup: lookup, sch: sh.sch, shape: sh}
	return nil
}

// shape checks that the fast path applies to table (of db) and returns
// its plan for it, or nil when it does not apply. The first time a
// template meets a table schema, it plans the statement as the engine
// does, to learn the result columns.
func (n *fastSelect) shape(ctx *sql.Context, db *Database, table *Table) (*fastShape, error) {
	t := n.t
	s := table.info.t.Schema()
	if s.Keyless() || len(s.PrimaryKey) != 1 {
		return nil, nil
	}
	full := table.info.sch.Schema
	pkCol := full[s.PrimaryKey[0]]
	if pkCol.Name != t.key || !types.IsInteger(pkCol.Type) {
		return nil, nil
	}
	read := t.cols // the columns the scan reads: the selected ones, then the ORDER BY one
	if t.order != "" && !slices.ContainsFunc(t.cols, func(c string) bool { return strings.EqualFold(c, t.order) }) {
		read = append(slices.Clip(t.cols), t.order)
	}
	for _, c := range read {
		if i := full.IndexOfColName(c); i < 0 || full[i].Name != c {
			return nil, nil
		}
	}
	key := db.Name() + "\x00" + table.info.fingerprint()
	sch := t.schema(key)
	if sch == nil {
		// The engine's plan of the statement tells the result columns.
		analyzed, err := n.plan(ctx)
		if err != nil {
			return nil, nil // the fallback reports it
		}
		sch = analyzed.Schema(ctx)
		t.learn(key, sch)
	}
	idxs, err := table.GetIndexes(ctx)
	if err != nil {
		return nil, err
	}
	pk := idxs[0] // GetIndexes lists PRIMARY first
	pt, err := table.WithProjections(ctx, read)
	if err != nil {
		return nil, err
	}
	return &fastShape{info: table.info, db: db.Name(), pk: pk, keyType: pkCol.Type,
		proj: pt.(*Table).proj, sch: sch}, nil
}

// rows returns the rows of a fast-path execution.
func (n *fastSelect) rows(ctx *sql.Context) (sql.RowIter, error) {
	t, r := n.t, n.read
	parts, err := r.table.LookupPartitions(ctx, r.lookup)
	if err != nil {
		return nil, err
	}
	rows := sql.NewTableRowIter(ctx, r.table, parts)
	if !t.sum && !t.dist && t.order == "" {
		return rows, nil
	}
	// Sorting, DISTINCT and SUM are the engine's own operators, over the
	// rows of the scan.
	src := &fastRows{iter: rows, sch: r.table.Schema(ctx)}
	get := func(name string) sql.Expression {
		i := src.sch.IndexOfColName(name)
		c := src.sch[i]
		return expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
	}
	var top sql.Node = src
	dist := t.dist
	if t.order != "" {
		// The sort by precomputed keys (fastsort.go), and with it the
		// DISTINCT of the sorted column alone where it can; else the
		// engine's Sort.
		i := src.sch.IndexOfColName(t.order)
		if ks := newKeySortIter(rows, i, src.sch[i].Type, t.desc, dist && len(src.sch) == 1); ks != nil {
			src.iter, dist = ks, dist && !ks.distinct
		} else {
			o := sql.Ascending
			if t.desc {
				o = sql.Descending
			}
			top = plan.NewSort(sql.SortConditions{{Expr: get(t.order), Order: o}}, top)
		}
	}
	if len(src.sch) > len(t.cols) {
		exprs := make([]sql.Expression, len(t.cols))
		for i, c := range t.cols {
			exprs[i] = get(c)
		}
		top = plan.NewProject(ctx, exprs, top)
	}
	if dist {
		top = plan.NewDistinct(top)
	}
	if t.sum {
		top = plan.NewGroupBy([]sql.Expression{aggregation.NewSum(get(t.cols[0]))}, nil, top)
	}
	iter, err := n.f.e.Analyzer.ExecBuilder.Build(ctx, top, nil)
	if err != nil {
		rows.Close(ctx)
		return nil, err
	}
	return iter, nil
}

// fastRows is the scan under the engine operators of a fast-path plan:
// the rows of one lookup, read once.
type fastRows struct {
	iter sql.RowIter
	sch  sql.Schema
}

var _ sql.ExecSourceRel = (*fastRows)(nil)

func (r *fastRows) Resolved() bool                 { return true }
func (r *fastRows) IsReadOnly() bool               { return true }
func (r *fastRows) Children() []sql.Node           { return nil }
func (r *fastRows) String() string                 { return "FastRows" }
func (r *fastRows) Schema(*sql.Context) sql.Schema { return r.sch }
func (r *fastRows) RowIter(*sql.Context, sql.Row) (sql.RowIter, error) {
	if r.iter == nil {
		return nil, fmt.Errorf("sqlserver: the rows of a fast-path scan were read twice")
	}
	it := r.iter
	r.iter = nil
	return it, nil
}

func (r *fastRows) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 0)
	}
	return r, nil
}

// keyValue converts a bound integer to the key column's type. It reports
// false for anything else (strings, decimals, NULL) and for integers the
// type cannot hold, which the engine's planning handles.
func keyValue(ctx *sql.Context, t sql.Type, e sql.Expression) (any, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return nil, false
	}
	v := lit.Value()
	if !isInteger(v) {
		return nil, false
	}
	c, inRange, err := t.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	return c, true
}
