package prolly

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/verso-db/verso/chunks"
)

func TestNodeCacheBound(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 11))
	m := seqModel(r, 30000)
	const bound = 64 << 10
	ns := NewNodeStoreCache(chunks.NewMemoryStore(), bound)
	mp := build(t, ns, m)
	for i := 0; i < 2000; i++ {
		readOp(t, r, mp, m, 30000)
		if _, size := ns.cache.len(); size > bound {
			t.Fatalf("cache holds %d bytes, bound %d", size, bound)
		}
	}
	st := ns.Stats()
	if st.Reads == 0 || st.Reads >= st.Loads {
		t.Fatalf("stats %+v: expected some hits and some misses", st)
	}
	// Reading the same key twice hits the cache the second time.
	k := m.keys[12345]
	if _, _, err := mp.Get(ctx, k); err != nil {
		t.Fatal(err)
	}
	before := ns.Stats().Reads
	if _, _, err := mp.Get(ctx, k); err != nil {
		t.Fatal(err)
	}
	if ns.Stats().Reads != before {
		t.Fatalf("second Get of one key fetched nodes again")
	}
	// No cache at all still works.
	ns0 := NewNodeStoreCache(chunks.NewMemoryStore(), 0)
	compareAll(t, build(t, ns0, m), m)
	if st := ns0.Stats(); st.Loads != st.Reads {
		t.Fatalf("without a cache, loads %d != reads %d", st.Loads, st.Reads)
	}
}

// TestNodeCacheKeepsNewNodes checks the CLOCK ring's turn: once the cache
// is full, a node just written stays while fewer nodes than the cache
// holds come after it, whether or not it is read, and a node read between
// turns of the hand stays however many come after it. (A ring that put
// each new node under its hand evicted it at the next insertion, so the
// nodes one commit wrote were gone when the next one edited them.) Nodes
// read from the store are on probation: read once, the next insertion
// takes them.
func TestNodeCacheKeepsNewNodes(t *testing.T) {
	ctx := context.Background()
	ns := NewNodeStoreCache(chunks.NewMemoryStore(), 1<<20) // one shard
	if len(ns.cache.shards) != 1 {
		t.Fatalf("%d shards, want 1", len(ns.cache.shards))
	}
	seq := 0
	write := func() *node {
		t.Helper()
		seq++
		val := make([]byte, 900)
		val[0], val[1], val[2] = byte(seq), byte(seq>>8), byte(seq>>16)
		nd, err := ns.write(ctx, 0, [][]byte{EncodeKey(nil, Int(int64(seq)))}, [][]byte{val})
		if err != nil {
			t.Fatal(err)
		}
		return nd
	}
	cached := func(nd *node) bool {
		_, ok := ns.cache.peek(nd.addr)
		return ok
	}
	for i := 0; i < 3000; i++ { // full, and turned over twice
		write()
	}
	held, _ := ns.cache.len()
	if held < 500 {
		t.Fatalf("the cache holds %d nodes; the test wants a full cache of many", held)
	}
	newest := write()
	hot := write()
	for i := 0; i < 4*held; i++ {
		if i < held/2 && !cached(newest) {
			t.Fatalf("a new node was evicted after %d more of the %d the cache holds", i, held)
		}
		if i%(held/4) == 0 {
			if _, err := ns.read(ctx, hot.addr); err != nil {
				t.Fatal(err)
			}
		}
		if !cached(hot) {
			t.Fatalf("a node read every %d insertions was evicted after %d (the cache holds %d)", held/4, i, held)
		}
		write()
	}
	if cached(newest) {
		t.Fatalf("a node never read stayed through %d insertions into a cache of %d", 4*held, held)
	}

	// Nodes read from the store are on probation: the next insertion
	// takes one read once, not one read twice.
	other := NewNodeStoreCache(ns.Store(), 0) // writes them without caching
	var once, twice *node
	for _, p := range []**node{&once, &twice} {
		seq++
		nd, err := other.write(ctx, 0, [][]byte{EncodeKey(nil, Int(int64(seq)))}, [][]byte{make([]byte, 900)})
		if err != nil {
			t.Fatal(err)
		}
		*p = nd
	}
	read := func(nd *node) {
		t.Helper()
		if _, err := ns.read(ctx, nd.addr); err != nil {
			t.Fatal(err)
		}
	}
	read(once)
	if !cached(once) {
		t.Fatalf("a node just read is not cached")
	}
	read(twice) // its insertion evicts once, under the hand
	read(twice)
	if cached(once) {
		t.Fatalf("a node read once from the store stayed through the next insertion")
	}
	write()
	write()
	if !cached(twice) {
		t.Fatalf("a node read twice was evicted by the next insertions")
	}
}

// TestNodeCacheResize changes a cache's bound while it holds a whole map:
// shrinking evicts down to the new bound at once, growing lets it hold the
// whole map again, and 0 caches nothing; reads stay right throughout.
func TestNodeCacheResize(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 12))
	m := seqModel(r, 30000)
	ns := NewNodeStoreCache(chunks.NewMemoryStore(), 4<<20)
	mp := build(t, ns, m)
	compareAll(t, mp, m)
	_, full := ns.cache.len()
	for _, bound := range []int{256 << 10, 8 << 20, 0, 1 << 20} {
		ns.SetCacheBytes(bound)
		if got := ns.CacheBytes(); got > bound || got < bound-len(ns.cache.shards) {
			t.Fatalf("CacheBytes %d after SetCacheBytes(%d)", got, bound)
		}
		if _, size := ns.cache.len(); size > bound {
			t.Fatalf("cache holds %d bytes after SetCacheBytes(%d)", size, bound)
		}
		for i := 0; i < 200; i++ {
			readOp(t, r, mp, m, 30000)
		}
		compareAll(t, mp, m) // reads every node
		_, size := ns.cache.len()
		if size > bound || (bound == 8<<20 && size < full*9/10) {
			t.Fatalf("bound %d: cache holds %d bytes after reading every node (%d at 4 MiB)", bound, size, full)
		}
	}
}

// TestConcurrentReads reads one map from several goroutines through a small
// cache (run with -race).
func TestConcurrentReads(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 12))
	m := seqModel(r, 5000)
	mp := build(t, NewNodeStoreCache(chunks.NewMemoryStore(), 32<<10), m)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func(g uint64) {
			defer func() { done <- struct{}{} }()
			r := rand.New(rand.NewPCG(seed, 100+g))
			for i := 0; i < 300; i++ {
				readOp(goroutineTB{t}, r, mp, m, 5000)
			}
		}(uint64(g))
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// goroutineTB turns Fatal into Error plus the end of the calling
// goroutine, for checks run outside the test's goroutine.
type goroutineTB struct{ testing.TB }

func (g goroutineTB) Fatalf(format string, args ...any) {
	g.TB.Helper()
	g.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (g goroutineTB) Fatal(args ...any) {
	g.TB.Helper()
	g.TB.Error(args...)
	runtime.Goexit()
}
