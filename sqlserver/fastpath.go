package sqlserver

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Prepared primary-key selects without the engine's planning.
//
// Each execution of a prepared statement costs the engine a bind of the
// statement's syntax tree and a full analysis, even when the statement is
// `SELECT c FROM t WHERE id = ?` and only the value changes: under
// sysbench's oltp_point_select that was over half of the server's CPU.
// The server recognizes, once per statement text, the prepared selects
// whose plan does not depend on the values:
//
//	SELECT col, col, ... FROM [db.]table WHERE pk = ?
//	SELECT col, col, ... FROM [db.]table WHERE pk BETWEEN ? AND ?
//
// (plain column names, no alias, DISTINCT, ORDER BY, LIMIT, locking or
// AS OF), and executes them as a fastSelect node: the engine still runs
// the statement (session, transaction, autocommit, process list, result
// encoding and errors are its own), but the plan is this node, which looks
// the table up in the transaction and reads the key or key range through
// the table's primary-key lookup and column projection, the same reads an
// analyzed plan makes.
//
// The node decides at execution, in the statement's transaction, whether
// the fast path applies: the table must be one of ours with a one-column
// integer primary key named in the WHERE, the selected columns must be
// spelled as in the table, the user must hold SELECT on the table (or its
// database, or globally), the values must be integers within the key
// column's type, and sql_select_limit must be at its default. Anything
// else (a view, a system or information_schema table, a missing table or
// column, a string or NULL value, column privileges only, a revision
// database) runs the statement through the engine's planning as before,
// so errors and results are the engine's own. fastpath_test.go checks the
// two paths give the same schema, rows and errors.

// fastPath holds the templates of prepared statements, by statement text.
type fastPath struct {
	e *sqle.Engine
	p *Provider

	mu    sync.RWMutex
	tmpls map[string]*fastTemplate // nil value: not a fast-path shape

	hits atomic.Int64 // executions the fast path answered itself
}

// maxFastTemplates bounds the template cache: past it the cache starts
// over, so a client preparing endless distinct statements costs a parse
// per new statement, not memory.
const maxFastTemplates = 4096

func newFastPath(e *sqle.Engine, p *Provider) *fastPath {
	return &fastPath{e: e, p: p, tmpls: map[string]*fastTemplate{}}
}

// fastTemplate is a recognized statement: what to read, and which bind
// variables hold the key values.
type fastTemplate struct {
	db    string   // "" for the session's current database
	table string   // as written
	cols  []string // selected columns, as written, in order (for sum: its column)
	sum   bool     // the select list is SUM(cols[0])
	dist  bool     // SELECT DISTINCT
	order string   // the ORDER BY column, as written, or ""
	desc  bool     // ORDER BY ... DESC
	key   string   // the WHERE column, as written
	lo    string   // bind variable of the key, or of the range's low end
	hi    string   // bind variable of the range's high end; "" for equality

	// The engine's result columns for this statement, learned from its
	// planned execution, by table schema (schemaFingerprint): which
	// columns carry their key flag and default depends on the engine's
	// plan (whether it keeps a projection), not only on the table.
	mu      sync.Mutex
	learned map[string]sql.Schema
}

// maxLearned bounds a template's learned schemas (one per table schema it
// ran against; past it they are learned again).
const maxLearned = 16

func (t *fastTemplate) schema(key string) sql.Schema {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.learned[key]
}

func (t *fastTemplate) learn(key string, sch sql.Schema) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.learned == nil || len(t.learned) >= maxLearned {
		t.learned = map[string]sql.Schema{}
	}
	t.learned[key] = sch
}

// template returns the template of query, or nil when its shape is not
// one the fast path runs.
func (f *fastPath) template(query string) *fastTemplate {
	f.mu.RLock()
	t, ok := f.tmpls[query]
	f.mu.RUnlock()
	if ok {
		return t
	}
	t = classify(query)
	f.mu.Lock()
	if len(f.tmpls) >= maxFastTemplates {
		f.tmpls = map[string]*fastTemplate{}
	}
	f.tmpls[query] = t
	f.mu.Unlock()
	return t
}

