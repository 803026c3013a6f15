package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"

	"github.com/verso-db/verso/internal/testseed"
)

// seed returns the seed of the randomized tests (see internal/testseed).
func seed(t testing.TB) uint64 { return testseed.Seed(t) }

// naive is the reference commit graph: parent pointers only.
type naive struct {
	addrs   []chunks.Address
	index   map[chunks.Address]int
	parents [][]int
	heights []closure.Height
	times   []time.Time
}

// ancestors returns the set of i and its ancestors, by a walk of parents.
func (g *naive) ancestors(i int) map[int]bool {
	seen := map[int]bool{i: true}
	stack := []int{i}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range g.parents[p] {
			if !seen[q] {
				seen[q] = true
				stack = append(stack, q)
			}
		}
	}
	return seen
}

// mergeBase: among the common ancestors, the greatest (height, address).
func (g *naive) mergeBase(a, b int) (int, bool) {
	aa, ab := g.ancestors(a), g.ancestors(b)
	best := -1
	for x := range aa {
		if !ab[x] {
			continue
		}
		if best < 0 || (closure.Entry{Height: g.heights[x], Addr: g.addrs[x]}).Compare(closure.Entry{Height: g.heights[best], Addr: g.addrs[best]}) > 0 {
			best = x
		}
	}
	return best, best >= 0
}

