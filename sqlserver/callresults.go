package sqlserver

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	interp "github.com/dolthub/go-mysql-server/sql/procedures"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Every result set of a CALL.
//
// MySQL sends a client one result set for each statement of a stored
// procedure that answers with rows (a SELECT without INTO, a SHOW, a
// nested CALL's own result sets), in the order they ran, then an OK. The
// engine's interpreter runs the statements one by one through a
// statement runner and keeps only the last SELECT's rows. captureCalls,
// an analyzer rule that runs after the engine hands each CALL its runner,
// wraps that runner so that, in a session that asked for them
// (CaptureCallResults), the rows of each such statement are kept as they
// are read, in order; the server sends them as separate result sets and
// verso sql prints them (TakeCallResults).
//
// The statements that count are found by identity among the CALL's
// operations before it runs: the interpreter mutates a SELECT ... INTO
// into a plain SELECT before running it, and asks the runner for the
// conditions of IF, WHILE and cursors too, none of which is a result set.

// CallResult is one result set of a CALL: its columns and rows.
type CallResult struct {
	Schema sql.Schema
	Rows   []sql.Row
}

// callSink holds a session's result sets of the CALL it runs.
type callSink struct{ sets []CallResult }

// CaptureCallResults makes the session keep the result sets of the next
// statements it runs, when they are CALLs of stored procedures, until
// TakeCallResults.
func (s *Session) CaptureCallResults() { s.calls = &callSink{} }

// TakeCallResults returns the result sets kept since CaptureCallResults,
// in the order the procedure made them, and stops keeping them. None
// means the statements made none (the engine's own result is then the
// whole answer); a nil session has none.
func (s *Session) TakeCallResults() []CallResult {
	if s == nil || s.calls == nil {
		return nil
	}
	sets := s.calls.sets
	s.calls = nil
	return sets
}

// captureCallsRule is the id of captureCalls among the analyzer's rules
// (past the engine's own ids and the other rules of this package).
const captureCallsRule analyzer.RuleId = 100003

// captureCalls gives each CALL of a stored procedure (not one of verso's
// procedures, which answer as any statement does) a runner that keeps
// its result sets: it runs once after all others, after the engine's rule
// that hands the CALL its runner.
func captureCalls(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, node sql.Node) (sql.Node, transform.TreeIdentity, error) {
		c, ok := node.(*plan.Call)
		if !ok || c.Procedure == nil || c.Procedure.ExternalProc != nil || c.Runner == nil {
			return node, transform.SameTree, nil
		}
		if _, done := c.Runner.(callRunner); done {
			return node, transform.SameTree, nil
		}
		stmts := map[ast.Statement]bool{}
		for _, op := range c.GetStatements() {
			switch op.OpCode {
			case interp.OpCode_Select:
				if sel, ok := op.PrimaryData.(*ast.Select); ok && sel.Into == nil {
					stmts[op.PrimaryData] = true
				}
			case interp.OpCode_Execute, interp.OpCode_Call:
				stmts[op.PrimaryData] = true
			}
		}
		if len(stmts) == 0 {
			return node, transform.SameTree, nil
		}
		return c.SetStatementRunner(ctx, callRunner{inner: c.Runner, stmts: stmts}), transform.NewTree, nil
	})
}

// callRunner runs a procedure's statements with inner, keeping the rows
// of those in stmts that answer with rows.
type callRunner struct {
	inner sql.StatementRunner
	stmts map[ast.Statement]bool
}

func (r callRunner) QueryWithBindings(ctx *sql.Context, query string, parsed ast.Statement, bindings map[string]ast.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	s, _ := ctx.Session.(*Session)
	if s == nil || s.calls == nil || !r.stmts[parsed] {
		return r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	}
	sink := s.calls
	before := len(sink.sets)
	sch, iter, fl, err := r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	if err != nil || len(sch) == 0 || types.IsOkResultSchema(sch) {
		return sch, iter, fl, err
	}
	// A nested CALL of a stored procedure kept its own result sets
	// while it ran (its rows here are the last of them again); one of
	// verso's procedures kept none and its rows are its result set.
	if _, isCall := parsed.(*ast.Call); isCall && len(sink.sets) > before {
		return sch, iter, fl, nil
	}
	return sch, &keptRows{RowIter: iter, sink: sink, sch: sch}, fl, nil
}

// keptRows passes its rows on and keeps them, as a result set of its sink
// once all are read (the interpreter reads each statement's rows to the
// end before it runs the next, and keeps the rows it reads as they are).
type keptRows struct {
	sql.RowIter
	sink *callSink
	sch  sql.Schema
	rows []sql.Row
}

func (k *keptRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := k.RowIter.Next(ctx)
	switch {
	case err == io.EOF:
		if k.sink != nil {
			k.sink.sets = append(k.sink.sets, CallResult{Schema: k.sch, Rows: k.rows})
			k.sink = nil
		}
	case err == nil:
		k.rows = append(k.rows, row)
	}
	return row, err
}