// classify parses query and returns its template, or nil.
func classify(query string) *fastTemplate {
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return nil
	}
	s, ok := stmt.(*sqlparser.Select)
	if !ok || s.Into != nil || s.With != nil || s.Limit != nil || s.Having != nil || s.Lock != nil && (s.Lock.Type != "" || len(s.Lock.Tables) > 0) ||
		len(s.GroupBy) > 0 || len(s.Window) > 0 || len(s.OrderBy) > 1 || len(s.Comments) > 0 ||
		s.QueryOpts.All || len(s.QueryOpts.DistinctOn) > 0 || s.QueryOpts.StraightJoinHint ||
		s.QueryOpts.SQLCalcFoundRows || s.QueryOpts.SQLCache || s.QueryOpts.SQLNoCache || s.Where == nil || s.Where.Type != sqlparser.WhereStr ||
		len(s.From) != 1 || len(s.SelectExprs) == 0 {
		return nil
	}
	from, ok := s.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || from.AsOf != nil || from.Hints != nil || !from.As.IsEmpty() || len(from.Partitions) > 0 || from.Lateral {
		return nil
	}
	tn, ok := from.Expr.(sqlparser.TableName)
	if !ok || !tn.SchemaQualifier.IsEmpty() {
		return nil
	}
	t := &fastTemplate{db: tn.DbQualifier.String(), table: tn.Name.String(), dist: s.QueryOpts.Distinct}
	seen := map[string]bool{}
	for _, se := range s.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return nil
		}
		if fn, ok := ae.Expr.(*sqlparser.FuncExpr); ok && len(s.SelectExprs) == 1 {
			// SUM(column), the only select expression.
			if !fn.Name.EqualString("sum") || fn.Distinct || fn.Over != nil || !fn.Qualifier.IsEmpty() || len(fn.Exprs) != 1 {
				return nil
			}
			arg, ok := fn.Exprs[0].(*sqlparser.AliasedExpr)
			if !ok || !arg.As.IsEmpty() {
				return nil
			}
			col, ok := t.column(arg.Expr)
			if !ok {
				return nil
			}
			t.cols, t.sum = []string{col}, true
			break
		}
		col, ok := t.column(ae.Expr)
		if !ok || seen[strings.ToLower(col)] {
			return nil
		}
		seen[strings.ToLower(col)] = true
		t.cols = append(t.cols, col)
	}
	if len(s.OrderBy) == 1 {
		o := s.OrderBy[0]
		col, ok := t.column(o.Expr)
		if !ok || t.sum || o.Direction != sqlparser.AscScr && o.Direction != sqlparser.DescScr {
			return nil
		}
		// DISTINCT orders by a selected column only (MySQL's rule).
		if t.dist && !seen[strings.ToLower(col)] {
			return nil
		}
		t.order, t.desc = col, o.Direction == sqlparser.DescScr
	}
	if t.sum && t.dist {
		return nil
	}
	switch w := s.Where.Expr.(type) {
	case *sqlparser.ComparisonExpr:
		if w.Operator != sqlparser.EqualStr || w.Escape != nil {
			return nil
		}
		l, r := w.Left, w.Right
		if _, isArg := l.(*sqlparser.SQLVal); isArg {
			l, r = r, l
		}
		key, ok1 := t.column(l)
		arg, ok2 := bindArg(r)
		if !ok1 || !ok2 {
			return nil
		}
		t.key, t.lo = key, arg
	case *sqlparser.RangeCond:
		if w.Operator != sqlparser.BetweenStr {
			return nil
		}
		key, ok1 := t.column(w.Left)
		lo, ok2 := bindArg(w.From)
		hi, ok3 := bindArg(w.To)
		if !ok1 || !ok2 || !ok3 {
			return nil
		}
		t.key, t.lo, t.hi = key, lo, hi
	default:
		return nil
	}
	return t
}

// column returns the name of e when it is a column of the template's
// table: unqualified, or qualified by the table (and database) as written.
func (t *fastTemplate) column(e sqlparser.Expr) (string, bool) {
	c, ok := e.(*sqlparser.ColName)
	if !ok || c.StoredProcVal != nil {
		return "", false
	}
	q := c.Qualifier
	if !q.IsEmpty() && (q.Name.String() != t.table || q.DbQualifier.String() != t.db && !q.DbQualifier.IsEmpty() || !q.SchemaQualifier.IsEmpty()) {
		return "", false
	}
	return c.Name.String(), true
}

// bindArg returns the name of a `?` placeholder ("v1" for ":v1").
func bindArg(e sqlparser.Expr) (string, bool) {
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.ValArg || len(v.Val) < 2 || v.Val[0] != ':' {
		return "", false
	}
	return string(v.Val[1:]), true
}

// node returns the plan node for an execution of the prepared statement
// query with bindings, or nil when its shape is not a fast-path one.
func (f *fastPath) node(query string, bindings map[string]*querypb.BindVariable) sql.Node {
	t := f.template(query)
	if t == nil {
		return nil
	}
	if bindings[t.lo] == nil || t.hi != "" && bindings[t.hi] == nil {
		return nil
	}
	return &fastSelect{f: f, t: t, query: query, bindings: bindings}
}

