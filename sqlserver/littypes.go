package sqlserver

import (
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// String literals compared with string columns.
//
// The engine compares a column with a literal at the column's own type
// only when the two types are equal. A string literal is LONGTEXT in the
// connection's collation, so `message >= 'c'` on a TEXT column (which is
// what the engine makes of `message LIKE 'c%'`) took the general path on
// every row: both values converted to strings again and a LONGTEXT type
// built for the comparison, a quarter of the CPU of a filtered scan of
// dolt_log. Such a comparison is decided by the column's collation
// anyway: a column's collation is implicit, a literal's coercible, and
// the implicit one wins. So the rule literalTypeRule gives the literal
// the column's type, after validation (index lookups are chosen by then),
// where that changes nothing but the path: the literal is a plain string
// (no COLLATE, no introducer of another character set), in the column's
// character set, no longer than the column's values may be, and the
// column is text (not binary, enum or set). Rows compare as before; the
// comparison skips the conversions.

// literalTypeRule is the id of retypeLiterals among the analyzer's rules.
const literalTypeRule analyzer.RuleId = 100006

// retypeLiterals is the analyzer rule of literalTypeRule.
func retypeLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		return transform.OneNodeExpressions(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				switch e.(type) {
				case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
					*expression.GreaterThan, *expression.GreaterThanOrEqual:
				default:
					return e, transform.SameTree, nil
				}
				ch := e.Children()
				if len(ch) != 2 {
					return e, transform.SameTree, nil
				}
				l, r := ch[0], ch[1]
				if lit, ok := retypedLiteral(ctx, r, l); ok {
					r = lit
				} else if lit, ok := retypedLiteral(ctx, l, r); ok {
					l = lit
				} else {
					return e, transform.SameTree, nil
				}
				ne, err := e.WithChildren(ctx, l, r)
				if err != nil {
					return nil, transform.SameTree, err
				}
				return ne, transform.NewTree, nil
			})
		})
	})
}

// retypedLiteral returns lit as a literal of the type of the column col,
// when lit is a string literal the column's comparisons treat alike.
func retypedLiteral(ctx *sql.Context, lit, col sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok {
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok {
		return nil, false
	}
	s, ok := l.Value().(string)
	if !ok {
		return nil, false
	}
	ct, ok := gf.Type(ctx).(sql.StringType)
	if !ok || !types.IsTextOnly(ct) {
		return nil, false
	}
	lt, ok := l.Type(ctx).(sql.StringType)
	if !ok || !types.IsTextOnly(lt) || types.TypesEqual(ct, lt) {
		return nil, false
	}
	if lt.Collation().CharacterSet() != ct.Collation().CharacterSet() {
		return nil, false
	}
	// A coercible literal (4) of its type's collation: no COLLATE, nothing
	// that would outrank the column's collation.
	if c, co := l.CollationCoercibility(ctx); c != lt.Collation() || co != 4 {
		return nil, false
	}
	if int64(utf8.RuneCountInString(s)) > ct.MaxCharacterLength() {
		return nil, false
	}
	return expression.NewLiteral(s, ct), true
}
