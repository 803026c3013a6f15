package tables

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// randSchema returns a schema of 1-7 columns of random kinds, with a
// random primary key (possibly in a case-insensitive collation, which
// stores the column's original in the value tuple too) or none, and up to
// two secondary indexes.
func randSchema(r *rand.Rand) *Schema {
	s := &Schema{}
	n := 1 + r.Intn(7)
	for i := 0; i < n; i++ {
		c := Column{Name: fmt.Sprintf("c%d", i), Nullable: r.Intn(2) == 0}
		switch r.Intn(5) {
		case 0:
			c.Type, c.Kind = "bigint", prolly.KindInt
		case 1:
			c.Type, c.Kind = "bigint unsigned", prolly.KindUint
		case 2:
			c.Type, c.Kind = "double", prolly.KindFloat64
		case 3:
			c.Type, c.Kind = "text", prolly.KindString
			if r.Intn(2) == 0 {
				c.Collation = "test_ci"
			}
		case 4:
			c.Type, c.Kind = "blob", prolly.KindBytes
		}
		s.Columns = append(s.Columns, c)
	}
	if r.Intn(4) > 0 {
		for _, c := range r.Perm(n)[:1+r.Intn(min(n, 2))] {
			if s.Columns[c].Kind == prolly.KindFloat64 {
				continue
			}
			s.Columns[c].Nullable = false
			s.PrimaryKey = append(s.PrimaryKey, c)
		}
	}
	for i := 0; i < r.Intn(3); i++ {
		s.Indexes = append(s.Indexes, Index{Name: fmt.Sprintf("ix%d", i), Columns: []int{r.Intn(n)}})
	}
	return s
}

func randValue(r *rand.Rand, c Column, large bool) Value {
	if c.Nullable && r.Intn(4) == 0 {
		return prolly.Null()
	}
	switch c.Kind {
	case prolly.KindInt:
		return prolly.Int(int64(r.Intn(1000) - 500))
	case prolly.KindUint:
		return prolly.Uint(uint64(r.Intn(1000)))
	case prolly.KindFloat64:
		return prolly.Float64(float64(r.Intn(1000)) / 8)
	case prolly.KindString:
		s := fmt.Sprintf("s%d", r.Intn(1000))
		if large && r.Intn(8) == 0 { // stored out of line
			s = strings.Repeat(s, 2000)
		}
		return prolly.String(s)
	default:
		b := []byte(fmt.Sprintf("b%d", r.Intn(1000)))
		if large && r.Intn(8) == 0 {
			b = []byte(strings.Repeat(string(b), 2000))
		}
		return prolly.Bytes(b)
	}
}

// TestProjectedScan checks, over random schemas, rows and projections,
// that a projected scan (of the row map and of each index) yields exactly
// the projected columns of the full scan, in the same order.
func TestProjectedScan(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	for round := 0; round < 60; round++ {
		s := randSchema(r)
		ns := prolly.NewNodeStore(chunks.NewMemoryStore())
		tb, err := New(ns, s, testCollations)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		keyed := make([]bool, len(s.Columns)) // large values only out of keys
		for _, c := range s.PrimaryKey {
			keyed[c] = true
		}
		for _, ix := range s.Indexes {
			for _, c := range ix.Columns {
				keyed[c] = true
			}
		}
		ed := tb.Edit()
		for i := 0; i < 1+r.Intn(60); i++ {
			row := make([]Value, len(s.Columns))
			for j, c := range s.Columns {
				row[j] = randValue(r, c, !keyed[j])
			}
			if _, err := ed.Insert(ctx, row); err != nil && !isDuplicate(err) {
				t.Fatalf("round %d: insert: %v", round, err)
			}
		}
		if tb, err = ed.Table(ctx); err != nil {
			t.Fatal(err)
		}
		for p := 0; p < 8; p++ {
			cols := make([]int, r.Intn(len(s.Columns)+2))
			for i := range cols {
				cols[i] = r.Intn(len(s.Columns))
			}
			proj, err := tb.Project(cols)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("round %d, schema %+v, projection %v", round, s, cols)
			checkProjected(t, ctx, what+", row map", tb.Scan(ctx, nil, nil, false), tb.Scan(ctx, nil, nil, false).Project(proj), cols)
			checkProjected(t, ctx, what+", row map, reused rows", tb.Scan(ctx, nil, nil, false), tb.Scan(ctx, nil, nil, false).Project(proj).ReuseRow(), cols)
			for i := range s.Indexes {
				checkProjected(t, ctx, fmt.Sprintf("%s, index %d", what, i), tb.ScanIndex(ctx, i, nil, nil, true), tb.ScanIndex(ctx, i, nil, nil, true).Project(proj), cols)
				checkProjected(t, ctx, fmt.Sprintf("%s, index %d, reused rows", what, i), tb.ScanIndex(ctx, i, nil, nil, true), tb.ScanIndex(ctx, i, nil, nil, true).Project(proj).ReuseRow(), cols)
			}
		}
		if _, err := tb.Project([]int{len(s.Columns)}); err == nil {
			t.Fatal("projecting a column past the schema: no error")
		}
	}
}

func isDuplicate(err error) bool {
	var dup *DuplicateKeyError
	return errors.As(err, &dup)
}

func checkProjected(t *testing.T, ctx context.Context, what string, full, projected *RowIter, cols []int) {
	t.Helper()
	n := 0
	var first *Value // with ReuseRow, every row's array is the first's
	for full.Next(ctx) {
		if !projected.Next(ctx) {
			t.Fatalf("%s: projected scan ends after %d rows (%v)", what, n, projected.Err())
		}
		want := make([]Value, len(cols))
		for i, c := range cols {
			want[i] = full.Row()[c]
		}
		if got := projected.Row(); len(got) != len(want) || (len(want) > 0 && !rowsEqual(got, want)) {
			t.Fatalf("%s: row %d is %v, want %v", what, n, got, want)
		}
		if got := projected.Row(); projected.reuse && len(got) > 0 {
			if first == nil {
				first = &got[0]
			} else if &got[0] != first {
				t.Fatalf("%s: row %d is in a new array, with ReuseRow", what, n)
			}
		}
		n++
	}
	if err := full.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if projected.Next(ctx) {
		t.Fatalf("%s: projected scan has more than %d rows", what, n)
	}
	if err := projected.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
