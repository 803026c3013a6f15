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

func TestSchemaRoundTripAndGolden(t *testing.T) {
	s := testSchema(false)
	s.Columns[3].Default = "'none'"
	s.Columns[3].Comment = "free text"
	s.Columns[2].OnUpdate = "1"
	s.Columns[2].Hidden = true
	s.Checks = []Check{{Name: "chk_score", Expr: "score >= 0", Enforced: true}}
	b := EncodeSchema(s)
	got, err := DecodeSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(s) {
		t.Fatalf("round trip: %+v, want %+v", got, s)
	}
	// The address of a fixed schema pins the format.
	if a, want := chunks.Of(b).String(), "3j3ic9jl317oorevvha2jqouscsra270"; a != want {
		t.Errorf("schema chunk address %s, want %s", a, want)
	}
}

func TestSchemaValidate(t *testing.T) {
	for _, c := range []struct {
		edit func(*Schema)
		says string
	}{
		{func(s *Schema) { s.Columns = nil }, "at least one column"},
		{func(s *Schema) { s.Columns[1].Name = "ID" }, `duplicate column name "ID"`},
		{func(s *Schema) { s.Columns[1].AutoIncrement = true }, "not an integer"},
		{func(s *Schema) { s.Columns[2].AutoIncrement = true }, "only one auto-increment"},
		{func(s *Schema) { s.PrimaryKey = []int{0, 0} }, `names column "id" twice`},
		{func(s *Schema) { s.PrimaryKey = []int{7} }, "names column 7 of 4"},
		{func(s *Schema) { s.PrimaryKey = []int{2} }, `"score" must be NOT NULL`},
		{func(s *Schema) { s.Columns[3].Kind = prolly.KindJSON; s.Indexes[1].Columns = []int{3} }, "cannot be part of a key"},
		{func(s *Schema) { s.Indexes[1].Name = "BY_NAME" }, `duplicate index name "BY_NAME"`},
		{func(s *Schema) { s.Indexes[1].Name = "primary" }, `duplicate index name "primary"`},
		{func(s *Schema) { s.Columns[1].Kind = prolly.KindRef }, "no storable kind"},
	} {
		s := testSchema(false)
		c.edit(s)
		err := s.Validate()
		if !errors.Is(err, ErrBadSchema) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("want an error saying %q, got %v", c.says, err)
		}
	}
}

// TestCollations: the collations a table's columns name come from the
// Collations it is opened with, and from nowhere else: without them New and
// Load fail with ErrUnknownCollation, and two Collations giving one name
// different orders key the same rows differently, each in its own table.
func TestCollations(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	s := testSchema(false)
	s.Columns[1].Collation = "klingon_ci"
	if _, err := New(ns, s, testCollations); !errors.Is(err, ErrUnknownCollation) || !errors.Is(err, ErrBadSchema) || !strings.Contains(err.Error(), `"klingon_ci"`) {
		t.Fatalf("new with an unknown collation: %v", err)
	}
	if _, err := New(ns, testSchema(false), nil); !errors.Is(err, ErrUnknownCollation) {
		t.Fatalf("new without collations: %v", err)
	}
	tb, err := New(ns, testSchema(false), testCollations)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Collations() == nil {
		t.Fatal("the table forgot its collations")
	}
	addr, err := tb.Write(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, ns, addr, nil); !errors.Is(err, ErrUnknownCollation) {
		t.Fatalf("load without collations: %v", err)
	}
	// One name, two orders: lower case, and lower case reversed.
	reversed := CollationMap{"test_ci": func(s string) []byte {
		b := []byte(strings.ToLower(s))
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return b
	}}
	order := func(cs Collations) string {
		tb, err := New(ns, testSchema(false), cs)
		if err != nil {
			t.Fatal(err)
		}
		ed := tb.Edit()
		for i, name := range []string{"ab", "BA", "ca"} {
			if _, err := ed.Insert(ctx, []Value{prolly.Int(int64(i + 1)), prolly.String(name), prolly.Null(), prolly.Null()}); err != nil {
				t.Fatal(err)
			}
		}
		if tb, err = ed.Table(ctx); err != nil {
			t.Fatal(err)
		}
		var got []string
		it := tb.ScanIndex(ctx, 0, nil, nil, false)
		for it.Next(ctx) {
			got = append(got, it.Row()[1].AsString())
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	if got := order(testCollations); got != "ab BA ca" {
		t.Errorf("test_ci order %q", got)
	}
	if got := order(reversed); got != "BA ca ab" {
		t.Errorf("reversed test_ci order %q", got)
	}
}

func FuzzDecodeSchema(f *testing.F) {
	f.Add(EncodeSchema(testSchema(false)))
	f.Add(EncodeSchema(testSchema(true)))
	f.Add(EncodeSchema(prefixSchema()))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSchema(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if string(EncodeSchema(s)) != string(b) {
			t.Fatal("schema does not round-trip")
		}
	})
}

func FuzzDecodeTable(f *testing.F) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	tb, _ := New(ns, testSchema(false), testCollations)
	a, _ := tb.Write(ctx)
	b, _ := ns.Store().Get(ctx, a)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, _, _, _, err := decodeTable(b); err != nil && !chunks.IsCorrupt(err) {
			t.Fatalf("error %v is not a corruption error", err)
		}
	})
}

