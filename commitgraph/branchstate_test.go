package commitgraph

import (
	"context"
	"errors"
	"testing"

	"github.com/verso-db/verso/chunks"
)

func TestUpdateBranch(t *testing.T) {
	stores(t, func(t *testing.T, cs chunks.Store) {
		ctx := context.Background()
		db := New(cs)
		c0 := mustInit(t, db)
		head, ws, err := db.BranchState(ctx, "main")
		if err != nil || head.Addr != c0.Addr || ws != (WorkingSet{Working: c0.Root, Staged: c0.Root}) {
			t.Fatalf("BranchState of a new database: %v %+v %v", head, ws, err)
		}
		c1, err := db.WriteCommit(ctx, testAddr("r1"), []chunks.Address{c0.Addr}, meta("one"))
		if err != nil {
			t.Fatal(err)
		}
		next := WorkingSet{Working: testAddr("w"), Staged: c1.Root}
		if err := db.UpdateBranch(ctx, "main", BranchUpdate{ExpectedHead: c0.Addr, ExpectedWorkingSet: ws, Head: c1.Addr, WorkingSet: next}); err != nil {
			t.Fatal(err)
		}
		head, got, err := db.BranchState(ctx, "main")
		if err != nil || head.Addr != c1.Addr || !got.Equal(next) {
			t.Fatalf("after UpdateBranch: head %s working set %+v, %v", head.Addr, got, err)
		}
		// Stale expectations change nothing.
		err = db.UpdateBranch(ctx, "main", BranchUpdate{ExpectedHead: c0.Addr, ExpectedWorkingSet: next, Head: c0.Addr, WorkingSet: ws})
		if !errors.Is(err, ErrBranchMoved) {
			t.Fatalf("UpdateBranch from a stale head: %v", err)
		}
		err = db.UpdateBranch(ctx, "main", BranchUpdate{ExpectedHead: c1.Addr, ExpectedWorkingSet: ws, Head: c1.Addr, WorkingSet: ws})
		if !errors.Is(err, ErrWorkingSetMoved) {
			t.Fatalf("UpdateBranch from a stale working set: %v", err)
		}
		if head, got, _ := db.BranchState(ctx, "main"); head.Addr != c1.Addr || !got.Equal(next) {
			t.Fatalf("a failed UpdateBranch changed the branch: %s %+v", head.Addr, got)
		}
		if _, _, err := db.BranchState(ctx, "nope"); !errors.Is(err, ErrBranchNotFound) {
			t.Fatalf("BranchState of a missing branch: %v", err)
		}
	})
}

func TestSetBranch(t *testing.T) {
	stores(t, func(t *testing.T, cs chunks.Store) {
		ctx := context.Background()
		db := New(cs)
		c0 := mustInit(t, db)
		c1, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: testAddr("r1"), ExpectedHead: c0.Addr, Meta: meta("one")})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetBranch(ctx, "dev", c0.Addr, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := db.SetBranch(ctx, "dev", c1.Addr, nil, false); !errors.Is(err, ErrBranchExists) {
			t.Fatalf("SetBranch over an existing branch without force: %v", err)
		}
		ws := WorkingSet{Working: testAddr("w"), Staged: c1.Root}
		if err := db.SetBranch(ctx, "dev", c1.Addr, &ws, true); err != nil {
			t.Fatal(err)
		}
		head, got, err := db.BranchState(ctx, "dev")
		if err != nil || head.Addr != c1.Addr || !got.Equal(ws) {
			t.Fatalf("dev after a forced SetBranch: %s %+v %v", head.Addr, got, err)
		}
		// Without a working set, a moved branch gets its head's roots.
		if err := db.SetBranch(ctx, "dev", c0.Addr, nil, true); err != nil {
			t.Fatal(err)
		}
		if _, got, _ := db.BranchState(ctx, "dev"); got != (WorkingSet{Working: c0.Root, Staged: c0.Root}) {
			t.Fatalf("dev's working set after a move: %+v", got)
		}
		if err := db.SetBranch(ctx, "bad..name", c0.Addr, nil, false); !errors.Is(err, ErrBadName) {
			t.Fatalf("SetBranch with a bad name: %v", err)
		}
	})
}
