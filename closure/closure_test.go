package closure

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
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
	maxTail  int // BuildTail's
	parents  [][]int
	heights  []Height
	closures []Closure
	byAddr   map[chunks.Address]int // commit numbers, made by index
}

func (g *dag) add(t testing.TB, ctx context.Context, ns *prolly.NodeStore, parents []int) {
	var ps []Parent
	h := Height(1)
	for _, p := range parents {
		var hs []Height
		for _, q := range g.parents[p] {
			hs = append(hs, g.heights[q])
		}
		ps = append(ps, Parent{Entry: Entry{g.heights[p], fakeAddr(p)}, Closure: g.closures[p], Merge: len(g.parents[p]) > 1, Parents: hs})
		h = max(h, g.heights[p]+1)
	}
	c, err := BuildTail(ctx, ns, ps, g.maxTail)
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

// aliases returns the aliases the closure of commit i should hold: for
// every merge among its ancestors, one per parent lower than the merge's
// height - 1.
func (g *dag) aliases(i int) []Alias {
	var out []Alias
	for _, e := range g.ancestors(i) {
		m := g.index(e.Addr)
		if len(g.parents[m]) < 2 {
			continue
		}
		for _, p := range g.parents[m] {
			if g.heights[p]+1 < g.heights[m] {
				out = append(out, Alias{g.heights[p] + 1, e.Addr})
			}
		}
	}
	slices.SortFunc(out, func(a, b Alias) int { return bytes.Compare(a.Key(), b.Key()) })
	return slices.Compact(out)
}

// index returns the commit number of an address.
func (g *dag) index(a chunks.Address) int {
	if len(g.byAddr) != len(g.heights) {
		g.byAddr = map[chunks.Address]int{}
		for i := range g.heights {
			g.byAddr[fakeAddr(i)] = i
		}
	}
	i, ok := g.byAddr[a]
	if !ok {
		panic("closure test: unknown address " + a.String())
	}
	return i
}

// children returns the children of commit x among anc (the ancestors of
// commit i) and i itself: the naive parent walk.
func (g *dag) children(x, i int, anc []Entry) []chunks.Address {
	var out []chunks.Address
	for _, e := range append(slices.Clone(anc), Entry{g.heights[i], fakeAddr(i)}) {
		if slices.Contains(g.parents[g.index(e.Addr)], x) {
			out = append(out, e.Addr)
		}
	}
	slices.SortFunc(out, chunks.Address.Compare)
	return out
}

// randomDAG grows a graph of n commits: mostly linear runs on a few
// branches, with merges of two or three parents.
func randomDAG(t testing.TB, ctx context.Context, ns *prolly.NodeStore, rng *rand.Rand, n, maxTail int) *dag {
	g := &dag{maxTail: maxTail}
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

// tails are the tail lengths the model tests build with: none (every
// closure a base), short, and BuildTail's longest.
var tails = []int{0, 3, MaxTail}

func TestBuildMatchesParentWalk(t *testing.T) {
	for _, maxTail := range tails {
		t.Run(fmt.Sprintf("tail %d", maxTail), func(t *testing.T) { testBuildMatchesParentWalk(t, maxTail) })
	}
}

func testBuildMatchesParentWalk(t *testing.T, maxTail int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 1))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := randomDAG(t, ctx, ns, rng, 400, maxTail)
	tailed := 0
	for i := range g.heights {
		if len(g.closures[i].Tail()) > 0 {
			tailed++
		}
		want := g.ancestors(i)
		c := g.closures[i]
		if n, err := c.Count(ctx); err != nil || n != uint64(len(want)) {
			t.Fatalf("commit %d: count %d, %v; want %d", i, n, err, len(want))
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
	if (maxTail > 0) != (tailed > 0) {
		t.Fatalf("%d of %d closures have a tail with at most %d", tailed, len(g.heights), maxTail)
	}
}

// TestHistoryIndependence: the closure of a merge is the tree a builder
// makes of the same entries, whatever the order of the parents.
func TestHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 2))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := randomDAG(t, ctx, ns, rng, 300, MaxTail)
	for i := range g.heights {
		// The base holds the entries below the tail: built in one go,
		// they make the same tree.
		tail := g.closures[i].Tail()
		b := prolly.NewBuilder(ns)
		for _, e := range g.ancestors(i) {
			if slices.Contains(tail, e) {
				continue
			}
			if err := b.Add(ctx, e.Key(), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range g.aliases(i) {
			if err := b.Add(ctx, a.Key(), nil); err != nil {
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
	if prolly.InvariantsEnabled {
		t.Skip("counts node loads, and the invariant checks (-tags invariants) load every node written; the run without the tag measures it")
	}
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
	n, err := g.closures[len(g.closures)-1].Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("merge closure over %d ancestors: %d node loads, %d node writes", n, loads, writes)
	if loads > 60 || writes > 10 {
		t.Fatalf("merge closure loaded %d and wrote %d nodes: more than the divergence needs", loads, writes)
	}
	if want := g.ancestors(len(g.heights) - 1); n != uint64(len(want)) {
		t.Fatal("wrong merge closure")
	}
}

// unevenDAG grows a graph whose merges join parents of very different
// heights: long branches merged into short ones and the other way round,
// merges of up to five parents, and merges of merges.
func unevenDAG(t testing.TB, ctx context.Context, ns *prolly.NodeStore, rng *rand.Rand, n, maxTail int) *dag {
	g := &dag{maxTail: maxTail}
	g.add(t, ctx, ns, nil)
	tips := []int{0}
	for len(g.heights) < n {
		b := rng.IntN(len(tips))
		switch r := rng.IntN(20); {
		case r < 10:
			// A run of commits on one branch, often long.
			for range 1 + rng.IntN(1+rng.IntN(30)) {
				g.add(t, ctx, ns, []int{tips[b]})
				tips[b] = len(g.heights) - 1
			}
		case r < 14:
			// A new branch from any commit, old ones included.
			tips = append(tips, rng.IntN(len(g.heights)))
		default:
			// A merge of up to five parents, among tips and old commits,
			// in random order.
			ps := []int{tips[b]}
			for range 1 + rng.IntN(4) {
				p := tips[rng.IntN(len(tips))]
				if rng.IntN(4) == 0 {
					p = rng.IntN(len(g.heights))
				}
				if !slices.Contains(ps, p) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 1 {
				continue
			}
			rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			g.add(t, ctx, ns, ps)
			tips[b] = len(g.heights) - 1
		}
	}
	return g
}

// TestChildCandidatesModel: on random graphs with merges of uneven
// heights, for every commit i and every commit x, the children of x among
// i's closure (and i) that ChildCandidates finds are exactly those of the
// naive parent walk; Count is the number of ancestors; no iteration yields
// an alias; the aliases are exactly the model's.
func TestChildCandidatesModel(t *testing.T) {
	for _, maxTail := range tails {
		t.Run(fmt.Sprintf("tail %d", maxTail), func(t *testing.T) { testChildCandidatesModel(t, maxTail) })
	}
}

func testChildCandidatesModel(t *testing.T, maxTail int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 3))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := unevenDAG(t, ctx, ns, rng, 300, maxTail)
	merges, higher := 0, 0
	for i := range g.heights {
		if len(g.parents[i]) > 1 {
			merges++
			for _, p := range g.parents[i] {
				if g.heights[p]+1 < g.heights[i] {
					higher++
				}
			}
		}
	}
	t.Logf("%d commits, %d merges, %d merge parents below the merge's height - 1", len(g.heights), merges, higher)
	if higher < 20 {
		t.Fatalf("only %d uneven merge parents: the graph does not test aliases", higher)
	}
	for i := range g.heights {
		c := g.closures[i]
		anc := g.ancestors(i)
		if n, err := c.Count(ctx); err != nil || n != uint64(len(anc)) {
			t.Fatalf("commit %d: Count %d, %v; want %d", i, n, err, len(anc))
		}
		if n, err := c.CountRange(ctx, 0, MaxHeight); err != nil || n != uint64(len(anc)) {
			t.Fatalf("commit %d: CountRange(0, max) %d, %v; want %d", i, n, err, len(anc))
		}
		if got := collect(t, ctx, c.Ascending(ctx, 0)); !slices.Equal(got, anc) {
			t.Fatalf("commit %d: Ascending %v, want %v", i, got, anc)
		}
		rev := collect(t, ctx, c.Descending(ctx, Entry{}))
		slices.Reverse(rev)
		if !slices.Equal(rev, anc) {
			t.Fatalf("commit %d: Descending %v, want %v", i, rev, anc)
		}
		if got := collect(t, ctx, c.DescendingFrom(ctx, Entry{MaxHeight + 5, fakeAddr(0)})); len(got) != len(anc) {
			t.Fatalf("commit %d: DescendingFrom above every height: %d entries, want %d", i, len(got), len(anc))
		}
		for _, h := range []Height{MaxHeight, MaxHeight + 1, MaxHeight + 3} {
			if got := collect(t, ctx, c.AtHeight(ctx, h)); len(got) != 0 {
				t.Fatalf("commit %d: AtHeight(%d) yields %v", i, h, got)
			}
		}
		// The aliases, read from the map.
		var aliases []Alias
		for it := c.Map().Iter(ctx, prolly.Range{Start: aliasStart}); it.Next(ctx); {
			a, err := DecodeAliasKey(it.Key())
			if err != nil {
				t.Fatal(err)
			}
			aliases = append(aliases, a)
		}
		if want := g.aliases(i); !slices.Equal(aliases, want) {
			t.Fatalf("commit %d: aliases %v, want %v", i, aliases, want)
		}
		if i%25 == 0 {
			if err := c.Check(ctx); err != nil {
				t.Fatalf("commit %d: %v", i, err)
			}
		}
		// Children of every commit (ancestor or not) among i's history.
		for x := range g.heights {
			cands, err := c.ChildCandidates(ctx, g.heights[x])
			if err != nil {
				t.Fatal(err)
			}
			if g.heights[i] == g.heights[x]+1 {
				cands = append(cands, fakeAddr(i)) // i itself, as callers do
			}
			var got []chunks.Address
			for _, a := range cands {
				if slices.Contains(g.parents[g.index(a)], x) && !slices.Contains(got, a) {
					got = append(got, a)
				}
			}
			if slices.Contains(g.parents[i], x) && !slices.Contains(got, fakeAddr(i)) {
				got = append(got, fakeAddr(i))
			}
			slices.SortFunc(got, chunks.Address.Compare)
			if want := g.children(x, i, anc); !slices.Equal(got, want) {
				t.Fatalf("commit %d: children of %d: %v, want %v", i, x, got, want)
			}
		}
	}
}

// TestCheckRejectsStrayAlias: an alias naming no entry, or an entry not
// above it, fails Check.
func TestCheckRejectsStrayAlias(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	for _, keys := range [][][]byte{
		{Entry{1, fakeAddr(1)}.Key(), Alias{2, fakeAddr(2)}.Key()},
		{Entry{3, fakeAddr(1)}.Key(), Alias{3, fakeAddr(1)}.Key()},
	} {
		b := prolly.NewBuilder(ns)
		for _, k := range keys {
			if err := b.Add(ctx, k, nil); err != nil {
				t.Fatal(err)
			}
		}
		m, err := b.Map(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := (Closure{m: m}).Check(ctx); err == nil {
			t.Fatalf("keys %x: Check passed", keys)
		}
	}
}

func FuzzDecodeAliasKey(f *testing.F) {
	f.Add(Alias{2, fakeAddr(1)}.Key())
	f.Add(Entry{2, fakeAddr(1)}.Key())
	f.Add(Alias{MaxHeight, fakeAddr(1)}.Key())
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeAliasKey(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption", err)
			}
			return
		}
		if !bytes.Equal(a.Key(), b) || a.Height < 2 || a.Height > MaxHeight {
			t.Fatal("alias key does not round-trip")
		}
		if _, err := DecodeKey(b); err == nil {
			t.Fatal("an alias key decodes as an entry")
		}
	})
}

// TestGoldenClosureAliases pins the address of a closure holding an alias:
// a merge of a long branch and a short one, and its child.
func TestGoldenClosureAliases(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	g := &dag{}
	g.add(t, ctx, ns, nil)
	for i := 1; i < 6; i++ {
		g.add(t, ctx, ns, []int{i - 1})
	}
	g.add(t, ctx, ns, []int{0})    // 6, height 2
	g.add(t, ctx, ns, []int{5, 6}) // 7, height 7: an alias at 3
	g.add(t, ctx, ns, []int{7})    // 8
	c := g.closures[8]
	if want := []Alias{{3, fakeAddr(7)}}; !slices.Equal(g.aliases(8), want) {
		t.Fatalf("model aliases %v", g.aliases(8))
	}
	const want = "nu8kg66lb023rlpdijksv774v31s4om7"
	if got := c.Address().String(); got != want {
		t.Fatalf("golden closure address %s, want %s", got, want)
	}
}
