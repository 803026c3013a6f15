package sqlserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Prepared primary-key selects without the engine's planning.
//
// Each execution of a statement costs the engine a bind of its syntax tree
// and a full analysis, even when the statement is `SELECT c FROM t WHERE
// id = ?` and only the value changes: under sysbench's oltp_point_select
// that was over half of the server's CPU. The server recognizes the
// selects whose plan does not depend on the values:
//
//	SELECT col, ... FROM [db.]table WHERE pk = ?
//	SELECT col, ... FROM [db.]table WHERE pk BETWEEN ? AND ?
//	  ... with DISTINCT, or ORDER BY one column [ASC|DESC]
//	SELECT SUM(col) FROM [db.]table WHERE pk = ? | pk BETWEEN ? AND ?
//
// (plain column names, no alias, LIMIT, locking, hints, comments or AS
// OF), with `?` placeholders in a prepared statement (recognized once per
// statement text) or unsigned integer literals in a text query (the
// server's engine parses through fastParser). For these the engine gets an
// injected statement in place of the parsed one: a server session hands it
// out for a prepared statement (Session.GetPreparedQuery), the parser for
// a text query. The engine still runs
// the statement from end to end: it binds the placeholders, checks the
// user's SELECT privilege on the table exactly as for the parsed
// statement, opens the transaction, commits it under autocommit, and
// reports errors and results. What changes is the plan: a fastSelect node,
// which looks the table up in the statement's transaction and reads the
// key or key range through the table's primary-key lookup and column
// projection (the reads an analyzed plan makes), with the engine's own
// Sort, Distinct and GroupBy operators above it for ORDER BY, DISTINCT and
// SUM. The engine's analyzer rules pass the node through untouched, and a
// rule of ours tells the server a key lookup or sum returns one row, so it
// sends the row without its row-spooling goroutines.
//
// Whether the fast path applies is decided per execution, as the node is
// built: the table must be one of ours with a one-column integer primary
// key named in the WHERE, the columns must be spelled as in the table, the
// values must be integers within the key column's type, and
// sql_select_limit must be at its default. Anything else (a view, a system
// or information_schema table, a missing table or column, a string or NULL
// value, a revision database) runs the parsed statement through the
// engine's planning, so errors and results are the engine's own. The
// result columns are learned from the engine: the first execution against
// each table schema also plans the statement, and the plan's result schema
// (whose key flags and defaults depend on the engine's plan) is kept for
// the later ones.
// fastpath_test.go checks both paths give the same columns, rows and
// errors, in process and through a MySQL client, with schema changes and
// users of every privilege level between executions.

// fastPath holds the templates of prepared statements, by statement text.
type fastPath struct {
	e *sqle.Engine
	p *Provider

	mu    sync.RWMutex
	tmpls map[string]*fastTemplate // by prepared statement text; nil value: not a fast-path shape
	texts map[string]*fastTemplate // text queries' templates, by shape (fastTemplate.String)

	hits atomic.Int64 // executions the fast path answered itself
}

// maxFastTemplates bounds the template cache: past it the cache starts
// over, so a client preparing endless distinct statements costs a parse
// per new statement, not memory.
const maxFastTemplates = 4096

// newFastPath returns the fast path of prepared statements over engine e
// of p (text queries take it only on an engine from newFastEngine).
func newFastPath(e *sqle.Engine, p *Provider) *fastPath {
	f := &fastPath{e: e, p: p, tmpls: map[string]*fastTemplate{}, texts: map[string]*fastTemplate{}}
	f.install()
	return f
}

// newFastEngine returns an engine over p whose parser gives text queries
// of the fast path's shapes to the fast path, and the fast path (which
// sessions need for prepared statements).
func newFastEngine(p *Provider) (*sqle.Engine, *fastPath) {
	f := &fastPath{p: p, tmpls: map[string]*fastTemplate{}, texts: map[string]*fastTemplate{}}
	a := analyzer.NewBuilder(p).AddOverrides(sql.EngineOverrides{
		Builder: sql.BuilderOverrides{Parser: fastParser{Parser: sql.NewMysqlParser(), f: f}},
	}).Build()
	f.e = sqle.New(a, nil)
	f.install()
	return f.e, f
}

