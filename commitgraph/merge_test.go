package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

type rootModel map[string]chunks.Address

func rootOf(t testing.TB, ns *prolly.NodeStore, m rootModel) RootValue {
	var edits []RootEdit
	for k, v := range m {
		edits = append(edits, RootEdit{Name: k, Addr: v})
	}
	r, err := EmptyRoot(ns).Edit(context.Background(), edits...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func modelOf(t testing.TB, r RootValue) rootModel {
	es, err := r.Entries(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	m := rootModel{}
	for _, e := range es {
		m[e.Name] = e.Addr
	}
	return m
}

// mutate changes about a quarter of the names of m and adds a few.
func mutate(rng *rand.Rand, m rootModel, tag string) rootModel {
	out := maps.Clone(m)
	for k := range m {
		switch rng.IntN(8) {
		case 0:
			delete(out, k)
		case 1:
			out[k] = testAddr(tag + k)
		}
	}
	for range rng.IntN(4) {
		k := fmt.Sprintf("t%03d", rng.IntN(400))
		out[k] = testAddr(tag + k + "new")
	}
	return out
}

func TestMergeRootsAgainstModel(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed(t), 9))
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	for round := range 200 {
		base := rootModel{}
		for range rng.IntN(300) {
			k := fmt.Sprintf("t%03d", rng.IntN(400))
			base[k] = testAddr(k)
		}
		ours, theirs := mutate(rng, base, "o"), mutate(rng, base, "t")
		if rng.IntN(4) == 0 {
			theirs = mutate(rng, ours, "t") // overlapping changes
		}
		// The model: one-sided changes win, equal changes stand, others go
		// to the resolver, which keeps a marker address.
		want := rootModel{}
		var wantConflicts []string
		names := map[string]bool{}
		for _, m := range []rootModel{base, ours, theirs} {
			for k := range m {
				names[k] = true
			}
		}
		for k := range names {
			b, inB := base[k]
			o, inO := ours[k]
			th, inT := theirs[k]
			oc := inO != inB || o != b
			tc := inT != inB || th != b
			switch {
			case !tc:
				if inO {
					want[k] = o
				}
			case !oc || (inO == inT && o == th):
				if inT {
					want[k] = th
				}
			default:
				wantConflicts = append(wantConflicts, k)
				want[k] = testAddr("resolved " + k)
			}
		}
		var got []string
		res, err := MergeRoots(ctx, rootOf(t, ns, base), rootOf(t, ns, ours), rootOf(t, ns, theirs), func(_ context.Context, c RootConflict) (chunks.Address, bool, error) {
			if c.InOurs != (ours[c.Name] != chunks.Address{}) || c.Ours != ours[c.Name] || c.Theirs != theirs[c.Name] || c.Base != base[c.Name] {
				return chunks.Address{}, false, fmt.Errorf("conflict %+v does not match the sides", c)
			}
			got = append(got, c.Name)
			return testAddr("resolved " + c.Name), true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(wantConflicts) {
			t.Fatalf("round %d: conflicts %v, want %v", round, got, wantConflicts)
		}
		if g := modelOf(t, res); !maps.Equal(g, want) {
			t.Fatalf("round %d: merged %d names, want %d", round, len(g), len(want))
		}
		if res.Address() != rootOf(t, ns, want).Address() {
			t.Fatalf("round %d: merged root is not the canonical tree of its entries", round)
		}
	}
}

func TestMergeCommits(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c0 := mustInit(t, db)
	ns := db.NodeStore()
	root := func(m rootModel) chunks.Address { return rootOf(t, ns, m).Address() }
	base, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: c0.Addr, Root: root(rootModel{"a": testAddr("a1"), "b": testAddr("b1")}), Meta: meta("base")})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateBranch(ctx, "dev", base.Addr); err != nil {
		t.Fatal(err)
	}
	ours, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: base.Addr, Root: root(rootModel{"a": testAddr("a2"), "b": testAddr("b1")}), Meta: meta("ours")})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := db.CommitRoot(ctx, CommitOptions{Branch: "dev", ExpectedHead: base.Addr, Root: root(rootModel{"a": testAddr("a1"), "c": testAddr("c1")}), Meta: meta("theirs")})
	if err != nil {
		t.Fatal(err)
	}
	fail := func(context.Context, RootConflict) (chunks.Address, bool, error) {
		return chunks.Address{}, false, ErrMergeConflict
	}
	res, err := db.Merge(ctx, ours.Addr, theirs.Addr, fail)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Addr != base.Addr || res.FastForward || res.UpToDate {
		t.Fatalf("merge result %+v", res)
	}
	if got := modelOf(t, res.Root); !maps.Equal(got, rootModel{"a": testAddr("a2"), "c": testAddr("c1")}) {
		t.Fatalf("merged root %v", res.Root)
	}
	mc, err := db.CommitRoot(ctx, CommitOptions{Branch: "main", ExpectedHead: ours.Addr, MergeParents: []chunks.Address{theirs.Addr}, Root: res.Root.Address(), Meta: meta("merge")})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := db.Merge(ctx, mc.Addr, theirs.Addr, fail); err != nil || !res.UpToDate {
		t.Fatalf("merging an ancestor: %+v, %v", res, err)
	}
	if res, err := db.Merge(ctx, theirs.Addr, mc.Addr, fail); err != nil || !res.FastForward || res.Root.Address() != mc.Root {
		t.Fatalf("fast-forward: %+v, %v", res, err)
	}
	// A conflict the resolver refuses.
	other, err := db.CommitRoot(ctx, CommitOptions{Branch: "dev", ExpectedHead: theirs.Addr, Root: root(rootModel{"a": testAddr("a3")}), Meta: meta("other")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, mc.Addr, other.Addr, fail); !errors.Is(err, ErrMergeConflict) {
		t.Fatalf("conflicting merge: %v", err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRootValueEdits(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	r := EmptyRoot(ns)
	if !r.Address().IsEmpty() {
		t.Fatal("empty root value has an address")
	}
	r, err := r.Edit(ctx, RootEdit{Name: "t1", Addr: testAddr("1")}, RootEdit{Name: "t2", Addr: testAddr("2")})
	if err != nil {
		t.Fatal(err)
	}
	r, err = r.Edit(ctx, RootEdit{Name: "t1", Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok, err := r.Get(ctx, "t2"); err != nil || !ok || a != testAddr("2") {
		t.Fatalf("Get: %s %v %v", a, ok, err)
	}
	if _, ok, _ := r.Get(ctx, "t1"); ok {
		t.Fatal("deleted name still there")
	}
	if _, err := r.Edit(ctx, RootEdit{Name: ""}); err == nil {
		t.Fatal("empty name accepted")
	}
	if _, err := r.Edit(ctx, RootEdit{Name: "x"}); err == nil {
		t.Fatal("zero address accepted")
	}
	var changes []RootChange
	if err := EmptyRoot(ns).Diff(ctx, r, func(c RootChange) error { changes = append(changes, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0] != (RootChange{Name: "t2", To: testAddr("2"), InTo: true}) {
		t.Fatalf("diff from empty: %+v", changes)
	}
	r2, err := OpenRoot(ctx, ns, r.Address())
	if err != nil || r2.Len() != 1 || r2.String() != "t2="+testAddr("2").String() {
		t.Fatalf("reopened %v, %v", r2, err)
	}
}
