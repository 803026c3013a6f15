package prolly

// Every test that runs over forEachStore runs over the durable file store
// too.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
)

func init() {
	stores = append(stores, struct {
		name string
		open func(t testing.TB) chunks.Store
	}{"file", func(t testing.TB) chunks.Store {
		s, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}})
}

// TestFileStoreCommitReopen commits a map's root, reopens the store and
// finds the same map.
func TestFileStoreCommitReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(testSeed(t), 15))
	m := randModel(r, 20000, 40000)
	mp := build(t, NewNodeStore(s), m)
	mp2, err := mp.Apply(ctx, randBatch(r, m, 500, 40000))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, mp2.Address(), chunks.Address{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, err := s.Root(ctx)
	if err != nil || root != mp2.Address() {
		t.Fatalf("root %s, %v; want %s", root, err, mp2.Address())
	}
	again, err := OpenMap(ctx, NewNodeStore(s), root)
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, again)
	compareAll(t, again, m)
}

// BenchmarkFileStore measures maps in the durable file store: a bulk build
// followed by a commit, a one-key edit followed by a commit (each commit is
// synced by the store), and point gets with no node cache (every node read
// from the store).
func BenchmarkFileStore(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{100_000, 1_000_000} {
		open := func(b *testing.B) *chunks.FileStore {
			s, err := chunks.OpenFileStore(b.TempDir(), chunks.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s
		}
		build := func(b *testing.B, s *chunks.FileStore, cache int) Map {
			bl := NewBuilder(NewNodeStoreCache(s, cache))
			for i := 0; i < n; i++ {
				if err := bl.Add(ctx, benchKey(i), benchVal(i)); err != nil {
					b.Fatal(err)
				}
			}
			m, err := bl.Map(ctx)
			if err != nil {
				b.Fatal(err)
			}
			root, _ := s.Root(ctx)
			if err := s.Commit(ctx, m.Address(), root); err != nil {
				b.Fatal(err)
			}
			return m
		}
		b.Run(fmt.Sprintf("build+commit/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				build(b, open(b), DefaultCacheBytes)
			}
			rowsPerSec(b, n)
		})
		b.Run(fmt.Sprintf("edit1+commit/n=%d", n), func(b *testing.B) {
			s := open(b)
			m := build(b, s, DefaultCacheBytes)
			r := rand.New(rand.NewPCG(3, uint64(n)))
			for b.Loop() {
				next, err := m.Put(ctx, benchKey(r.IntN(n)), benchVal(r.IntN(n)))
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, next.Address(), m.Address()); err != nil {
					b.Fatal(err)
				}
				m = next
			}
		})
		b.Run(fmt.Sprintf("get-uncached/n=%d", n), func(b *testing.B) {
			s := open(b)
			m := build(b, s, 0)
			r := rand.New(rand.NewPCG(4, uint64(n)))
			for b.Loop() {
				if _, _, err := m.Get(ctx, benchKey(r.IntN(n))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
