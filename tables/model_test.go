package tables

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"

	"github.com/verso-db/verso/internal/testseed"
)

var (
	flagOps = flag.Int("tables.ops", 4000, "operations per randomized table test")
)

// seed returns the seed of the randomized tests (see internal/testseed).
func seed(t testing.TB) int64 { return int64(testseed.Seed(t)) }

// testCollations holds the case-insensitive collation of the test schemas.
var testCollations = CollationMap{"test_ci": func(s string) []byte { return []byte(strings.ToLower(s)) }}

// testSchema: id (key), name (unique, case-insensitive), score (indexed,
// nullable), note (nullable, sometimes long). keyless drops the key.
func testSchema(keyless bool) *Schema {
	s := &Schema{
		Columns: []Column{
			{Name: "id", Type: "bigint", Kind: prolly.KindInt, AutoIncrement: !keyless},
			{Name: "name", Type: "varchar(40)", Kind: prolly.KindString, Nullable: true, Collation: "test_ci"},
			{Name: "score", Type: "int", Kind: prolly.KindInt, Nullable: true},
			{Name: "note", Type: "text", Kind: prolly.KindString, Nullable: true},
		},
		PrimaryKey: []int{0},
		Indexes: []Index{
			{Name: "by_name", Columns: []int{1}, Unique: true},
			{Name: "by_score", Columns: []int{2, 1}},
		},
	}
	if keyless {
		s.PrimaryKey = nil
	}
	return s
}

// refTable is the reference: a multiset of rows checked by brute force.
type refTable struct {
	keyless bool
	rows    [][]Value
	autoInc int64
}

func (r *refTable) clone() *refTable {
	c := *r
	c.rows = slices.Clone(r.rows)
	return &c
}

func rowsEqual(a, b []Value) bool { return prolly.CompareTuples(a, b) == 0 }

func (r *refTable) find(row []Value) int {
	for i, x := range r.rows {
		if r.keyless && rowsEqual(x, row) || !r.keyless && x[0].AsInt() == row[0].AsInt() {
			return i
		}
	}
	return -1
}

// conflict returns the index name a row would duplicate, ignoring the row at
// position skip.
func (r *refTable) conflict(row []Value, skip int) string {
	for i, x := range r.rows {
		if i != skip && !r.keyless && x[0].AsInt() == row[0].AsInt() {
			return PrimaryIndexName
		}
	}
	for i, x := range r.rows {
		if i == skip {
			continue
		}
		if !row[1].IsNull() && !x[1].IsNull() && strings.EqualFold(x[1].AsString(), row[1].AsString()) {
			return "by_name"
		}
	}
	return ""
}

func randRow(r *rand.Rand, keyless bool) []Value {
	row := make([]Value, 4)
	row[0] = prolly.Int(int64(r.Intn(60)))
	if !keyless && r.Intn(5) == 0 {
		row[0] = prolly.Null() // take the next auto-increment value
	}
	names := []string{"ann", "Ann", "bob", "BOB", "cy", "dee", "eve", "fay", "gus", "hal"}
	if r.Intn(4) == 0 {
		row[1] = prolly.Null()
	} else {
		row[1] = prolly.String(names[r.Intn(len(names))] + fmt.Sprint(r.Intn(8)))
	}
	if r.Intn(3) == 0 {
		row[2] = prolly.Null()
	} else {
		row[2] = prolly.Int(int64(r.Intn(10)))
	}
	switch r.Intn(6) {
	case 0:
		row[3] = prolly.Null()
	case 1:
		row[3] = prolly.String(strings.Repeat("long ", 500+r.Intn(300)))
	default:
		row[3] = prolly.String(fmt.Sprint("note ", r.Intn(100)))
	}
	return row
}

func sortRows(rows [][]Value) {
	slices.SortFunc(rows, func(a, b []Value) int { return prolly.CompareTuples(a, b) })
}

