package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// renameTable renames a table of branch's working set.
func renameTable(t *testing.T, db *verso.DB, branch, old, new string) {
	t.Helper()
	write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
		return txn.RenameTable(ctx, old, new)
	})
}

// changedTables returns ChangedTables from rev's root to branch's working
// root as "table<-from data schema" lines.
func changedTables(t *testing.T, db *verso.DB, branch, rev string) []string {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, branch)
	ok(t, err)
	from, err := txn.RootOf(ctx, rev)
	ok(t, err)
	chs, err := verso.ChangedTables(ctx, from, txn.Root())
	ok(t, err)
	var out []string
	for _, c := range chs {
		s := c.Table
		if c.From != "" {
			s += "<-" + c.From
		}
		out = append(out, s+map[bool]string{true: " data", false: ""}[c.DataChange]+map[bool]string{true: " schema", false: ""}[c.SchemaChange])
	}
	return out
}

// TestRenameKeepsIdentity: a renamed table shows as renamed in status
// (staged by its new name, whole) and in ChangedTables, across two
// renames; renamed back, it is as it was; a table dropped and another
// created are not a rename, rows or no rows.
func TestRenameKeepsIdentity(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "a")
	createKV(t, db, "main", "b")
	put(t, db, "main", "b", 1, 10)
	head := commitAll(t, db, "main", "base")

	renameTable(t, db, "main", "a", "a2")
	wantStatus(t, db, "main", "after a rename", "a -> a2 renamed")
	if got, want := changedTables(t, db, "main", "HEAD"), []string{"a2<-a schema"}; !slices.Equal(got, want) {
		t.Fatalf("changed tables %q, want %q", got, want)
	}
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Stage(ctx, "a")) // the old name alone stages nothing
	wantStatus(t, db, "main", "after staging the old name", "a -> a2 renamed")
	ok(t, txn.Stage(ctx, "A2"))
	wantStatus(t, db, "main", "after staging the new name", "a -> a2 staged renamed")

	renameTable(t, db, "main", "b", "b2")
	put(t, db, "main", "b2", 2, 20)
	renameTable(t, db, "main", "b2", "b3")
	wantStatus(t, db, "main", "after two renames and a write", "a -> a2 staged renamed", "b -> b3 renamed")
	if got, want := changedTables(t, db, "main", "HEAD"), []string{"a2<-a schema", "b3<-b data schema"}; !slices.Equal(got, want) {
		t.Fatalf("changed tables %q, want %q", got, want)
	}

	// Renamed back, the tables are as they were: nothing to commit.
	renameTable(t, db, "main", "a2", "a")
	renameTable(t, db, "main", "b3", "B")
	renameTable(t, db, "main", "B", "b")
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.StageAll(ctx))
	if txn, err = db.Begin(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	headRoot, err := txn.RootOf(ctx, head.Addr.String())
	ok(t, err)
	staged, err := txn.RootOf(ctx, verso.Staged)
	ok(t, err)
	if chs, err := verso.ChangedTables(ctx, headRoot, staged); err != nil || len(chs) != 1 || chs[0].Table != "b" || chs[0].From != "" || chs[0].SchemaChange {
		t.Fatalf("renamed back: %+v, %v (want b's data change only)", chs, err)
	}

	// A table dropped and another made under a new name, with the same
	// schema and rows, is no rename.
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "a", Delete: true})
		if err != nil {
			return err
		}
		txn.SetRoot(root)
		return txn.CreateTable(ctx, "c", kvSchema())
	})
	wantStatus(t, db, "main", "after a drop and a create", "b staged modified", "a deleted", "c new table")

	// Refusals.
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	if err := txn.RenameTable(ctx, "nope", "x"); !errors.Is(err, verso.ErrTableNotFound) {
		t.Fatalf("renaming no table: %v", err)
	}
	if err := txn.RenameTable(ctx, "b", "C"); err == nil {
		t.Fatal("renamed a table onto another")
	}
}

// TestTableOptionsCodec: options round-trip with and without an origin,
// and malformed chunks are refused.
func TestTableOptionsCodec(t *testing.T) {
	for _, o := range []verso.TableOptions{{}, {Comment: "c"}, {Collation: "utf8mb4_0900_ai_ci", Origin: "t"}} {
		got, err := verso.DecodeTableOptions("x", verso.EncodeTableOptions(o))
		if err != nil || got != o {
			t.Fatalf("round trip of %+v: %+v, %v", o, got, err)
		}
	}
	for name, b := range map[string][]byte{
		"another kind":    verso.EncodeObject("view", verso.String("a"), verso.String("b")),
		"one field":       verso.EncodeObject("tableopts", verso.String("a")),
		"four fields":     verso.EncodeObject("tableopts", verso.String("a"), verso.String("b"), verso.String("c"), verso.String("d")),
		"a number":        verso.EncodeObject("tableopts", verso.String("a"), verso.Int(1)),
		"an empty origin": verso.EncodeObject("tableopts", verso.String("a"), verso.String("b"), verso.String("")),
		"garbage":         []byte("VRSOOBJ\x01\xff"),
	} {
		if _, err := verso.DecodeTableOptions("x", b); !errors.Is(err, verso.ErrBadObject) {
			t.Errorf("%s: %v, want ErrBadObject", name, err)
		}
	}
}

func FuzzDecodeTableOptions(f *testing.F) {
	f.Add(verso.EncodeTableOptions(verso.TableOptions{Comment: "c", Origin: "t"}))
	f.Add(verso.EncodeTableOptions(verso.TableOptions{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := verso.DecodeTableOptions("x", b)
		if err != nil {
			if !errors.Is(err, verso.ErrBadObject) {
				t.Fatalf("error %v is not ErrBadObject", err)
			}
			return
		}
		if again, err := verso.DecodeTableOptions("x", verso.EncodeTableOptions(o)); err != nil || again != o {
			t.Fatalf("%+v does not round-trip: %+v, %v", o, again, err)
		}
	})
}

// TestMergeDropAgainstChange: merging a branch that changed the rows of a
// table this branch dropped (or renamed) leaves a schema conflict to
// resolve, the table staged as the branch had it (absent), instead of
// failing.
func TestMergeDropAgainstChange(t *testing.T) {
	for _, rename := range []bool{false, true} {
		ctx := context.Background()
		db := memDB(t)
		createKV(t, db, "main", "a")
		put(t, db, "main", "a", 1, 1)
		commitAll(t, db, "main", "base")
		ok(t, db.CreateBranch(ctx, "other", "main"))
		if rename {
			renameTable(t, db, "main", "a", "a2")
		} else {
			write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
				root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "a", Delete: true})
				txn.SetRoot(root)
				return err
			})
		}
		commitAll(t, db, "main", "drop or rename a")
		put(t, db, "other", "a", 1, 10)
		commitAll(t, db, "other", "change a")
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		if _, err := txn.Merge(ctx, "other", verso.MergeOptions{Author: jane}); err != nil {
			t.Fatalf("rename %v: merge: %v", rename, err)
		}
		tables, err := verso.SchemaConflictedTables(ctx, txn.Root())
		ok(t, err)
		if !slices.Equal(tables, []string{"a"}) {
			t.Fatalf("rename %v: schema conflicts %v", rename, tables)
		}
		wantStatus(t, db, "main", "after the merge", "a schema conflict")
	}
}
