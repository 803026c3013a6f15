package tablemerge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

type edits func(ed *tables.Editor) error

func ins(r []tables.Value) edits {
	return func(ed *tables.Editor) error { _, err := ed.Insert(context.Background(), r); return err }
}

func upd(old, r []tables.Value) edits {
	return func(ed *tables.Editor) error { return ed.Update(context.Background(), old, r) }
}

func del(r []tables.Value) edits {
	return func(ed *tables.Editor) error { return ed.Delete(context.Background(), r) }
}

func all(es ...edits) edits {
	return func(ed *tables.Editor) error {
		for _, e := range es {
			if err := e(ed); err != nil {
				return err
			}
		}
		return nil
	}
}

var (
	r1 = row(1, 10, "x")
	r2 = row(2, 20, "y")
	r3 = row(3, 30, "z")
)

// TestMergeMatrix merges row changes of one table, each case from the same
// base (1,10,x) (2,20,y) (3,30,z).
func TestMergeMatrix(t *testing.T) {
	for _, c := range []struct {
		name         string
		ours, theirs edits
		rows         string // the merged table
		conflicts    string // key:base ours theirs
		err          error
	}{
		{name: "insert different rows", ours: ins(row(4, 40, "o")), theirs: ins(row(5, 50, "t")),
			rows: "(1,10,x) (2,20,y) (3,30,z) (4,40,o) (5,50,t)"},
		{name: "insert same key same row", ours: ins(row(4, 40, "w")), theirs: ins(row(4, 40, "w")),
			rows: "(1,10,x) (2,20,y) (3,30,z) (4,40,w)"},
		{name: "insert same key different rows", ours: ins(row(4, 40, "o")), theirs: ins(row(4, 41, "t")),
			rows: "(1,10,x) (2,20,y) (3,30,z) (4,40,o)", conflicts: "(4):-(4,40,o)(4,41,t)"},
		{name: "delete vs modify", ours: del(r2), theirs: upd(r2, row(2, 21, "y")),
			rows: "(1,10,x) (3,30,z)", conflicts: "(2):(2,20,y)-(2,21,y)"},
		{name: "modify vs delete", ours: upd(r2, row(2, 21, "y")), theirs: del(r2),
			rows: "(1,10,x) (2,21,y) (3,30,z)", conflicts: "(2):(2,20,y)(2,21,y)-"},
		{name: "both delete", ours: del(r2), theirs: del(r2), rows: "(1,10,x) (3,30,z)"},
		{name: "modify different columns", ours: upd(r1, row(1, 11, "x")), theirs: upd(r1, row(1, 10, "xx")),
			rows: "(1,11,xx) (2,20,y) (3,30,z)"},
		{name: "modify same column alike", ours: upd(r1, row(1, 12, "x")), theirs: upd(r1, row(1, 12, "x")),
			rows: "(1,12,x) (2,20,y) (3,30,z)"},
		{name: "modify same column differently", ours: upd(r1, row(1, 11, "x")), theirs: upd(r1, row(1, 12, "xx")),
			rows: "(1,11,x) (2,20,y) (3,30,z)", conflicts: "(1):(1,10,x)(1,11,x)(1,12,xx)"},
		{name: "one side only", ours: all(), theirs: all(del(r1), upd(r2, row(2, 22, "q")), ins(row(9, 90, "n"))),
			rows: "(2,22,q) (3,30,z) (9,90,n)"},
		{name: "unique swap on one side", ours: ins(row(4, 40, "o")),
			theirs: all(upd(r1, row(1, 10, "tmp")), upd(r2, row(2, 20, "x")), upd(row(1, 10, "tmp"), row(1, 10, "y"))),
			rows:   "(1,10,y) (2,20,x) (3,30,z) (4,40,o)"},
		{name: "unique clash across sides", ours: ins(row(4, 40, "u")), theirs: ins(row(5, 50, "u")), err: ErrConstraint},
		{name: "cell merge makes unique clash", ours: upd(r1, row(1, 10, "q")), theirs: upd(r2, row(2, 20, "q")), err: ErrConstraint},
		{name: "conflicts and changes", ours: all(upd(r1, row(1, 11, "x")), ins(row(7, 70, "s"))),
			theirs: all(upd(r1, row(1, 12, "x")), del(r3), upd(r2, row(2, 20, "yy"))),
			rows:   "(1,11,x) (2,20,yy) (7,70,s)", conflicts: "(1):(1,10,x)(1,11,x)(1,12,x)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			bt := f.table(testSchema(), r1, r2, r3)
			base := f.root(map[string]any{"t": bt})
			ours := f.root(map[string]any{"t": f.edit(bt, c.ours)})
			theirs := f.root(map[string]any{"t": f.edit(bt, c.theirs)})
			res, err := f.merge(base, ours, theirs)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("merge: %v, want %v", err, c.err)
				}
				var ce *ConstraintError
				if !errors.As(err, &ce) || ce.Table != "t" || !strings.Contains(err.Error(), "merge again") {
					t.Fatalf("merge error %v names no table and no remedy", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.rows(res.Root, "t"); got != c.rows {
				t.Errorf("rows:\n got %s\nwant %s", got, c.rows)
			}
			if got := f.conflicts(res.Root, "t"); got != c.conflicts {
				t.Errorf("conflicts:\n got %s\nwant %s", got, c.conflicts)
			}
			if (c.conflicts != "") != res.HasConflicts() {
				t.Errorf("HasConflicts() = %v", res.HasConflicts())
			}
			// Merging the other way round gives the same rows where there is
			// no conflict.
			if c.conflicts == "" {
				res2 := f.mustMerge(base, theirs, ours)
				if got := f.rows(res2.Root, "t"); got != c.rows {
					t.Errorf("reversed merge rows:\n got %s\nwant %s", got, c.rows)
				}
			}
		})
	}
}

