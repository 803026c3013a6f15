package systables

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/eventindex"
)

// The indexes of dolt_events, as the engine sees them. Each is a prolly
// map of the log (eventindex), read by range scans:
//
//	PRIMARY               (position)               the log
//	stream                (stream_id, event_number) the stream index
//	category              (category, position)     the category index
//	event_type            (event_type, position)   the event-type index
//	category_event_type   (category, event_type, position)
//	                      no map of its own: the category and type index
//	                      ranges joined on position (keys only)
//
// A lookup becomes eventQuery values (one per range) that eventindex's
// Read answers from the most selective of these maps, so a filter on any
// of the columns, or a conjunction of them, is an index read. Name
// columns take points (= and IN) only; position and event_number take any
// range. The table picks its lookup itself from literal filters
// (LookupForExpressions); other filters (joins, parameters) go through the
// engine's costing of the same indexes.

type eventIndexKind uint8

const (
	ixPosition eventIndexKind = iota
	ixStream
	ixCategory
	ixType
	ixCategoryType
)

// eventIndexDefs lists each index's ID and columns (ordinals of
// EventSchema).
var eventIndexDefs = []struct {
	id   string
	cols []int
}{
	ixPosition:     {"PRIMARY", []int{colPosition}},
	ixStream:       {"stream", []int{colStream, colNumber}},
	ixCategory:     {"category", []int{colCategory, colPosition}},
	ixType:         {"event_type", []int{colType, colPosition}},
	ixCategoryType: {"category_event_type", []int{colCategory, colType, colPosition}},
}

type eventIndex struct {
	db   string
	kind eventIndexKind
}

var _ sql.Index = eventIndex{}

func (ix eventIndex) ID() string       { return eventIndexDefs[ix.kind].id }
func (ix eventIndex) Database() string { return ix.db }
func (ix eventIndex) Table() string    { return EventsTable }

// Expressions implements sql.Index: "table.column", lower case.
func (ix eventIndex) Expressions() []string {
	var out []string
	for _, c := range eventIndexDefs[ix.kind].cols {
		out = append(out, EventsTable+"."+eventsSchema[c].Name)
	}
	return out
}

func (ix eventIndex) IsUnique() bool                        { return ix.kind == ixPosition || ix.kind == ixStream }
func (ix eventIndex) IsSpatial() bool                       { return false }
func (ix eventIndex) IsFullText() bool                      { return false }
func (ix eventIndex) IsVector() bool                        { return false }
func (ix eventIndex) IndexType() string                     { return "BTREE" }
func (ix eventIndex) IsGenerated() bool                     { return false }
func (ix eventIndex) PrefixLengths() []uint16               { return nil }
func (ix eventIndex) CanSupportOrderBy(sql.Expression) bool { return false }

var _ sql.OrderedIndex = eventIndex{}

// Order implements sql.OrderedIndex: PRIMARY reads in position order, so
// ORDER BY position (ASC or DESC) LIMIT n reads n events. The other
// indexes give no order the engine could use (an IN list's ranges come
// one after another).
func (ix eventIndex) Order(*sql.Context) sql.IndexOrder {
	if ix.kind == ixPosition {
		return sql.IndexOrderAsc
	}
	return sql.IndexOrderNone
}

// Reversible implements sql.OrderedIndex: PRIMARY reads backwards too.
func (ix eventIndex) Reversible(*sql.Context) bool { return ix.kind == ixPosition }

func (ix eventIndex) Comment() string {
	if ix.kind == ixCategoryType {
		return "the category and event_type indexes joined on position"
	}
	return ""
}

func (ix eventIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	exprs := ix.Expressions()
	out := make([]sql.ColumnExpressionType, len(exprs))
	for i, c := range eventIndexDefs[ix.kind].cols {
		out[i] = sql.ColumnExpressionType{Expression: exprs[i], Type: eventsSchema[c].Type}
	}
	return out
}

// CoversColumns implements sql.Index.
func (ix eventIndex) CoversColumns(cols []string) bool {
	exprs := eventIndexDefs[ix.kind].cols
	if len(cols) > len(exprs) {
		return false
	}
	for i, c := range cols {
		if !strings.EqualFold(c, eventsSchema[exprs[i]].Name) {
			return false
		}
	}
	return true
}