// children of c among the ancestors of head.
func (g *naive) children(c, head int) []int {
	var out []int
	for x := range g.ancestors(head) {
		if slices.Contains(g.parents[x], c) {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(x, y int) int {
		return (closure.Entry{Height: g.heights[x], Addr: g.addrs[x]}).Compare(closure.Entry{Height: g.heights[y], Addr: g.addrs[y]})
	})
	return out
}

// log: the ancestors of head by height down, time down, address up.
func (g *naive) log(head int) []int {
	var out []int
	for x := range g.ancestors(head) {
		out = append(out, x)
	}
	slices.SortFunc(out, func(x, y int) int {
		switch {
		case g.heights[x] != g.heights[y]:
			if g.heights[x] > g.heights[y] {
				return -1
			}
			return 1
		case !g.times[x].Equal(g.times[y]):
			return g.times[y].Compare(g.times[x])
		}
		return g.addrs[x].Compare(g.addrs[y])
	})
	return out
}

// buildDAG writes a random commit graph of n commits to db and returns its
// model: linear runs on several branches, merges of two to four parents
// and criss-cross merges, with commit times that often tie.
func buildDAG(t testing.TB, ctx context.Context, db *DB, rng *rand.Rand, n int) *naive {
	g := &naive{index: map[chunks.Address]int{}}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(parents []int) int {
		var ps []chunks.Address
		h := closure.Height(1)
		for _, p := range parents {
			ps = append(ps, g.addrs[p])
			h = max(h, g.heights[p]+1)
		}
		when := base.Add(time.Duration(rng.IntN(20)) * time.Second)
		c, err := db.WriteCommit(ctx, testAddr(fmt.Sprint("root", len(g.addrs))), ps, Meta{Author: ada, Time: when, Message: fmt.Sprint("commit ", len(g.addrs))})
		if err != nil {
			t.Fatal(err)
		}
		if c.Height != h {
			t.Fatalf("commit %d: height %d, want %d", len(g.addrs), c.Height, h)
		}
		g.index[c.Addr] = len(g.addrs)
		g.addrs = append(g.addrs, c.Addr)
		g.parents = append(g.parents, parents)
		g.heights = append(g.heights, h)
		g.times = append(g.times, when)
		return len(g.addrs) - 1
	}
	tips := []int{add(nil)}
	if rng.IntN(2) == 0 {
		tips = append(tips, add(nil)) // a second, unrelated root
	}
	for len(g.addrs) < n {
		b := rng.IntN(len(tips))
		switch r := rng.IntN(12); {
		case r < 7:
			tips[b] = add([]int{tips[b]})
		case r < 9:
			tips = append(tips, rng.IntN(len(g.addrs)))
		default:
			ps := []int{tips[b]}
			for range 1 + rng.IntN(3) {
				p := tips[rng.IntN(len(tips))]
				if rng.IntN(4) == 0 {
					p = rng.IntN(len(g.addrs)) // an old commit
				}
				if !slices.Contains(ps, p) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 1 {
				continue
			}
			tips[b] = add(ps)
			if len(ps) == 2 && rng.IntN(2) == 0 {
				tips = append(tips, add([]int{ps[1], ps[0]})) // criss-cross
			}
		}
	}
	return g
}

func TestGraphAgainstParentWalk(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 7))
	// Small graphs, then one large enough for closures of several levels.
	for _, size := range []int{60, 120, 180, 240, 3000} {
		db := New(chunks.NewMemoryStore())
		g := buildDAG(t, ctx, db, rng, size)
		n := len(g.addrs)
		checkGraph(t, db, g)
		for range 200 {
			a, b := rng.IntN(n), rng.IntN(n)
			// Is-ancestor.
			got, err := db.IsAncestor(ctx, g.addrs[a], g.addrs[b])
			if err != nil {
				t.Fatal(err)
			}
			if want := g.ancestors(b)[a]; got != want {
				t.Fatalf("IsAncestor(%d, %d) = %v, want %v", a, b, got, want)
			}
			// Merge base.
			mb, err := db.MergeBase(ctx, g.addrs[a], g.addrs[b])
			want, ok := g.mergeBase(a, b)
			switch {
			case !ok && !errors.Is(err, ErrNoMergeBase):
				t.Fatalf("MergeBase(%d, %d): %v, want no merge base", a, b, err)
			case ok && err != nil:
				t.Fatalf("MergeBase(%d, %d): %v", a, b, err)
			case ok && mb.Addr != g.addrs[want]:
				t.Fatalf("MergeBase(%d, %d) = %d, want %d", a, b, g.index[mb.Addr], want)
			}
			// Children.
			kids, err := db.Children(ctx, g.addrs[a], g.addrs[b])
			if err != nil {
				t.Fatal(err)
			}
			var gotKids []int
			for _, k := range kids {
				gotKids = append(gotKids, g.index[k.Addr])
			}
			wantKids := g.children(a, b)
			if !g.ancestors(b)[a] {
				wantKids = nil
			}
			if !slices.Equal(gotKids, wantKids) {
				t.Fatalf("Children(%d, %d) = %v, want %v", a, b, gotKids, wantKids)
			}
			// Fast-forward.
			ff, err := db.CanFastForward(ctx, g.addrs[a], g.addrs[b])
			if err != nil || ff != g.ancestors(b)[a] {
				t.Fatalf("CanFastForward(%d, %d) = %v, %v", a, b, ff, err)
			}
			// Commits of a's history not in b's.
			ca, err := db.ReadCommit(ctx, g.addrs[a])
			if err != nil {
				t.Fatal(err)
			}
			cb, err := db.ReadCommit(ctx, g.addrs[b])
			if err != nil {
				t.Fatal(err)
			}
			unique, err := db.CountUnique(ctx, ca, cb)
			wantUnique := 0
			inB := g.ancestors(b)
			for x := range g.ancestors(a) {
				if !inB[x] {
					wantUnique++
				}
			}
			if err != nil || unique != uint64(wantUnique) {
				t.Fatalf("CountUnique(%d, %d) = %d, %v; want %d", a, b, unique, err, wantUnique)
			}
		}
		// Log order from a few heads.
		for range 10 {
			h := rng.IntN(n)
			var got []int
			it := db.Log(ctx, g.addrs[h])
			for it.Next(ctx) {
				got = append(got, g.index[it.Commit().Addr])
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			if want := g.log(h); !slices.Equal(got, want) {
				t.Fatalf("Log(%d) = %v, want %v", h, got, want)
			}
		}
	}
}

// checkGraph points a branch at every commit of g and runs Check.
func checkGraph(t *testing.T, db *DB, g *naive) {
	ctx := context.Background()
	err := db.UpdateRefs(ctx, func(tx *RefTx) error {
		for i, a := range g.addrs {
			tx.Set(branchRef(fmt.Sprint("c", i)), a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFindsBadClosure(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(t, db)
	c1, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: c0.Addr, Meta: meta("one")})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: c1.Addr, Meta: meta("two")})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// The same ancestors as c2's closure, but as a base with a shorter
	// tail: not the closure its parents make.
	other, err := closure.Build(ctx, db.NodeStore(), []closure.Parent{{Entry: c0.Entry(), Closure: closure.Empty(db.NodeStore())}})
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(c *Commit){
		"closure": func(c *Commit) { c.Closure, c.Tail = other.Address(), c.Tail[:1] },
		"height":  func(c *Commit) { c.Height = 5 },
	} {
		bad := *c2
		mutate(&bad)
		b, _ := encodeCommit(&bad)
		a, _ := db.Store().Put(ctx, b)
		if err := db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("bad"), a); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := db.Check(ctx); !errors.Is(err, ErrCheck) {
			t.Fatalf("bad %s: Check said %v", name, err)
		} else {
			t.Logf("bad %s: %v", name, err)
		}
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 8))
	db := New(chunks.NewMemoryStore())
	g := buildDAG(t, ctx, db, rng, 150)
	// Random specs from random commits, checked against the parent lists.
	for range 500 {
		start := rng.IntN(len(g.addrs))
		if err := db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("b"), g.addrs[start]); return nil }); err != nil {
			t.Fatal(err)
		}
		spec, cur, ok := "b", start, true
		if rng.IntN(2) == 0 {
			spec = g.addrs[start].String()
		} else if rng.IntN(2) == 0 {
			spec = "HEAD"
		}
		for range rng.IntN(4) {
			n := rng.IntN(4)
			if rng.IntN(2) == 0 {
				spec += fmt.Sprintf("~%d", n)
				for range n {
					if ok && len(g.parents[cur]) == 0 {
						ok = false
					}
					if ok {
						cur = g.parents[cur][0]
					}
				}
			} else {
				spec += fmt.Sprintf("^%d", n)
				if ok && n > 0 {
					if n > len(g.parents[cur]) {
						ok = false
					} else {
						cur = g.parents[cur][n-1]
					}
				}
			}
		}
		c, err := db.Resolve(ctx, spec, "b")
		switch {
		case !ok && !errors.Is(err, ErrNoSuchAncestor):
			t.Fatalf("Resolve(%q): %v, want no such ancestor", spec, err)
		case ok && err != nil:
			t.Fatalf("Resolve(%q): %v", spec, err)
		case ok && c.Addr != g.addrs[cur]:
			t.Fatalf("Resolve(%q) = %d, want %d", spec, g.index[c.Addr], cur)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(t, db)
	c1, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: c0.Addr, Meta: meta("one")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTag(ctx, "v1", c0.Addr, TagMeta{Tagger: ada}); err != nil {
		t.Fatal(err)
	}
	ok := map[string]chunks.Address{
		"main": c1.Addr, "HEAD": c1.Addr, "HEAD~": c0.Addr, "main^": c0.Addr, "main~1": c0.Addr, "main^0": c1.Addr,
		"v1": c0.Addr, "refs/tags/v1": c0.Addr, "refs/heads/main": c1.Addr, c1.Addr.String(): c1.Addr,
		c1.Addr.String() + "~1": c0.Addr, "main~0": c1.Addr,
	}
	for spec, want := range ok {
		c, err := db.Resolve(ctx, spec, "main")
		if err != nil || c.Addr != want {
			t.Errorf("Resolve(%q) = %v, %v", spec, c, err)
		}
	}
	bad := map[string]error{
		"HEAD~2":                           ErrNoSuchAncestor,
		"main~5":                           ErrNoSuchAncestor,
		"main^2":                           ErrNoSuchAncestor,
		"nope":                             ErrBadRevision,
		"main~x":                           ErrBadRevision,
		"~1":                               ErrBadRevision,
		"0123456789abcdefghijklmnopqrstuv": ErrBadRevision,
		"0123456789abcdefghij":             ErrBadRevision,
		"0123456789abcdefghijklmnopqrstuz": ErrBadRevision,
		"refs/heads/nope":                  ErrBranchNotFound,
		"refs/tags/nope":                   ErrTagNotFound,
	}
	for spec, want := range bad {
		if _, err := db.Resolve(ctx, spec, "main"); !errors.Is(err, want) {
			t.Errorf("Resolve(%q): %v, want %v", spec, err, want)
		} else {
			t.Logf("Resolve(%q): %v", spec, err)
		}
	}
	if _, err := db.Resolve(ctx, "HEAD", ""); !errors.Is(err, ErrBadRevision) {
		t.Errorf("HEAD without a branch: %v", err)
	}
}

// FuzzResolve: any spec resolves or fails with an error that says why;
// nothing panics or loops.
func FuzzResolve(f *testing.F) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(f, db)
	head := c0.Addr
	for i := range 5 {
		c, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: head, Meta: meta(fmt.Sprint(i))})
		if err != nil {
			f.Fatal(err)
		}
		head = c.Addr
	}
	if _, err := db.CreateTag(ctx, "v1", head, TagMeta{}); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"main", "HEAD~2", "main^^", "v1~1^0", head.String() + "~3", "refs/heads/main~", "x~99999999999999999999", "~", "^", "main~1~2^1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := db.Resolve(ctx, spec, "main")
		if err != nil {
			for _, known := range []error{ErrBadRevision, ErrNoSuchAncestor, ErrBranchNotFound, ErrTagNotFound, ErrNotCommit} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("Resolve(%q): unexpected error %v", spec, err)
		}
		if c == nil {
			t.Fatalf("Resolve(%q): no commit and no error", spec)
		}
	})
}
