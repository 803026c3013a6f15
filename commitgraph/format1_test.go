package commitgraph

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// checkChildren compares Children with the parent walk for every commit
// and a few heads, and returns how many children sat above h+1.
func checkChildren(t *testing.T, db *DB, g *naive, rng *rand.Rand) int {
	ctx := context.Background()
	n, high := len(g.addrs), 0
	for a := range n {
		for range 5 {
			b := rng.IntN(n)
			kids, err := db.Children(ctx, g.addrs[a], g.addrs[b])
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, k := range kids {
				got = append(got, g.index[k.Addr])
				if k.Height > g.heights[a]+1 {
					high++
				}
			}
			if want := g.children(a, b); !slices.Equal(got, want) {
				t.Fatalf("Children(%d, %d) = %v, want %v", a, b, got, want)
			}
		}
	}
	return high
}

// TestChildrenFindsHighMerges: the children of every commit, merges whose
// other parent is much higher included, on format-2 histories.
func TestChildrenFindsHighMerges(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 11))
	db := New(chunks.NewMemoryStore())
	g := buildDAG(t, context.Background(), db, rng, 400)
	checkGraph(t, db, g)
	for _, a := range g.addrs {
		c, err := db.ReadCommit(context.Background(), a)
		if err != nil || c.Version != commitVersion {
			t.Fatalf("commit %s: version %v, %v", a, c.Version, err)
		}
	}
	high := checkChildren(t, db, g, rng)
	t.Logf("%d children above h+1", high)
	if high == 0 {
		t.Fatal("no child above h+1: the graph does not test the aliases")
	}
}

// TestFormat1History: a history written in commit format 1 (closures
// without aliases) is read, checked and answers Children by the fallback
// scan; commits on it stay format 1, and a merge of a format-2 history
// with it is format 1 too.
func TestFormat1History(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 12))
	db := New(chunks.NewMemoryStore())
	db.version1 = true
	g := buildDAG(t, ctx, db, rng, 200)
	checkGraph(t, db, g)
	if checkChildren(t, db, g, rng) == 0 {
		t.Fatal("no child above h+1")
	}
	// This build writes on top: format 1 on format-1 parents.
	db.version1 = false
	tip := g.addrs[len(g.addrs)-1]
	c, err := db.WriteCommit(ctx, testAddr("r"), []chunks.Address{tip}, meta("on v1"))
	if err != nil || c.Version != commitVersion1 {
		t.Fatalf("commit on a format-1 parent: version %v, %v", c.Version, err)
	}
	// A format-2 root with a child, merged with the format-1 tip.
	r, err := db.WriteCommit(ctx, testAddr("r2"), nil, meta("root"))
	if err != nil || r.Version != commitVersion {
		t.Fatalf("root: version %v, %v", r.Version, err)
	}
	r1, err := db.WriteCommit(ctx, testAddr("r3"), []chunks.Address{r.Addr}, meta("child"))
	if err != nil || r1.Version != commitVersion {
		t.Fatalf("child of a format-2 root: version %v, %v", r1.Version, err)
	}
	m, err := db.WriteCommit(ctx, testAddr("r4"), []chunks.Address{r1.Addr, c.Addr}, meta("merge"))
	if err != nil || m.Version != commitVersion1 {
		t.Fatalf("merge with a format-1 parent: version %v, %v", m.Version, err)
	}
	kids, err := db.Children(ctx, r.Addr, m.Addr)
	if err != nil || len(kids) != 1 || kids[0].Addr != r1.Addr {
		t.Fatalf("Children of the format-2 root under the format-1 merge: %v, %v", kids, err)
	}
	kids, err = db.Children(ctx, r1.Addr, m.Addr)
	if err != nil || len(kids) != 1 || kids[0].Addr != m.Addr {
		t.Fatalf("Children of the format-2 child under the format-1 merge: %v, %v", kids, err)
	}
	if err := db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("m"), m.Addr); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFindsMissingAliases: a format-2 commit whose closure lacks the
// aliases of its merge parent fails Check.
func TestCheckFindsMissingAliases(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	root, err := db.WriteCommit(ctx, testAddr("r"), nil, meta("root"))
	if err != nil {
		t.Fatal(err)
	}
	tip := root
	for i := range 4 {
		if tip, err = db.WriteCommit(ctx, testAddr("r"), []chunks.Address{tip.Addr}, meta(string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	side, err := db.WriteCommit(ctx, testAddr("r"), []chunks.Address{root.Addr}, meta("side"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := db.WriteCommit(ctx, testAddr("r"), []chunks.Address{tip.Addr, side.Addr}, meta("merge"))
	if err != nil {
		t.Fatal(err)
	}
	// A child of the merge built without aliases, relabelled format 2.
	db.version1 = true
	c, err := db.WriteCommit(ctx, testAddr("r"), []chunks.Address{m.Addr}, meta("child"))
	if err != nil {
		t.Fatal(err)
	}
	c.Version = commitVersion
	b, err := encodeCommit(c)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := db.Store().Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRefs(ctx, func(tx *RefTx) error { tx.Set(branchRef("main"), addr); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err == nil {
		t.Fatal("Check passed a format-2 closure without its aliases")
	} else {
		t.Log(err)
	}
}
