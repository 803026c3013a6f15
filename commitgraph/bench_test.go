package commitgraph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

// Benchmarks of the commit graph at histories of 1k, 10k and 100k commits,
// linear and with merges, each with a baseline in the same run that walks
// parent pointers (what a commit graph without closures must do). The
// histories live in a chunks.MemoryStore and are built once per process;
// the commit throughput benchmark writes to a chunks.FileStore with one
// fdatasync per commit.
//
//	go test -run XXX -bench . -benchtime 2000x ./commitgraph/

var benchSizes = []int{1_000, 10_000, 100_000}

// countingStore counts the bytes of chunks put that the store did not
// hold.
type countingStore struct {
	chunks.Store
	newBytes, newChunks atomic.Uint64
	gets                atomic.Uint64
}

func (s *countingStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, a)
}

// work reports the chunk reads and prolly node loads (cache hits too) per
// operation from the moment it is called to the moment its result runs:
// counts that do not depend on the machine's load.
func work(b *testing.B, h *history) func() {
	gets, loads := h.cs.gets.Load(), h.db.ns.Stats().Loads
	return func() {
		n := float64(b.N)
		b.ReportMetric(float64(h.cs.gets.Load()-gets)/n, "gets/op")
		b.ReportMetric(float64(h.db.ns.Stats().Loads-loads)/n, "nodes/op")
	}
}

func (s *countingStore) Put(ctx context.Context, data []byte) (chunks.Address, error) {
	if ok, err := s.Store.Has(ctx, chunks.Of(data)); err == nil && !ok {
		s.newBytes.Add(uint64(len(data)))
		s.newChunks.Add(1)
	}
	return s.Store.Put(ctx, data)
}

// history is a generated commit graph.
type history struct {
	db      *DB
	cs      *countingStore
	addrs   []chunks.Address // in commit order
	parents [][]int
	heights []closure.Height
	index   map[chunks.Address]int
	head    int
	build   time.Duration
	bytes   uint64 // bytes of new chunks in the whole build
}

var (
	histMu    sync.Mutex
	histCache = map[string]*history{}
)

// getHistory returns the history of n commits, linear or with a merge of a
// three-commit side branch every ten commits, built once.
func getHistory(b *testing.B, n int, merges bool) *history {
	histMu.Lock()
	defer histMu.Unlock()
	key := fmt.Sprint(n, merges)
	if h, ok := histCache[key]; ok {
		return h
	}
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	h := buildHistory(b, cs, n, merges)
	histCache[key] = h
	return h
}

func buildHistory(b testing.TB, cs *countingStore, n int, merges bool) *history {
	ctx := context.Background()
	start := time.Now()
	h := &history{db: New(cs), cs: cs, index: map[chunks.Address]int{}}
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(parents ...int) int {
		ps := make([]chunks.Address, len(parents))
		for i, p := range parents {
			ps[i] = h.addrs[p]
		}
		i := len(h.addrs)
		c, err := h.db.WriteCommit(ctx, testAddr(fmt.Sprint("root ", i)), ps, Meta{Author: ada, Time: when.Add(time.Duration(i) * time.Second), Message: fmt.Sprint("commit ", i)})
		if err != nil {
			b.Fatal(err)
		}
		h.index[c.Addr] = i
		h.addrs = append(h.addrs, c.Addr)
		h.parents = append(h.parents, parents)
		h.heights = append(h.heights, c.Height)
		return i
	}
	main := add()
	for len(h.addrs) < n {
		if merges && len(h.addrs)%10 == 0 && len(h.addrs) > 10 {
			side := h.parents[main][0]
			for range 3 {
				side = add(side)
			}
			main = add(main, side)
			continue
		}
		main = add(main)
	}
	h.head = main
	if err := h.db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("main"), h.addrs[main]); return nil }); err != nil {
		b.Fatal(err)
	}
	h.build = time.Since(start)
	h.bytes = cs.newBytes.Load()
	return h
}

