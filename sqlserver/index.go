package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Index is the primary key or a secondary index of a table, offered to the
// engine for lookups. A lookup's ranges (sql.MySQLRange, one range per
// column) become key ranges of the row map or of the index map: the longest
// prefix of exact columns, then the bounds of the next column. Those key
// ranges hold every matching row and maybe a few more (bounds are taken
// inclusively after conversion to the column type), so each row read is
// checked against the ranges with the engine's own comparisons (as its
// memory backend does): lookups return exactly the matching rows, and
// PreciseMatch is true.
//
// A column indexed on a prefix is keyed on the prefix of its value
// (tables.Index.Prefix): a bound is cut to the prefix when it is encoded
// (Table.IndexPrefix) and taken inclusively, so the span holds every row
// whose prefix matches; the same row check removes the others. (The engine
// also keeps its filter above a lookup through a prefix index.)
type Index struct {
	db, table string
	name      string
	pos       int      // -1 for the primary key, else the secondary index's position
	cols      []int    // column positions
	prefix    []uint16 // prefix length per column (0: whole value), or nil
	pk        []int    // the table's primary key columns
	unique    bool
	comment   string
	sch       sql.Schema
}

var (
	_ sql.Index         = (*Index)(nil)
	_ sql.ExtendedIndex = (*Index)(nil)
)

// extended returns the index's columns followed by the primary key's
// columns it does not hold: the full key of a secondary index entry.
func (ix *Index) extended() []int {
	cols := append([]int(nil), ix.cols...)
	if ix.pos < 0 {
		return cols
	}
	for _, p := range ix.pk {
		found := false
		for _, c := range ix.cols {
			found = found || c == p
		}
		if !found {
			cols = append(cols, p)
		}
	}
	return cols
}

// ExtendedExpressions implements sql.ExtendedIndex.
func (ix *Index) ExtendedExpressions(*sql.Context) []string {
	cols := ix.extended()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = strings.ToLower(ix.table) + "." + strings.ToLower(ix.sch[c].Name)
	}
	return out
}

// ExtendedColumnExpressionTypes implements sql.ExtendedIndex.
func (ix *Index) ExtendedColumnExpressionTypes(ctx *sql.Context) []sql.ColumnExpressionType {
	cols := ix.extended()
	exprs := ix.ExtendedExpressions(ctx)
	out := make([]sql.ColumnExpressionType, len(cols))
	for i, c := range cols {
		out[i] = sql.ColumnExpressionType{Expression: exprs[i], Type: ix.sch[c].Type}
	}
	return out
}

// ID implements sql.Index.
func (ix *Index) ID() string { return ix.name }

// Database implements sql.Index.
func (ix *Index) Database() string { return ix.db }

// Table implements sql.Index.
func (ix *Index) Table() string { return ix.table }

// Expressions implements sql.Index: "table.column", lower case.
func (ix *Index) Expressions() []string {
	out := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		out[i] = strings.ToLower(ix.table) + "." + strings.ToLower(ix.sch[c].Name)
	}
	return out
}

func (ix *Index) IsUnique() bool                        { return ix.unique }
func (ix *Index) IsSpatial() bool                       { return false }
func (ix *Index) IsFullText() bool                      { return false }
func (ix *Index) IsVector() bool                        { return false }
func (ix *Index) Comment() string                       { return ix.comment }
func (ix *Index) IndexType() string                     { return "BTREE" }
func (ix *Index) IsGenerated() bool                     { return false }
func (ix *Index) CanSupportOrderBy(sql.Expression) bool { return false }
func (ix *Index) PrefixLengths() []uint16               { return ix.prefix }

// ColumnExpressionTypes implements sql.Index.
func (ix *Index) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	exprs := ix.Expressions()
	out := make([]sql.ColumnExpressionType, len(ix.cols))
	for i, c := range ix.cols {
		out[i] = sql.ColumnExpressionType{Expression: exprs[i], Type: ix.sch[c].Type}
	}
	return out
}