// fastSelect is the plan of one execution of a fast-path statement. It is
// resolved in RowIter, in the statement's transaction: Schema answers only
// after that (the engine asks for it after building the iterator).
type fastSelect struct {
	f        *fastPath
	t        *fastTemplate
	query    string
	bindings map[string]*querypb.BindVariable

	sch      sql.Schema // the fast path's result columns, once RowIter chose it
	fallback sql.Node   // the engine's analyzed plan, once RowIter chose it
	learnKey string     // set when the fast path applies but has no schema yet
}

var _ sql.ExecSourceRel = (*fastSelect)(nil)

func (n *fastSelect) Resolved() bool       { return true }
func (n *fastSelect) IsReadOnly() bool     { return true }
func (n *fastSelect) Children() []sql.Node { return nil }
func (n *fastSelect) String() string       { return "FastSelect(" + n.query + ")" }
func (n *fastSelect) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

func (n *fastSelect) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// Schema implements sql.Node: the result columns of whichever path RowIter
// took, nil before it ran.
func (n *fastSelect) Schema(ctx *sql.Context) sql.Schema {
	if n.fallback != nil {
		return n.fallback.Schema(ctx)
	}
	return n.sch
}

// RowIter implements sql.ExecSourceRel.
func (n *fastSelect) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	// What the engine's QueryWithBindings does for every statement.
	sql.IncrementStatusVariable(ctx, "Questions", 1)
	ctx.ClearWarnings()
	iter, sch, err := n.fast(ctx)
	if err != nil {
		return nil, err
	}
	if iter != nil {
		n.sch = sch
		n.f.hits.Add(1)
		sql.IncrementStatusVariable(ctx, "Com_select", 1)
		return iter, nil
	}
	analyzed, err := n.plan(ctx)
	if err != nil {
		return nil, err
	}
	n.fallback = analyzed
	if n.learnKey != "" {
		n.t.learn(n.learnKey, analyzed.Schema(ctx))
	}
	if plan.NodeRepresentsSelect(ctx, analyzed) {
		sql.IncrementStatusVariable(ctx, "Com_select", 1)
	}
	return n.f.e.Analyzer.ExecBuilder.Build(ctx, analyzed, row)
}

// plan binds and analyzes the statement as the engine does for any
// prepared statement.
func (n *fastSelect) plan(ctx *sql.Context) (sql.Node, error) {
	parsed, ok := ctx.Session.GetPreparedQuery(n.query)
	if !ok {
		var err error
		parsed, _, err = n.f.e.Parser.ParseOneWithOptions(ctx, n.query, sql.LoadSqlMode(ctx).ParserOptions())
		if err != nil {
			return nil, err
		}
	}
	exprs := make(map[string]sqlparser.Expr, len(n.bindings))
	for name, bv := range n.bindings {
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return nil, err
		}
		if exprs[name], err = sqlparser.ExprFromValue(v); err != nil {
			return nil, err
		}
	}
	return n.f.e.BoundQueryPlan(ctx, n.query, parsed, exprs)
}

