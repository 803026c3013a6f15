package sqlserver

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Stopping a running statement.
//
// A statement stops when its context is done. KILL QUERY and KILL cancel
// it (the engine's process list), and so do the client's disconnect (the
// engine's connection watcher), max_execution_time and the per-statement
// memory limit (package server's statements.go). The engine looks at the
// context between the rows it sends, but not inside some long loops of
// its own, which therefore ran on, for seconds or hours, for a client
// that was gone.
// These now look at it:
//
//   - REGEXP and the REGEXP_ functions (regexp.go): ICU's matcher calls
//     back every few thousand steps.
//   - Sorts: the engine's sort evaluates the sort keys on each comparison;
//     interruptible, around each key, fails once the context is done, and
//     the sort then finishes at once (its comparisons give up after an
//     error).
//   - Table scans (table.go): a scan checks the context every scanCheck
//     rows it reads, kept or not.
//
// The rule interruptRule wraps the sorts in every engine of NewEngine
// and NewEmbedded (the server's, the driver's). The analyzer
// runs it on every statement but those it plans with its short list of
// rules (a SELECT of one table without ORDER BY, single-table INSERT,
// UPDATE and DELETE): an UPDATE ... ORDER BY of one table sorts as the
// engine does. Loops of the engine that read no table and evaluate no
// such expression (a recursive CTE's iterations, for one) check the
// context only as often as the engine does.

// interruptRule is the id of makeInterruptible among the analyzer's rules
// (past the engine's own ids; fastPathRule is another).
const interruptRule analyzer.RuleId = 100005

// scanCheck is how many rows a table scan reads between two looks at the
// context.
const scanCheck = 1024

// newServerAnalyzer returns the analyzer of a server's engine over p:
// the engine's, with interruptRule and literalTypeRule (littypes.go) after
// validation.
func newServerAnalyzer(b *analyzer.Builder) *analyzer.Analyzer {
	return b.AddPostValidationRule(interruptRule, func(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		return makeInterruptible(ctx, n)
	}).AddPostValidationRule(literalTypeRule, retypeLiterals).Build()
}

// makeInterruptible wraps the keys of the sorts of n (and of its
// subqueries) in interruptible.
func makeInterruptible(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		n, same, err := transform.OneNodeExpressions(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if sq, ok := e.(*plan.Subquery); ok {
				q, same, err := makeInterruptible(ctx, sq.Query)
				if err != nil || same {
					return e, transform.SameTree, err
				}
				return sq.WithQuery(q), transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		})
		if err != nil {
			return nil, transform.SameTree, err
		}
		s, ok := n.(*plan.Sort)
		if !ok {
			return n, same, nil
		}
		keys := s.Expressions()
		wrapped := make([]sql.Expression, len(keys))
		changed := false
		for i, k := range keys {
			if _, ok := k.(*interruptible); ok {
				wrapped[i] = k
				continue
			}
			wrapped[i], changed = &interruptible{k}, true
		}
		if !changed {
			return n, same, nil
		}
		n, err = s.WithExpressions(ctx, wrapped...)
		return n, transform.NewTree, err
	})
}

// interruptible is an expression that fails with the context's cause once
// the statement's context is done.
type interruptible struct {
	sql.Expression
}

var _ sql.CollationCoercible = (*interruptible)(nil)

func (e *interruptible) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return e.Expression.Eval(ctx, row)
}

func (e *interruptible) Children() []sql.Expression { return []sql.Expression{e.Expression} }

func (e *interruptible) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	return &interruptible{children[0]}, nil
}

func (e *interruptible) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, e.Expression)
}

func (e *interruptible) DebugString(ctx *sql.Context) string {
	return sql.DebugString(ctx, e.Expression)
}

func (e *interruptible) Describe(ctx *sql.Context, options sql.DescribeOptions) string {
	return sql.Describe(ctx, e.Expression, options)
}
