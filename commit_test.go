package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
)

// TestAmendAndSkipEmpty: amending the root commit makes a new root commit;
// --skip-empty makes no commit, an amend included, when nothing is staged.
func TestAmendAndSkipEmpty(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	root, err := db.Resolve(ctx, "main", "")
	ok(t, err)
	c, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: true, Message: "first, amended", Author: jane})
	ok(t, err)
	if len(c.Parents) != 0 || c.Addr == root.Addr || c.Meta.Message != "first, amended" || c.Root != root.Root {
		t.Fatalf("amended root commit: %+v, want a new root commit of the same root value", c)
	}
	log, err := db.Log(ctx, "main", 0)
	ok(t, err)
	if len(log) != 1 || log[0].Addr != c.Addr {
		t.Fatalf("log after amending the root commit: %d commits", len(log))
	}
	for _, amend := range []bool{false, true} {
		txn, err = db.Begin(ctx, "main")
		ok(t, err)
		made, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: amend, SkipEmpty: true, Message: "skipped", Author: jane})
		if err != nil || made != nil {
			t.Fatalf("skip-empty (amend %v) with nothing staged: %v, %v; want no commit", amend, made, err)
		}
	}
	if h, err := db.Resolve(ctx, "main", ""); err != nil || h.Addr != c.Addr {
		t.Fatalf("head moved: %v %v", h, err)
	}
}

// TestCleanAndRemove: Clean drops the untracked tables only (all, or
// those named, or none on a dry run); Remove stages the removal of tables
// and refuses those with changes, unless cached for staged ones.
func TestCleanAndRemove(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "base")
	for _, n := range []string{"n1", "n2", "n3"} {
		createKV(t, db, "main", n)
	}
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Stage(ctx, "n3"))
	clean := func(opts verso.CleanOptions) []string {
		t.Helper()
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		dropped, err := txn.Clean(ctx, opts)
		ok(t, err)
		return dropped
	}
	if got := clean(verso.CleanOptions{DryRun: true}); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Fatalf("dry run: %v", got)
	}
	wantStatus(t, db, "main", "after a dry run", "n3 staged new table", "n1 new table", "n2 new table")
	if got := clean(verso.CleanOptions{Tables: []string{"N1", "t", "n3"}}); !slices.Equal(got, []string{"n1"}) {
		t.Fatalf("clean of n1, t, n3: %v", got)
	}
	if got := clean(verso.CleanOptions{Keep: func(n string) bool { return n == "n2" }}); got != nil {
		t.Fatalf("clean keeping n2: %v", got)
	}
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	var nt *verso.TableNotFoundError
	if _, err := txn.Clean(ctx, verso.CleanOptions{Tables: []string{"nope"}}); !errors.As(err, &nt) {
		t.Fatalf("clean of no table: %v", err)
	}
	if got := clean(verso.CleanOptions{}); !slices.Equal(got, []string{"n2"}) {
		t.Fatalf("clean: %v", got)
	}
	wantStatus(t, db, "main", "after cleaning", "n3 staged new table")

	// Remove: a table with unstaged or staged changes is refused.
	put(t, db, "main", "t", 1, 1)
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	var re *verso.RemoveError
	if err := txn.Remove(ctx, []string{"t"}, false); !errors.As(err, &re) || re.Staged {
		t.Fatalf("remove of a changed table: %v", err)
	}
	ok(t, txn.Stage(ctx, "t"))
	if err := txn.Remove(ctx, []string{"t"}, false); !errors.As(err, &re) || re.Staged {
		t.Fatalf("remove of a staged change: %v", err)
	}
	if err := txn.Remove(ctx, []string{"n3"}, false); !errors.As(err, &re) || !re.Staged {
		t.Fatalf("remove of a staged new table: %v", err)
	}
	commitAll(t, db, "main", "t and n3")
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Remove(ctx, []string{"t"}, false))
	ok(t, txn.Remove(ctx, []string{"n3"}, true))
	wantStatus(t, db, "main", "after removing t, and n3 from the index", "n3 staged deleted", "t staged deleted", "n3 new table")
}
