package verso_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/tables"
)

// rowText prints a row change as "from -> to".
func rowText(c verso.RowChange) string {
	side := func(vals []verso.Value) string {
		if vals == nil {
			return "none"
		}
		s := ""
		for i, v := range vals {
			if i > 0 {
				s += ","
			}
			if v.IsNull() {
				s += "NULL"
			} else {
				s += fmt.Sprint(v.AsInt())
			}
		}
		return s
	}
	return side(c.From) + " -> " + side(c.To)
}

// diffRows returns DiffTable's changes of table from rev from to rev to of
// a transaction on main.
func diffRows(t *testing.T, db *verso.DB, from, to, table string) []string {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	fr, err := txn.RootOf(ctx, from)
	ok(t, err)
	tr, err := txn.RootOf(ctx, to)
	ok(t, err)
	var out []string
	ok(t, db.DiffTable(ctx, fr, tr, table, func(c verso.RowChange) error {
		out = append(out, rowText(c))
		return nil
	}))
	return out
}

// TestRootOfAndChangedTables diffs HEAD, STAGED and WORKING: which tables
// changed, and how.
func TestRootOfAndChangedTables(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "a")
	createKV(t, db, "main", "b")
	put(t, db, "main", "a", 1, 1)
	commitAll(t, db, "main", "a and b")
	put(t, db, "main", "a", 1, 2)
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.StageAll(ctx) })
	put(t, db, "main", "a", 2, 2)
	createKV(t, db, "main", "c") // empty: a schema change only

	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	changes := func(from, to string) []verso.TableChange {
		fr, err := txn.RootOf(ctx, from)
		ok(t, err)
		tr, err := txn.RootOf(ctx, to)
		ok(t, err)
		cs, err := verso.ChangedTables(ctx, fr, tr)
		ok(t, err)
		return cs
	}
	a := verso.TableChange{Table: "a", DataChange: true}
	c := verso.TableChange{Table: "c", SchemaChange: true}
	for _, tc := range []struct {
		from, to string
		want     []verso.TableChange
	}{
		{"HEAD", "working", []verso.TableChange{a, c}},
		{"HEAD", "STAGED", []verso.TableChange{a}},
		{"STAGED", "WORKING", []verso.TableChange{a, c}},
		{"HEAD", "HEAD", []verso.TableChange{}},
	} {
		if got := changes(tc.from, tc.to); !slices.Equal(got, tc.want) {
			t.Errorf("ChangedTables %s %s: %+v, want %+v", tc.from, tc.to, got, tc.want)
		}
	}
	if got, want := diffRows(t, db, "HEAD", verso.Working, "a"), []string{"1,1 -> 1,2", "none -> 2,2"}; !slices.Equal(got, want) {
		t.Errorf("rows of a from HEAD to WORKING: %q, want %q", got, want)
	}
	if got, want := diffRows(t, db, "STAGED", verso.Working, "A"), []string{"none -> 2,2"}; !slices.Equal(got, want) {
		t.Errorf("rows of a from STAGED to WORKING: %q, want %q", got, want)
	}
	var rev *verso.RevisionError
	if _, err := txn.RootOf(ctx, "nope"); !errors.As(err, &rev) {
		t.Fatalf("RootOf(nope): %v", err)
	}
	s, found, err := db.TableSchema(ctx, txn.Root(), "C")
	ok(t, err)
	if !found || len(s.Columns) != 2 || s.Columns[0].Name != "k" {
		t.Fatalf("TableSchema(C): %v %+v", found, s)
	}
	if _, found, err := db.TableSchema(ctx, txn.Root(), "nope"); found || err != nil {
		t.Fatalf("TableSchema(nope): %v %v", found, err)
	}
	if err := db.DiffTable(ctx, txn.Root(), txn.Root(), "nope", func(verso.RowChange) error { return nil }); !errors.Is(err, verso.ErrTableNotFound) {
		t.Fatalf("DiffTable of no table: %v", err)
	}
}

