package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// branchNames returns the database's branches by name.
func branchNames(t *testing.T, db *verso.DB) []string {
	t.Helper()
	bs, err := db.Branches(context.Background())
	ok(t, err)
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

func TestSetBranch(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	first := commitAll(t, db, "main", "create t")
	put(t, db, "main", "t", 1, 1)
	second := commitAll(t, db, "main", "row 1")

	ok(t, db.SetBranch(ctx, "old", "HEAD~1", verso.BranchOptions{}))
	if c, err := db.Resolve(ctx, "old", ""); err != nil || c.Addr != first.Addr {
		t.Fatalf("old is at %v (%v), want %s", c, err, first.Addr)
	}
	if err := db.SetBranch(ctx, "old", "main", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("SetBranch of an existing branch: %v", err)
	}
	ok(t, db.SetBranch(ctx, "old", "main", verso.BranchOptions{Force: true}))
	if c, _ := db.Resolve(ctx, "old", ""); c.Addr != second.Addr {
		t.Fatalf("a forced SetBranch left old at %s", c.Addr)
	}
	if err := db.SetBranch(ctx, "main", "old~1", verso.BranchOptions{Force: true}); !errors.Is(err, verso.ErrBranchCheckedOut) {
		t.Fatalf("a forced move of the checked-out branch: %v", err)
	}
	var rev *verso.RevisionError
	if err := db.SetBranch(ctx, "x", "nope", verso.BranchOptions{}); !errors.As(err, &rev) || rev.Rev != "nope" || !errors.Is(err, verso.ErrBadRevision) {
		t.Fatalf("SetBranch from a revision that names nothing: %v", err)
	}
	if err := db.SetBranch(ctx, "a b", "main", verso.BranchOptions{}); !errors.Is(err, verso.ErrBadName) {
		t.Fatalf("SetBranch of a bad name: %v", err)
	}
	// HEAD is the caller's branch.
	put(t, db, "old", "t", 2, 2)
	on := commitAll(t, db, "old", "row 2 on old")
	ok(t, db.SetBranch(ctx, "fromold", "HEAD", verso.BranchOptions{Head: "old"}))
	if c, _ := db.Resolve(ctx, "HEAD", "fromold"); c.Addr != on.Addr {
		t.Fatalf("HEAD of old resolved to %s, want %s", c.Addr, on.Addr)
	}
	if got, want := branchNames(t, db), []string{"fromold", "main", "old"}; !slices.Equal(got, want) {
		t.Fatalf("branches %v, want %v", got, want)
	}
}

func TestCopyRenameDeleteBranch(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "create t")
	ok(t, db.CreateBranch(ctx, "feature", "main"))
	put(t, db, "feature", "t", 1, 10) // uncommitted, in feature's working set

	// A copy takes the working set along.
	ok(t, db.CopyBranch(ctx, "feature", "copy", verso.BranchOptions{}))
	if v := value(t, db, "copy", "t", 1); v != 10 {
		t.Fatalf("the copy's working set has v = %d, want 10", v)
	}
	if err := db.CopyBranch(ctx, "feature", "copy", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("a copy onto a branch: %v", err)
	}
	if err := db.CopyBranch(ctx, "nope", "x", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchNotFound) {
		t.Fatalf("a copy of no branch: %v", err)
	}

	// A rename too; the default branch is not renamed.
	ok(t, db.RenameBranch(ctx, "copy", "renamed", verso.BranchOptions{}))
	if v := value(t, db, "renamed", "t", 1); v != 10 {
		t.Fatalf("the renamed branch's working set has v = %d, want 10", v)
	}
	if err := db.RenameBranch(ctx, "main", "trunk", verso.BranchOptions{}); !errors.Is(err, verso.ErrDefaultBranch) {
		t.Fatalf("renaming the default branch: %v", err)
	}
	if err := db.RenameBranch(ctx, "renamed", "feature", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("renaming onto a branch: %v", err)
	}
	if err := db.RenameBranch(ctx, "renamed", "renamed", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("renaming a branch to its name without Force: %v", err)
	}
	ok(t, db.RenameBranch(ctx, "renamed", "renamed", verso.BranchOptions{Force: true}))
	if got, want := branchNames(t, db), []string{"feature", "main", "renamed"}; !slices.Equal(got, want) {
		t.Fatalf("branches %v, want %v", got, want)
	}

	// Deletes: not the checked-out branch, not the default one, and not an
	// unmerged one without Force.
	commitAll(t, db, "feature", "v = 10")
	if err := db.DeleteBranch(ctx, "feature", verso.BranchOptions{Head: "feature"}); !errors.Is(err, verso.ErrBranchCheckedOut) {
		t.Fatalf("deleting the checked-out branch: %v", err)
	}
	if err := db.DeleteBranch(ctx, "main", verso.BranchOptions{Head: "feature"}); !errors.Is(err, verso.ErrDefaultBranch) {
		t.Fatalf("deleting the default branch: %v", err)
	}
	if err := db.DeleteBranch(ctx, "feature", verso.BranchOptions{}); !errors.Is(err, verso.ErrNotMerged) {
		t.Fatalf("deleting an unmerged branch: %v", err)
	}
	ok(t, db.DeleteBranch(ctx, "renamed", verso.BranchOptions{})) // its head is main's
	ok(t, db.DeleteBranch(ctx, "feature", verso.BranchOptions{Force: true}))
	if err := db.DeleteBranch(ctx, "feature", verso.BranchOptions{Force: true}); !errors.Is(err, verso.ErrBranchNotFound) {
		t.Fatalf("deleting no branch: %v", err)
	}
	if got, want := branchNames(t, db), []string{"main"}; !slices.Equal(got, want) {
		t.Fatalf("branches %v, want %v", got, want)
	}
}

