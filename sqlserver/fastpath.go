package sqlserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
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
// server's engine parses through lockingParser). For these the engine gets an
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
// The code: fastpath.go (this, and the engine hooks), fastshape.go (the
// shapes and what is learned of them), fastselect.go (the plan node).
// fastpath_test.go checks both paths give the same columns, rows and
// errors, in process and through a MySQL client, with schema changes and
// users of every privilege level between executions.

// fastPath is a server engine's fast path: the engine, and the templates
// of the statements it has seen.
type fastPath struct {
	e *sqle.Engine
	p *Provider

	mu    sync.RWMutex
	tmpls map[string]*fastTemplate // by prepared statement text; nil value: not a fast-path shape
	texts map[string]*fastTemplate // text queries' templates, by shape (fastTemplate.String)

	hits atomic.Int64 // executions the fast path answered itself
	// direct counts those of hits that ran without the engine's handler
	// (fastdirect.go).
	direct atomic.Int64
	// txns counts the BEGIN, START TRANSACTION and COMMIT statements run
	// without the engine's handler (ExecTxnStatement).
	txns atomic.Int64

	events eventShapes // reads of the event log (fastevents.go)

	writes     writeTemplates // single-row writes (fastwrite.go)
	writesDone atomic.Int64   // the writes run without the engine

	pids atomic.Uint64 // numbers the direct executions (beginDirect)
}

// maxFastTemplates bounds each map of templates (see cached).
const maxFastTemplates = 4096

// newFastEngine returns an engine over p whose parser gives text queries
// of the fast path's shapes to the fast path, and the fast path (which
// sessions need for prepared statements). Its parser and analyzer are the
// server's (REGEXP operators rewritten, sorts interruptible: regexp.go,
// interrupt.go).
func newFastEngine(p *Provider) (*sqle.Engine, *fastPath) {
	f := &fastPath{p: p, tmpls: map[string]*fastTemplate{}, texts: map[string]*fastTemplate{}}
	f.e = newEngine(p, f)
	f.install()
	return f.e, f
}

// NewEngine returns an engine over p: go-mysql-server's, with verso's
// parser (FOR SHARE and locking reads: lockplan.go; the privileges of
// CREATE and DROP DATABASE: access.go; interruptible REGEXP operators:
// regexp_parse.go) and interruptible sorts (interrupt.go).
func NewEngine(p *Provider) *sqle.Engine { return newEngine(p, nil) }

// newEngine returns an engine over p, with the fast path f if not nil.
func newEngine(p *Provider, f *fastPath) *sqle.Engine {
	a := newServerAnalyzer(analyzer.NewBuilder(p).AddOverrides(sql.EngineOverrides{
		Builder:         sql.BuilderOverrides{Parser: lockingParser{Parser: accessParser{withRegexpParser(sql.NewMysqlParser())}, p: p, f: f}},
		SchemaFormatter: schemaFormatter{sql.DefaultMySQLSchemaFormatter},
	}))
	a.Catalog.StatsProvider = p.statsProvider(a.Catalog.StatsProvider)
	return sqle.New(a, nil)
}

// fastPathRule is the id of max1Row among the analyzer's rules (past the
// engine's own ids).
const fastPathRule analyzer.RuleId = 100000

// install adds max1Row to the engine's analyzer, and makes the engine's
// own rules pass a fast-path plan through untouched (it has no
// expressions or tables for them, and running them cost more than the
// lookup itself).
func (f *fastPath) install() {
	a := f.e.Analyzer
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
	shared := f.cached(&f.texts, t.String(), func() *fastTemplate { return t })
	return sqlparser.InjectedStatement{
		Auth:      shared.auth,
		Statement: &fastStatement{f: f, t: shared, query: query, orig: orig},
		Children:  args,
	}
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

// max1Row is an analyzer rule, run last: a fast-path key lookup or sum
// returns at most one row, which lets the server send it without its
// row-spooling goroutines (as it does for the engine's own unique-key
// lookups).
func max1Row(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if fs, ok := n.(*fastSelect); ok && fs.read != nil && fs.t.oneRow() {
		qFlags.Set(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
}