// TestDiffTableSchemaChange: rows of a table whose columns changed come in
// the newer columns, matched by name.
func TestDiffTableSchemaChange(t *testing.T) {
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 10)
	put(t, db, "main", "t", 2, 20)
	commitAll(t, db, "main", "t")
	// The new table: (k, w, v) with w new; row 1 changes, row 3 is new.
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		s := &tables.Schema{
			Columns: []tables.Column{
				{Name: "k", Type: "int", Kind: verso.KindInt},
				{Name: "w", Type: "int", Kind: verso.KindInt, Nullable: true},
				{Name: "V", Type: "int", Kind: verso.KindInt, Nullable: true},
			},
			PrimaryKey: []int{0},
		}
		root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "t", Delete: true})
		if err != nil {
			return err
		}
		txn.SetRoot(root)
		if err := txn.CreateTable(ctx, "t", s); err != nil {
			return err
		}
		for _, r := range [][3]int64{{1, 5, 11}, {2, 0, 20}, {3, 7, 30}} {
			w := verso.Int(r[1])
			if r[1] == 0 {
				w = verso.Null()
			}
			if err := txn.Insert(ctx, "t", verso.Int(r[0]), w, verso.Int(r[2])); err != nil {
				return err
			}
		}
		return nil
	})
	want := []string{"1,NULL,10 -> 1,5,11", "2,NULL,20 -> 2,NULL,20", "none -> 3,7,30"}
	if got := diffRows(t, db, "HEAD", verso.Working, "t"); !slices.Equal(got, want) {
		t.Fatalf("rows across a schema change: %q, want %q", got, want)
	}
	// The older side's columns when the newer lacks the table.
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "t", Delete: true})
		txn.SetRoot(root)
		return err
	})
	want = []string{"1,10 -> none", "2,20 -> none"}
	if got := diffRows(t, db, "HEAD", verso.Working, "t"); !slices.Equal(got, want) {
		t.Fatalf("rows of a dropped table: %q, want %q", got, want)
	}
}

// TestDiffEvents: events appended in the working root, and the event log
// as the table dolt_events among the changed tables.
func TestDiffEvents(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	appendEvents := func(stream string, types ...string) {
		write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
			l, err := eventindex.LoadLog(ctx, db.Graph().NodeStore(), txn.Root())
			if err != nil {
				return err
			}
			b := l.Batch()
			var evs []eventindex.EventData
			for _, ty := range types {
				evs = append(evs, eventindex.EventData{Type: ty, Data: []byte(`{"n":1}`)})
			}
			if _, err := b.Append(ctx, stream, eventindex.Any, evs); err != nil {
				return err
			}
			if l, err = b.Log(ctx); err != nil {
				return err
			}
			root, err := l.Store(ctx, txn.Root())
			txn.SetRoot(root)
			return err
		})
	}
	appendEvents("order-1", "Placed", "Paid")
	commitAll(t, db, "main", "two events")
	appendEvents("order-2", "Placed")

	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	head, err := txn.RootOf(ctx, "HEAD")
	ok(t, err)
	cs, err := verso.ChangedTables(ctx, head, txn.Root())
	ok(t, err)
	if len(cs) != 1 || cs[0] != (verso.TableChange{Table: verso.EventsTable, DataChange: true}) {
		t.Fatalf("ChangedTables with an event appended: %+v", cs)
	}
	var got []string
	ok(t, db.DiffEvents(ctx, head, txn.Root(), func(c verso.EventChange) error {
		got = append(got, fmt.Sprintf("%v %d %s %s %s", c.Added, c.Event.Position, c.Event.Stream, c.Event.Type, c.Event.Category()))
		return nil
	}))
	if want := []string{"true 3 order-2 Placed order"}; !slices.Equal(got, want) {
		t.Fatalf("DiffEvents: %q, want %q", got, want)
	}
	root, err := txn.RootOf(ctx, "HEAD~1")
	ok(t, err)
	got = nil
	ok(t, db.DiffEvents(ctx, root, head, func(c verso.EventChange) error {
		got = append(got, fmt.Sprintf("%v %d %s", c.Added, c.Event.Position, c.Event.Type))
		return nil
	}))
	if want := []string{"true 1 Placed", "true 2 Paid"}; !slices.Equal(got, want) {
		t.Fatalf("DiffEvents from the first commit: %q, want %q", got, want)
	}
}