// CanSupport implements sql.Index: name columns take points (or no
// condition), numbers any range.
func (ix eventIndex) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	_, err := ix.queries(ranges)
	return err == nil
}

// queries turns ranges of the index into event queries.
func (ix eventIndex) queries(ranges []sql.Range) ([]eventQuery, error) {
	cols := eventIndexDefs[ix.kind].cols
	out := make([]eventQuery, 0, len(ranges))
	for _, r := range ranges {
		mr, ok := r.(sql.MySQLRange)
		if !ok || len(mr) > len(cols) {
			return nil, fmt.Errorf("verso: dolt_events: range %v does not fit index %s", r, ix.ID())
		}
		if ix.kind != ixPosition && (len(mr) == 0 || mr[0].Type() == sql.RangeType_All) {
			// Only the first column's values say which part of the index to
			// read: without them the index is no better than the log.
			return nil, fmt.Errorf("verso: dolt_events: a lookup on index %s needs values of %s", ix.ID(), eventsSchema[cols[0]].Name)
		}
		var q eventQuery
		for i, ce := range mr {
			if err := applyRange(&q, cols[i], ce); err != nil {
				return nil, err
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// applyRange narrows q by the range ce on column col.
func applyRange(q *eventQuery, col int, ce sql.MySQLRangeColumnExpr) error {
	switch ce.Type() {
	case sql.RangeType_All:
		return nil
	case sql.RangeType_Empty, sql.RangeType_EqualNull:
		// No event holds NULL in an indexed column.
		q.none = true
		return nil
	}
	switch col {
	case colStream, colCategory, colType:
		if ce.Type() != sql.RangeType_ClosedClosed {
			return fmt.Errorf("verso: dolt_events: %s takes points only", eventsSchema[col].Name)
		}
		lo, ok1 := rangeString(sql.GetMySQLRangeCutKey(ce.LowerBound))
		hi, ok2 := rangeString(sql.GetMySQLRangeCutKey(ce.UpperBound))
		if !ok1 || !ok2 || lo != hi {
			return fmt.Errorf("verso: dolt_events: %s takes points only", eventsSchema[col].Name)
		}
		var field *string
		switch col {
		case colStream:
			field = &q.f.Stream
		case colCategory:
			field = &q.f.Category
		default:
			field = &q.f.Type
		}
		if *field != "" && *field != lo {
			q.none = true
		}
		*field = lo
		if lo == "" {
			q.none = true // no event has an empty name
		}
		return nil
	case colPosition, colNumber:
		from, to, ok, err := uintBounds(ce)
		if err != nil {
			return err
		}
		if !ok {
			q.none = true
			return nil
		}
		if col == colPosition {
			q.f.From = max(q.f.From, eventindex.Position(from))
			if to != 0 && (q.f.To == 0 || eventindex.Position(to) < q.f.To) {
				q.f.To = eventindex.Position(to)
			}
			if q.f.To != 0 && q.f.From >= q.f.To {
				q.none = true
			}
		} else {
			q.numFrom = max(q.numFrom, from)
			if to != 0 && (q.numTo == 0 || to < q.numTo) {
				q.numTo = to
			}
			if q.numTo != 0 && q.numFrom >= q.numTo {
				q.none = true
			}
		}
		return nil
	}
	return fmt.Errorf("verso: dolt_events: column %s is not indexed", eventsSchema[col].Name)
}

func rangeString(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case []byte:
		return string(k), true
	}
	return "", false
}

// uintBounds returns the unsigned integers of a numeric range as from <=
// n < to (to 0: no upper bound); ok is false when no unsigned integer is
// in it.
func uintBounds(ce sql.MySQLRangeColumnExpr) (from, to uint64, ok bool, err error) {
	switch lb := ce.LowerBound.(type) {
	case sql.Below: // >= key
		v, err := rangeNumber(lb.Key)
		if err != nil {
			return 0, 0, false, err
		}
		if v > math.MaxUint64 {
			return 0, 0, false, nil
		}
		from = uint64(max(0, math.Ceil(v)))
	case sql.Above: // > key
		v, err := rangeNumber(lb.Key)
		if err != nil {
			return 0, 0, false, err
		}
		if v >= math.MaxUint64 {
			return 0, 0, false, nil
		}
		if v >= 0 {
			from = uint64(math.Floor(v)) + 1
		}
	case sql.AboveAll:
		return 0, 0, false, nil
	}
	switch ub := ce.UpperBound.(type) {
	case sql.Above: // <= key
		v, err := rangeNumber(ub.Key)
		if err != nil {
			return 0, 0, false, err
		}
		if v < 0 {
			return 0, 0, false, nil
		}
		if v < math.MaxUint64-1 {
			to = uint64(math.Floor(v)) + 1
		}
	case sql.Below: // < key
		v, err := rangeNumber(ub.Key)
		if err != nil {
			return 0, 0, false, err
		}
		if v <= 0 {
			return 0, 0, false, nil
		}
		if v < math.MaxUint64 {
			to = uint64(math.Ceil(v))
		}
	case sql.AboveNull, sql.BelowNull:
		return 0, 0, false, nil
	}
	if to != 0 && from >= to {
		return 0, 0, false, nil
	}
	return from, to, true, nil
}

// rangeNumber returns a numeric range key as a float64 (exact for the
// positions and event numbers a log can hold, below 2^53).
func rangeNumber(k any) (float64, error) {
	switch k := k.(type) {
	case int:
		return float64(k), nil
	case int8:
		return float64(k), nil
	case int16:
		return float64(k), nil
	case int32:
		return float64(k), nil
	case int64:
		return float64(k), nil
	case uint:
		return float64(k), nil
	case uint8:
		return float64(k), nil
	case uint16:
		return float64(k), nil
	case uint32:
		return float64(k), nil
	case uint64:
		return float64(k), nil
	case float32:
		return float64(k), nil
	case float64:
		return k, nil
	case string:
		return strconv.ParseFloat(strings.TrimSpace(k), 64)
	case []byte:
		return strconv.ParseFloat(strings.TrimSpace(string(k)), 64)
	case fmt.Stringer: // decimal.Decimal
		return strconv.ParseFloat(k.String(), 64)
	}
	return 0, fmt.Errorf("verso: dolt_events: range key %v (%T) is not a number", k, k)
}

// GetIndexes implements sql.IndexAddressable.
func (t *eventsTable) GetIndexes(*sql.Context) ([]sql.Index, error) {
	out := make([]sql.Index, len(eventIndexDefs))
	for i := range eventIndexDefs {
		out[i] = eventIndex{db: t.src.v.DB, kind: eventIndexKind(i)}
	}
	return out, nil
}

// PreciseMatch implements sql.IndexAddressable: a lookup returns exactly
// the events in its ranges.
func (t *eventsTable) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable.
func (t *eventsTable) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	ix, ok := lookup.Index.(eventIndex)
	if !ok {
		return nil
	}
	if _, err := ix.queries(lookup.Ranges.ToRanges()); err != nil {
		return nil
	}
	nt := *t
	nt.lookup = &lookup
	return &nt
}

// LookupPartitions implements sql.IndexedTable.
func (t *eventsTable) LookupPartitions(_ *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	ix, ok := lookup.Index.(eventIndex)
	if !ok {
		return nil, fmt.Errorf("verso: dolt_events: lookup on foreign index %s", lookup.Index.ID())
	}
	qs, err := ix.queries(lookup.Ranges.ToRanges())
	if err != nil {
		return nil, err
	}
	if lookup.IsEmptyRange {
		qs = []eventQuery{{none: true}}
	}
	if ix.kind == ixPosition {
		// Ranges of positions do not overlap: read them in the lookup's
		// order, whatever order the engine lists them in.
		slices.SortStableFunc(qs, func(a, b eventQuery) int {
			if lookup.IsReverse {
				a, b = b, a
			}
			return cmp.Compare(a.f.From, b.f.From)
		})
	}
	return sql.PartitionsToPartitionIter(eventPartition{queries: qs, reverse: lookup.IsReverse}), nil
}

// SkipIndexCosting implements sql.IndexSearchableTable: filters that
// LookupForExpressions does not take are costed as usual.
func (t *eventsTable) SkipIndexCosting() bool { return false }

// eventConds are the literal conditions of a filter that dolt_events'
// indexes can take, by column, with the conjuncts they came from.
type eventConds struct {
	points map[int][]string // name column -> values (= or IN)
	bounds map[int][]bound  // number column -> comparisons
	used   map[int][]int    // column -> conjunct numbers
}

type bound struct {
	op  string // ">", ">=", "<", "<="
	val any
}

// LookupForExpressions implements sql.IndexSearchableTable: from the
// conjuncts on literals it takes, in this order of preference, a stream
// (with event_number ranges), a category and an event type together
// (with position ranges), a category or an event type (with position
// ranges), or position ranges; the conjuncts the lookup does not take
// stay a filter above it.
func (t *eventsTable) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	c := eventConds{points: map[int][]string{}, bounds: map[int][]bound{}, used: map[int][]int{}}
	for i, e := range exprs {
		c.take(ctx, i, e)
	}
	var kind eventIndexKind
	switch {
	case len(c.points[colStream]) > 0:
		kind = ixStream
	case len(c.points[colCategory]) > 0 && len(c.points[colType]) > 0:
		kind = ixCategoryType
	case len(c.points[colCategory]) > 0:
		kind = ixCategory
	case len(c.points[colType]) > 0:
		kind = ixType
	case len(c.bounds[colPosition]) > 0:
		kind = ixPosition
	default:
		return sql.IndexLookup{}, nil, nil, false, nil
	}
	ix := eventIndex{db: t.src.v.DB, kind: kind}
	ranges := sql.MySQLRangeCollection{nil}
	taken := map[int]bool{}
	for _, col := range eventIndexDefs[kind].cols {
		var exprs []sql.MySQLRangeColumnExpr
		typ := eventsSchema[col].Type
		if vals := c.points[col]; len(vals) > 0 {
			for _, v := range vals {
				exprs = append(exprs, sql.ClosedRangeColumnExpr(v, v, typ))
			}
		} else if bs := c.bounds[col]; len(bs) > 0 {
			exprs = append(exprs, boundsRange(bs, typ))
		} else {
			exprs = append(exprs, sql.AllRangeColumnExpr(typ))
		}
		for _, i := range c.used[col] {
			taken[i] = true
		}
		// The cross product of the ranges so far and this column's.
		var next sql.MySQLRangeCollection
		for _, r := range ranges {
			for _, ce := range exprs {
				next = append(next, append(append(sql.MySQLRange(nil), r...), ce))
			}
		}
		ranges = next
	}
	var rest []sql.Expression
	for i, e := range exprs {
		if !taken[i] {
			rest = append(rest, e)
		}
	}
	unique := ix.IsUnique() && len(ranges) == 1 && kind == ixStream && len(c.bounds[colNumber]) > 0 && isPoint(ranges[0])
	lookup := sql.NewIndexLookup(ix, ranges, unique, false, false, false)
	return lookup, nil, expression.JoinAnd(rest...), true, nil
}

func isPoint(r sql.MySQLRange) bool {
	for _, ce := range r {
		if ce.Type() != sql.RangeType_ClosedClosed {
			return false
		}
		lo, hi := sql.GetMySQLRangeCutKey(ce.LowerBound), sql.GetMySQLRangeCutKey(ce.UpperBound)
		if fmt.Sprint(lo) != fmt.Sprint(hi) {
			return false
		}
	}
	return true
}

// boundsRange intersects comparisons on a number column into one range.
func boundsRange(bs []bound, typ sql.Type) sql.MySQLRangeColumnExpr {
	var lo sql.MySQLRangeCut = sql.AboveNull{}
	var hi sql.MySQLRangeCut = sql.AboveAll{}
	var loV, hiV float64 = math.Inf(-1), math.Inf(1)
	for _, b := range bs {
		v, err := rangeNumber(b.val)
		if err != nil {
			continue
		}
		switch b.op {
		case ">=":
			if v > loV {
				loV, lo = v, sql.Below{Key: b.val, Typ: typ}
			}
		case ">":
			if v >= loV {
				loV, lo = v, sql.Above{Key: b.val, Typ: typ}
			}
		case "<=":
			if v < hiV {
				hiV, hi = v, sql.Above{Key: b.val, Typ: typ}
			}
		case "<":
			if v <= hiV {
				hiV, hi = v, sql.Below{Key: b.val, Typ: typ}
			}
		}
	}
	if loV > hiV {
		return sql.EmptyRangeColumnExpr(typ)
	}
	return sql.MySQLRangeColumnExpr{LowerBound: lo, UpperBound: hi, Typ: typ}
}

// take records the conjunct e (number i) if it is a condition on literals
// that an index can take.
func (c *eventConds) take(ctx *sql.Context, i int, e sql.Expression) {
	col, vals, op, ok := literalCondition(ctx, e)
	if !ok {
		return
	}
	switch col {
	case colStream, colCategory, colType:
		if op != "=" || len(c.points[col]) > 0 {
			return
		}
		var ss []string
		for _, v := range vals {
			s, ok := rangeString(v)
			if !ok {
				return
			}
			if !slices.Contains(ss, s) { // one range per value: IN ('a', 'a') reads a once
				ss = append(ss, s)
			}
		}
		c.points[col] = ss
	case colPosition, colNumber:
		if len(vals) != 1 {
			return // IN on a number: left to the filter
		}
		if _, err := rangeNumber(vals[0]); err != nil {
			return
		}
		if op == "=" {
			c.bounds[col] = append(c.bounds[col], bound{">=", vals[0]}, bound{"<=", vals[0]})
		} else {
			c.bounds[col] = append(c.bounds[col], bound{op, vals[0]})
		}
	default:
		return
	}
	c.used[col] = append(c.used[col], i)
}

// literalCondition recognizes col = lit, col IN (lit, ...) and col <op>
// lit (either way round) on a column of dolt_events, returning the
// column's ordinal, the literals' values and the operator as col <op> lit.
func literalCondition(ctx *sql.Context, e sql.Expression) (int, []any, string, bool) {
	var left, right sql.Expression
	op := ""
	switch e := e.(type) {
	case *expression.Equals:
		left, right, op = e.Left(), e.Right(), "="
	case *expression.GreaterThan:
		left, right, op = e.Left(), e.Right(), ">"
	case *expression.GreaterThanOrEqual:
		left, right, op = e.Left(), e.Right(), ">="
	case *expression.LessThan:
		left, right, op = e.Left(), e.Right(), "<"
	case *expression.LessThanOrEqual:
		left, right, op = e.Left(), e.Right(), "<="
	case *expression.InTuple:
		left, right, op = e.Left(), e.Right(), "="
	case *expression.HashInTuple:
		ch := e.Children()
		if len(ch) != 2 {
			return 0, nil, "", false
		}
		left, right, op = ch[0], ch[1], "="
	default:
		return 0, nil, "", false
	}
	if _, ok := left.(*expression.GetField); !ok {
		left, right = right, left
		op = map[string]string{"=": "=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
	}
	gf, ok := left.(*expression.GetField)
	if !ok {
		return 0, nil, "", false
	}
	col := eventsSchema.IndexOfColName(gf.Name())
	if col < 0 {
		return 0, nil, "", false
	}
	var lits []sql.Expression
	if tu, ok := right.(expression.Tuple); ok {
		if op != "=" {
			return 0, nil, "", false
		}
		lits = tu
	} else {
		lits = []sql.Expression{right}
	}
	vals := make([]any, 0, len(lits))
	for _, l := range lits {
		lit, ok := l.(*expression.Literal)
		if !ok {
			return 0, nil, "", false
		}
		v, err := lit.Eval(ctx, nil)
		if err != nil || v == nil {
			return 0, nil, "", false
		}
		if col == colStream || col == colCategory || col == colType {
			if !types.IsText(lit.Type(ctx)) {
				return 0, nil, "", false
			}
		}
		vals = append(vals, v)
	}
	return col, vals, op, len(vals) > 0
}