func shape(merges bool) string {
	if merges {
		return "merges"
	}
	return "linear"
}

// bfsIsAncestor is the baseline: a breadth-first walk of parent pointers
// from b, reading and decoding each commit, until a is found.
func bfsIsAncestor(ctx context.Context, db *DB, a, b chunks.Address) (bool, int, error) {
	seen := map[chunks.Address]bool{b: true}
	queue := []chunks.Address{b}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == a {
			return true, len(seen), nil
		}
		c, err := db.ReadCommit(ctx, x)
		if err != nil {
			return false, 0, err
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, len(seen), nil
}

// bfsAncestors returns a and every ancestor of a, by a walk of parents.
func bfsAncestors(ctx context.Context, db *DB, a chunks.Address) (map[chunks.Address]*Commit, error) {
	out := map[chunks.Address]*Commit{}
	queue := []chunks.Address{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if _, ok := out[x]; ok {
			continue
		}
		c, err := db.ReadCommit(ctx, x)
		if err != nil {
			return nil, err
		}
		out[x] = c
		queue = append(queue, c.Parents...)
	}
	return out, nil
}

func BenchmarkIsAncestor(b *testing.B) {
	ctx := context.Background()
	for _, merges := range []bool{false, true} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d/closure", shape(merges), n), func(b *testing.B) {
				h := getHistory(b, n, merges)
				head := h.addrs[h.head]
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					a := h.addrs[rng.IntN(len(h.addrs))]
					ok, err := h.db.IsAncestor(ctx, a, head)
					if err != nil || !ok {
						b.Fatal(ok, err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/%d/bfs-baseline", shape(merges), n), func(b *testing.B) {
				h := getHistory(b, n, merges)
				head := h.addrs[h.head]
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					a := h.addrs[rng.IntN(len(h.addrs))]
					ok, _, err := bfsIsAncestor(ctx, h.db, a, head)
					if err != nil || !ok {
						b.Fatal(ok, err)
					}
				}
			})
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("%d/read-commit", n), func(b *testing.B) {
			h := getHistory(b, n, false)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			defer work(b, h)()
			for b.Loop() {
				if _, err := h.db.ReadCommit(ctx, h.addrs[rng.IntN(len(h.addrs))]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/go-map-baseline", n), func(b *testing.B) {
			// Baseline: a materialized Go map from address to chunk
			// bytes, decoded the same way.
			h := getHistory(b, n, false)
			m := map[chunks.Address][]byte{}
			for _, a := range h.addrs {
				m[a], _ = h.cs.Get(ctx, a)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				a := h.addrs[rng.IntN(len(h.addrs))]
				if _, err := DecodeCommit(a, m[a]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// forks returns two branch heads of 50 commits each, forked from the
// history's head (built once per history).
var forkCache sync.Map

func forks(b *testing.B, h *history) [2]chunks.Address {
	if v, ok := forkCache.Load(h); ok {
		return v.([2]chunks.Address)
	}
	ctx := context.Background()
	var out [2]chunks.Address
	for i := range out {
		at := h.addrs[h.head]
		for j := range 50 {
			c, err := h.db.WriteCommit(ctx, testAddr(fmt.Sprint("fork", i, j)), []chunks.Address{at}, meta(fmt.Sprint("fork ", i, " ", j)))
			if err != nil {
				b.Fatal(err)
			}
			at = c.Addr
		}
		out[i] = at
	}
	forkCache.Store(h, out)
	return out
}

func BenchmarkMergeBase(b *testing.B) {
	ctx := context.Background()
	for _, merges := range []bool{false, true} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d/closure", shape(merges), n), func(b *testing.B) {
				h := getHistory(b, n, merges)
				f := forks(b, h)
				want := h.addrs[h.head]
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					c, err := h.db.MergeBase(ctx, f[0], f[1])
					if err != nil || c.Addr != want {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/%d/bfs-baseline", shape(merges), n), func(b *testing.B) {
				h := getHistory(b, n, merges)
				f := forks(b, h)
				want := h.addrs[h.head]
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					// Every ancestor of one head, then the greatest
					// (height, address) among the other's ancestors.
					as, err := bfsAncestors(ctx, h.db, f[0])
					if err != nil {
						b.Fatal(err)
					}
					bs, err := bfsAncestors(ctx, h.db, f[1])
					if err != nil {
						b.Fatal(err)
					}
					var best *Commit
					for a, c := range bs {
						if _, ok := as[a]; ok && (best == nil || c.Entry().Compare(best.Entry()) > 0) {
							best = c
						}
					}
					if best.Addr != want {
						b.Fatal("wrong merge base")
					}
				}
			})
		}
	}
}

// nearHead returns a history, its head, and its commits 10 or 11 heights
// below the head.
func nearHead(b *testing.B, n int, merges bool) (*history, chunks.Address, []chunks.Address) {
	h := getHistory(b, n, merges)
	var near []chunks.Address
	for i, ht := range h.heights {
		if ht+10 == h.heights[h.head] || ht+11 == h.heights[h.head] {
			near = append(near, h.addrs[i])
		}
	}
	return h, h.addrs[h.head], near
}

func BenchmarkChildren(b *testing.B) {
	ctx := context.Background()
	for _, merges := range []bool{false, true} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d/closure", shape(merges), n), func(b *testing.B) {
				h, head, near := nearHead(b, n, merges)
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					if _, err := h.db.Children(ctx, near[rng.IntN(len(near))], head); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/%d/bfs-baseline", shape(merges), n), func(b *testing.B) {
				h, head, near := nearHead(b, n, merges)
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				defer work(b, h)()
				for b.Loop() {
					c := near[rng.IntN(len(near))]
					all, err := bfsAncestors(ctx, h.db, head)
					if err != nil {
						b.Fatal(err)
					}
					var kids int
					for _, x := range all {
						for _, p := range x.Parents {
							if p == c {
								kids++
							}
						}
					}
					if kids == 0 {
						b.Fatal("no children")
					}
				}
			})
		}
	}
}