// fastPathRule is the id of max1Row among the analyzer's rules (past the
// engine's own ids).
const fastPathRule analyzer.RuleId = 100000

// install adds max1Row to the engine's analyzer, and makes the engine's
// own rules pass a fast-path plan through untouched (it has no
// expressions or tables for them, and running them cost more than the
// lookup itself). Installing twice does nothing.
func (f *fastPath) install() {
	a := f.e.Analyzer
	for _, b := range a.Batches {
		for _, r := range b.Rules {
			if r.Id == fastPathRule {
				return
			}
		}
	}
	batches := make([]*analyzer.Batch, 0, len(a.Batches)+1)
	for _, b := range a.Batches {
		nb := *b
		nb.Rules = make([]analyzer.Rule, len(b.Rules))
		for i, r := range b.Rules {
			apply := r.Apply
			r.Apply = func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
				if _, ok := n.(*fastSelect); ok {
					return n, transform.SameTree, nil
				}
				return apply(ctx, a, n, scope, sel, qFlags)
			}
			nb.Rules[i] = r
		}
		batches = append(batches, &nb)
	}
	a.Batches = append(batches, &analyzer.Batch{
		Desc:       "verso fast path",
		Iterations: 1,
		Rules:      []analyzer.Rule{{Id: fastPathRule, Apply: max1Row}},
	})
}

// fastTemplate is a recognized statement: what to read, and which bind
// variables hold the key values.
type fastTemplate struct {
	db    string                    // "" for the session's current database
	table string                    // as written
	cols  []string                  // selected columns, as written, in order (for sum: its column)
	sum   bool                      // the select list is SUM(cols[0])
	dist  bool                      // SELECT DISTINCT
	order string                    // the ORDER BY column, as written, or ""
	desc  bool                      // ORDER BY ... DESC
	key   string                    // the WHERE column, as written
	auth  sqlparser.AuthInformation // the table's, from the parse: what the engine checks
	rng   bool                      // WHERE key BETWEEN lo AND hi; else WHERE key = lo
	lo    string                    // placeholder of the key, or of the range's low end; "" for a literal
	hi    string                    // placeholder of the range's high end, or ""

	// The engine's result columns for this statement, learned from its
	// planned execution, by table schema (schemaFingerprint): which
	// columns carry their key flag and default depends on the engine's
	// plan (whether it keeps a projection), not only on the table.
	mu      sync.Mutex
	learned map[string]sql.Schema

	// shape is what prepare worked out for the table value it last ran
	// on: reused while executions find the same one (reads do not change
	// it; every write to the table does).
	shape atomic.Pointer[fastShape]
}

// fastShape is a template's plan for one table value of one database.
type fastShape struct {
	info    *tableInfo
	db      string
	pk      sql.Index
	keyType sql.Type
	proj    *projection // the columns read
	sch     sql.Schema  // the result columns
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

// classify parses the prepared statement query and returns its template,
// or nil.
func classify(query string) *fastTemplate {
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return nil
	}
	t, _ := shapeOf(stmt, true)
	return t
}

