package verso_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/verso-db/verso"
)

// TestReflog: the moves of branches and tags, newest first, from the
// store's history of roots; it survives a reopen, and a collection starts
// it anew (the history before it goes with the old journal).
func TestReflog(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	db, err := verso.Init(dir, verso.Options{Author: verso.Signature{Name: "T", Email: "t@x"}})
	ok(t, err)
	createKV(t, db, "main", "t")
	c1 := commitAll(t, db, "main", "one")
	put(t, db, "main", "t", 1, 1)
	c2 := commitAll(t, db, "main", "two")
	ok(t, db.SetBranch(ctx, "f", "HEAD~1", verso.BranchOptions{}))
	_, err = db.CreateTag(ctx, "v1", "main", verso.TagOptions{Tagger: verso.Signature{Name: "T", Email: "t@x"}})
	ok(t, err)
	put(t, db, "main", "t", 2, 2)
	c3 := commitAll(t, db, "main", "three")
	ok(t, db.DeleteBranch(ctx, "f", verso.BranchOptions{Force: true}))

	entries := func(ref string, all bool) []string {
		t.Helper()
		log, err := db.Reflog(ctx, ref, all)
		ok(t, err)
		var out []string
		for _, e := range log {
			s := e.Ref + " " + e.Commit.String()
			if e.Deleted {
				s += " deleted"
			}
			out = append(out, s)
		}
		return out
	}
	main := entries("", false)
	// The first commit (verso.Init's) and the three of main.
	if len(main) != 4 || main[0] != "refs/heads/main "+c3.Addr.String() || main[1] != "refs/heads/main "+c2.Addr.String() || main[2] != "refs/heads/main "+c1.Addr.String() {
		t.Fatalf("main's reflog: %q", main)
	}
	all := entries("", true)
	want := []string{
		"refs/heads/f " + c1.Addr.String() + " deleted",
		"refs/heads/main " + c3.Addr.String(),
		"refs/tags/v1 " + c2.Addr.String(),
		"refs/heads/f " + c1.Addr.String(),
	}
	if len(all) < len(want) || !slices.Equal(all[:len(want)], want) {
		t.Fatalf("the whole reflog starts %q, want %q", all, want)
	}
	if got := entries("v1", false); !slices.Equal(got, []string{"refs/tags/v1 " + c2.Addr.String()}) {
		t.Errorf("v1's reflog: %q", got)
	}
	if _, err := db.Reflog(ctx, "nosuch", false); err == nil {
		t.Error("the reflog of a ref that never was succeeded")
	}
	ok(t, db.Close())

	db, err = verso.Open(dir, verso.Options{})
	ok(t, err)
	if got := entries("", false); !slices.Equal(got, main) {
		t.Errorf("after a reopen: %q, want %q", got, main)
	}
	_, err = db.GC(ctx, verso.GCOptions{})
	ok(t, err)
	if got := entries("", false); len(got) != 1 || got[0] != "refs/heads/main "+c3.Addr.String() {
		t.Errorf("after a collection: %q", got)
	}
	ok(t, db.Close())
}
