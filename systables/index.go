package systables

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// commitIndex is an index of a system table on a commit-hash column
// (commit_hash, to_commit or from_commit): a lookup parses each hash and
// reads its commit with one chunk read (there is no index structure: the
// chunk store's address index is the index). It supports point lookups
// only (= and IN); other filters scan.
type commitIndex struct {
	t    *Table
	spec indexSpec
}

var _ sql.Index = commitIndex{}

// ID implements sql.Index.
func (ix commitIndex) ID() string { return ix.spec.id }

func (ix commitIndex) Database() string { return ix.t.v.DB }
func (ix commitIndex) Table() string    { return ix.t.name }

// Expressions implements sql.Index: "table.column", lower case.
func (ix commitIndex) Expressions() []string {
	return []string{strings.ToLower(ix.t.name) + "." + ix.spec.column}
}

// IsUnique reports whether a hash names at most one row.
func (ix commitIndex) IsUnique() bool                        { return ix.spec.unique }
func (ix commitIndex) IsSpatial() bool                       { return false }
func (ix commitIndex) IsFullText() bool                      { return false }
func (ix commitIndex) IsVector() bool                        { return false }
func (ix commitIndex) Comment() string                       { return "" }
func (ix commitIndex) IndexType() string                     { return "BTREE" }
func (ix commitIndex) IsGenerated() bool                     { return false }
func (ix commitIndex) PrefixLengths() []uint16               { return nil }
func (ix commitIndex) CanSupportOrderBy(sql.Expression) bool { return false }

func (ix commitIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return []sql.ColumnExpressionType{{Expression: ix.Expressions()[0], Type: types.Text}}
}

// CoversColumns implements sql.Index.
func (ix commitIndex) CoversColumns(cols []string) bool {
	return len(cols) == 1 && strings.EqualFold(cols[0], ix.spec.column)
}

// CanSupport implements sql.Index: point ranges on a string only.
func (ix commitIndex) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	_, ok := pointKeys(ranges)
	return ok
}

// pointKeys returns the hashes of point ranges, or false if a range is not
// a point. A point on NULL (a lookup join's key from a NULL column) matches
// no row and gives no hash.
func pointKeys(ranges []sql.Range) ([]string, bool) {
	keys := make([]string, 0, len(ranges))
	for _, r := range ranges {
		mr, ok := r.(sql.MySQLRange)
		if !ok || len(mr) != 1 {
			return nil, false
		}
		if mr[0].Type() == sql.RangeType_EqualNull {
			continue
		}
		if mr[0].Type() != sql.RangeType_ClosedClosed {
			return nil, false
		}
		lk, hk := sql.GetMySQLRangeCutKey(mr[0].LowerBound), sql.GetMySQLRangeCutKey(mr[0].UpperBound)
		if lk == nil && hk == nil {
			continue
		}
		lo, ok1 := hashKey(lk)
		hi, ok2 := hashKey(hk)
		if !ok1 || !ok2 || lo != hi {
			return nil, false
		}
		keys = append(keys, lo)
	}
	return keys, true
}

// hashKey returns the text of a range key.
func hashKey(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case []byte:
		return string(k), true
	}
	return "", false
}

// GetIndexes implements sql.IndexAddressable.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) {
	out := make([]sql.Index, len(t.indexes))
	for i, s := range t.indexes {
		out[i] = commitIndex{t, s}
	}
	return out, nil
}

// indexColumn returns the column of the lookup's index.
func (t *Table) indexColumn(lookup sql.IndexLookup) (string, bool) {
	if ix, ok := lookup.Index.(commitIndex); ok && ix.t.name == t.name {
		return ix.spec.column, true
	}
	if lookup.Index == nil {
		return "", false
	}
	for _, s := range t.indexes {
		if strings.EqualFold(s.id, lookup.Index.ID()) {
			return s.column, true
		}
	}
	return "", false
}

// PreciseMatch implements sql.IndexAddressable: a lookup returns exactly
// the rows whose commit_hash is one of the points.
func (t *Table) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable.
func (t *Table) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	if _, ok := pointKeys(lookupRanges(lookup)); !ok {
		return nil
	}
	if _, ok := t.indexColumn(lookup); !ok {
		return nil
	}
	return t
}

