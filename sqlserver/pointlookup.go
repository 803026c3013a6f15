package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Point lookups on the primary key skip the engine's index costing. For
// `WHERE id = 5` the analyzer would otherwise build uniform statistics for
// every index of the table and cost each one, on every execution of the
// statement: under a point-select load that was a sixth of the server's
// CPU. With sql.IndexSearchableTable the table picks the lookup itself
// when the filter fixes every primary-key column to an integer literal,
// and leaves every other filter to the engine's costing.

var _ sql.IndexSearchableTable = (*Table)(nil)

// SkipIndexCosting implements sql.IndexSearchableTable: filters that
// LookupForExpressions declines are costed as usual.
func (t *Table) SkipIndexCosting() bool { return false }

// LookupForExpressions implements sql.IndexSearchableTable. It answers
// only when exprs (a conjunction) hold `pk = literal` for each column of
// an all-integer primary key, every column reference in exprs naming this
// table (so an alias, or an outer query's column, declines), and the
// literals being integers. The other conjuncts are returned as the filter
// to keep.
func (t *Table) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	var none sql.IndexLookup
	s := t.info.t.Schema()
	if s.Keyless() || len(s.PrimaryKey) == 0 || len(exprs) < len(s.PrimaryKey) {
		return none, nil, nil, false, nil
	}
	sch := t.info.sch.Schema
	for _, c := range s.PrimaryKey {
		if !types.IsInteger(sch[c].Type) {
			return none, nil, nil, false, nil
		}
	}
	// Every column reference must be to this table by its own name.
	foreign := false
	for _, e := range exprs {
		sql.Inspect(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok && !strings.EqualFold(gf.Table(), t.name) {
				foreign = true
			}
			return !foreign
		})
		if foreign {
			return none, nil, nil, false, nil
		}
	}
	keys := make([]any, len(s.PrimaryKey))
	keyTypes := make([]sql.Type, len(s.PrimaryKey))
	found := make([]bool, len(s.PrimaryKey))
	var rest []sql.Expression
	for _, e := range exprs {
		col, lit := pkEquality(e)
		i := -1
		if col != nil {
			for j, c := range s.PrimaryKey {
				if !found[j] && strings.EqualFold(sch[c].Name, col.Name()) {
					i = j
					break
				}
			}
		}
		if i < 0 {
			rest = append(rest, e)
			continue
		}
		v, err := lit.Eval(ctx, nil)
		if err != nil {
			return none, nil, nil, false, err
		}
		if !isInteger(v) {
			return none, nil, nil, false, nil
		}
		keys[i], keyTypes[i], found[i] = v, lit.Type(ctx), true
	}
	for _, f := range found {
		if !f {
			return none, nil, nil, false, nil
		}
	}
	idxs, err := t.GetIndexes(ctx)
	if err != nil {
		return none, nil, nil, false, err
	}
	pk := idxs[0] // GetIndexes lists PRIMARY first
	b := sql.NewMySQLIndexBuilder(ctx, pk)
	exprNames := pk.Expressions()
	for i := range keys {
		b = b.Equals(ctx, exprNames[i], keyTypes[i], keys[i])
	}
	lookup, err := b.Build(ctx)
	if err != nil {
		return none, nil, nil, false, err
	}
	var keep sql.Expression
	if len(rest) > 0 {
		keep = expression.JoinAnd(rest...)
	}
	return lookup, nil, keep, true, nil
}

// isInteger reports whether v is a Go integer, as the engine's integer
// literals and values are.
func isInteger(v any) bool {
	switch v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		return true
	}
	return false
}

// pkEquality returns the column and literal of `column = literal` or
// `literal = column`, or nils.
func pkEquality(e sql.Expression) (*expression.GetField, *expression.Literal) {
	eq, ok := e.(*expression.Equals)
	if !ok {
		return nil, nil
	}
	l, r := eq.Left(), eq.Right()
	if gf, ok := l.(*expression.GetField); ok {
		if lit, ok := r.(*expression.Literal); ok {
			return gf, lit
		}
	}
	if gf, ok := r.(*expression.GetField); ok {
		if lit, ok := l.(*expression.Literal); ok {
			return gf, lit
		}
	}
	return nil, nil
}