// TestForkBranch: a branch forked from a transaction holds its working
// set with the transaction's writes; the transaction's branch does not
// get them until it commits.
func TestForkBranch(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "create t")
	put(t, db, "main", "t", 1, 1) // in main's working set
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Put(ctx, "t", verso.Int(2), verso.Int(2)))
	ok(t, txn.ForkBranch(ctx, "fork", false))
	if a, b := value(t, db, "fork", "t", 1), value(t, db, "fork", "t", 2); a != 1 || b != 2 {
		t.Fatalf("the fork's working set has rows 1 and 2 as %d and %d, want 1 and 2", a, b)
	}
	if v := value(t, db, "main", "t", 2); v != -1 {
		t.Fatalf("main has the uncommitted row 2 (%d)", v)
	}
	if err := txn.ForkBranch(ctx, "fork", false); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("a fork onto a branch: %v", err)
	}
	if err := txn.ForkBranch(ctx, "main", true); !errors.Is(err, verso.ErrBranchCheckedOut) {
		t.Fatalf("a forced fork onto the transaction's branch: %v", err)
	}
	ok(t, txn.ForkBranch(ctx, "fork", true))
}

// TestMoveHead: the transaction's own branch moves to a revision only
// while nothing of its tracked tables is uncommitted; otherwise it stays as
// it was. Untracked tables stay in the working root.
func TestMoveHead(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	first := commitAll(t, db, "main", "create t")
	put(t, db, "main", "t", 1, 1)
	second := commitAll(t, db, "main", "row 1")
	move := func(rev string, before func(txn *verso.Txn) error) error {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		defer txn.Rollback()
		if before != nil {
			ok(t, before(txn))
		}
		return txn.MoveHead(ctx, rev)
	}
	at := func(want *verso.Commit) {
		t.Helper()
		if c, err := db.Resolve(ctx, "main", ""); err != nil || c.Addr != want.Addr {
			t.Fatalf("main is at %v (%v), want %s", c, err, want.Addr)
		}
	}
	drop := func(branch, table string) {
		write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
			root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + table, Delete: true})
			txn.SetRoot(root)
			return err
		})
	}

	// The transaction's own writes, a working change and a staged change
	// each keep the branch where it is.
	pending := func(txn *verso.Txn) error { return txn.Put(ctx, "t", verso.Int(2), verso.Int(2)) }
	if err := move("HEAD~1", pending); !errors.Is(err, verso.ErrUncommittedChanges) {
		t.Fatalf("a move with the transaction's writes: %v", err)
	}
	put(t, db, "main", "t", 1, 5)
	if err := move("HEAD~1", nil); !errors.Is(err, verso.ErrUncommittedChanges) {
		t.Fatalf("a move with a working change: %v", err)
	}
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.StageAll(ctx) })
	if err := move("HEAD~1", nil); !errors.Is(err, verso.ErrUncommittedChanges) {
		t.Fatalf("a move with a staged change: %v", err)
	}
	at(second)
	if v := value(t, db, "main", "t", 1); v != 5 {
		t.Fatalf("a refused move changed t: v = %d, want 5", v)
	}
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		return txn.Reset(ctx, verso.ResetOptions{Hard: true})
	})

	// Clean but for an untracked table, it moves; its roots are the
	// commit's and the untracked table stays.
	createKV(t, db, "main", "scratch")
	ok(t, move("HEAD~1", nil))
	at(first)
	wantStatus(t, db, "main", "after the move", "scratch new table")
	if v := value(t, db, "main", "t", 1); v != -1 {
		t.Fatalf("after the move t has row 1 (v = %d)", v)
	}
	ok(t, move(second.Addr.String(), nil))
	at(second)

	// An untracked table the commit has too would be overwritten.
	ok(t, db.SetBranch(ctx, "side", "HEAD", verso.BranchOptions{}))
	createKV(t, db, "side", "scratch")
	side := commitAll(t, db, "side", "scratch on side")
	if err := move("side", nil); !errors.Is(err, verso.ErrUncommittedChanges) {
		t.Fatalf("a move onto a commit with the untracked table: %v", err)
	}
	drop("main", "scratch")
	ok(t, move("side", nil))
	at(side)
	wantStatus(t, db, "main", "after the move to side")

	var rev *verso.RevisionError
	if err := move("nope", nil); !errors.As(err, &rev) || !errors.Is(err, verso.ErrBadRevision) {
		t.Fatalf("a move to no revision: %v", err)
	}
}

