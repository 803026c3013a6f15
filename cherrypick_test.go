package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// TestCherryPickConflictsInProgress: a cherry-pick with conflicts leaves
// them with the cherry-pick in progress (a MergeState of KindCherryPick
// that records the revision given), a commit finishes it with one parent,
// and AbortCherryPick restores the working set as it was, untracked
// tables included.
func TestCherryPickConflictsInProgress(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "base")
	ok(t, db.CreateBranch(ctx, "feature", "main"))
	put(t, db, "feature", "t", 1, 10)
	commitAll(t, db, "feature", "ten")
	put(t, db, "main", "t", 1, 100)
	commitAll(t, db, "main", "hundred")
	createKV(t, db, "main", "scratch") // untracked

	pick := func(opts verso.CherryPickOptions) (*verso.MergeResult, error) {
		t.Helper()
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		opts.Committer = jane
		return txn.CherryPick(ctx, "feature~0", opts)
	}
	if _, err := pick(verso.CherryPickOptions{RefuseConflicts: true}); !errors.Is(err, verso.ErrConflictsRefused) {
		t.Fatalf("cherry-pick refusing conflicts: %v, want ErrConflictsRefused", err)
	}
	if ws := workingSet(t, db, "main"); ws.Merge != nil {
		t.Fatalf("a refused cherry-pick left %+v", ws.Merge)
	}
	res, err := pick(verso.CherryPickOptions{})
	ok(t, err)
	if len(res.Conflicts) != 1 || res.Commit != nil {
		t.Fatalf("cherry-pick: %+v, want conflicts in t and no commit", res)
	}
	ws := workingSet(t, db, "main")
	if ws.Merge == nil || ws.Merge.Kind != commitgraph.KindCherryPick || ws.Merge.Source != "feature~0" || ws.Merge.Commit != res.Theirs.Addr {
		t.Fatalf("merge state %+v, want the cherry-pick of feature~0", ws.Merge)
	}
	if value(t, db, "main", "scratch", 1) != -1 || !slices.Contains(status(t, db, "main"), "scratch new table") {
		t.Fatalf("the untracked table was not carried: %v", status(t, db, "main"))
	}
	if _, err := pick(verso.CherryPickOptions{}); !errors.Is(err, verso.ErrMergeActive) {
		t.Fatalf("a second cherry-pick: %v, want ErrMergeActive", err)
	}

	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.AbortCherryPick(ctx))
	if ws := workingSet(t, db, "main"); ws.Merge != nil || value(t, db, "main", "t", 1) != 100 {
		t.Fatalf("after the abort: %+v, t.1 = %d", ws.Merge, value(t, db, "main", "t", 1))
	}
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	if err := txn.AbortCherryPick(ctx); !errors.Is(err, verso.ErrNoCherryPick) {
		t.Fatalf("abort with nothing in progress: %v, want ErrNoCherryPick", err)
	}

	_, err = pick(verso.CherryPickOptions{})
	ok(t, err)
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.ResolveConflicts(ctx, "t", verso.Theirs))
	ok(t, txn.Commit(ctx))
	c := commitAll(t, db, "main", "picked")
	if len(c.Parents) != 1 {
		t.Fatalf("the commit that finishes a cherry-pick has %d parents, want 1", len(c.Parents))
	}
	if ws := workingSet(t, db, "main"); ws.Merge != nil || value(t, db, "main", "t", 1) != 10 {
		t.Fatalf("after the commit: %+v, t.1 = %d", ws.Merge, value(t, db, "main", "t", 1))
	}
}

// TestCherryPickEmpty: the pick of a commit that changes nothing needs
// AllowEmpty; the pick of changes the branch has already is refused even
// with it, as Dolt's is.
func TestCherryPickEmpty(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "base")
	ok(t, db.CreateBranch(ctx, "feature", "main"))
	txn, err := db.Begin(ctx, "feature")
	ok(t, err)
	_, err = txn.CommitChanges(ctx, verso.CommitOptions{Message: "empty", Author: jane, AllowEmpty: true})
	ok(t, err)
	put(t, db, "feature", "t", 1, 1)
	commitAll(t, db, "feature", "one")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "one too")

	pick := func(spec string, allowEmpty bool) (*verso.MergeResult, error) {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		return txn.CherryPick(ctx, spec, verso.CherryPickOptions{Committer: jane, AllowEmpty: allowEmpty})
	}
	var ae *verso.ApplyError
	if _, err := pick("feature~1", false); !errors.As(err, &ae) || !errors.Is(err, verso.ErrEmptyCommit) || ae.Spec != "feature~1" {
		t.Fatalf("pick of an empty commit: %v, want an ApplyError of ErrEmptyCommit", err)
	}
	res, err := pick("feature~1", true)
	ok(t, err)
	if res.Commit == nil || res.Commit.Meta.Message != "empty" {
		t.Fatalf("pick of an empty commit with AllowEmpty: %+v", res)
	}
	for _, allow := range []bool{false, true} {
		if _, err := pick("feature", allow); !errors.Is(err, verso.ErrAlreadyApplied) {
			t.Fatalf("pick of changes already there (AllowEmpty %v): %v, want ErrAlreadyApplied", allow, err)
		}
	}
	// main: the root, base, "one too" and the picked "empty".
	if _, err := pick("main~3", false); !errors.Is(err, verso.ErrRootCommit) {
		t.Fatalf("pick of the root commit: %v, want ErrRootCommit", err)
	}
}

// TestRevertSeveral: Revert makes one commit per revision, in the order
// given, all resolved before the first; a failure keeps none of them.
func TestRevertSeveral(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "base")
	for k := int64(1); k <= 3; k++ {
		put(t, db, "main", "t", k, k)
		commitAll(t, db, "main", "add")
	}
	revert := func(specs ...string) ([]*verso.Commit, error) {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		return txn.Revert(ctx, specs, jane, nil)
	}
	made, err := revert("HEAD", "HEAD~1")
	ok(t, err)
	if len(made) != 2 || made[1].Parents[0] != made[0].Addr {
		t.Fatalf("revert of two commits made %d commits, want a chain of 2", len(made))
	}
	if value(t, db, "main", "t", 3) != -1 || value(t, db, "main", "t", 2) != -1 || value(t, db, "main", "t", 1) != 1 {
		t.Fatal("the reverts did not undo rows 3 and 2")
	}
	head := made[1].Addr
	// HEAD~4 adds row 1; HEAD~2 (row 3) is reverted already.
	if _, err := revert("HEAD~4", "HEAD~2"); !errors.Is(err, verso.ErrAlreadyApplied) {
		t.Fatalf("revert of a reverted commit: %v, want ErrAlreadyApplied", err)
	}
	if log, err := db.Log(ctx, "main", 1); err != nil || log[0].Addr != head || value(t, db, "main", "t", 1) != 1 {
		t.Fatalf("a failed revert kept a commit (%v)", err)
	}
	var re *verso.RevisionError
	if _, err := revert("HEAD", "nosuch"); !errors.As(err, &re) || re.Rev != "nosuch" {
		t.Fatalf("revert of an unknown revision: %v, want a RevisionError", err)
	}
}

// workingSet returns branch's working set as stored.
func workingSet(t *testing.T, db *verso.DB, branch string) commitgraph.WorkingSet {
	t.Helper()
	_, ws, err := db.Graph().BranchState(context.Background(), branch)
	ok(t, err)
	return ws
}
