package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestCommitCache writes a history and reads its commits again through
// ReadCommit with caches of several bounds: every read returns the commit
// written, the cache never holds more than its bound, a zero bound holds
// nothing, and an evicted commit the store no longer holds reads as
// ErrNotCommit.
func TestCommitCache(t *testing.T) {
	ctx := context.Background()
	cs := chunks.NewMemoryStore()
	db := New(cs)
	head := mustInit(t, db)
	var all []*Commit
	for i := range 300 {
		m := meta(fmt.Sprintf("commit %d %s", i, string(make([]byte, i%50))))
		c, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: testAddr(fmt.Sprint("root ", i)), ExpectedHead: head.Addr, Meta: m})
		if err != nil {
			t.Fatal(err)
		}
		all, head = append(all, c), c
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, bound := range []int64{0, 16 << 10, 64 << 10, 1 << 20} {
		fresh := New(cs)
		fresh.SetCommitCacheBytes(bound)
		for range 2000 {
			want := all[rng.IntN(len(all))]
			got, err := fresh.ReadCommit(ctx, want.Addr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Addr != want.Addr || got.Meta.Message != want.Meta.Message || got.Height != want.Height || len(got.Parents) != 1 || got.Parents[0] != want.Parents[0] {
				t.Fatalf("bound %d: read %+v, want %+v", bound, got, want)
			}
			n, b := fresh.CommitCacheLen()
			if int64(b) > bound || (bound == 0 && n != 0) {
				t.Fatalf("bound %d: the cache holds %d commits, %d bytes", bound, n, b)
			}
		}
		if n, _ := fresh.CommitCacheLen(); bound == 1<<20 && n != len(all) {
			t.Errorf("a cache of 1 MiB holds %d of the %d commits read", n, len(all))
		}
		// Once again with a smaller bound: what no longer fits goes.
		fresh.SetCommitCacheBytes(bound / 2)
		if _, b := fresh.CommitCacheLen(); int64(b) > bound/2 {
			t.Fatalf("bound %d halved: %d bytes held", bound, b)
		}
	}

	// A commit the store no longer holds: gone from the cache too once
	// evicted, as a garbage collection does.
	victim := all[7].Addr
	if _, err := db.ReadCommit(ctx, victim); err != nil {
		t.Fatal(err)
	}
	gone := func(a chunks.Address) bool { return a == victim }
	if n := db.EvictCommits(gone); n != 1 {
		t.Fatalf("EvictCommits dropped %d commits, want 1", n)
	}
	other := New(chunks.NewMemoryStore())
	other.SetCommitCacheBytes(1 << 20)
	if _, err := other.ReadCommit(ctx, victim); !errors.Is(err, ErrNotCommit) {
		t.Fatalf("a commit of another store: %v", err)
	}
}

// TestCommitCacheConcurrent reads commits from several goroutines at once
// through a small cache (run it with -race).
func TestCommitCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	head := mustInit(t, db)
	var all []*Commit
	for i := range 100 {
		c, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", Root: testAddr(fmt.Sprint("r", i)), ExpectedHead: head.Addr, Meta: meta(fmt.Sprint("c", i))})
		if err != nil {
			t.Fatal(err)
		}
		all, head = append(all, c), c
	}
	db.SetCommitCacheBytes(8 << 10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 3000 {
				want := all[rng.IntN(len(all))]
				got, err := db.ReadCommit(ctx, want.Addr)
				if err != nil || got.Meta.Message != want.Meta.Message {
					t.Errorf("read %s: %v, %v", want.Addr, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