// compare checks the table's rows, both index orders and Check against the
// reference.
func compare(t *testing.T, ctx context.Context, tb *Table, ref *refTable, what string) {
	t.Helper()
	var got [][]Value
	it := tb.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		got = append(got, it.Row())
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: scan: %v", what, err)
	}
	want := slices.Clone(ref.rows)
	sortRows(want)
	if !ref.keyless && !slices.IsSortedFunc(got, func(a, b []Value) int { return prolly.CompareValues(a[0], b[0]) }) {
		t.Fatalf("%s: scan is not in key order", what)
	}
	sortRows(got)
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, reference has %d", what, len(got), len(want))
	}
	for i := range got {
		if !rowsEqual(got[i], want[i]) {
			t.Fatalf("%s: row %d is %v, reference %v", what, i, got[i], want[i])
		}
	}
	for i := range tb.schema.Indexes {
		var viaIndex [][]Value
		it := tb.ScanIndex(ctx, i, nil, nil, false)
		for it.Next(ctx) {
			viaIndex = append(viaIndex, it.Row())
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: index scan: %v", what, err)
		}
		sortRows(viaIndex)
		if len(viaIndex) != len(want) {
			t.Fatalf("%s: index %d yields %d rows, want %d", what, i, len(viaIndex), len(want))
		}
	}
	if err := tb.Check(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestEditorModel(t *testing.T) {
	for _, keyless := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyless=%v", keyless), func(t *testing.T) {
			ctx := context.Background()
			r := rand.New(rand.NewSource(seed(t)))
			ns := prolly.NewNodeStore(chunks.NewMemoryStore())
			tb, err := New(ns, testSchema(keyless), testCollations)
			if err != nil {
				t.Fatal(err)
			}
			ref := &refTable{keyless: keyless, autoInc: 1}
			ed := tb.Edit()
			var lastLoaded *Table
			sp, spRef := ed.Savepoint(), ref.clone()
			for op := 0; op < *flagOps; op++ {
				what := fmt.Sprintf("op %d", op)
				switch k := r.Intn(100); {
				case k < 45: // insert
					row := randRow(r, keyless)
					want := slices.Clone(row)
					if !keyless && (row[0].IsNull() || row[0].AsInt() == 0) {
						want[0] = prolly.Int(ref.autoInc)
					}
					conflict := ref.conflict(want, -1)
					if keyless && conflict == "" && ref.find(want) >= 0 && !want[1].IsNull() {
						conflict = "by_name"
					}
					got, err := ed.Insert(ctx, row)
					var dup *DuplicateKeyError
					switch {
					case conflict != "":
						if !errors.As(err, &dup) || dup.Index != conflict {
							t.Fatalf("%s: insert %v: err %v, want a duplicate on %s", what, want, err, conflict)
						}
					case err != nil:
						t.Fatalf("%s: insert %v: %v", what, want, err)
					default:
						if !rowsEqual(got, want) {
							t.Fatalf("%s: insert stored %v, want %v", what, got, want)
						}
						ref.rows = append(ref.rows, want)
						if !keyless && want[0].AsInt() >= ref.autoInc {
							ref.autoInc = want[0].AsInt() + 1
						}
					}
				case k < 65: // update
					if len(ref.rows) == 0 {
						continue
					}
					i := r.Intn(len(ref.rows))
					old := ref.rows[i]
					row := randRow(r, keyless)
					if row[0].IsNull() || r.Intn(2) == 0 {
						row[0] = old[0]
					}
					conflict := ref.conflict(row, i)
					if keyless && conflict == "" && !row[1].IsNull() {
						if j := ref.find(row); j >= 0 && j != i {
							conflict = "by_name"
						}
					}
					err := ed.Update(ctx, old, row)
					var dup *DuplicateKeyError
					switch {
					case conflict != "":
						if !errors.As(err, &dup) || dup.Index != conflict {
							t.Fatalf("%s: update %v -> %v: err %v, want a duplicate on %s", what, old, row, err, conflict)
						}
					case err != nil:
						t.Fatalf("%s: update %v -> %v: %v", what, old, row, err)
					default:
						ref.rows[i] = row
						if !keyless && row[0].AsInt() >= ref.autoInc {
							ref.autoInc = row[0].AsInt() + 1
						}
					}
				case k < 80: // delete
					row := randRow(r, keyless)
					if len(ref.rows) > 0 && r.Intn(4) > 0 {
						row = ref.rows[r.Intn(len(ref.rows))]
					}
					if row[0].IsNull() {
						row[0] = prolly.Int(-1)
					}
					i := ref.find(row)
					err := ed.Delete(ctx, row)
					if i < 0 {
						if !errors.Is(err, ErrRowNotFound) {
							t.Fatalf("%s: delete of absent %v: %v", what, row, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s: delete %v: %v", what, row, err)
					}
					ref.rows = slices.Delete(ref.rows, i, i+1)
				case k < 85: // get through the editor
					if keyless || len(ref.rows) == 0 {
						continue
					}
					want := ref.rows[r.Intn(len(ref.rows))]
					got, ok, err := ed.Get(ctx, want[:1])
					if err != nil || !ok || !rowsEqual(got, want) {
						t.Fatalf("%s: get %v: %v %v %v", what, want[0], got, ok, err)
					}
				case k < 89: // statement boundary
					sp, spRef = ed.Savepoint(), ref.clone()
				case k < 92: // failed statement
					ed.Rollback(sp)
					ref = spRef.clone()
				default: // apply, store, reload and compare
					nt, err := ed.Table(ctx)
					if err != nil {
						t.Fatalf("%s: apply: %v", what, err)
					}
					addr, err := nt.Write(ctx)
					if err != nil {
						t.Fatal(err)
					}
					// Half the loads reuse the schema of the last value
					// loaded (LoadLike): the rows must not tell.
					var loaded *Table
					if r.Intn(2) == 0 {
						loaded, err = LoadLike(ctx, ns, addr, testCollations, lastLoaded)
						if err == nil && lastLoaded != nil && loaded.Schema() != lastLoaded.Schema() {
							t.Fatalf("%s: LoadLike decoded the schema it was given again", what)
						}
					} else {
						loaded, err = Load(ctx, ns, addr, testCollations)
					}
					if err != nil {
						t.Fatalf("%s: load: %v", what, err)
					}
					lastLoaded = loaded
					compare(t, ctx, loaded, ref, what)
					if !keyless && loaded.AutoIncrement() != uint64(ref.autoInc) {
						t.Fatalf("%s: auto-increment %d, reference %d", what, loaded.AutoIncrement(), ref.autoInc)
					}
					ed = loaded.Edit()
					sp, spRef = ed.Savepoint(), ref.clone()
				}
			}
			final, err := ed.Table(ctx)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, ctx, final, ref, "end")
			t.Logf("%d rows at the end", len(ref.rows))
		})
	}
}

