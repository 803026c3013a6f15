package tablemerge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/internal/testseed"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// goldenViolations builds a fixed violation set.
func goldenViolations(f *fixture) *ViolationSet {
	f.t.Helper()
	info := ViolationInfo(InfoField{"Name", "ub"}, InfoField{"Columns", []string{"b"}})
	long := strings.Repeat("large value ", 300) // out of line
	vs, err := NewViolationSet(f.ns, testSchema()).Edit(f.ctx, []Violation{
		{Type: UniqueViolation, Key: prolly.EncodeKey(nil, prolly.Int(1)), Info: info, From: chunks.Address{0xAB}, Row: row(1, 10, "x")},
		{Type: UniqueViolation, Key: prolly.EncodeKey(nil, prolly.Int(2)), Info: info, From: chunks.Address{0xAB}, Row: row(2, 20, "x")},
		{Type: CheckViolation, Key: prolly.EncodeKey(nil, prolly.Int(3)), Info: `{"Name": "c", "Expression": "(a > 0)"}`, Row: row(3, -1, long)},
	}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return vs
}

// TestViolationSetGolden pins the address of a fixed violation set: a
// change of the format (or of anything below it) fails here, loudly.
func TestViolationSetGolden(t *testing.T) {
	f := newFixture(t)
	vs := goldenViolations(f)
	addr, err := vs.Write(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	const want = "vcsv7k8u3kscas66j675msp54aijph7u"
	if addr.String() != want {
		t.Fatalf("violation set address %s, want %s: the violation format changed; give it a new version instead", addr, want)
	}
	got, err := LoadViolationSet(f.ctx, f.ns, addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := got.Each(f.ctx, func(v Violation) bool {
		out = append(out, fmt.Sprintf("%s%s%s%s", v.Type, tables.KeyText(v.Key), fmtRow(v.Row), v.Info))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want2 := `unique index(1)(1,10,x){"Name": "ub", "Columns": ["b"]} unique index(2)(2,20,x){"Name": "ub", "Columns": ["b"]} check constraint(3)(3,-1,` + strings.Repeat("large value ", 300) + `){"Name": "c", "Expression": "(a > 0)"}`
	if s := strings.Join(out, " "); s != want2 {
		t.Fatalf("violations:\n got %.300s\nwant %.300s", s, want2)
	}
}

// TestViolationInfo: keys shorter first, as MySQL orders a JSON object.
func TestViolationInfo(t *testing.T) {
	got := ViolationInfo(InfoField{"ReferencedTable", "p"}, InfoField{"Table", "c"}, InfoField{"Index", "i"}, InfoField{"Columns", []string{"a", "b"}})
	want := `{"Index": "i", "Table": "c", "Columns": ["a", "b"], "ReferencedTable": "p"}`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestViolationDecodeErrors: corrupt bytes are errors that
// chunks.IsCorrupt recognizes.
func TestViolationDecodeErrors(t *testing.T) {
	good := Violation{Type: CheckViolation, Key: []byte{1}, Info: "{}", Row: row(1, 2, "a")}
	key := good.MapKey()
	val, err := EncodeViolationValue(t0ctx, prolly.NewNodeStore(chunks.NewMemoryStore()), good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeViolation(key, val, 3); err != nil {
		t.Fatal(err)
	}
	for name, kv := range map[string][2][]byte{
		"bad type":   {prolly.EncodeKey(nil, prolly.Int(9), prolly.Bytes([]byte{1}), prolly.String("{}")), val},
		"short key":  {prolly.EncodeKey(nil, prolly.Int(1)), val},
		"short val":  {key, val[:10]},
		"bad row":    {key, append(bytes.Clone(val[:chunks.AddressSize]), 0xFF)},
		"wrong cols": {key, val},
	} {
		ncols := 3
		if name == "wrong cols" {
			ncols = 2
		}
		if _, err := DecodeViolation(kv[0], kv[1], ncols); err == nil || !chunks.IsCorrupt(err) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
	set := encodeViolationSet(chunks.Address{1}, chunks.Address{2})
	if _, _, err := DecodeViolationSetChunk(set); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(set)
	bad[11] = 2
	for name, b := range map[string][]byte{"short": set[:10], "version": bad, "no map": encodeViolationSet(chunks.Address{1}, chunks.Address{})} {
		if _, _, err := DecodeViolationSetChunk(b); !chunks.IsCorrupt(err) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
}

// FuzzDecodeViolation: the decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodeViolation(f *testing.F) {
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	v := Violation{Type: UniqueViolation, Key: prolly.EncodeKey(nil, prolly.Int(1)), Info: `{"Name": "u"}`, Row: row(1, 2, "x")}
	val, err := EncodeViolationValue(t0ctx, ns, v)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v.MapKey(), val, 3)
	f.Fuzz(func(t *testing.T, key, val []byte, ncols int) {
		if ncols < 0 || ncols > 64 {
			return
		}
		v, err := DecodeViolation(key, val, ncols)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if !bytes.Equal(v.MapKey(), key) {
			t.Fatal("accepted key does not re-encode")
		}
		for _, x := range v.Row {
			if x.Kind() == prolly.KindRef || x.Kind() == prolly.KindString && len(x.AsString()) > prolly.LargeInlineLimit {
				return
			}
		}
		again, err := EncodeViolationValue(t0ctx, ns, v)
		if err == nil && !bytes.Equal(again, val) {
			t.Fatalf("non-canonical value accepted:\n%x\n%x", val, again)
		}
	})
}

// FuzzDecodeViolationSetChunk: the chunk decoder never panics.
func FuzzDecodeViolationSetChunk(f *testing.F) {
	f.Add(encodeViolationSet(chunks.Address{1}, chunks.Address{2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, m, err := DecodeViolationSetChunk(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if !bytes.Equal(encodeViolationSet(s, m), b) {
			t.Fatal("accepted bytes do not re-encode")
		}
	})
}

// TestSchemaConflictGolden pins the schema-conflict chunk's bytes.
func TestSchemaConflictGolden(t *testing.T) {
	c := StoredSchemaConflict{Base: chunks.Address{1}, Ours: chunks.Address{2}, Theirs: chunks.Address{3}, Description: "different column definitions for our column v and their column v"}
	b := EncodeSchemaConflict(c)
	addr := chunks.Of(b)
	const want = "26dnjc9smg4tnud2gq2c9mhroabt1fka"
	if addr.String() != want {
		t.Fatalf("schema conflict address %s, want %s: the format changed; give it a new version instead", addr, want)
	}
	got, err := DecodeSchemaConflict(b)
	if err != nil || got != c {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"short": b[:20], "trailing": append(bytes.Clone(b), 'x'), "magic": append([]byte("X"), b[1:]...),
		"neither side": EncodeSchemaConflict(StoredSchemaConflict{Base: chunks.Address{1}}),
	} {
		if _, err := DecodeSchemaConflict(bad); !chunks.IsCorrupt(err) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
}

// FuzzDecodeSchemaConflict: the decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodeSchemaConflict(f *testing.F) {
	f.Add(EncodeSchemaConflict(StoredSchemaConflict{Ours: chunks.Address{2}, Description: "d"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeSchemaConflict(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if !bytes.Equal(EncodeSchemaConflict(c), b) {
			t.Fatal("accepted bytes do not re-encode")
		}
	})
}

// TestMergeUniqueViolationsModel: random merges of a table with a unique
// column, with RecordViolations, against a reference that computes the
// merged rows' duplicates the simple way (group the rows by value): the
// merged table holds every merged row, and the violations are exactly
// the rows whose unique value another row holds.
func TestMergeUniqueViolationsModel(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewSource(int64(seed)))
	s := testSchema()
	for iter := 0; iter < 60; iter++ {
		f := newFixture(t)
		// Base rows hold distinct values; each side inserts and updates
		// rows with values from a small range, distinct within the side.
		base := map[int64]string{}
		for id := int64(0); id < 6; id++ {
			base[id] = fmt.Sprintf("v%d", id)
		}
		side := func() map[int64]string {
			m := map[int64]string{}
			used := map[string]bool{}
			for id, v := range base {
				m[id] = v
				used[v] = true
			}
			for n := 0; n < 3; n++ {
				id := int64(r.Intn(10))
				v := fmt.Sprintf("v%d", 10+r.Intn(6))
				if used[v] {
					continue
				}
				if old, ok := m[id]; ok {
					delete(used, old)
				}
				m[id], used[v] = v, true
			}
			return m
		}
		ours, theirs := side(), side()
		mk := func(m map[int64]string) *tables.Table {
			var rows [][]tables.Value
			for id, v := range m {
				rows = append(rows, row(int(id), 0, v))
			}
			return f.table(s, rows...)
		}
		rb, ro, rt := f.root(map[string]any{"t": mk(base)}), f.root(map[string]any{"t": mk(ours)}), f.root(map[string]any{"t": mk(theirs)})
		res, err := Merge(f.ctx, f.ns, rb, ro, rt, Options{Theirs: chunks.Address{1}, Collations: testCollations, RecordViolations: true})
		if err != nil {
			t.Fatalf("seed %d iter %d: %v", seed, iter, err)
		}
		// Reference: the cell-wise merge of each key, conflicts keeping ours.
		want := map[int64]string{}
		for id := int64(0); id < 10; id++ {
			b, inB := base[id]
			o, inO := ours[id]
			th, inT := theirs[id]
			switch {
			case inO == inT && o == th, inB == inT && b == th:
				if inO {
					want[id] = o
				}
			case inB == inO && b == o:
				if inT {
					want[id] = th
				}
			default: // a conflict: ours
				if inO {
					want[id] = o
				}
			}
		}
		byVal := map[string][]int64{}
		for id, v := range want {
			byVal[v] = append(byVal[v], id)
		}
		var wantViol []string
		for _, ids := range byVal {
			if len(ids) > 1 {
				for _, id := range ids {
					wantViol = append(wantViol, fmt.Sprint(id))
				}
			}
		}
		sort.Strings(wantViol)
		got := f.load(res.Root, "t")
		if n := got.Count(); n != uint64(len(want)) {
			t.Fatalf("seed %d iter %d: %d merged rows, want %d", seed, iter, n, len(want))
		}
		var gotViol []string
		vs, err := GetViolations(f.ctx, f.ns, res.Root, "t")
		if err != nil {
			t.Fatal(err)
		}
		if vs != nil {
			if err := vs.Check(f.ctx); err != nil {
				t.Fatal(err)
			}
			if err := vs.Each(f.ctx, func(v Violation) bool {
				gotViol = append(gotViol, fmt.Sprint(v.Row[0].AsInt()))
				return true
			}); err != nil {
				t.Fatal(err)
			}
		}
		sort.Strings(gotViol)
		if strings.Join(gotViol, ",") != strings.Join(wantViol, ",") {
			t.Fatalf("seed %d iter %d: violations of rows %v, want %v", seed, iter, gotViol, wantViol)
		}
	}
}
