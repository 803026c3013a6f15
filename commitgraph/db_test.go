package commitgraph

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
)

var ada = Signature{"Ada", "ada@example.com"}

func meta(msg string) Meta {
	return Meta{Author: ada, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Message: msg}
}

// stores runs f over a memory store and a file store.
func stores(t *testing.T, f func(t *testing.T, cs chunks.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, chunks.NewMemoryStore()) })
	t.Run("file", func(t *testing.T) {
		cs, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		f(t, cs)
	})
}

func mustInit(t testing.TB, db *DB) *Commit {
	t.Helper()
	c, err := db.Init(context.Background(), "", meta("Initialize data repository"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInitAndCommit(t *testing.T) {
	stores(t, func(t *testing.T, cs chunks.Store) {
		ctx := context.Background()
		db := New(cs)
		if _, err := db.Head(ctx, "main"); !errors.Is(err, ErrNotInitialized) {
			t.Fatalf("Head before Init: %v", err)
		}
		c0 := mustInit(t, db)
		if _, err := db.Init(ctx, "", meta("again")); !errors.Is(err, ErrAlreadyInitialized) {
			t.Fatalf("second Init: %v", err)
		}
		if c0.Height != 1 || len(c0.Parents) != 0 || !c0.Root.IsEmpty() {
			t.Fatalf("initial commit %+v", c0)
		}
		head, err := db.Head(ctx, "main")
		if err != nil || head != c0.Addr {
			t.Fatalf("head %s, %v; want %s", head, err, c0.Addr)
		}
		root := testAddr("root 1")
		c1, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: root, ExpectedHead: c0.Addr, Meta: meta("one")})
		if err != nil {
			t.Fatal(err)
		}
		if c1.Height != 2 || c1.Parents[0] != c0.Addr || c1.Root != root {
			t.Fatalf("commit %+v", c1)
		}
		got, err := db.ReadCommit(ctx, c1.Addr)
		if err != nil || got.Meta.Message != "one" || got.Addr != c1.Addr {
			t.Fatalf("ReadCommit: %+v, %v", got, err)
		}
		// A stale expected head is a conflict, not an overwrite.
		_, err = db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: root, ExpectedHead: c0.Addr, Meta: meta("stale")})
		if !errors.Is(err, ErrBranchMoved) {
			t.Fatalf("stale commit: %v", err)
		}
		if _, err := db.CommitRoot(ctx, CommitOptions{Branch: "nope", Root: root, ExpectedHead: c0.Addr}); !errors.Is(err, ErrBranchNotFound) {
			t.Fatalf("commit to a missing branch: %v", err)
		}
		if _, err := db.ReadCommit(ctx, testAddr("nothing")); !errors.Is(err, ErrNotCommit) {
			t.Fatalf("ReadCommit of nothing: %v", err)
		}
		if _, err := db.ReadCommit(ctx, c1.Closure); !errors.Is(err, ErrNotCommit) {
			t.Fatalf("ReadCommit of a closure node: %v", err)
		}
	})
}