// TestMergeIndexes checks that the secondary indexes of a merged table
// find the merged rows (beyond Check, which the fixture runs on every
// merged table).
func TestMergeIndexes(t *testing.T) {
	f := newFixture(t)
	bt := f.table(testSchema(), r1, r2, r3)
	base := f.root(map[string]any{"t": bt})
	ours := f.root(map[string]any{"t": f.edit(bt, all(upd(r1, row(1, 15, "x")), ins(row(4, 40, "w"))))})
	theirs := f.root(map[string]any{"t": f.edit(bt, all(upd(r1, row(1, 10, "xx")), del(r2)))})
	res := f.mustMerge(base, ours, theirs)
	mt := f.load(res.Root, "t")
	lookup := func(ix int, v tables.Value) string {
		p := mt.IndexPrefix(ix, []tables.Value{v})
		it := mt.ScanIndex(f.ctx, ix, p, tables.PrefixEnd(p), false)
		var out []string
		for it.Next(f.ctx) {
			out = append(out, fmtRow(it.Row()))
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		ix   int
		v    tables.Value
		want string
	}{
		{0, prolly.Int(15), "(1,15,xx)"}, {0, prolly.Int(10), ""}, {0, prolly.Int(20), ""}, {0, prolly.Int(40), "(4,40,w)"},
		{1, prolly.String("xx"), "(1,15,xx)"}, {1, prolly.String("x"), ""}, {1, prolly.String("y"), ""},
	} {
		if got := lookup(c.ix, c.v); got != c.want {
			t.Errorf("index %d at %v: got %q, want %q", c.ix, c.v, got, c.want)
		}
	}
}

// TestMergeSchemaChanges: a schema change on one side, data changes on
// the other; compatible changes on both; incompatible ones.
func TestMergeSchemaChanges(t *testing.T) {
	addC := func(def string) *tables.Schema {
		s := testSchema()
		s.Columns = append(s.Columns, tables.Column{Name: "c", Type: "int", Kind: prolly.KindInt, Nullable: true, Default: def})
		s.Indexes = append(s.Indexes, tables.Index{Name: "kc", Columns: []int{3}})
		return s
	}
	addD := func(s *tables.Schema) *tables.Schema {
		s.Columns = append(s.Columns, tables.Column{Name: "d", Type: "varchar(5)", Kind: prolly.KindString, Nullable: true, Default: "'dd'"})
		return s
	}
	// migrate rewrites t into s, filling new columns with fill.
	migrate := func(f *fixture, t *tables.Table, s *tables.Schema, fill ...tables.Value) *tables.Table {
		nt := f.table(s)
		it := t.Scan(f.ctx, nil, nil, false)
		return f.edit(nt, func(ed *tables.Editor) error {
			for it.Next(f.ctx) {
				if _, err := ed.Insert(f.ctx, append(it.Row(), fill...)); err != nil {
					return err
				}
			}
			return it.Err()
		})
	}
	t.Run("theirs adds a column, ours changes rows", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1, r2, r3)
		base := f.root(map[string]any{"t": bt})
		ours := f.root(map[string]any{"t": f.edit(bt, all(ins(row(4, 40, "o")), upd(r1, row(1, 11, "x")), del(r3)))})
		tt := migrate(f, bt, addC("7"), prolly.Int(7))
		tt = f.edit(tt, upd(row(2, 20, "y", 7), row(2, 20, "y", 8)))
		theirs := f.root(map[string]any{"t": tt})
		res := f.mustMerge(base, ours, theirs)
		if got, want := f.rows(res.Root, "t"), "(1,11,x,7) (2,20,y,8) (4,40,o,7)"; got != want {
			t.Errorf("rows:\n got %s\nwant %s", got, want)
		}
		if got := f.load(res.Root, "t").Schema(); !sameSchema(got, addC("7")) {
			t.Errorf("schema: %+v", got)
		}
	})
	t.Run("ours adds a column, theirs changes rows", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1, r2, r3)
		base := f.root(map[string]any{"t": bt})
		ours := f.root(map[string]any{"t": migrate(f, bt, addC(""), prolly.Null())})
		theirs := f.root(map[string]any{"t": f.edit(bt, all(ins(row(4, 40, "o")), upd(r1, row(1, 11, "x")), del(r3)))})
		res := f.mustMerge(base, ours, theirs)
		if got, want := f.rows(res.Root, "t"), "(1,11,x,NULL) (2,20,y,NULL) (4,40,o,NULL)"; got != want {
			t.Errorf("rows:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("both add different columns", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1, r2)
		base := f.root(map[string]any{"t": bt})
		ot := f.edit(migrate(f, bt, addC("0"), prolly.Int(0)), ins(row(5, 50, "o", 5)))
		tt := f.edit(migrate(f, bt, addD(testSchema()), prolly.String("dd")), upd(row(2, 20, "y", "dd"), row(2, 20, "y", "e")))
		res := f.mustMerge(base, f.root(map[string]any{"t": ot}), f.root(map[string]any{"t": tt}))
		if got, want := f.rows(res.Root, "t"), `(1,10,x,0,dd) (2,20,y,0,e) (5,50,o,5,dd)`; got != want {
			t.Errorf("rows:\n got %s\nwant %s", got, want)
		}
		if got := f.load(res.Root, "t").Schema(); !sameSchema(got, addD(addC("0"))) {
			t.Errorf("schema: %+v", got)
		}
	})
	t.Run("both change one column differently", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1)
		base := f.root(map[string]any{"t": bt})
		s1, s2 := testSchema(), testSchema()
		s1.Columns[2].Type, s2.Columns[2].Type = "varchar(30)", "varchar(40)"
		_, err := f.merge(base, f.root(map[string]any{"t": migrate(f, bt, s1)}), f.root(map[string]any{"t": migrate(f, bt, s2)}))
		if !errors.Is(err, ErrSchemaConflict) || !strings.Contains(err.Error(), `column "b"`) {
			t.Fatalf("merge: %v, want a schema conflict on column b", err)
		}
	})
	t.Run("one drops a column the other indexes", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1)
		base := f.root(map[string]any{"t": bt})
		s1 := testSchema()
		s1.Indexes = append(s1.Indexes, tables.Index{Name: "kab", Columns: []int{1, 2}})
		s2 := &tables.Schema{Columns: testSchema().Columns[:2], PrimaryKey: []int{0}, Indexes: testSchema().Indexes[:1]}
		t2 := f.table(s2, row(1, 10))
		_, err := f.merge(base, f.root(map[string]any{"t": migrate(f, bt, s1)}), f.root(map[string]any{"t": t2}))
		if !errors.Is(err, ErrSchemaConflict) {
			t.Fatalf("merge: %v, want a schema conflict", err)
		}
	})
	t.Run("a column added without a computable default", func(t *testing.T) {
		f := newFixture(t)
		bt := f.table(testSchema(), r1)
		base := f.root(map[string]any{"t": bt})
		s := testSchema()
		s.Columns = append(s.Columns, tables.Column{Name: "c", Type: "datetime", Kind: prolly.KindDatetime, Default: "NOW()"})
		tt := f.table(s)
		_, err := f.merge(base, f.root(map[string]any{"t": f.edit(bt, ins(r2))}), f.root(map[string]any{"t": tt}))
		if !errors.Is(err, ErrSchemaConflict) || !strings.Contains(err.Error(), "NOW()") {
			t.Fatalf("merge: %v, want a schema conflict naming the default", err)
		}
	})
}

