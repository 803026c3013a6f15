package tablemerge

import (
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// TestMergeCostFollowsChanges: merging a few row changes of a large table
// reads a few nodes of its maps, not the table: the diffs skip every
// subtree both sides share.
func TestMergeCostFollowsChanges(t *testing.T) {
	if prolly.InvariantsEnabled {
		t.Skip("counts node loads, and the invariant checks (-tags invariants) load every node written; the run without the tag measures it")
	}
	small, smallNodes := mergeLoads(t, 5000)
	large, largeNodes := mergeLoads(t, 40000)
	if large > 2*small || large*5 > largeNodes {
		t.Fatalf("merging the same changes loaded %d of %d nodes at 5,000 rows and %d of %d at 40,000: the cost follows the table, not the changes", small, smallNodes, large, largeNodes)
	}
}

// mergeLoads merges three row changes into a table of n rows and returns
// the nodes the merge loaded and the nodes of the table's maps.
func mergeLoads(t *testing.T, n int) (loads, nodes uint64) {
	f := newFixture(t)
	bt := f.table(modelSchema())
	bt = f.edit(bt, func(ed *tables.Editor) error {
		for i := range n {
			if _, err := ed.Insert(f.ctx, mrow{i % 7, i % 3, i}.values(i)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, m := range []prolly.Map{bt.Rows(), bt.IndexMap(0), bt.IndexMap(1)} {
		if err := m.WalkNodes(f.ctx, func(chunks.Address, int) (bool, error) { nodes++; return true, nil }); err != nil {
			t.Fatal(err)
		}
	}
	ot := f.edit(bt, all(upd(mrow{1, 1, 1}.values(1), mrow{5, 1, 1}.values(1)), ins(mrow{0, 0, 0}.values(n+1))))
	tt := f.edit(bt, all(upd(mrow{1, 1, 1}.values(1), mrow{1, 2, 1}.values(1)), del(mrow{n / 2 % 7, n / 2 % 3, n / 2}.values(n/2))))
	base, ours, theirs := f.root(map[string]any{"t": bt}), f.root(map[string]any{"t": ot}), f.root(map[string]any{"t": tt})

	// A node store without a cache over the same chunks counts every load.
	cold := prolly.NewNodeStoreCache(f.ns.Store(), 0)
	open := func(r commitgraph.RootValue) commitgraph.RootValue {
		o, err := commitgraph.OpenRoot(f.ctx, cold, r.Address())
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	res, err := Merge(f.ctx, cold, open(base), open(ours), open(theirs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	loads = cold.Stats().Loads
	t.Logf("%d rows in %d nodes (rows and two indexes); the merge loaded %d nodes", n, nodes, loads)
	want := "(1,5,b2,1)"
	f.ns = cold
	got := f.load(res.Root, "t")
	r, ok, err := got.Get(f.ctx, []tables.Value{prolly.Int(1)})
	if err != nil || !ok || fmtRow(r) != want {
		t.Fatalf("row 1: %v %v %v, want %s", fmtRow(r), ok, err, want)
	}
	if got.Count() != uint64(n) {
		t.Fatalf("%d rows, want %d", got.Count(), n)
	}
	return loads, nodes
}