// TestTableHistoryIndependence inserts the same rows in different orders,
// directly and through deletes of extra rows: the table values are equal.
func TestTableHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	var rows [][]Value
	for i := 0; i < 500; i++ {
		rows = append(rows, []Value{prolly.Int(int64(i + 1)), prolly.String(fmt.Sprint("n", i)), prolly.Int(int64(r.Intn(9))), prolly.Null()})
	}
	var want chunks.Address
	for trial := 0; trial < 4; trial++ {
		ns := prolly.NewNodeStore(chunks.NewMemoryStore())
		tb, err := New(ns, testSchema(false), testCollations)
		if err != nil {
			t.Fatal(err)
		}
		ed := tb.Edit()
		order := r.Perm(len(rows))
		for n, i := range order {
			if _, err := ed.Insert(ctx, rows[i]); err != nil {
				t.Fatal(err)
			}
			if trial == 3 && n%50 == 0 { // extra rows, deleted again
				extra := []Value{prolly.Int(int64(1000 + n)), prolly.String(fmt.Sprint("x", n)), prolly.Null(), prolly.Null()}
				if _, err := ed.Insert(ctx, extra); err != nil {
					t.Fatal(err)
				}
				if _, err := ed.Table(ctx); err != nil {
					t.Fatal(err)
				}
				if err := ed.Delete(ctx, extra); err != nil {
					t.Fatal(err)
				}
			}
		}
		ed.SetAutoIncrement(501)
		nt, err := ed.Table(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if trial == 3 {
			nt.autoInc = 501 // the extra rows moved the counter on; reset it to compare
		}
		a, err := nt.Write(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if trial == 0 {
			want = a
		} else if a != want {
			t.Fatalf("trial %d: table %s, want %s", trial, a, want)
		}
	}
}

// TestAutoIncrementOneIsUnset: setting a fresh table's counter to 1, its
// meaning already, keeps the table value (a merge carries the counter over
// this way, and must not make an unchanged table look changed).
func TestAutoIncrementOneIsUnset(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	tb, err := New(ns, testSchema(false), testCollations)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tb.Write(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ed := tb.Edit()
	ed.SetAutoIncrement(tb.AutoIncrement())
	nt, err := ed.Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := nt.Write(ctx); err != nil || got != want {
		t.Fatalf("table after SetAutoIncrement(1): %s, %v; want %s", got, err, want)
	}
	if nt.AutoIncrement() != 1 {
		t.Fatalf("AutoIncrement %d, want 1", nt.AutoIncrement())
	}
}