func TestBranches(t *testing.T) {
	stores(t, func(t *testing.T, cs chunks.Store) {
		ctx := context.Background()
		db := New(cs)
		c0 := mustInit(t, db)
		if err := db.CreateBranch(ctx, "dev", c0.Addr); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateBranch(ctx, "dev", c0.Addr); !errors.Is(err, ErrBranchExists) {
			t.Fatalf("second create: %v", err)
		}
		if err := db.CreateBranch(ctx, "x", testAddr("nothing")); !errors.Is(err, ErrNotCommit) {
			t.Fatalf("create at nothing: %v", err)
		}
		for _, bad := range []string{"", "a b", "a..b", "-x", "x/", "x.lock", "HEAD", "a~1", "a^", "a:b"} {
			if err := db.CreateBranch(ctx, bad, c0.Addr); !errors.Is(err, ErrBadName) {
				t.Errorf("create %q: %v", bad, err)
			}
		}
		ws := WorkingSet{Working: testAddr("w"), Staged: testAddr("s")}
		cur, err := db.WorkingSet(ctx, "dev")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.UpdateWorkingSet(ctx, "dev", cur, ws); err != nil {
			t.Fatal(err)
		}
		if err := db.RenameBranch(ctx, "dev", "feature/x", false); err != nil {
			t.Fatal(err)
		}
		if err := db.RenameBranch(ctx, "feature/x", "main", false); !errors.Is(err, ErrBranchExists) {
			t.Fatalf("rename onto main: %v", err)
		}
		if err := db.RenameBranch(ctx, "dev", "y", false); !errors.Is(err, ErrBranchNotFound) {
			t.Fatalf("rename a missing branch: %v", err)
		}
		got, err := db.WorkingSet(ctx, "feature/x")
		if err != nil || !got.Equal(ws) {
			t.Fatalf("working set after rename: %+v, %v", got, err)
		}
		bs, err := db.Branches(ctx)
		if err != nil || len(bs) != 2 || bs[0].Name != "feature/x" || bs[1].Name != "main" || bs[0].Head != c0.Addr {
			t.Fatalf("branches %+v, %v", bs, err)
		}
		if err := db.DeleteBranch(ctx, "feature/x"); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteBranch(ctx, "feature/x"); !errors.Is(err, ErrBranchNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if refs, _ := db.Refs(ctx, workingSetPrefix); len(refs) != 0 {
			t.Fatalf("working set left behind: %v", refs)
		}
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTags(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(t, db)
	tag, err := db.CreateTag(ctx, "v1", c0.Addr, TagMeta{Tagger: ada, Message: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTag(ctx, "v1", c0.Addr, TagMeta{}); !errors.Is(err, ErrTagExists) {
		t.Fatalf("second tag: %v", err)
	}
	got, err := db.Tag(ctx, "v1")
	if err != nil || got.Commit != c0.Addr || got.Message != "first" || got.Addr != tag.Addr || got.Name != "v1" {
		t.Fatalf("tag %+v, %v", got, err)
	}
	tags, err := db.Tags(ctx)
	if err != nil || len(tags) != 1 {
		t.Fatalf("tags %v, %v", tags, err)
	}
	if err := db.DeleteTag(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tag(ctx, "v1"); !errors.Is(err, ErrTagNotFound) {
		t.Fatalf("deleted tag: %v", err)
	}
	if err := db.DeleteTag(ctx, "v1"); !errors.Is(err, ErrTagNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestWorkingSets(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(t, db)
	ws, err := db.WorkingSet(ctx, "main")
	if err != nil || ws.Working != c0.Root || ws.Staged != c0.Root || ws.Merge != nil {
		t.Fatalf("implicit working set %+v, %v", ws, err)
	}
	next := WorkingSet{Working: testAddr("w"), Staged: testAddr("s"), Merge: &MergeState{Commit: c0.Addr, PreMergeWorking: testAddr("pre")}}
	if err := db.UpdateWorkingSet(ctx, "main", ws, next); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateWorkingSet(ctx, "main", ws, next); !errors.Is(err, ErrWorkingSetMoved) {
		t.Fatalf("stale update: %v", err)
	}
	got, err := db.WorkingSet(ctx, "main")
	if err != nil || !got.Equal(next) {
		t.Fatalf("working set %+v, %v", got, err)
	}
	if _, err := db.WorkingSet(ctx, "nope"); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("working set of a missing branch: %v", err)
	}
	// A commit that resets the working set in the same step.
	done := WorkingSet{Working: testAddr("s"), Staged: testAddr("s")}
	if _, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: testAddr("s"), ExpectedHead: c0.Addr, Meta: meta("m"), WorkingSet: &done}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.WorkingSet(ctx, "main"); !got.Equal(done) {
		t.Fatalf("working set after commit %+v", got)
	}
}

func TestCorruptRefs(t *testing.T) {
	ctx := context.Background()
	cs := chunks.NewMemoryStore()
	db := New(cs)
	mustInit(t, db)
	// Point main at a chunk that is not a commit.
	a, _ := cs.Put(ctx, []byte("VCMT\x01garbage"))
	if err := db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("main"), a); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HeadCommit(ctx, "main"); !chunks.IsCorrupt(err) {
		t.Fatalf("corrupt head: %v", err)
	}
}

// TestCommitTimesFollowParents: a commit made now is at least a
// millisecond after its latest parent, even when the clock has not moved
// on (or its parent is dated ahead of it); an explicit time is kept.
func TestCommitTimesFollowParents(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	ahead := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	p, err := db.WriteCommit(ctx, chunks.Address{}, nil, Meta{Author: ada, Time: ahead, Message: "ahead"})
	if err != nil {
		t.Fatal(err)
	}
	prev := p
	for i := 0; i < 50; i++ {
		c, err := db.WriteCommit(ctx, chunks.Address{}, []chunks.Address{prev.Addr}, Meta{Author: ada, Message: "now"})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Meta.Time.After(prev.Meta.Time) {
			t.Fatalf("commit %d at %v, not after its parent at %v", i, c.Meta.Time, prev.Meta.Time)
		}
		prev = c
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := db.WriteCommit(ctx, chunks.Address{}, []chunks.Address{prev.Addr}, Meta{Author: ada, Time: old, Message: "dated"})
	if err != nil || !c.Meta.Time.Equal(old) {
		t.Fatalf("an explicit time was not kept: %v, %v", c, err)
	}
}

// TestCommitAuthorTime: an author time apart from the commit's time is
// kept to the millisecond and read back; one equal to it is recorded once
// (the meta's AuthorTime zero, AuthorWhen the time).
func TestCommitAuthorTime(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	when := time.Date(2021, 3, 4, 5, 6, 7, 891_234_567, time.FixedZone("x", 3600))
	c, err := db.WriteCommit(ctx, chunks.Address{}, nil, Meta{Author: ada, AuthorTime: when, Message: "authored earlier"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := db.ReadCommit(ctx, c.Addr)
	if err != nil {
		t.Fatal(err)
	}
	want := when.Truncate(time.Millisecond)
	for _, m := range []Meta{c.Meta, back.Meta} {
		if !m.AuthorWhen().Equal(want) || m.AuthorWhen().Location() != time.UTC || m.Time.Equal(want) {
			t.Fatalf("author time %v, time %v; want author time %v", m.AuthorWhen(), m.Time, want)
		}
	}
	same, err := db.WriteCommit(ctx, chunks.Address{}, []chunks.Address{c.Addr}, Meta{Author: ada, Time: when, AuthorTime: when.Add(100 * time.Microsecond), Message: "one time"})
	if err != nil {
		t.Fatal(err)
	}
	if back, err = db.ReadCommit(ctx, same.Addr); err != nil {
		t.Fatal(err)
	}
	if !same.Meta.AuthorTime.IsZero() || !back.Meta.AuthorTime.IsZero() || !back.Meta.AuthorWhen().Equal(want) {
		t.Fatalf("an author time equal to the time: written %v, read %v", same.Meta.AuthorTime, back.Meta.AuthorTime)
	}
}
