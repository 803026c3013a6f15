package tables

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// prefixSchema: id (key), name (case-insensitive, unique on its first 3
// characters), data (bytes, indexed on its first 2 bytes, with name's
// prefix after it).
func prefixSchema() *Schema {
	return &Schema{
		Columns: []Column{
			{Name: "id", Type: "bigint", Kind: prolly.KindInt},
			{Name: "name", Type: "varchar(20)", Kind: prolly.KindString, Nullable: true, Collation: "test_ci"},
			{Name: "data", Type: "varbinary(20)", Kind: prolly.KindBytes, Nullable: true},
		},
		PrimaryKey: []int{0},
		Indexes: []Index{
			{Name: "name3", Columns: []int{1}, Prefix: []int{3}, Unique: true},
			{Name: "data2", Columns: []int{2, 1}, Prefix: []int{2, 1}},
		},
	}
}

func TestPrefixSchemaCodec(t *testing.T) {
	s := prefixSchema()
	b := EncodeSchema(s)
	got, err := DecodeSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(s) {
		t.Fatalf("round trip: %+v, want %+v", got, s)
	}
	// The address of a fixed schema pins the format of prefix lengths.
	if a, want := chunks.Of(b).String(), "shtv8cql5md3n62ot9jluhlbj2nsb0d0"; a != want {
		t.Errorf("schema chunk address %s, want %s", a, want)
	}
	// All-zero prefix lengths are stored as none: the flag is set exactly
	// when a length is not zero.
	s.Indexes[0].Prefix = []int{0}
	if string(EncodeSchema(s)) != string(EncodeSchema(&Schema{Columns: s.Columns, PrimaryKey: s.PrimaryKey,
		Indexes: []Index{{Name: "name3", Columns: []int{1}, Unique: true}, s.Indexes[1]}})) {
		t.Error("zero prefix lengths change the encoding")
	}
	for _, c := range []struct {
		edit func(*Schema)
		says string
	}{
		{func(s *Schema) { s.Indexes[0].Prefix = []int{3, 4} }, "2 prefix lengths for 1 columns"},
		{func(s *Schema) { s.Indexes[0].Prefix = []int{-1} }, "prefix length -1"},
		{func(s *Schema) { s.Indexes[0].Prefix = []int{MaxPrefix + 1} }, "prefix length 65536"},
		{func(s *Schema) { s.Indexes[0].Columns = []int{0} }, "cannot be indexed on a prefix"},
	} {
		s := prefixSchema()
		c.edit(s)
		if err := s.Validate(); !errors.Is(err, ErrBadSchema) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("want an error saying %q, got %v", c.says, err)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		v    Value
		n    int
		want Value
	}{
		{prolly.String("héllo"), 2, prolly.String("hé")},
		{prolly.String("héllo"), 5, prolly.String("héllo")},
		{prolly.String("héllo"), 9, prolly.String("héllo")},
		{prolly.String("日本語"), 1, prolly.String("日")},
		{prolly.Bytes([]byte("héllo")), 2, prolly.Bytes([]byte("h\xc3"))},
		{prolly.Int(12345), 2, prolly.Int(12345)},
		{prolly.Null(), 2, prolly.Null()},
		{prolly.String("abc"), 0, prolly.String("abc")},
	} {
		if got := truncate(c.v, c.n); prolly.CompareValues(got, c.want) != 0 || got.Kind() != c.want.Kind() {
			t.Errorf("truncate(%v, %d) = %v, want %v", c.v, c.n, got, c.want)
		}
	}
}

// prefixKey is the reference's unique key of a name: its first 3
// characters, case folded.
func prefixKey(v Value) string {
	return strings.ToLower(truncate(v, 3).AsString())
}