// LookupPartitions implements sql.IndexedTable: one partition holding the
// hashes of the lookup (the engine may call it once per row of a join).
func (t *Table) LookupPartitions(_ *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	keys, ok := pointKeys(lookupRanges(lookup))
	column, ok2 := t.indexColumn(lookup)
	if !ok || !ok2 {
		return nil, fmt.Errorf("systables: %s: lookup %s is not of commit hashes", t.name, lookup.Ranges)
	}
	return sql.PartitionsToPartitionIter(lookupPartition{column, keys}), nil
}

// lookupPartition is the partition of an index lookup: the hashes to find
// in column.
type lookupPartition struct {
	column string
	keys   []string
}

func (p lookupPartition) Key() []byte { return []byte(p.column + ":" + strings.Join(p.keys, ",")) }

func lookupRanges(l sql.IndexLookup) []sql.Range {
	mrc, ok := l.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return []sql.Range{nil}
	}
	out := make([]sql.Range, len(mrc))
	for i, r := range mrc {
		out[i] = r
	}
	return out
}

var _ sql.IndexSearchableTable = (*Table)(nil)

// SkipIndexCosting implements sql.IndexSearchable: filters that
// LookupForExpressions does not take are costed as usual.
func (t *Table) SkipIndexCosting() bool { return false }

// LookupForExpressions implements sql.IndexSearchable: the first conjunct
// c = 'x' or c IN ('x', ...) of string literals, c an indexed column,
// becomes a lookup of those hashes; the other conjuncts stay a filter. The
// table picks this lookup itself, whatever the table's size: a lookup
// costs a chunk read or two per hash.
func (t *Table) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	for i, e := range exprs {
		var keys []string
		var spec indexSpec
		ok := false
		for _, s := range t.indexes {
			if keys, ok = hashPoints(ctx, e, s.column); ok {
				spec = s
				break
			}
		}
		if !ok {
			continue
		}
		ranges := make(sql.MySQLRangeCollection, len(keys))
		for j, k := range keys {
			ranges[j] = sql.MySQLRange{sql.ClosedRangeColumnExpr(k, k, types.Text)}
		}
		ix := commitIndex{t, spec}
		lookup := sql.NewIndexLookup(ix, ranges, ix.IsUnique() && len(keys) == 1, false, false, false)
		var rest []sql.Expression
		rest = append(rest, exprs[:i]...)
		rest = append(rest, exprs[i+1:]...)
		return lookup, nil, expression.JoinAnd(rest...), true, nil
	}
	return sql.IndexLookup{}, nil, nil, false, nil
}

// hashPoints returns the hashes of e if it is column = 'x' (either way
// round) or column IN ('x', ...) with string literals only.
func hashPoints(ctx *sql.Context, e sql.Expression, column string) ([]string, bool) {
	var col, val sql.Expression
	switch e := e.(type) {
	case *expression.Equals:
		col, val = e.Left(), e.Right()
		if _, ok := col.(*expression.GetField); !ok {
			col, val = val, col
		}
	case *expression.InTuple:
		col, val = e.Left(), e.Right()
	case *expression.HashInTuple:
		ch := e.Children()
		if len(ch) != 2 {
			return nil, false
		}
		col, val = ch[0], ch[1]
	default:
		return nil, false
	}
	gf, ok := col.(*expression.GetField)
	if !ok || !strings.EqualFold(gf.Name(), column) {
		return nil, false
	}
	var lits []sql.Expression
	if tu, ok := val.(expression.Tuple); ok {
		lits = tu
	} else {
		lits = []sql.Expression{val}
	}
	keys := make([]string, 0, len(lits))
	for _, l := range lits {
		lit, ok := l.(*expression.Literal)
		if !ok {
			return nil, false
		}
		v, err := lit.Eval(ctx, nil)
		s, ok := v.(string)
		if err != nil || !ok {
			return nil, false
		}
		keys = append(keys, s)
	}
	return keys, len(keys) > 0
}