// CanSupport implements sql.Index: MySQL ranges over the index's columns
// and, for a secondary index, the primary key columns after them (see
// ExtendedExpressions; the key span is bounded by the index's own columns
// only).
func (ix *Index) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	for _, r := range ranges {
		mr, ok := r.(sql.MySQLRange)
		if !ok || len(mr) > len(ix.extended()) {
			return false
		}
	}
	return true
}

// CoversColumns implements sql.Index.
func (ix *Index) CoversColumns(cols []string) bool {
	for _, c := range cols {
		found := false
		for _, p := range ix.cols {
			if strings.EqualFold(ix.sch[p].Name, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// GetIndexes implements sql.IndexAddressable: the primary key (for tables
// that have one) and every secondary index.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) {
	s := t.info.t.Schema()
	sch := t.info.sch.Schema
	var out []sql.Index
	if !s.Keyless() {
		out = append(out, &Index{db: t.db.Name(), table: t.name, name: tables.PrimaryIndexName, pos: -1,
			cols: s.PrimaryKey, unique: true, sch: sch})
	}
	for i, x := range s.Indexes {
		out = append(out, &Index{db: t.db.Name(), table: t.name, name: x.Name, pos: i,
			cols: x.Columns, prefix: prefixLengths(x), pk: s.PrimaryKey, unique: x.Unique, comment: x.Comment, sch: sch})
	}
	return out, nil
}

// prefixLengths returns the engine's form of an index's prefix lengths:
// nil for an index of whole values.
func prefixLengths(x tables.Index) []uint16 {
	if len(x.Prefix) == 0 {
		return nil
	}
	out := make([]uint16, len(x.Prefix))
	for i, n := range x.Prefix {
		out[i] = uint16(n)
	}
	return out
}

// PreciseMatch implements sql.IndexAddressable (see Index).
func (t *Table) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable.
func (t *Table) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	if _, ok := lookup.Index.(*Index); !ok {
		return nil
	}
	nt := *t
	nt.lookup = &lookup
	return &nt
}

// LookupPartitions implements sql.IndexedTable.
func (t *Table) LookupPartitions(_ *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{lookup: &lookup}), nil
}

// lookupRows returns the rows of the key ranges a lookup covers.
func (t *Table) lookupRows(ctx *sql.Context, tbl *tables.Table, lookup sql.IndexLookup) (sql.RowIter, error) {
	ix := lookup.Index.(*Index)
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		r, _, err := t.newRowIter(tbl, []span{{index: -1}}, false, nil)
		return r, err
	}
	var spans []span
	for _, r := range ranges {
		s, empty := t.keySpan(ctx, ix, r)
		if !empty {
			spans = append(spans, s)
		}
	}
	// The row check is needed only when a span may hold rows outside its
	// range (exactRange); without it the read need not see the index's
	// columns.
	exact := !overlapping(spans)
	for _, r := range ranges {
		exact = exact && exactRange(ctx, ix, r)
	}
	// Ranges of a collection do not overlap, but their key spans may (a
	// bound that did not convert widens a span): rows could repeat. The
	// engine's filter does not remove duplicates, so in that case read the
	// union once: one span from the least lower bound to the greatest upper.
	if overlapping(spans) {
		spans = []span{union(spans)}
	}
	if lookup.IsReverse {
		for i, j := 0, len(spans)-1; i < j; i, j = i+1, j-1 {
			spans[i], spans[j] = spans[j], spans[i]
		}
	}
	if exact {
		r, _, err := t.newRowIter(tbl, spans, lookup.IsReverse, nil)
		return r, err
	}
	r, pos, err := t.newRowIter(tbl, spans, lookup.IsReverse, ix.extended())
	if err != nil {
		return nil, err
	}
	if r.filter, err = t.rangeFilter(ctx, ix, ranges, pos); err != nil {
		return nil, err
	}
	return r, nil
}