// shapeOf returns the template of stmt, or nil, and the expressions that
// hold its key values: `?` placeholders (whose names the template keeps)
// when placeholders is set, else unsigned integer literals.
func shapeOf(stmt sqlparser.Statement, placeholders bool) (*fastTemplate, sqlparser.Exprs) {
	arg := func(e sqlparser.Expr) (string, bool) {
		if placeholders {
			return bindArg(e)
		}
		v, ok := e.(*sqlparser.SQLVal)
		return "", ok && v.Type == sqlparser.IntVal
	}
	s, ok := stmt.(*sqlparser.Select)
	if !ok || s.Into != nil || s.With != nil || s.Limit != nil || s.Having != nil || s.Lock != nil && (s.Lock.Type != "" || len(s.Lock.Tables) > 0) ||
		len(s.GroupBy) > 0 || len(s.Window) > 0 || len(s.OrderBy) > 1 || len(s.Comments) > 0 ||
		s.QueryOpts.All || len(s.QueryOpts.DistinctOn) > 0 || s.QueryOpts.StraightJoinHint ||
		s.QueryOpts.SQLCalcFoundRows || s.QueryOpts.SQLCache || s.QueryOpts.SQLNoCache || s.Where == nil || s.Where.Type != sqlparser.WhereStr ||
		len(s.From) != 1 || len(s.SelectExprs) == 0 {
		return nil, nil
	}
	from, ok := s.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || from.AsOf != nil || from.Hints != nil || !from.As.IsEmpty() || len(from.Partitions) > 0 || from.Lateral {
		return nil, nil
	}
	tn, ok := from.Expr.(sqlparser.TableName)
	if !ok || !tn.SchemaQualifier.IsEmpty() {
		return nil, nil
	}
	t := &fastTemplate{db: tn.DbQualifier.String(), table: tn.Name.String(), dist: s.QueryOpts.Distinct, auth: from.Auth}
	seen := map[string]bool{}
	for _, se := range s.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return nil, nil
		}
		if fn, ok := ae.Expr.(*sqlparser.FuncExpr); ok && len(s.SelectExprs) == 1 {
			// SUM(column), the only select expression.
			if !fn.Name.EqualString("sum") || fn.Distinct || fn.Over != nil || !fn.Qualifier.IsEmpty() || len(fn.Exprs) != 1 {
				return nil, nil
			}
			arg, ok := fn.Exprs[0].(*sqlparser.AliasedExpr)
			if !ok || !arg.As.IsEmpty() {
				return nil, nil
			}
			col, ok := t.column(arg.Expr)
			if !ok {
				return nil, nil
			}
			t.cols, t.sum = []string{col}, true
			break
		}
		col, ok := t.column(ae.Expr)
		if !ok || seen[strings.ToLower(col)] {
			return nil, nil
		}
		seen[strings.ToLower(col)] = true
		t.cols = append(t.cols, col)
	}
	if len(s.OrderBy) == 1 {
		o := s.OrderBy[0]
		col, ok := t.column(o.Expr)
		if !ok || t.sum || o.Direction != sqlparser.AscScr && o.Direction != sqlparser.DescScr {
			return nil, nil
		}
		// DISTINCT orders by a selected column only (MySQL's rule).
		if t.dist && !seen[strings.ToLower(col)] {
			return nil, nil
		}
		t.order, t.desc = col, o.Direction == sqlparser.DescScr
	}
	if t.sum && t.dist {
		return nil, nil
	}
	var args sqlparser.Exprs
	switch w := s.Where.Expr.(type) {
	case *sqlparser.ComparisonExpr:
		if w.Operator != sqlparser.EqualStr || w.Escape != nil {
			return nil, nil
		}
		l, r := w.Left, w.Right
		if _, isArg := l.(*sqlparser.SQLVal); isArg {
			l, r = r, l
		}
		key, ok1 := t.column(l)
		name, ok2 := arg(r)
		if !ok1 || !ok2 {
			return nil, nil
		}
		t.key, t.lo = key, name
		args = sqlparser.Exprs{r}
	case *sqlparser.RangeCond:
		if w.Operator != sqlparser.BetweenStr {
			return nil, nil
		}
		key, ok1 := t.column(w.Left)
		lo, ok2 := arg(w.From)
		hi, ok3 := arg(w.To)
		if !ok1 || !ok2 || !ok3 {
			return nil, nil
		}
		t.key, t.lo, t.hi, t.rng = key, lo, hi, true
		args = sqlparser.Exprs{w.From, w.To}
	default:
		return nil, nil
	}
	return t, args
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

// inject returns the statement the engine binds for an execution of the
// prepared statement query (parsed as orig), or nil when its shape is not
// a fast-path one. The engine binds the placeholders, checks the user's
// SELECT privilege on the table as for orig, and builds a fastSelect.
func (f *fastPath) inject(query string, orig sqlparser.Statement) sqlparser.Statement {
	t := f.template(query)
	if t == nil {
		return nil
	}
	args := sqlparser.Exprs{sqlparser.NewValArg([]byte(":" + t.lo))}
	if t.rng {
		args = append(args, sqlparser.NewValArg([]byte(":"+t.hi)))
	}
	return sqlparser.InjectedStatement{
		Auth:      t.auth,
		Statement: &fastStatement{f: f, t: t, query: query, orig: orig},
		Children:  args,
	}
}

