package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
)

// TestMergeOverLocalChanges: a merge goes ahead over uncommitted changes
// to tables it leaves alone, which stay in the working set (unstaged),
// and refuses with a StompError those it would change, fast-forward or
// three-way, as Dolt's does.
func TestMergeOverLocalChanges(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	createKV(t, db, "main", "u")
	commitAll(t, db, "main", "base")
	ok(t, db.CreateBranch(ctx, "feature", "main"))
	put(t, db, "feature", "t", 1, 1)
	commitAll(t, db, "feature", "t on feature")

	merge := func(when string) (*verso.MergeResult, error) {
		t.Helper()
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		return txn.Merge(ctx, "feature", verso.MergeOptions{Author: jane})
	}

	// A change to u, which the fast-forward leaves alone, is carried.
	put(t, db, "main", "u", 1, 1)
	res, err := merge("fast-forward")
	ok(t, err)
	if !res.FastForward {
		t.Fatalf("merge: %+v, want a fast-forward", res)
	}
	wantStatus(t, db, "main", "after the fast-forward", "u modified")
	if value(t, db, "main", "t", 1) != 1 || value(t, db, "main", "u", 1) != 1 {
		t.Fatal("the merge lost its rows or the local change")
	}

	// Three-way, with the change to u staged: it comes out unstaged.
	ok(t, db.CreateBranch(ctx, "f2", "main~0"))
	put(t, db, "f2", "t", 2, 2)
	commitAll(t, db, "f2", "t on f2")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Stage(ctx, "u"))
	createKV(t, db, "main", "n") // untracked, carried too
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	res, err = txn.Merge(ctx, "f2", verso.MergeOptions{Author: jane, NoFF: true})
	ok(t, err)
	if res.Commit == nil || len(res.Commit.Parents) != 2 {
		t.Fatalf("merge: %+v, want a merge commit", res)
	}
	wantStatus(t, db, "main", "after the three-way merge", "n new table", "u modified")

	// A local change to t, which the merge would change, refuses it.
	ok(t, db.CreateBranch(ctx, "f3", "main"))
	put(t, db, "f3", "t", 3, 3)
	commitAll(t, db, "f3", "t on f3")
	put(t, db, "main", "t", 9, 9)
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	_, err = txn.Merge(ctx, "f3", verso.MergeOptions{Author: jane})
	var stomp *verso.StompError
	if !errors.As(err, &stomp) || !slices.Equal(stomp.Tables, []string{"t"}) {
		t.Fatalf("merge over a change to t: %v, want a StompError naming t", err)
	}
	if value(t, db, "main", "t", 3) != -1 || value(t, db, "main", "t", 9) != 9 {
		t.Fatal("the refused merge changed the working set")
	}
}
