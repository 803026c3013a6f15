package systables

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// commitIndex is an index of a system table (indexSpec says which kind).
// A hash index is on a commit-hash column (commit_hash, to_commit or
// from_commit): a lookup parses each hash and reads its commit with one
// chunk read (there is no index structure: the chunk store's address
// index is the index); it takes point lookups only (= and IN), other
// filters scan. dolt_commit_diff_<t>'s pair index hands its ranges to the
// table; dolt_diff_<t>'s row-key indexes filter what a scan reads.
type commitIndex struct {
	t    *Table
	spec indexSpec
}

var _ sql.Index = commitIndex{}

// ID implements sql.Index.
func (ix commitIndex) ID() string { return ix.spec.id }

func (ix commitIndex) Database() string { return ix.t.v.DB }
func (ix commitIndex) Table() string    { return ix.t.name }

// Expressions implements sql.Index: "table.column" for each column, lower
// case.
func (ix commitIndex) Expressions() []string {
	out := make([]string, len(ix.spec.columns))
	for i, c := range ix.spec.columns {
		out[i] = strings.ToLower(ix.t.name) + "." + strings.ToLower(c)
	}
	return out
}

// IsUnique reports whether a key names at most one row.
func (ix commitIndex) IsUnique() bool                        { return ix.spec.unique }
func (ix commitIndex) IsSpatial() bool                       { return false }
func (ix commitIndex) IsFullText() bool                      { return false }
func (ix commitIndex) IsVector() bool                        { return false }
func (ix commitIndex) Comment() string                       { return "" }
func (ix commitIndex) IndexType() string                     { return "BTREE" }
func (ix commitIndex) IsGenerated() bool                     { return false }
func (ix commitIndex) PrefixLengths() []uint16               { return nil }
func (ix commitIndex) CanSupportOrderBy(sql.Expression) bool { return false }

// ColumnExpressionTypes implements sql.Index: text for hash columns, the
// column's type for row-key columns.
func (ix commitIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	exprs := ix.Expressions()
	out := make([]sql.ColumnExpressionType, len(exprs))
	for i, e := range exprs {
		out[i] = sql.ColumnExpressionType{Expression: e, Type: types.Text}
		if ix.spec.kind == rowKeyIndex {
			out[i].Type = ix.t.sch[ix.t.sch.IndexOfColName(ix.spec.columns[i])].Type
		}
	}
	return out
}

// CoversColumns implements sql.Index.
func (ix commitIndex) CoversColumns(cols []string) bool {
	if len(cols) != len(ix.spec.columns) {
		return false
	}
	for i, c := range cols {
		if !strings.EqualFold(c, ix.spec.columns[i]) {
			return false
		}
	}
	return true
}

// CanSupport implements sql.Index: point ranges on a string for a hash
// index; any ranges of its columns for the others.
func (ix commitIndex) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	return ix.supports(ranges)
}

func (ix commitIndex) supports(ranges []sql.Range) bool {
	if ix.spec.hashes() {
		_, ok := pointKeys(ranges)
		return ok
	}
	for _, r := range ranges {
		if mr, ok := r.(sql.MySQLRange); !ok || len(mr) != len(ix.spec.columns) {
			return false
		}
	}
	return true
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
		k, ok, null := pointKey(mr[0])
		if !ok {
			return nil, false
		}
		if !null {
			keys = append(keys, k)
		}
	}
	return keys, true
}

// pointKey returns the text of a point range; null reports a point on
// NULL (or no bound), which matches no hash.
func pointKey(r sql.MySQLRangeColumnExpr) (key string, ok, null bool) {
	if r.Type() == sql.RangeType_EqualNull {
		return "", true, true
	}
	if r.Type() != sql.RangeType_ClosedClosed {
		return "", false, false
	}
	lk, hk := sql.GetMySQLRangeCutKey(r.LowerBound), sql.GetMySQLRangeCutKey(r.UpperBound)
	if lk == nil && hk == nil {
		return "", true, true
	}
	lo, ok1 := hashKey(lk)
	hi, ok2 := hashKey(hk)
	if !ok1 || !ok2 || lo != hi {
		return "", false, false
	}
	return lo, true, false
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

// GetIndexes implements sql.IndexAddressable: the declared indexes.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) {
	var out []sql.Index
	for _, s := range t.indexes {
		if s.declared() {
			out = append(out, commitIndex{t, s})
		}
	}
	return out, nil
}