// injectText returns the statement the engine binds for the text query
// (parsed as orig), or nil when its shape is not a fast-path one: as
// inject, with the key values the query's integer literals.
func (f *fastPath) injectText(query string, orig sqlparser.Statement) sqlparser.Statement {
	t, args := shapeOf(orig, false)
	if t == nil {
		return nil
	}
	// Queries of one shape share a template (its learned columns and
	// plans), whatever their values.
	key := t.String()
	f.mu.RLock()
	shared, ok := f.texts[key]
	f.mu.RUnlock()
	if !ok {
		f.mu.Lock()
		if shared, ok = f.texts[key]; !ok {
			if len(f.texts) >= maxFastTemplates {
				f.texts = map[string]*fastTemplate{}
			}
			shared = t
			f.texts[key] = t
		}
		f.mu.Unlock()
	}
	return sqlparser.InjectedStatement{
		Auth:      shared.auth,
		Statement: &fastStatement{f: f, t: shared, query: query, orig: orig},
		Children:  args,
	}
}

// fastParser is the engine's parser on a server: the MySQL parser, whose
// text queries of the fast path's shapes come out as injected statements
// (see injectText). The engine parses a client's queries with
// ParseWithOptions (or Parse, for multi-statement clients); the other
// methods, and statements of other shapes (CREATE VIEW and CREATE
// PROCEDURE hold their queries inside), are the MySQL parser's own.
type fastParser struct {
	sql.Parser
	f *fastPath
}

var _ sql.Parser = fastParser{}

func (p fastParser) Parse(ctx *sql.Context, query string, multi bool) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.Parse(ctx, query, multi)
	if err == nil {
		if inj := p.f.injectText(parsed, stmt); inj != nil {
			stmt = inj
		}
	}
	return stmt, parsed, rest, err
}

func (p fastParser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options sqlparser.ParserOptions) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	if err == nil {
		if inj := p.f.injectText(parsed, stmt); inj != nil {
			stmt = inj
		}
	}
	return stmt, parsed, rest, err
}

// fastStatement is the injected statement of one fast-path template.
type fastStatement struct {
	f     *fastPath
	t     *fastTemplate
	query string
	orig  sqlparser.Statement
}

// WithResolvedChildren implements sqlparser.Injectable: values are the
// bound placeholders (literals). It runs while the engine binds the
// statement, in its transaction.
func (s *fastStatement) WithResolvedChildren(ctx context.Context, values []any) (any, error) {
	n := &fastSelect{f: s.f, t: s.t, query: s.query, orig: s.orig, values: make([]sql.Expression, len(values))}
	for i, v := range values {
		e, ok := v.(sql.Expression)
		if !ok {
			return nil, fmt.Errorf("sqlserver: a placeholder of %q bound to %T", s.query, v)
		}
		n.values[i] = e
	}
	if sctx, ok := ctx.(*sql.Context); ok {
		if err := n.prepare(sctx); err != nil {
			return nil, err
		}
	}
	return n, nil
}

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
	max1   bool       // at most one row: a key lookup or a sum
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
		if sh, err = n.shape(ctx, db, table); sh == nil || err != nil {
			return err
		}
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
	n.read = &fastRead{table: &pt, lookup: lookup, sch: sh.sch, max1: !t.rng || t.sum}
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
	if t.order != "" {
		o := sql.Ascending
		if t.desc {
			o = sql.Descending
		}
		top = plan.NewSort(sql.SortConditions{{Expr: get(t.order), Order: o}}, top)
	}
	if len(src.sch) > len(t.cols) {
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

// max1Row is an analyzer rule, run last: a fast-path key lookup or sum
// returns at most one row, which lets the server send it without its
// row-spooling goroutines (as it does for the engine's own unique-key
// lookups).
func max1Row(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if fs, ok := n.(*fastSelect); ok && fs.read != nil && fs.read.max1 {
		qFlags.Set(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
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
	switch v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
	default:
		return nil, false
	}
	c, inRange, err := t.Convert(ctx, v)
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
	if !t.rng {
		return fmt.Sprintf("%s.%s %s where %s = :%s", t.db, t.table, what, t.key, t.lo)
	}
	return fmt.Sprintf("%s.%s %s where %s between :%s and :%s", t.db, t.table, what, t.key, t.lo, t.hi)
}
