package prolly

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// refDiff computes the differences between two models.
func refDiff(a, b *model) []Diff {
	var out []Diff
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		var c int
		switch {
		case i == len(a.keys):
			c = 1
		case j == len(b.keys):
			c = -1
		default:
			c = bytes.Compare(a.keys[i], b.keys[j])
		}
		switch {
		case c < 0:
			out = append(out, Diff{Type: Removed, Key: a.keys[i], From: a.vals[string(a.keys[i])]})
			i++
		case c > 0:
			out = append(out, Diff{Type: Added, Key: b.keys[j], To: b.vals[string(b.keys[j])]})
			j++
		default:
			va, vb := a.vals[string(a.keys[i])], b.vals[string(b.keys[j])]
			if !bytes.Equal(va, vb) {
				out = append(out, Diff{Type: Modified, Key: a.keys[i], From: va, To: vb})
			}
			i++
			j++
		}
	}
	return out
}

func checkDiff(t testing.TB, from, to Map, want []Diff) {
	t.Helper()
	var got []Diff
	if err := DiffMaps(context.Background(), from, to, func(d Diff) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d differences, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Type != w.Type || !bytes.Equal(g.Key, w.Key) || !bytes.Equal(g.From, w.From) || !bytes.Equal(g.To, w.To) {
			t.Fatalf("difference %d: got %v %x, want %v %x", i, g.Type, g.Key, w.Type, w.Key)
		}
	}
}

// edgeBatch changes the first and last keys of the model, and some keys
// around them.
func edgeBatch(r *rand.Rand, m *model) []Edit {
	var edits []Edit
	if len(m.keys) == 0 {
		return nil
	}
	lo, hi := m.keys[0], m.keys[len(m.keys)-1]
	edits = append(edits, Edit{Key: []byte{}, Value: []byte("before all")})
	if r.IntN(2) == 0 {
		edits = append(edits, Edit{Key: lo, Delete: true})
	} else {
		edits = append(edits, Edit{Key: lo, Value: []byte("new first")})
	}
	if bytes.Compare(lo, hi) < 0 {
		edits = append(edits, Edit{Key: hi, Delete: r.IntN(2) == 0, Value: []byte("new last")})
	}
	edits = append(edits, Edit{Key: append(append([]byte{}, hi...), 0xFF), Value: []byte("after all")})
	for _, e := range edits {
		if e.Delete {
			m.del(e.Key)
		} else {
			m.put(e.Key, e.Value)
		}
	}
	return edits
}

func TestDiffModel(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(testing.TB) chunks.Store) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(testSeed(t), 7))
		for round := 0; round < 60; round++ {
			ns := NewNodeStore(newStore(t))
			n := []int{0, 1, 30, 2000, 20000}[round%5]
			a := randModel(r, n, 2*n+1)
			ma := build(t, ns, a)
			b := a.clone()
			var edits []Edit
			switch round % 4 {
			case 0:
				edits = randBatch(r, b, 1+r.IntN(20), 2*n+1)
			case 1:
				edits = randBatch(r, b, 1+r.IntN(2000), 2*n+1)
			case 2:
				edits = edgeBatch(r, b)
			case 3: // to or from an empty map
				b = newModel()
				for _, k := range a.keys {
					edits = append(edits, Edit{Key: k, Delete: true})
				}
			}
			mb, err := ma.Apply(ctx, edits)
			if err != nil {
				t.Fatal(err)
			}
			checkDiff(t, ma, mb, refDiff(a, b))
			checkDiff(t, mb, ma, refDiff(b, a))
			checkDiff(t, ma, ma, nil)
			// A tree built separately, in its own store, diffs the same.
			other := build(t, NewNodeStore(newStore(t)), b)
			checkDiff(t, ma, other, refDiff(a, b))
		}
	})
}

// TestDiffReadsFollowChange checks that a diff of a small change reads few
// nodes.
func TestDiffReadsFollowChange(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 8))
	a := seqModel(r, 100000)
	ns := NewNodeStore(chunks.NewMemoryStore())
	ma := build(t, ns, a)
	b := a.clone()
	mb, err := ma.Apply(ctx, randBatch(r, b, 10, 100000))
	if err != nil {
		t.Fatal(err)
	}
	before := ns.Stats().Loads
	checkDiff(t, ma, mb, refDiff(a, b))
	reads := ns.Stats().Loads - before
	t.Logf("height %d: %d nodes read for a 10-key diff", ma.Height(), reads)
	if limit := uint64(4 * 10 * ma.Height()); reads > limit {
		t.Fatalf("%d nodes read, more than %d", reads, limit)
	}
}

// seqModel returns a model of n entries with keys in randKey's space of n,
// made without sorting.
func seqModel(r *rand.Rand, n int) *model {
	m := newModel()
	for i := 0; i < n; i++ {
		k := EncodeKey(nil, Int(int64(i)))
		m.keys = append(m.keys, k)
		m.vals[string(k)] = randVal(r)
	}
	return m
}