// indexSpecOf returns the spec of the lookup's index.
func (t *Table) indexSpecOf(lookup sql.IndexLookup) (indexSpec, bool) {
	if ix, ok := lookup.Index.(commitIndex); ok && ix.t.name == t.name {
		return ix.spec, true
	}
	if lookup.Index == nil {
		return indexSpec{}, false
	}
	for _, s := range t.indexes {
		if strings.EqualFold(s.id, lookup.Index.ID()) {
			return s, true
		}
	}
	return indexSpec{}, false
}

// PreciseMatch implements sql.IndexAddressable: a lookup returns exactly
// the rows of its ranges.
func (t *Table) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable.
func (t *Table) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	s, ok := t.indexSpecOf(lookup)
	if !ok || !(commitIndex{t, s}).supports(lookupRanges(lookup)) {
		return nil
	}
	return t
}

// LookupPartitions implements sql.IndexedTable: one partition holding the
// lookup (the engine may call it once per row of a join).
func (t *Table) LookupPartitions(_ *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	s, ok := t.indexSpecOf(lookup)
	if !ok {
		return nil, fmt.Errorf("systables: %s: lookup of an index it does not have", t.name)
	}
	lp := lookupPartition{spec: s}
	if s.hashes() {
		keys, ok := pointKeys(lookupRanges(lookup))
		if !ok {
			return nil, fmt.Errorf("systables: %s: lookup %s is not of commit hashes", t.name, lookup.Ranges)
		}
		lp.keys = keys
	} else {
		mrc, ok := lookup.Ranges.(sql.MySQLRangeCollection)
		if !ok {
			return nil, fmt.Errorf("systables: %s: lookup %s is not of MySQL ranges", t.name, lookup.Ranges)
		}
		lp.ranges = mrc
	}
	return sql.PartitionsToPartitionIter(lp), nil
}

// lookupPartition is the partition of an index lookup: the hashes to find
// in the column of a hash index, or the ranges of another.
type lookupPartition struct {
	spec   indexSpec
	keys   []string
	ranges sql.MySQLRangeCollection
}

func (p lookupPartition) Key() []byte {
	if p.ranges != nil {
		return []byte(p.spec.id + ":" + p.ranges.String())
	}
	return []byte(p.spec.column() + ":" + strings.Join(p.keys, ","))
}

// pairLookup is the table behind a pairIndex: it answers the ranges of a
// lookup itself (dolt_commit_diff_<t>).
type pairLookup interface {
	lookupPair(ctx *sql.Context, ranges sql.MySQLRangeCollection) (sql.RowIter, error)
}

// lookupRows returns the rows of a lookup partition.
func (t *Table) lookupRows(ctx *sql.Context, lp lookupPartition) (sql.RowIter, error) {
	switch lp.spec.kind {
	case pairIndex:
		pl, ok := t.impl.(pairLookup)
		if !ok {
			return nil, fmt.Errorf("systables: %s: no lookups of column pairs", t.name)
		}
		return pl.lookupPair(ctx, lp.ranges)
	case rowKeyIndex:
		it, err := t.impl.scan(ctx)
		if err != nil {
			return nil, err
		}
		cols := make([]int, len(lp.spec.columns))
		for i, c := range lp.spec.columns {
			cols[i] = t.sch.IndexOfColName(c)
		}
		return &rangeFilter{it: it, sch: t.sch, cols: cols, ranges: lp.ranges}, nil
	}
	return t.impl.lookup(ctx, lp.spec.column(), lp.keys)
}

// rangeFilter yields the rows of it whose columns cols lie in one of
// ranges.
type rangeFilter struct {
	it     sql.RowIter
	sch    sql.Schema
	cols   []int
	ranges sql.MySQLRangeCollection
}

