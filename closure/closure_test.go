package closure

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"

	"github.com/verso-db/verso/internal/testseed"
)

// seed returns the seed of the randomized tests (see internal/testseed).
func seed(t testing.TB) uint64 { return testseed.Seed(t) }

// fakeAddr returns a deterministic address for commit number i.
func fakeAddr(i int) chunks.Address {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	sum := sha256.Sum256(b[:])
	var a chunks.Address
	copy(a[:], sum[:])
	return a
}

// dag is a model commit graph: parents by commit number, heights, and the
// closures Build made.
type dag struct {
	parents  [][]int
	heights  []Height
	closures []Closure
}

func (g *dag) add(t testing.TB, ctx context.Context, ns *prolly.NodeStore, parents []int) {
	var ps []Parent
	h := Height(1)
	for _, p := range parents {
		ps = append(ps, Parent{Entry: Entry{g.heights[p], fakeAddr(p)}, Closure: g.closures[p]})
		h = max(h, g.heights[p]+1)
	}
	c, err := Build(ctx, ns, ps)
	if err != nil {
		t.Fatal(err)
	}
	g.parents = append(g.parents, parents)
	g.heights = append(g.heights, h)
	g.closures = append(g.closures, c)
}

// ancestors walks parent pointers: the naive reference.
func (g *dag) ancestors(i int) []Entry {
	seen := map[int]bool{}
	stack := slices.Clone(g.parents[i])
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		stack = append(stack, g.parents[p]...)
	}
	var out []Entry
	for p := range seen {
		out = append(out, Entry{g.heights[p], fakeAddr(p)})
	}
	slices.SortFunc(out, Entry.Compare)
	return out
}