// TestKeepZero: with KeepZero, an explicit 0 in the auto-increment column
// is stored as 0 and NULL still takes the counter's value; without it, 0
// takes the counter's value too.
func TestKeepZero(t *testing.T) {
	ctx := context.Background()
	tb, err := New(prolly.NewNodeStore(chunks.NewMemoryStore()), testSchema(false), testCollations)
	if err != nil {
		t.Fatal(err)
	}
	ed := tb.Edit()
	row := func(id Value) []Value { return []Value{id, prolly.Null(), prolly.Null(), prolly.Null()} }
	ins := func(id Value) Value {
		t.Helper()
		got, err := ed.Insert(ctx, row(id))
		if err != nil {
			t.Fatal(err)
		}
		return got[0]
	}
	if got := ins(prolly.Int(0)); got.AsInt() != 1 {
		t.Fatalf("0 without KeepZero stored as %v, want 1", got)
	}
	ed.KeepZero(true)
	if got := ins(prolly.Int(0)); got.AsInt() != 0 {
		t.Fatalf("0 with KeepZero stored as %v, want 0", got)
	}
	if got := ins(prolly.Null()); got.AsInt() != 2 {
		t.Fatalf("NULL with KeepZero stored as %v, want 2", got)
	}
	var dup *DuplicateKeyError
	if _, err := ed.Insert(ctx, row(prolly.Int(0))); !errors.As(err, &dup) {
		t.Fatalf("a second 0: %v, want a duplicate key", err)
	}
	ed.KeepZero(false)
	if got := ins(prolly.Int(0)); got.AsInt() != 3 {
		t.Fatalf("0 after KeepZero(false) stored as %v, want 3", got)
	}
	nt, err := ed.Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nt.AutoIncrement() != 4 {
		t.Fatalf("auto-increment %d, want 4", nt.AutoIncrement())
	}
}