// BenchmarkCommitBytes reports the bytes of new chunks each commit adds
// after a history of n commits: the closure shares all but O(log n) of its
// nodes with its parent's.
func BenchmarkCommitBytes(b *testing.B) {
	ctx := context.Background()
	for _, merges := range []bool{false, true} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", shape(merges), n), func(b *testing.B) {
				h := getHistory(b, n, merges)
				db := h.db
				head := h.addrs[h.head]
				before := h.cs.newBytes.Load()
				count := 0
				for b.Loop() {
					c, err := db.WriteCommit(ctx, testAddr(fmt.Sprint("bytes", count)), []chunks.Address{head}, meta("bytes"))
					if err != nil {
						b.Fatal(err)
					}
					head = c.Addr
					count++
				}
				b.ReportMetric(float64(h.cs.newBytes.Load()-before)/float64(count), "B/commit")
				b.ReportMetric(float64(h.bytes)/float64(len(h.addrs)), "B/commit-build")
			})
		}
	}
}

// BenchmarkCommitFileStore measures CommitRoot onto a FileStore (one
// fdatasync per commit) after a history of n commits, written once with
// one sync.
func BenchmarkCommitFileStore(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			fs, err := chunks.OpenFileStore(b.TempDir(), chunks.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer fs.Close()
			cs := &countingStore{Store: fs}
			h := buildHistory(b, cs, n, false)
			head := h.addrs[h.head]
			before := cs.newBytes.Load()
			count := 0
			b.ResetTimer()
			for b.Loop() {
				c, err := h.db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: head, Root: testAddr(fmt.Sprint("fs", count)), Meta: meta("fs")})
				if err != nil {
					b.Fatal(err)
				}
				head = c.Addr
				count++
			}
			b.ReportMetric(float64(count)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(cs.newBytes.Load()-before)/float64(count), "B/commit")
		})
	}
}