// randomDAG grows a graph of n commits: mostly linear runs on a few
// branches, with merges of two or three parents.
func randomDAG(t testing.TB, ctx context.Context, ns *prolly.NodeStore, rng *rand.Rand, n int) *dag {
	g := &dag{}
	g.add(t, ctx, ns, nil)
	tips := []int{0}
	for len(g.heights) < n {
		b := rng.IntN(len(tips))
		switch r := rng.IntN(10); {
		case r < 6 || len(tips) == 1 && r < 8:
			g.add(t, ctx, ns, []int{tips[b]})
			tips[b] = len(g.heights) - 1
		case r < 8:
			// A new branch from any commit.
			tips = append(tips, rng.IntN(len(g.heights)))
		default:
			// A merge of two or three distinct tips, or a criss-cross
			// pair of merges.
			ps := []int{tips[b]}
			for range 1 + rng.IntN(2) {
				p := tips[rng.IntN(len(tips))]
				if !slices.Contains(ps, p) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 1 {
				continue
			}
			g.add(t, ctx, ns, ps)
			tips[b] = len(g.heights) - 1
			if rng.IntN(3) == 0 {
				// Criss-cross: merge the same two commits the other way.
				rev := slices.Clone(ps)
				slices.Reverse(rev)
				g.add(t, ctx, ns, rev)
				tips = append(tips, len(g.heights)-1)
			}
		}
	}
	return g
}

func collect(t testing.TB, ctx context.Context, it *Iter) []Entry {
	var out []Entry
	for it.Next(ctx) {
		out = append(out, it.Entry())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBuildMatchesParentWalk(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 1))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := randomDAG(t, ctx, ns, rng, 400)
	for i := range g.heights {
		want := g.ancestors(i)
		c := g.closures[i]
		if c.Count() != uint64(len(want)) {
			t.Fatalf("commit %d: count %d, want %d", i, c.Count(), len(want))
		}
		got := collect(t, ctx, c.Ascending(ctx, 0))
		if !slices.Equal(got, want) {
			t.Fatalf("commit %d: closure %v, want %v", i, got, want)
		}
		rev := collect(t, ctx, c.Descending(ctx, Entry{}))
		slices.Reverse(rev)
		if !slices.Equal(rev, want) {
			t.Fatalf("commit %d: descending closure differs", i)
		}
		// Contains, for a few members and non-members.
		for range 5 {
			j := rng.IntN(len(g.heights))
			e := Entry{g.heights[j], fakeAddr(j)}
			_, isAnc := slices.BinarySearchFunc(want, e, Entry.Compare)
			has, err := c.Contains(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			if has != isAnc {
				t.Fatalf("commit %d: Contains(%d) = %v, want %v", i, j, has, isAnc)
			}
		}
		// AtHeight, for a random height.
		if len(want) > 0 {
			h := want[rng.IntN(len(want))].Height
			var at []Entry
			for _, e := range want {
				if e.Height == h {
					at = append(at, e)
				}
			}
			if got := collect(t, ctx, c.AtHeight(ctx, h)); !slices.Equal(got, at) {
				t.Fatalf("commit %d: AtHeight(%d) = %v, want %v", i, h, got, at)
			}
			n, err := c.CountRange(ctx, h, h+1)
			if err != nil || n != uint64(len(at)) {
				t.Fatalf("commit %d: CountRange(%d) = %d, %v; want %d", i, h, n, err, len(at))
			}
			// Descending below and from an entry.
			e := want[rng.IntN(len(want))]
			k, _ := slices.BinarySearchFunc(want, e, Entry.Compare)
			below := collect(t, ctx, c.Descending(ctx, e))
			from := collect(t, ctx, c.DescendingFrom(ctx, e))
			if len(below) != k || len(from) != k+1 || from[0] != e {
				t.Fatalf("commit %d: descending from %v: %d and %d entries, want %d and %d", i, e, len(below), len(from), k, k+1)
			}
		}
		if i%50 == 0 {
			if err := c.Check(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestHistoryIndependence: the closure of a merge is the tree a builder
// makes of the same entries, whatever the order of the parents.
func TestHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 2))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := randomDAG(t, ctx, ns, rng, 300)
	for i := range g.heights {
		b := prolly.NewBuilder(ns)
		for _, e := range g.ancestors(i) {
			if err := b.Add(ctx, e.Key(), nil); err != nil {
				t.Fatal(err)
			}
		}
		m, err := b.Map(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Address() != g.closures[i].Address() {
			t.Fatalf("commit %d (parents %v): built %s, bulk %s", i, g.parents[i], g.closures[i].Address(), m.Address())
		}
	}
}

// TestGoldenClosure pins the address of a fixed closure: a change means the
// key layout changed, which changes every commit's address.
func TestGoldenClosure(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	c := Empty(ns)
	for i := range 100 {
		var err error
		c, err = Build(ctx, ns, []Parent{{Entry: Entry{Height(i + 1), fakeAddr(i)}, Closure: c}})
		if err != nil {
			t.Fatal(err)
		}
	}
	const want = "lnp7c2m8fojkcv08fim57ba4h27pp6tc"
	if got := c.Address().String(); got != want {
		t.Fatalf("golden closure address %s, want %s", got, want)
	}
}

func TestBuildRejectsBadParent(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	if _, err := Build(ctx, ns, []Parent{{Entry: Entry{0, fakeAddr(1)}, Closure: Empty(ns)}}); err == nil {
		t.Fatal("height 0 accepted")
	}
	if _, err := Build(ctx, ns, []Parent{{Entry: Entry{1, chunks.Address{}}, Closure: Empty(ns)}}); err == nil {
		t.Fatal("zero address accepted")
	}
}

// TestCorruptKey: a map with a key of the wrong length reads as corrupt.
func TestCorruptKey(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	b := prolly.NewBuilder(ns)
	_ = b.Add(ctx, []byte("short"), nil)
	m, err := b.Map(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, ns, m.Address())
	if err != nil {
		t.Fatal(err)
	}
	it := c.Ascending(ctx, 0)
	for it.Next(ctx) {
	}
	if !chunks.IsCorrupt(it.Err()) {
		t.Fatalf("error %v, want a corruption", it.Err())
	}
	if err := c.Check(ctx); !chunks.IsCorrupt(err) {
		t.Fatalf("Check: %v, want a corruption", err)
	}
}

// TestSharing: a commit on a long linear history writes only a few nodes.
func TestSharing(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	c := Empty(ns)
	for i := range 5000 {
		var err error
		c, err = Build(ctx, ns, []Parent{{Entry: Entry{Height(i + 1), fakeAddr(i)}, Closure: c}})
		if err != nil {
			t.Fatal(err)
		}
	}
	before := ns.Stats()
	if _, err := Build(ctx, ns, []Parent{{Entry: Entry{5001, fakeAddr(5000)}, Closure: c}}); err != nil {
		t.Fatal(err)
	}
	after := ns.Stats()
	if w := after.Writes - before.Writes; w > uint64(c.Map().Height())+2 {
		t.Fatalf("one insertion wrote %d nodes into a tree of height %d", w, c.Map().Height())
	}
}

func FuzzDecodeKey(f *testing.F) {
	f.Add(Entry{1, fakeAddr(1)}.Key())
	f.Add(make([]byte, KeySize))
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeKey(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption", err)
			}
			return
		}
		if !bytes.Equal(e.Key(), b) {
			t.Fatal("key does not round-trip")
		}
	})
}

// TestMergeCostFollowsDivergence: the closure of a merge of two short
// branches off a long history loads a number of nodes that follows the
// branches' length, not the history's.
func TestMergeCostFollowsDivergence(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := &dag{}
	g.add(t, ctx, ns, nil)
	for i := 1; i < 20000; i++ {
		g.add(t, ctx, ns, []int{i - 1})
	}
	fork := len(g.heights) - 1
	tips := [2]int{fork, fork}
	for b := range tips {
		for range 10 {
			g.add(t, ctx, ns, []int{tips[b]})
			tips[b] = len(g.heights) - 1
		}
	}
	before := ns.Stats()
	g.add(t, ctx, ns, []int{tips[0], tips[1]})
	after := ns.Stats()
	loads, writes := after.Loads-before.Loads, after.Writes-before.Writes
	t.Logf("merge closure over %d ancestors: %d node loads, %d node writes", g.closures[len(g.closures)-1].Count(), loads, writes)
	if loads > 60 || writes > 10 {
		t.Fatalf("merge closure loaded %d and wrote %d nodes: more than the divergence needs", loads, writes)
	}
	if want := g.ancestors(len(g.heights) - 1); g.closures[len(g.closures)-1].Count() != uint64(len(want)) {
		t.Fatal("wrong merge closure")
	}
}