// TestPrefixIndexModel runs random inserts, updates and deletes against
// prefixSchema and a brute-force reference: uniqueness holds on the
// prefixes, scans of both indexes over a key prefix give exactly the rows
// whose prefix matches, and Check passes.
func TestPrefixIndexModel(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	tb, err := New(ns, prefixSchema(), testCollations)
	if err != nil {
		t.Fatal(err)
	}
	ed := tb.Edit()
	ref := map[int64][]Value{}
	randRow := func() []Value {
		row := []Value{prolly.Int(int64(r.Intn(40))), prolly.Null(), prolly.Null()}
		if r.Intn(5) > 0 {
			var sb strings.Builder
			for n := 1 + r.Intn(5); n > 0; n-- {
				sb.WriteString([]string{"a", "B", "b", "é", "É", "x"}[r.Intn(6)])
			}
			row[1] = prolly.String(sb.String())
		}
		if r.Intn(5) > 0 {
			row[2] = prolly.Bytes([]byte(fmt.Sprint(r.Intn(300))))
		}
		return row
	}
	conflict := func(row []Value, self int64) bool {
		if row[1].IsNull() {
			return false
		}
		for id, x := range ref {
			if id != self && !x[1].IsNull() && prefixKey(x[1]) == prefixKey(row[1]) {
				return true
			}
		}
		return false
	}
	for op := 0; op < *flagOps/2; op++ {
		row := randRow()
		id := row[0].AsInt()
		old, exists := ref[id]
		var dup *DuplicateKeyError
		switch k := r.Intn(10); {
		case k < 5: // insert
			_, err := ed.Insert(ctx, row)
			switch {
			case exists:
				if !errors.As(err, &dup) || dup.Index != PrimaryIndexName {
					t.Fatalf("op %d: insert %v: %v, want a duplicate primary key", op, row, err)
				}
			case conflict(row, -1):
				if !errors.As(err, &dup) || dup.Index != "name3" || !strings.EqualFold(dup.Key, truncate(row[1], 3).AsString()) {
					t.Fatalf("op %d: insert %v: %v, want a duplicate of %q on name3", op, row, err, truncate(row[1], 3))
				}
			case err != nil:
				t.Fatalf("op %d: insert %v: %v", op, row, err)
			default:
				ref[id] = row
			}
		case k < 8: // update
			if !exists {
				continue
			}
			err := ed.Update(ctx, old, row)
			switch {
			case conflict(row, id):
				if !errors.As(err, &dup) || dup.Index != "name3" {
					t.Fatalf("op %d: update %v: %v, want a duplicate on name3", op, row, err)
				}
			case err != nil:
				t.Fatalf("op %d: update %v: %v", op, row, err)
			default:
				ref[id] = row
			}
		default: // delete
			if !exists {
				continue
			}
			if err := ed.Delete(ctx, old); err != nil {
				t.Fatalf("op %d: delete %v: %v", op, old, err)
			}
			delete(ref, id)
		}
		if op%100 != 99 {
			continue
		}
		tb, err := ed.Table(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Check(ctx); err != nil {
			t.Fatalf("op %d: %v", op, err)
		}
		// Scan each index over the key prefix of a random value: exactly
		// the rows whose prefix equals the value's.
		probe := randRow()
		for i, match := range []func(x []Value) bool{
			func(x []Value) bool {
				return !x[1].IsNull() && !probe[1].IsNull() && prefixKey(x[1]) == prefixKey(probe[1])
			},
			func(x []Value) bool {
				return !x[2].IsNull() && !probe[2].IsNull() && string(truncate(x[2], 2).AsBytes()) == string(truncate(probe[2], 2).AsBytes())
			},
		} {
			if probe[i+1].IsNull() {
				continue
			}
			p := tb.IndexPrefix(i, []Value{probe[i+1]})
			var got, want []int64
			it := tb.ScanIndex(ctx, i, p, PrefixEnd(p), false)
			for it.Next(ctx) {
				got = append(got, it.Row()[0].AsInt())
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			for id, x := range ref {
				if match(x) {
					want = append(want, id)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: index %d scan for %v: ids %v, want %v", op, i, probe[i+1], got, want)
			}
		}
	}
}
