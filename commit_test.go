package verso_test

import (
	"context"
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
