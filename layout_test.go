package verso_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/verso-db/verso"
)

// TestInitOpenFind makes a database folder with Init (its first commit's
// author and branch), finds it from a subfolder, opens it read-only beside
// a writer, and keeps the default branch across opens.
func TestInitOpenFind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := verso.Init(filepath.Join(dir, "bad"), verso.Options{DefaultBranch: "a b"}); !errors.Is(err, verso.ErrBadName) {
		t.Fatalf("Init with a bad branch name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused Init left %s: %v", filepath.Join(dir, "bad"), err)
	}
	db, err := verso.Init(dir, verso.Options{DefaultBranch: "trunk", Author: jane})
	ok(t, err)
	log, err := db.Log(ctx, "", 0)
	ok(t, err)
	if len(log) != 1 || log[0].Meta.Author != jane || db.DefaultBranch() != "trunk" {
		t.Fatalf("a new database: log %v, default branch %q", log, db.DefaultBranch())
	}
	if _, err := verso.Init(dir, verso.Options{}); !errors.Is(err, verso.ErrExists) {
		t.Fatalf("a second Init: %v", err)
	}

	sub := filepath.Join(dir, "a", "b")
	ok(t, os.MkdirAll(sub, 0o755))
	if found, err := verso.FindDatabase(sub); err != nil || found != dir {
		t.Fatalf("FindDatabase(%s) = %q, %v; want %s", sub, found, err, dir)
	}
	if _, err := verso.FindDatabase(t.TempDir()); !errors.Is(err, verso.ErrNoDatabase) {
		t.Fatalf("FindDatabase of a folder without a database: %v", err)
	}

	// The writer holds the folder; a reader opens it beside.
	if _, err := verso.Open(dir, verso.Options{}); !errors.Is(err, verso.ErrLocked) {
		t.Fatalf("a second writer's Open: %v", err)
	}
	ok(t, db.SetBranch(ctx, "side", "HEAD", verso.BranchOptions{}))
	ok(t, db.SetDefaultBranch(ctx, "side"))
	if err := db.SetDefaultBranch(ctx, "nope"); !errors.Is(err, verso.ErrBranchNotFound) {
		t.Fatalf("SetDefaultBranch(nope): %v", err)
	}
	r, err := verso.Open(dir, verso.Options{ReadOnly: true})
	ok(t, err)
	if r.DefaultBranch() != "side" {
		t.Fatalf("the reader's default branch is %q, want side", r.DefaultBranch())
	}
	if err := r.SetBranch(ctx, "x", "HEAD", verso.BranchOptions{}); err == nil {
		t.Fatal("a read-only database made a branch")
	}
	ok(t, r.Close())
	ok(t, db.Close())
}