// TestInvariantsAllowRecordedDuplicates: the -tags invariants check of the
// tables an editor makes lets a unique index hold a value twice only when
// the editor wrote it under AllowDuplicates (a merge recording unique-key
// violations) or started from a table that held it already (edits made
// while those violations are resolved); any other duplicate fails it.
func TestInvariantsAllowRecordedDuplicates(t *testing.T) {
	ctx := context.Background()
	tb, err := New(prolly.NewNodeStore(chunks.NewMemoryStore()), testSchema(false), testCollations)
	if err != nil {
		t.Fatal(err)
	}
	row := func(id int64, name string) []Value {
		return []Value{prolly.Int(id), prolly.String(name), prolly.Null(), prolly.Null()}
	}
	insert := func(ed *Editor, r []Value) {
		t.Helper()
		if _, err := ed.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	table := func(ed *Editor) *Table {
		t.Helper()
		nt, err := ed.Table(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}

	ed := tb.Edit()
	insert(ed, row(1, "a"))
	clean := table(ed)
	if err := ed.checkInvariants(ctx, tb, clean); err != nil {
		t.Fatalf("a table without duplicates: %v", err)
	}

	// A merge's editor: the duplicate goes in under AllowDuplicates, which
	// is off again by the time the table is made.
	ed = clean.Edit()
	ed.AllowDuplicates(true)
	insert(ed, row(2, "A"))
	ed.AllowDuplicates(false)
	dups := table(ed)
	if err := dups.Check(ctx); !errors.Is(err, ErrDuplicateUnique) {
		t.Fatalf("Check of a table holding a twice: %v, want ErrDuplicateUnique", err)
	}
	if err := ed.checkInvariants(ctx, clean, dups); err != nil {
		t.Fatalf("the merge editor's table: %v", err)
	}

	// A later editor of that table, before the violations are resolved.
	ed = dups.Edit()
	insert(ed, row(3, "b"))
	if err := ed.checkInvariants(ctx, dups, table(ed)); err != nil {
		t.Fatalf("a later edit of a table with recorded duplicates: %v", err)
	}

	// An editor of a clean table that lets a duplicate in without
	// AllowDuplicates (a bug in the editor) fails the check.
	ed = clean.Edit()
	ed.allowDuplicates = true
	insert(ed, row(4, "a"))
	nt, err := ed.Table(ctx) // under -tags invariants, Table checks itself
	if err == nil {
		err = ed.checkInvariants(ctx, clean, nt)
	}
	if !errors.Is(err, ErrDuplicateUnique) {
		t.Fatalf("a duplicate no one let in: %v, want ErrDuplicateUnique", err)
	}
}

// TestUpdateLeavesUnchangedIndexEntries: an Update that changes no column
// of an index and keeps the primary key leaves that index's entry alone
// (no pending entry, so its leaf is not rewritten at the commit); one that
// changes an indexed column or the key rewrites the entry. The tables made
// equal, to the address, tables built from scratch with the same rows.
func TestUpdateLeavesUnchangedIndexEntries(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	row := func(id int64, name string, score int64, note string) []Value {
		return []Value{prolly.Int(id), prolly.String(name), prolly.Int(score), prolly.String(note)}
	}
	build := func(rows [][]Value) *Table {
		t.Helper()
		tb, err := New(ns, testSchema(false), testCollations)
		if err != nil {
			t.Fatal(err)
		}
		ed := tb.Edit()
		for _, r := range rows {
			if _, err := ed.Insert(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if tb, err = ed.Table(ctx); err != nil {
			t.Fatal(err)
		}
		return tb
	}
	var rows [][]Value
	for i := int64(1); i <= 300; i++ {
		rows = append(rows, row(i, fmt.Sprintf("name %d", i), i%17, "note"))
	}
	tb := build(rows)
	pending := func(ed *Editor) []int {
		var n []int
		for _, m := range ed.Edits().Maps {
			n = append(n, len(m))
		}
		return n
	}
	steps := []struct {
		what string
		i    int     // the row updated
		new  []Value // its new value
		want []int   // pending entries: rows, by_name, by_score
	}{
		{"a column no index has", 6, row(7, "name 7", 7, "changed"), []int{1, 0, 0}},
		{"an indexed column", 7, row(8, "name 8", 99, "note"), []int{2, 0, 2}},
		{"the primary key", 8, row(1000, "name 9", 9, "note"), []int{4, 2, 4}},
	}
	ed := tb.Edit()
	for _, st := range steps {
		if err := ed.Update(ctx, rows[st.i], st.new); err != nil {
			t.Fatal(err)
		}
		rows[st.i] = st.new
		if got := pending(ed); !slices.Equal(got, st.want) {
			t.Fatalf("after an update of %s: pending entries %v, want %v", st.what, got, st.want)
		}
	}
	edited, err := ed.Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh := build(rows)
	if edited.Rows().Address() != fresh.Rows().Address() {
		t.Fatalf("the edited table's rows differ from the same rows built afresh")
	}
	for i := range fresh.Schema().Indexes {
		if edited.IndexMap(i).Address() != fresh.IndexMap(i).Address() {
			t.Fatalf("index %d of the edited table differs from the same rows' built afresh", i)
		}
	}
}