func (f *rangeFilter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := f.it.Next(ctx)
		if err != nil {
			return nil, err
		}
		in, err := f.matches(ctx, r)
		if err != nil {
			return nil, err
		}
		if in {
			return r, nil
		}
	}
}

func (f *rangeFilter) matches(ctx *sql.Context, r sql.Row) (bool, error) {
ranges:
	for _, mr := range f.ranges {
		for i, c := range f.cols {
			typ := f.sch[c].Type
			p := sql.NullRangeColumnExpr(typ)
			if r[c] != nil {
				p = sql.ClosedRangeColumnExpr(r[c], r[c], typ)
			}
			lo, err := mr[i].LowerBound.Compare(ctx, p.LowerBound, typ)
			if err != nil {
				return false, err
			}
			hi, err := p.UpperBound.Compare(ctx, mr[i].UpperBound, typ)
			if err != nil {
				return false, err
			}
			if lo > 0 || hi > 0 {
				continue ranges
			}
		}
		return true, nil
	}
	return false, nil
}

func (f *rangeFilter) Close(ctx *sql.Context) error { return f.it.Close(ctx) }

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
// c = 'x' or c IN ('x', ...) of string literals, c the column of a hash
// index, becomes a lookup of those hashes; the other conjuncts stay a
// filter. The table picks this lookup itself, whatever the table's size: a
// lookup costs a chunk read or two per hash. A pair index takes the
// literal filters of its first column, and of its second if there are
// any, as one lookup of every pair.
func (t *Table) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	for _, s := range t.indexes {
		if s.kind == pairIndex {
			if lookup, rest, ok := pairLookupFor(ctx, t, s, exprs); ok {
				return lookup, nil, rest, true, nil
			}
		}
	}
	for i, e := range exprs {
		var keys []string
		var spec indexSpec
		ok := false
		for _, s := range t.indexes {
			if !s.hashes() {
				continue
			}
			if keys, ok = hashPoints(ctx, e, s.column()); ok {
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
		return lookup, nil, expression.JoinAnd(without(exprs, i)...), true, nil
	}
	return sql.IndexLookup{}, nil, nil, false, nil
}

// pairLookupFor returns the lookup of a pair index s for exprs: every
// pair of the literals its first column is filtered to (one conjunct) and
// those of its second (all values if no conjunct names it), and the
// conjuncts left.
func pairLookupFor(ctx *sql.Context, t *Table, s indexSpec, exprs []sql.Expression) (sql.IndexLookup, sql.Expression, bool) {
	first, second := -1, -1
	var firstKeys, secondKeys []string
	for i, e := range exprs {
		if keys, ok := hashPoints(ctx, e, s.columns[0]); ok && first < 0 {
			first, firstKeys = i, keys
		} else if keys, ok := hashPoints(ctx, e, s.columns[1]); ok && second < 0 {
			second, secondKeys = i, keys
		}
	}
	if first < 0 {
		return sql.IndexLookup{}, nil, false
	}
	var ranges sql.MySQLRangeCollection
	for _, a := range firstKeys {
		if second < 0 {
			ranges = append(ranges, sql.MySQLRange{sql.ClosedRangeColumnExpr(a, a, types.Text), sql.AllRangeColumnExpr(types.Text)})
			continue
		}
		for _, b := range secondKeys {
			ranges = append(ranges, sql.MySQLRange{sql.ClosedRangeColumnExpr(a, a, types.Text), sql.ClosedRangeColumnExpr(b, b, types.Text)})
		}
	}
	rest := without(exprs, first)
	if second >= 0 {
		rest = without(exprs, first, second)
	}
	return sql.NewIndexLookup(commitIndex{t, s}, ranges, false, false, false, false), expression.JoinAnd(rest...), true
}

// without returns exprs without the ones at the positions skip.
func without(exprs []sql.Expression, skip ...int) []sql.Expression {
	var out []sql.Expression
outer:
	for i, e := range exprs {
		for _, j := range skip {
			if i == j {
				continue outer
			}
		}
		out = append(out, e)
	}
	return out
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