// TestMergeTablesAndObjects: tables and other entries added, dropped and
// changed by name.
func TestMergeTablesAndObjects(t *testing.T) {
	f := newFixture(t)
	bt := f.table(testSchema(), r1)
	base := f.root(map[string]any{"t": bt, "gone": bt, "views/v": "select 1", "triggers/tr": "t1"})
	ours := f.root(map[string]any{"t": bt, "mine": bt, "views/v": "select 1", "views/w": "select 2", "triggers/tr": "t1"})
	theirs := f.root(map[string]any{"t": f.edit(bt, ins(r2)), "gone": bt, "yours": bt, "views/v": "select 1", "procedures/p": "p", "triggers/tr": "t2", "sqlevents/e": "e"})
	res := f.mustMerge(base, ours, theirs)
	ents, err := res.Root.Entries(f.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name)
	}
	if got, want := strings.Join(names, " "), "procedures/p sqlevents/e tables/mine tables/t tables/yours triggers/tr views/v views/w"; got != want {
		t.Errorf("names:\n got %s\nwant %s", got, want)
	}
	if got := f.rows(res.Root, "t"); got != "(1,10,x) (2,20,y)" {
		t.Errorf("rows %s", got)
	}
	if len(res.Merged) != 0 {
		t.Errorf("merged row by row: %v; a table changed on one side is taken whole", res.Merged)
	}

	for _, c := range []struct {
		name         string
		ours, theirs map[string]any
		err          error
	}{
		{"view changed on both", map[string]any{"views/v": "a"}, map[string]any{"views/v": "b"}, ErrObjectConflict},
		{"event made on both", map[string]any{"sqlevents/e": "a"}, map[string]any{"sqlevents/e": "b"}, ErrObjectConflict},
		{"trigger dropped and changed", map[string]any{}, map[string]any{"triggers/tr": "t3"}, ErrObjectConflict},
		{"table dropped and changed", map[string]any{}, map[string]any{"t": f.edit(bt, ins(r2))}, ErrTableConflict},
		{"table created on both with other schemas", map[string]any{"n": bt}, map[string]any{"n": f.table(&tables.Schema{Columns: testSchema().Columns[:1], PrimaryKey: []int{0}})}, ErrTableConflict},
		{"table options changed on both", map[string]any{"tableopts/t": "x"}, map[string]any{"tableopts/t": "y"}, ErrSchemaConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := f.root(map[string]any{"t": bt, "views/v": "v", "triggers/tr": "t1"})
			o := map[string]any{"t": bt, "views/v": "v", "triggers/tr": "t1"}
			th := map[string]any{"t": bt, "views/v": "v", "triggers/tr": "t1"}
			if c.name == "trigger dropped and changed" {
				delete(o, "triggers/tr")
			}
			if c.name == "table dropped and changed" {
				delete(o, "t")
			}
			for k, v := range c.ours {
				o[k] = v
			}
			for k, v := range c.theirs {
				th[k] = v
			}
			_, err := f.merge(b, f.root(o), f.root(th))
			if !errors.Is(err, c.err) || !IsMergeError(err) {
				t.Fatalf("merge: %v, want %v", err, c.err)
			}
			var drop *DropConflictError
			if dropped := errors.As(err, &drop); dropped != (c.name == "table dropped and changed") || dropped && drop.Table != "t" {
				t.Fatalf("merge: %v: a DropConflictError only for a table dropped and changed (%+v)", err, drop)
			}
			// Kept, a table's schema conflict leaves ours of it, listed;
			// other conflicts still fail.
			ours := f.root(o)
			res, err := Merge(f.ctx, f.ns, b, ours, f.root(th), Options{Theirs: chunks.Address{1}, Collations: testCollations, KeepSchemaConflicts: true})
			if c.err == ErrObjectConflict {
				if !errors.Is(err, c.err) {
					t.Fatalf("merge keeping schema conflicts: %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("merge keeping schema conflicts: %v", err)
			}
			if len(res.SchemaConflicts) != 1 || !errors.Is(res.SchemaConflicts[0].Err, c.err) {
				t.Fatalf("schema conflicts %+v, want one of %v", res.SchemaConflicts, c.err)
			}
			table := strings.TrimPrefix(strings.TrimPrefix(func() string {
				for k := range c.ours {
					return k
				}
				return "t"
			}(), "tableopts/"), "tables/")
			if got := res.SchemaConflicts[0].Table; got != table {
				t.Fatalf("schema conflict of %q, want %q", got, table)
			}
			for _, prefix := range []string{TablePrefix, TableOptsPrefix} {
				want, inOurs, err := ours.Get(f.ctx, prefix+table)
				if err != nil {
					t.Fatal(err)
				}
				got, inMerged, err := res.Root.Get(f.ctx, prefix+table)
				if err != nil || got != want || inMerged != inOurs {
					t.Fatalf("%s%s merged to %s (%v), want ours %s (%v)", prefix, table, got, inMerged, want, inOurs)
				}
			}
		})
	}

	t.Run("table created on both alike", func(t *testing.T) {
		b := f.root(map[string]any{})
		res := f.mustMerge(b, f.root(map[string]any{"n": f.table(testSchema(), r1, r2)}), f.root(map[string]any{"n": f.table(testSchema(), r1, row(2, 21, "y"), r3)}))
		if got := f.rows(res.Root, "n"); got != "(1,10,x) (2,20,y) (3,30,z)" {
			t.Errorf("rows %s", got)
		}
		if got := f.conflicts(res.Root, "n"); got != "(2):-(2,20,y)(2,21,y)" {
			t.Errorf("conflicts %s", got)
		}
	})
}