// rangeFilter returns the expression that holds for exactly the rows in
// ranges (nil for all rows). pos holds where each column of ix.extended()
// is in the rows the filter sees.
func (t *Table) rangeFilter(ctx *sql.Context, ix *Index, ranges sql.MySQLRangeCollection, pos []int) (sql.Expression, error) {
	cols := ix.extended()
	exprs := make([]sql.Expression, len(cols))
	for i, c := range cols {
		col := ix.sch[c]
		exprs[i] = expression.NewGetFieldWithTable(pos[i], 0, col.Type, t.db.Name(), t.name, col.Name, col.Nullable)
	}
	return expression.NewRangeFilterExpr(ctx, exprs, ranges)
}

// prefix encodes vals as a key prefix of ix.
func (t *Table) prefix(ix *Index, vals []tables.Value) []byte {
	if ix.pos < 0 {
		return t.info.t.KeyPrefix(vals)
	}
	return t.info.t.IndexPrefix(ix.pos, vals)
}

// keySpan returns the key span holding every row in r.
func (t *Table) keySpan(ctx *sql.Context, ix *Index, r sql.MySQLRange) (span, bool) {
	s := span{index: ix.pos}
	var vals []tables.Value
	for i, ce := range r {
		if i >= len(ix.cols) {
			break
		}
		typ := ix.sch[ix.cols[i]].Type
		// An exact column extends the prefix.
		if lo, ok := ce.LowerBound.(sql.Below); ok {
			if hi, ok := ce.UpperBound.(sql.Above); ok {
				if c, err := typ.Compare(ctx, lo.Key, hi.Key); err == nil && c == 0 {
					if v, ok := convertKey(ctx, typ, lo.Key); ok {
						vals = append(vals, v)
						continue
					}
					break
				}
			}
		}
		// An IS NULL column extends it too.
		if _, ok := ce.LowerBound.(sql.BelowNull); ok {
			if _, ok := ce.UpperBound.(sql.AboveNull); ok {
				vals = append(vals, prolly.Null())
				continue
			}
		}
		// Otherwise this column bounds the span and ends the prefix.
		switch b := ce.LowerBound.(type) {
		case sql.BelowNull:
			s.lo = t.prefix(ix, vals)
		case sql.AboveNull:
			s.lo = tables.PrefixEnd(t.prefix(ix, append(vals[:len(vals):len(vals)], prolly.Null())))
		case sql.Below:
			if v, ok := convertKey(ctx, typ, b.Key); ok {
				s.lo = t.prefix(ix, append(vals[:len(vals):len(vals)], v))
			} else {
				s.lo = t.prefix(ix, vals)
			}
		case sql.Above:
			// Inclusive: the converted key may have been rounded down.
			if v, ok := convertKey(ctx, typ, b.Key); ok {
				s.lo = t.prefix(ix, append(vals[:len(vals):len(vals)], v))
			} else {
				s.lo = t.prefix(ix, vals)
			}
		case sql.AboveAll:
			return s, true
		}
		switch b := ce.UpperBound.(type) {
		case sql.BelowNull:
			return s, true
		case sql.AboveNull:
			s.hi = tables.PrefixEnd(t.prefix(ix, append(vals[:len(vals):len(vals)], prolly.Null())))
		case sql.Below, sql.Above:
			if v, ok := convertKey(ctx, typ, sql.GetMySQLRangeCutKey(b)); ok {
				s.hi = tables.PrefixEnd(t.prefix(ix, append(vals[:len(vals):len(vals)], v)))
			} else {
				s.hi = prefixEndOrNil(t.prefix(ix, vals))
			}
		default: // AboveAll
			s.hi = prefixEndOrNil(t.prefix(ix, vals))
		}
		if s.lo != nil && len(s.lo) == 0 {
			s.lo = nil
		}
		return s, false
	}
	p := t.prefix(ix, vals)
	if len(p) > 0 {
		s.lo, s.hi = p, tables.PrefixEnd(p)
	}
	return s, false
}

