package verso_test

import (
	"context"
	"errors"
	"testing"

	"github.com/verso-db/verso"
)

// TestStash: a stash puts a branch's working and staged changes aside
// and resets it; apply puts them back (unstaged), pop also drops the
// stash; a clash is refused and changes nothing; stashes survive a
// collection and pass fsck.
func TestStash(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	author := verso.Signature{Name: "T", Email: "t@x"}
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "one")
	txn := func() *verso.Txn {
		t.Helper()
		x, err := db.Begin(ctx, "main")
		ok(t, err)
		return x
	}
	if _, err := txn().Stash(ctx, "l", "", author); !errors.Is(err, verso.ErrNothingToStash) {
		t.Fatalf("a stash of no changes: %v", err)
	}
	put(t, db, "main", "t", 1, 10)
	put(t, db, "main", "t", 2, 20)
	s, err := txn().Stash(ctx, "l", "", author)
	ok(t, err)
	if value(t, db, "main", "t", 1) != 1 || len(status(t, db, "main")) != 0 {
		t.Fatalf("the branch after the stash: t[1] = %d, status %v", value(t, db, "main", "t", 1), status(t, db, "main"))
	}
	all, err := db.Stashes(ctx, "l")
	ok(t, err)
	if len(all) != 1 || all[0].Branch != "main" || all[0].Ref != s.Ref || all[0].List != "l" || all[0].Base != s.Base {
		t.Fatalf("stashes: %+v", all)
	}
	rep, err := db.Check(ctx, verso.CheckOptions{})
	ok(t, err)
	if rep.Count() != 0 {
		t.Fatalf("fsck with a stash: %v", rep.Problems)
	}
	// A clash: the working set changed row 1 the other way.
	put(t, db, "main", "t", 1, 5)
	var clash *verso.StashConflictError
	if _, err := txn().StashApply(ctx, "l", 0, true); !errors.As(err, &clash) {
		t.Fatalf("apply over a clash: %v", err)
	}
	if value(t, db, "main", "t", 1) != 5 {
		t.Fatal("a refused apply changed the working set")
	}
	put(t, db, "main", "t", 1, 1) // back to the head's
	_, err = txn().StashApply(ctx, "l", 0, true)
	ok(t, err)
	if value(t, db, "main", "t", 1) != 10 || value(t, db, "main", "t", 2) != 20 {
		t.Fatalf("after pop: t[1] = %d, t[2] = %d", value(t, db, "main", "t", 1), value(t, db, "main", "t", 2))
	}
	if all, _ := db.Stashes(ctx, "l"); len(all) != 0 {
		t.Fatalf("pop left %d stashes", len(all))
	}
	// Two stashes, newest first; drop and clear.
	_, err = txn().Stash(ctx, "l", "first", author)
	ok(t, err)
	put(t, db, "main", "t", 3, 30)
	_, err = txn().Stash(ctx, "l", "second", author)
	ok(t, err)
	all, _ = db.Stashes(ctx, "l")
	if len(all) != 2 || all[0].Message != "second" || all[1].Message != "first" {
		t.Fatalf("two stashes: %+v", all)
	}
	_, err = db.GC(ctx, verso.GCOptions{})
	ok(t, err)
	_, err = txn().StashApply(ctx, "l", 1, false)
	ok(t, err)
	if value(t, db, "main", "t", 1) != 10 {
		t.Fatal("apply of the older stash after a collection")
	}
	_, err = db.StashDrop(ctx, "l", 0)
	ok(t, err)
	ok(t, db.StashClear(ctx, "l"))
	if all, _ := db.Stashes(ctx, "l"); len(all) != 0 {
		t.Fatalf("after clear: %d stashes", len(all))
	}
	if _, err := db.StashDrop(ctx, "l", 0); !errors.Is(err, verso.ErrNoStash) {
		t.Fatalf("drop of no stash: %v", err)
	}
	// Another list is its own.
	put(t, db, "main", "t", 4, 40)
	_, err = txn().Stash(ctx, "other", "", author)
	ok(t, err)
	if all, _ := db.Stashes(ctx, ""); len(all) != 1 || all[0].List != "other" {
		t.Fatalf("every list's stashes: %+v", all)
	}
	_, err = txn().StashApply(ctx, "other", 0, true)
	ok(t, err)
	if _, err := txn().Stash(ctx, "a/b", "", author); !errors.Is(err, verso.ErrBadName) {
		t.Fatalf("a list name with a slash: %v", err)
	}
}

// TestStashTracked: without untracked tables, a stash keeps them in the
// working set, and one of nothing else is ErrNothingToStash.
func TestStashTracked(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "t")
	createKV(t, db, "main", "n")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	if _, err := txn.StashTracked(ctx, "s", "", jane); !errors.Is(err, verso.ErrNothingToStash) {
		t.Fatalf("a stash of an untracked table alone: %v", err)
	}
	put(t, db, "main", "t", 1, 1)
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	_, err = txn.StashTracked(ctx, "s", "", jane)
	ok(t, err)
	wantStatus(t, db, "main", "after stashing t", "n new table")
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	_, err = txn.StashApply(ctx, "s", 0, true)
	ok(t, err)
	if value(t, db, "main", "t", 1) != 1 {
		t.Fatal("the stash lost t's row")
	}
	wantStatus(t, db, "main", "after the pop", "n new table", "t modified")
}