// TestMergePrefixMerger: entries under a prefix with a merger (the event
// log's hook) go to it once, with the three roots.
func TestMergePrefixMerger(t *testing.T) {
	f := newFixture(t)
	base := f.root(map[string]any{"events/log": "0", "events/idx": "0"})
	ours := f.root(map[string]any{"events/log": "1o", "events/idx": "1o"})
	theirs := f.root(map[string]any{"events/log": "1t", "events/idx": "1t"})
	calls := 0
	want := f.root(map[string]any{"events/log": "merged", "events/idx": "merged"})
	res, err := Merge(f.ctx, f.ns, base, ours, theirs, Options{PrefixMergers: map[string]PrefixMerger{
		"events/": func(ctx context.Context, ns *prolly.NodeStore, b, o, th, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
			calls++
			if b.Address() != base.Address() || o.Address() != ours.Address() || th.Address() != theirs.Address() {
				t.Error("the merger got other roots")
			}
			return want, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Root.Address() != want.Address() {
		t.Fatalf("calls %d, root %s", calls, res.Root)
	}
}

// TestMergePrefixMergerDisjoint: both sides changing different entries
// under a merger's prefix (one the log, the other an index) is still a
// change of both to merge together, not two changes taken by name; one
// side's change alone is taken without the merger.
func TestMergePrefixMergerDisjoint(t *testing.T) {
	f := newFixture(t)
	base := f.root(map[string]any{"events/log": "0", "events/idx": "0"})
	ours := f.root(map[string]any{"events/log": "1o", "events/idx": "0"})
	theirs := f.root(map[string]any{"events/log": "0", "events/idx": "1t"})
	calls := 0
	opts := Options{PrefixMergers: map[string]PrefixMerger{
		"events/": func(ctx context.Context, ns *prolly.NodeStore, b, o, th, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
			calls++
			return merged, nil
		},
	}}
	if _, err := Merge(f.ctx, f.ns, base, ours, theirs, opts); err != nil || calls != 1 {
		t.Fatalf("both sides changed: calls %d, %v; want one call", calls, err)
	}
	calls = 0
	res, err := Merge(f.ctx, f.ns, base, ours, base, opts)
	if err != nil || calls != 0 || res.Root.Address() != ours.Address() {
		t.Fatalf("one side changed: calls %d, %v, root %s; want ours without a call", calls, err, res.Root)
	}
}

// TestMergeNoMerger: a root value holding entries of a layer above (the
// event log) merged without a merger for them fails with ErrNoMerger, even
// where only one side changed them or neither did: they are never taken or
// dropped by name.
func TestMergeNoMerger(t *testing.T) {
	f := newFixture(t)
	bt := f.table(testSchema(), r1)
	tbl := func(extra map[string]any) commitgraph.RootValue {
		m := map[string]any{"t": bt}
		for k, v := range extra {
			m[k] = v
		}
		return f.root(m)
	}
	for _, c := range []struct {
		name               string
		base, ours, theirs commitgraph.RootValue
	}{
		{"both changed", tbl(map[string]any{"events/log": "0"}), tbl(map[string]any{"events/log": "1o"}), tbl(map[string]any{"events/log": "1t"})},
		{"ours changed", tbl(nil), tbl(map[string]any{"events/log": "1o"}), tbl(nil)},
		{"unchanged", tbl(map[string]any{"events/log": "0"}), tbl(map[string]any{"events/log": "0"}), tbl(map[string]any{"events/log": "0"})},
		{"a name without a prefix", tbl(nil), tbl(nil), tbl(map[string]any{"other": "x"})},
	} {
		if _, err := f.merge(c.base, c.ours, c.theirs); !errors.Is(err, ErrNoMerger) {
			t.Errorf("%s: %v, want ErrNoMerger", c.name, err)
		}
	}
	// Tables, objects and options are this package's own.
	base := tbl(map[string]any{"views/v": "0", "tableopts/t": "0"})
	if _, err := f.merge(base, tbl(map[string]any{"views/v": "1", "tableopts/t": "0"}), base); err != nil {
		t.Fatal(err)
	}
}

// TestMergeCollations: tables whose columns name a collation merge with
// the Options.Collations given (a unique index in it refuses their row
// that differs from ours in case only), and fail without them.
func TestMergeCollations(t *testing.T) {
	f := newFixture(t)
	s := testSchema()
	s.Columns[2].Collation = "test_ci"
	bt := f.table(s, r1)
	base := f.root(map[string]any{"t": bt})
	ours := f.root(map[string]any{"t": f.edit(bt, ins(row(2, 20, "Y")))})
	theirs := f.root(map[string]any{"t": f.edit(bt, ins(row(3, 30, "y")))})
	if _, err := Merge(f.ctx, f.ns, base, ours, theirs, Options{}); !errors.Is(err, tables.ErrUnknownCollation) {
		t.Fatalf("merge without collations: %v, want ErrUnknownCollation", err)
	}
	if _, err := f.merge(base, ours, theirs); !errors.Is(err, ErrConstraint) {
		t.Fatalf("merge: %v, want a unique-key ErrConstraint", err)
	}
	theirs = f.root(map[string]any{"t": f.edit(bt, ins(row(3, 30, "z")))})
	if got := f.rows(f.mustMerge(base, ours, theirs).Root, "t"); got != "(1,10,x) (2,20,Y) (3,30,z)" {
		t.Errorf("rows %s", got)
	}
}

// TestMergeKeyless: rows of a table without a key are a bag; both sides'
// copies add up.
func TestMergeKeyless(t *testing.T) {
	f := newFixture(t)
	s := testSchema()
	s.PrimaryKey, s.Indexes = nil, s.Indexes[:1]
	bt := f.table(s, r1, r2)
	base := f.root(map[string]any{"t": bt})
	ours := f.root(map[string]any{"t": f.edit(bt, all(ins(r1), ins(r3), del(r2)))})
	theirs := f.root(map[string]any{"t": f.edit(bt, all(ins(r1), ins(r3), del(r2), ins(row(4, 40, "w"))))})
	res := f.mustMerge(base, ours, theirs)
	if got, want := f.rows(res.Root, "t"), "(1,10,x) (1,10,x) (1,10,x) (3,30,z) (3,30,z) (4,40,w)"; got != sortRows(got, want) {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
}

// sortRows returns want if got holds the same rows in any order.
func sortRows(got, want string) string {
	g, w := strings.Fields(got), strings.Fields(want)
	count := map[string]int{}
	for _, x := range g {
		count[x]++
	}
	for _, x := range w {
		count[x]--
	}
	for _, n := range count {
		if n != 0 {
			return got + " (differs)"
		}
	}
	return got
}

// TestMergeRefusesConflicts: a side with conflicts of an earlier merge is
// not merged again.
func TestMergeRefusesConflicts(t *testing.T) {
	f := newFixture(t)
	bt := f.table(testSchema(), r1)
	base := f.root(map[string]any{"t": bt})
	ours := f.root(map[string]any{"t": f.edit(bt, upd(r1, row(1, 2, "x")))})
	theirs := f.root(map[string]any{"t": f.edit(bt, upd(r1, row(1, 3, "x")))})
	res := f.mustMerge(base, ours, theirs)
	if _, err := f.merge(base, res.Root, theirs); !errors.Is(err, ErrUnresolvedConflicts) {
		t.Fatalf("merge: %v, want ErrUnresolvedConflicts", err)
	}
}

// TestResolveConflicts: --ours keeps the table, --theirs writes their
// rows; both remove the conflicts.
func TestResolveConflicts(t *testing.T) {
	f := newFixture(t)
	bt := f.table(testSchema(), r1, r2, r3)
	base := f.root(map[string]any{"t": bt})
	ours := f.root(map[string]any{"t": f.edit(bt, all(upd(r1, row(1, 11, "x")), del(r2), ins(row(4, 40, "o"))))})
	theirs := f.root(map[string]any{"t": f.edit(bt, all(upd(r1, row(1, 12, "x")), upd(r2, row(2, 22, "y")), ins(row(4, 41, "t"))))})
	res := f.mustMerge(base, ours, theirs)
	if got := f.conflicts(res.Root, "t"); got != "(1):(1,10,x)(1,11,x)(1,12,x) (2):(2,20,y)-(2,22,y) (4):-(4,40,o)(4,41,t)" {
		t.Fatalf("conflicts %s", got)
	}
	for _, c := range []struct {
		side Side
		rows string
	}{{Ours, "(1,11,x) (3,30,z) (4,40,o)"}, {Theirs, "(1,12,x) (2,22,y) (3,30,z) (4,41,t)"}} {
		r, err := ResolveConflicts(f.ctx, f.ns, res.Root, "t", c.side, testCollations)
		if err != nil {
			t.Fatal(err)
		}
		f.check(r, "t")
		if got := f.rows(r, "t"); got != c.rows {
			t.Errorf("side %d: rows %s, want %s", c.side, got, c.rows)
		}
		if has, _ := HasConflicts(f.ctx, r); has {
			t.Errorf("side %d: conflicts left", c.side)
		}
	}
	if _, err := ResolveConflicts(f.ctx, f.ns, base, "t", Ours, testCollations); err == nil {
		t.Error("resolving a table without conflicts succeeded")
	}
}

func TestLiteralDefault(t *testing.T) {
	col := func(k prolly.Kind, nullable bool, def string) tables.Column {
		return tables.Column{Name: "c", Type: "x", Kind: k, Nullable: nullable, Default: def}
	}
	for _, c := range []struct {
		col  tables.Column
		want string // "" for an error
	}{
		{col(prolly.KindInt, true, ""), "null:NULL"},
		{col(prolly.KindInt, false, ""), "int:0"},
		{col(prolly.KindString, false, ""), `string:""`},
		{col(prolly.KindInt, true, "7"), "int:7"},
		{col(prolly.KindInt, true, "(-7)"), "int:-7"},
		{col(prolly.KindInt, true, "NULL"), "null:NULL"},
		{col(prolly.KindInt, true, "TRUE"), "int:1"},
		{col(prolly.KindUint, true, "'8'"), "uint:8"},
		{col(prolly.KindFloat64, true, "2.5"), "float64:2.5"},
		{col(prolly.KindString, true, "'it''s'"), `string:"it's"`},
		{col(prolly.KindString, true, `"dq"`), `string:"dq"`},
		{col(prolly.KindString, true, "12"), `string:"12"`},
		{col(prolly.KindBytes, true, "'ab'"), "bytes:6162"},
		{col(prolly.KindString, true, "concat('a', 'b')"), ""},
		{col(prolly.KindInt, true, "1 + 2"), ""},
		{col(prolly.KindDatetime, false, "NOW()"), ""},
		{col(prolly.KindDatetime, false, ""), ""},
	} {
		v, err := LiteralDefault("t", c.col)
		switch {
		case c.want == "" && (err == nil || !errors.Is(err, ErrSchemaConflict)):
			t.Errorf("%v default %q: %v, %v; want a schema conflict", c.col.Kind, c.col.Default, v, err)
		case c.want != "" && (err != nil || v.String() != c.want):
			t.Errorf("%v default %q: %v, %v; want %s", c.col.Kind, c.col.Default, v, err, c.want)
		}
	}
}