func TestTags(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	c := commitAll(t, db, "main", "create t")
	tag, err := db.CreateTag(ctx, "v1", "HEAD", verso.TagOptions{Tagger: jane, Message: "first"})
	ok(t, err)
	if tag.Commit != c.Addr || tag.Message != "first" || tag.Tagger != jane || tag.Name != "v1" {
		t.Fatalf("tag %+v, want v1 of %s by Jane", tag, c.Addr)
	}
	if _, err := db.CreateTag(ctx, "v1", "HEAD", verso.TagOptions{Tagger: jane}); !errors.Is(err, verso.ErrTagExists) {
		t.Fatalf("a second tag v1: %v", err)
	}
	if _, err := db.CreateTag(ctx, "v0", "HEAD~1", verso.TagOptions{}); !errors.Is(err, verso.ErrNoAuthor) {
		t.Fatalf("a tag without a tagger: %v", err)
	}
	var rev *verso.RevisionError
	if _, err := db.CreateTag(ctx, "v9", "HEAD~9", verso.TagOptions{Tagger: jane}); !errors.As(err, &rev) || !errors.Is(err, verso.ErrNoSuchAncestor) {
		t.Fatalf("a tag of HEAD~9: %v", err)
	}
	_, err = db.CreateTag(ctx, "v0", "v1~1", verso.TagOptions{Tagger: jane})
	ok(t, err)
	tags, err := db.Tags(ctx)
	ok(t, err)
	if len(tags) != 2 || tags[0].Name != "v0" || tags[1].Name != "v1" {
		t.Fatalf("tags %v, want v0 and v1", tags)
	}
	if got, err := db.Resolve(ctx, "v1", ""); err != nil || got.Addr != c.Addr {
		t.Fatalf("v1 resolves to %v (%v)", got, err)
	}
	ok(t, db.DeleteTag(ctx, "v1"))
	if err := db.DeleteTag(ctx, "v1"); !errors.Is(err, verso.ErrTagNotFound) {
		t.Fatalf("deleting no tag: %v", err)
	}
}