// fast returns the rows and schema of the fast path, or a nil iterator
// when it does not apply to this execution.
func (n *fastSelect) fast(ctx *sql.Context) (sql.RowIter, sql.Schema, error) {
	t := n.t
	if ok, _ := sql.HasDefaultValue(ctx, ctx.Session, "sql_select_limit"); !ok {
		return nil, nil, nil
	}
	dbName := t.db
	if dbName == "" {
		dbName = ctx.GetCurrentDatabase()
	}
	if dbName == "" || strings.Contains(dbName, "/") {
		return nil, nil, nil
	}
	st, ok := n.f.p.state(dbName)
	if !ok {
		return nil, nil, nil
	}
	db := n.f.p.database(ctx, st)
	st2, found, err := db.GetTableInsensitive(ctx, t.table)
	if err != nil || !found {
		return nil, nil, nil
	}
	table, ok := st2.(*Table)
	if !ok || table.name != t.table || table.lookup != nil || table.proj != nil {
		return nil, nil, nil
	}
	if mdb := n.f.e.Analyzer.Catalog.MySQLDb; mdb != nil && mdb.Enabled() {
		op := sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db.Name(), Table: table.name}, sql.PrivilegeType_Select)
		if !mdb.UserHasPrivileges(ctx, op) {
			return nil, nil, nil
		}
	}
	s := table.info.t.Schema()
	if s.Keyless() || len(s.PrimaryKey) != 1 {
		return nil, nil, nil
	}
	full := table.info.sch.Schema
	pkCol := full[s.PrimaryKey[0]]
	if pkCol.Name != t.key || !types.IsInteger(pkCol.Type) {
		return nil, nil, nil
	}
	read := t.cols // the columns the scan reads: the selected ones, then the ORDER BY one
	if t.order != "" && !slices.ContainsFunc(t.cols, func(c string) bool { return strings.EqualFold(c, t.order) }) {
		read = append(slices.Clip(t.cols), t.order)
	}
	for _, c := range read {
		if i := full.IndexOfColName(c); i < 0 || full[i].Name != c {
			return nil, nil, nil
		}
	}
	key := db.Name() + "\x00" + table.info.fingerprint()
	sch := t.schema(key)
	if sch == nil {
		n.learnKey = key
		return nil, nil, nil
	}
	lo, ok := keyValue(ctx, pkCol.Type, n.bindings[t.lo])
	if !ok {
		return nil, nil, nil
	}
	var hi any
	if t.hi != "" {
		if hi, ok = keyValue(ctx, pkCol.Type, n.bindings[t.hi]); !ok {
			return nil, nil, nil
		}
	}

	idxs, err := table.GetIndexes(ctx)
	if err != nil {
		return nil, nil, err
	}
	pk := idxs[0] // GetIndexes lists PRIMARY first
	b := sql.NewMySQLIndexBuilder(ctx, pk)
	keyExpr := pk.Expressions()[0]
	if t.hi == "" {
		b = b.Equals(ctx, keyExpr, pkCol.Type, lo)
	} else {
		b = b.GreaterOrEqual(ctx, keyExpr, pkCol.Type, lo).LessOrEqual(ctx, keyExpr, pkCol.Type, hi)
	}
	lookup, err := b.Build(ctx)
	if err != nil {
		return nil, nil, err
	}
	pt, err := table.WithProjections(ctx, read)
	if err != nil {
		return nil, nil, err
	}
	parts, err := pt.(*Table).LookupPartitions(ctx, lookup)
	if err != nil {
		return nil, nil, err
	}
	rows := sql.NewTableRowIter(ctx, pt, parts)
	if !t.sum && !t.dist && t.order == "" {
		return rows, sch, nil
	}
	// Sorting, DISTINCT and SUM are the engine's own operators, over the
	// rows of the scan.
	src := &fastRows{iter: rows, sch: pt.Schema(ctx)}
	get := func(name string) sql.Expression {
		i := src.sch.IndexOfColName(name)
		c := src.sch[i]
		return expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
	}
	var top sql.Node = src
	if t.order != "" {
		o := sql.Ascending
		if t.desc {
			o = sql.Descending
		}
		top = plan.NewSort(sql.SortConditions{{Expr: get(t.order), Order: o}}, top)
	}
	if len(read) > len(t.cols) {
		exprs := make([]sql.Expression, len(t.cols))
		for i, c := range t.cols {
			exprs[i] = get(c)
		}
		top = plan.NewProject(ctx, exprs, top)
	}
	if t.dist {
		top = plan.NewDistinct(top)
	}
	if t.sum {
		top = plan.NewGroupBy([]sql.Expression{aggregation.NewSum(get(t.cols[0]))}, nil, top)
	}
	iter, err := n.f.e.Analyzer.ExecBuilder.Build(ctx, top, nil)
	if err != nil {
		rows.Close(ctx)
		return nil, nil, err
	}
	return iter, sch, nil
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
func keyValue(ctx *sql.Context, t sql.Type, bv *querypb.BindVariable) (any, bool) {
	if bv == nil {
		return nil, false
	}
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return nil, false
	}
	var x any
	switch {
	case v.IsSigned():
		i, err := sqltypes.ToInt64(v)
		if err != nil {
			return nil, false
		}
		x = i
	case v.IsUnsigned():
		u, err := sqltypes.ToUint64(v)
		if err != nil {
			return nil, false
		}
		x = u
	default:
		return nil, false
	}
	c, inRange, err := t.Convert(ctx, x)
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	return c, true
}

// fingerprint returns a text that differs between any two table schemas
// whose result columns could differ.
func (info *tableInfo) fingerprint() string {
	info.fpOnce.Do(func() {
		var b strings.Builder
		for _, c := range info.sch.Schema {
			fmt.Fprintf(&b, "%q %q %q %s %v %v %v %v %v %v %v %q %q %q;", c.Name, c.Source, c.DatabaseSource, c.Type,
				c.Nullable, c.PrimaryKey, c.AutoIncrement, c.Virtual, c.Hidden, c.HiddenSystem, c.Default != nil, c.Default, c.Generated, c.OnUpdate)
		}
		info.fp = b.String()
	})
	return info.fp
}

func (t *fastTemplate) String() string {
	what := fmt.Sprint(t.cols)
	if t.sum {
		what = "sum" + what
	}
	if t.dist {
		what = "distinct " + what
	}
	if t.order != "" {
		what += " order by " + t.order
		if t.desc {
			what += " desc"
		}
	}
	if t.hi == "" {
		return fmt.Sprintf("%s.%s %s where %s = :%s", t.db, t.table, what, t.key, t.lo)
	}
	return fmt.Sprintf("%s.%s %s where %s between :%s and :%s", t.db, t.table, what, t.key, t.lo, t.hi)
}