// exactRange reports whether keySpan's span of r holds exactly the rows in
// r, so that they need no row check. It is conservative: it holds when the
// range fixes a prefix of the index's columns to integers or NULL, bounds
// the next column (if any) below by an inclusive integer bound or NULL and
// above by an inclusive integer bound or nothing, leaves every other column
// unbounded, and every integer bound converts to its column's type as it
// is (so the key holds it exactly). A column indexed on a prefix, a string
// (keyed by its collation), an exclusive bound, or any other type needs the
// check.
func exactRange(ctx *sql.Context, ix *Index, r sql.MySQLRange) bool {
	bounded := false
	for i, ce := range r {
		_, fromNull := ce.LowerBound.(sql.BelowNull)
		_, toAll := ce.UpperBound.(sql.AboveAll)
		if fromNull && toAll {
			bounded = true // every value: later columns must be unbounded too
			continue
		}
		if bounded || i >= len(ix.cols) || (ix.prefix != nil && ix.prefix[i] != 0) {
			return false
		}
		typ := ix.sch[ix.cols[i]].Type
		if !types.IsInteger(typ) {
			return false
		}
		if _, ok := ce.UpperBound.(sql.AboveNull); ok && fromNull {
			continue // IS NULL
		}
		lo, loOK := ce.LowerBound.(sql.Below)
		hi, hiOK := ce.UpperBound.(sql.Above)
		switch {
		case loOK && hiOK:
			if !exactIntKey(ctx, typ, lo.Key) || !exactIntKey(ctx, typ, hi.Key) {
				return false
			}
			if c, err := typ.Compare(ctx, lo.Key, hi.Key); err == nil && c == 0 {
				continue // equality: extends the prefix
			}
		case loOK && toAll:
			if !exactIntKey(ctx, typ, lo.Key) {
				return false
			}
		case fromNull && hiOK:
			if !exactIntKey(ctx, typ, hi.Key) {
				return false
			}
		default:
			if _, ok := ce.LowerBound.(sql.AboveNull); !ok || !(hiOK || toAll) || (hiOK && !exactIntKey(ctx, typ, hi.Key)) {
				return false
			}
		}
		bounded = true
	}
	return true
}

// exactIntKey reports whether key is a Go integer that a column of integer
// type typ holds as it is.
func exactIntKey(ctx *sql.Context, typ sql.Type, key any) bool {
	switch key.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
	default:
		return false
	}
	_, ok := convertKey(ctx, typ, key)
	return ok
}

func prefixEndOrNil(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	return tables.PrefixEnd(p)
}

// convertKey converts a range bound to the storage value of a column of
// type typ, reporting false when it does not convert cleanly.
func convertKey(ctx *sql.Context, typ sql.Type, key any) (tables.Value, bool) {
	if key == nil {
		return prolly.Null(), true
	}
	v, inRange, err := typ.Convert(ctx, key)
	if err != nil || inRange != sql.InRange {
		return tables.Value{}, false
	}
	pv, err := toValue(ctx, typ, v)
	if err != nil {
		return tables.Value{}, false
	}
	return pv, true
}

func overlapping(spans []span) bool {
	for i := 1; i < len(spans); i++ {
		a, b := spans[i-1], spans[i]
		if a.hi == nil || b.lo == nil || string(a.hi) > string(b.lo) {
			return true
		}
	}
	return false
}

func union(spans []span) span {
	u := spans[0]
	for _, s := range spans[1:] {
		if u.lo != nil && (s.lo == nil || string(s.lo) < string(u.lo)) {
			u.lo = s.lo
		}
		if u.hi != nil && (s.hi == nil || string(s.hi) > string(u.hi)) {
			u.hi = s.hi
		}
	}
	return u
}
