package sqlserver

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// The sort of a fast-path range read by one column.
//
// The engine's sort evaluates the sort column of both rows and compares
// them through the column type's generic comparison (for a string, rune
// by rune through the collation's weights) at every step of a stable
// sort: about a third of an ordered 100-row range query's time in
// process (BenchmarkPreparedPointSelect/order). The fast path (fastselect.go) instead
// computes each row's sort key once, as bytes or a number whose plain
// order is the engine's order, and sorts the keys:
//
//   - integer columns: the value, its sign bit flipped for signed types;
//   - strings in utf8mb4_0900_bin: the string itself (its weights are the
//     code points, whose order is UTF-8's byte order);
//   - strings in the other collations of utf8mb4 and utf8mb3: the
//     collation's weight of each rune, big-endian (collationSortKey).
//
// NULL sorts first ascending and last descending, and ties keep the
// scan's (primary-key) order, as in the engine's stable sort. Any other
// column type, or character set, sorts through the engine's Sort.
//
// DISTINCT of the sorted column alone, where equal keys mean equal values
// (integers, utf8mb4_0900_bin), keeps the first row of each run of equal
// keys: the rows the engine's Distinct keeps, without hashing each one.

// sortKeyKind says how a column's values become sort keys.
type sortKeyKind uint8

const (
	sortNone     sortKeyKind = iota // the engine sorts
	sortSigned                      // int8 ... int64
	sortUnsigned                    // uint8 ... uint64
	sortBytes                       // a string in a byte-ordered collation
	sortWeights                     // a string in another collation of utf8mb4 or utf8mb3
)

// sortKeyKindOf returns how values of type t sort by key, and whether
// equal keys mean equal values (so that DISTINCT can compare keys).
func sortKeyKindOf(t sql.Type) (kind sortKeyKind, exact bool) {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64:
		return sortSigned, true
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		return sortUnsigned, true
	}
	st, ok := t.(types.StringType)
	if !ok || !types.IsText(t) {
		return sortNone, false
	}
	c := st.Collation()
	if c == sql.Collation_utf8mb4_0900_bin {
		return sortBytes, true
	}
	if cs := c.CharacterSet(); (cs == sql.CharacterSet_utf8mb4 || cs == sql.CharacterSet_utf8mb3) && c.Sorter() != nil {
		return sortWeights, false
	}
	return sortNone, false
}

// sortEntry is the sort key of one row.
type sortEntry struct {
	num  uint64 // integer columns: the key; string columns: its first 8 bytes, big-endian
	key  string // string columns
	pos  int32  // the row's place in the scan: ties keep it
	null bool
}

// compareEntries orders a before b as the engine's ascending sort does,
// but for ties.
func compareEntries(a, b *sortEntry) int {
	if a.null || b.null {
		switch {
		case a.null && b.null:
			return 0
		case a.null:
			return -1
		}
		return 1
	}
	if a.num != b.num {
		return cmp.Compare(a.num, b.num)
	}
	return strings.Compare(a.key, b.key)
}

// keySortIter returns the rows of src sorted by column col, each key
// computed once; with distinct, only the first row of each run of equal
// keys.
type keySortIter struct {
	src      sql.RowIter
	col      int
	kind     sortKeyKind
	weights  func(string) []byte // sortWeights
	desc     bool
	distinct bool

	rows   []sql.Row   // in the scan's order
	sorted []sortEntry // in the sort's order
	next   int
	done   bool
}

// newKeySortIter returns the sort of src by column col of type t, or nil
// when the engine must sort (see sortKeyKindOf). distinct asks for the
// dedup of equal keys; the sort does it (its distinct field) only where
// equal keys mean equal values, and leaves it to the caller elsewhere.
func newKeySortIter(src sql.RowIter, col int, t sql.Type, desc, distinct bool) *keySortIter {
	kind, exact := sortKeyKindOf(t)
	if kind == sortNone {
		return nil
	}
	s := &keySortIter{src: src, col: col, kind: kind, desc: desc, distinct: distinct && exact}
	if kind == sortWeights {
		s.weights = collationSortKey(t.(types.StringType).Collation())
	}
	return s
}

var _ sql.RowIter = (*keySortIter)(nil)

func (s *keySortIter) Next(ctx *sql.Context) (sql.Row, error) {
	if !s.done {
		if err := s.sort(ctx); err != nil {
			return nil, err
		}
		s.done = true
	}
	for s.next < len(s.sorted) {
		e := &s.sorted[s.next]
		s.next++
		if s.distinct && s.next > 1 && compareEntries(&s.sorted[s.next-2], e) == 0 {
			continue
		}
		row := s.rows[e.pos]
		s.rows[e.pos] = nil
		return row, nil
	}
	return nil, io.EOF
}

// sort reads every row of the source and sorts them by key. The sort
// need not be stable: ties compare by scan position.
func (s *keySortIter) sort(ctx *sql.Context) error {
	s.rows = make([]sql.Row, 0, 64)
	s.sorted = make([]sortEntry, 0, 64)
	for {
		row, err := s.src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(s.rows) == math.MaxInt32 {
			return fmt.Errorf("sqlserver: a fast-path sort of over %d rows", math.MaxInt32)
		}
		e := sortEntry{pos: int32(len(s.rows))}
		if err := s.setKey(&e, row[s.col]); err != nil {
			return err
		}
		s.rows = append(s.rows, row)
		s.sorted = append(s.sorted, e)
	}
	desc := s.desc
	slices.SortFunc(s.sorted, func(a, b sortEntry) int {
		c := compareEntries(&a, &b)
		if desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.pos, b.pos)
		}
		return c
	})
	return nil
}

// setKey sets e's key from v, the row's value of the sort column.
func (s *keySortIter) setKey(e *sortEntry, v any) error {
	if v == nil {
		e.null = true
		return nil
	}
	switch s.kind {
	case sortSigned:
		var i int64
		switch x := v.(type) {
		case int8:
			i = int64(x)
		case int16:
			i = int64(x)
		case int32:
			i = int64(x)
		case int64:
			i = x
		default:
			return fmt.Errorf("sqlserver: sorting a value of type %T as a signed integer", v)
		}
		e.num = uint64(i) ^ 1<<63
	case sortUnsigned:
		switch x := v.(type) {
		case uint8:
			e.num = uint64(x)
		case uint16:
			e.num = uint64(x)
		case uint32:
			e.num = uint64(x)
		case uint64:
			e.num = x
		default:
			return fmt.Errorf("sqlserver: sorting a value of type %T as an unsigned integer", v)
		}
	default:
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("sqlserver: sorting a value of type %T as a string", v)
		}
		if s.kind == sortWeights {
			str = string(s.weights(str))
		}
		e.key = str
		var head [8]byte
		copy(head[:], str)
		e.num = binary.BigEndian.Uint64(head[:])
	}
	return nil
}

func (s *keySortIter) Close(ctx *sql.Context) error {
	s.rows, s.sorted = nil, nil
	return s.src.Close(ctx)
}
