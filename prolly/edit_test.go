package prolly

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// randBatch returns a sorted batch of n random edits and applies it to the
// model.
func randBatch(r *rand.Rand, m *model, n, space int) []Edit {
	byKey := map[string]Edit{}
	for i := 0; i < n; i++ {
		k := randKey(r, space)
		if r.IntN(3) == 0 && len(m.keys) > 0 {
			k = m.keys[r.IntN(len(m.keys))]
		}
		if r.IntN(3) == 0 {
			byKey[string(k)] = Edit{Key: k, Delete: true}
		} else {
			byKey[string(k)] = Edit{Key: k, Value: randVal(r)}
		}
	}
	edits := make([]Edit, 0, len(byKey))
	for _, e := range byKey {
		edits = append(edits, e)
	}
	slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
	for _, e := range edits {
		if e.Delete {
			m.del(e.Key)
		} else {
			m.put(e.Key, e.Value)
		}
	}
	return edits
}

// TestMapModel runs random batches of puts and deletes, each followed by
// random reads, against the reference model; every few steps it checks the
// whole tree and that it equals a tree built from scratch.
func TestMapModel(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(testing.TB) chunks.Store) {
		ctx := context.Background()
		seed := testSeed(t)
		r := rand.New(rand.NewPCG(seed, 4))
		ops := 0
		for _, space := range []int{40, 3000, 30000} {
			ns := NewNodeStore(newStore(t))
			mp, m := NewMap(ns), newModel()
			for step := 0; step < 200; step++ {
				size := []int{1, 2, 10, 100, 1000}[r.IntN(5)]
				if space < 100 {
					size = 1 + r.IntN(5)
				}
				edits := randBatch(r, m, size, space)
				ops += len(edits)
				var err error
				if mp, err = mp.Apply(ctx, edits); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				if mp.Count() != uint64(len(m.keys)) {
					t.Fatalf("step %d: count %d, model %d", step, mp.Count(), len(m.keys))
				}
				for i := 0; i < 60; i++ {
					readOp(t, r, mp, m, space)
					ops++
				}
				if step%25 == 0 || step == 199 {
					checkMap(t, mp)
					compareAll(t, mp, m)
					if want := build(t, NewNodeStore(chunks.NewMemoryStore()), m).Address(); want != mp.Address() {
						t.Fatalf("step %d: edited tree %s, built tree %s", step, mp.Address(), want)
					}
				}
			}
		}
		t.Logf("%d operations", ops)
		if ops < 100000 {
			t.Fatalf("only %d operations; the model test must run at least 100k", ops)
		}
	})
}

// TestHistoryIndependence builds the same contents in several ways and
// expects one root address.
func TestHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 5))
	for _, n := range []int{1, 10, 500, 4000, 20000} {
		m := randModel(r, n, 4*n)
		want := build(t, NewNodeStore(chunks.NewMemoryStore()), m).Address()
		ns := NewNodeStore(chunks.NewMemoryStore())
		order := r.Perm(len(m.keys))
		put := func(mp Map, idx []int) Map {
			edits := make([]Edit, len(idx))
			for j, i := range idx {
				edits[j] = Edit{Key: m.keys[i], Value: m.vals[string(m.keys[i])]}
			}
			slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
			mp, err := mp.Apply(ctx, edits)
			if err != nil {
				t.Fatal(err)
			}
			return mp
		}
		// One at a time, in shuffled order.
		mp := NewMap(ns)
		if n <= 4000 {
			for _, i := range order {
				mp = put(mp, []int{i})
			}
			if mp.Address() != want {
				t.Fatalf("n=%d: shuffled single inserts give %s, bulk build %s", n, mp.Address(), want)
			}
		}
		// Batches of random sizes.
		mp = NewMap(ns)
		for rest := order; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(1+len(rest)/3))
			mp = put(mp, rest[:k])
			rest = rest[k:]
		}
		if mp.Address() != want {
			t.Fatalf("n=%d: batches give %s, bulk build %s", n, mp.Address(), want)
		}
		// Extra keys inserted, then deleted.
		extra := randModel(r, n, 4*n)
		var ins, del []Edit
		for _, k := range extra.keys {
			if _, ok := m.vals[string(k)]; !ok {
				ins = append(ins, Edit{Key: k, Value: extra.vals[string(k)]})
				del = append(del, Edit{Key: k, Delete: true})
			}
		}
		mp2, err := mp.Apply(ctx, ins)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, mp2)
		for len(del) > 0 {
			k := min(len(del), 1+r.IntN(len(del)))
			if mp2, err = mp2.Apply(ctx, del[:k]); err != nil {
				t.Fatal(err)
			}
			del = del[k:]
		}
		if mp2.Address() != want {
			t.Fatalf("n=%d: insert then delete gives %s, bulk build %s", n, mp2.Address(), want)
		}
		// Delete everything.
		var all []Edit
		for _, k := range m.keys {
			all = append(all, Edit{Key: k, Delete: true})
		}
		if mp2, err = mp2.Apply(ctx, all); err != nil || !mp2.Address().IsEmpty() || mp2.Count() != 0 {
			t.Fatalf("n=%d: delete all gives %s, %v", n, mp2.Address(), err)
		}
	}
}

func TestEditorAndErrors(t *testing.T) {
	ctx := context.Background()
	mp := NewMap(NewNodeStore(chunks.NewMemoryStore()))
	ed := mp.Edit()
	for _, k := range []string{"c", "a", "b", "a"} {
		if err := ed.Put([]byte(k), []byte(k+"!")); err != nil {
			t.Fatal(err)
		}
	}
	ed.Delete([]byte("b"))
	mp, err := ed.Map(ctx)
	if err != nil || mp.Count() != 2 {
		t.Fatalf("count %d, %v", mp.Count(), err)
	}
	if v, ok, _ := mp.Get(ctx, []byte("a")); !ok || string(v) != "a!" {
		t.Fatalf("Get(a) = %q, %v", v, ok)
	}
	if _, err := mp.Apply(ctx, []Edit{{Key: []byte("b")}, {Key: []byte("a")}}); !errors.Is(err, ErrUnsorted) {
		t.Fatalf("unsorted edits: %v", err)
	}
	if _, err := mp.Apply(ctx, []Edit{{Key: make([]byte, MaxKeySize+1)}}); !errors.Is(err, ErrKeyTooLarge) {
		t.Fatalf("large key: %v", err)
	}
}

// TestBigEntries edits maps whose keys and values reach the size limits,
// so that nodes end at the hard maximum and internal levels see big keys.
func TestBigEntries(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 6))
	ns := NewNodeStore(chunks.NewMemoryStore())
	mp, m := NewMap(ns), newModel()
	for step := 0; step < 40; step++ {
		byKey := map[string]Edit{}
		for i := 0; i < 1+r.IntN(30); i++ {
			k := make([]byte, 1+r.IntN(MaxKeySize))
			k[0] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				k = k[:min(len(k), 1+r.IntN(3))]
			}
			v := make([]byte, r.IntN(MaxValueSize+1))
			if r.IntN(2) == 0 {
				v = v[:min(len(v), r.IntN(100))]
			}
			byKey[string(k)] = Edit{Key: k, Value: v, Delete: r.IntN(5) == 0}
		}
		var edits []Edit
		for _, e := range byKey {
			edits = append(edits, e)
			if e.Delete {
				m.del(e.Key)
			} else {
				m.put(e.Key, e.Value)
			}
		}
		slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
		var err error
		if mp, err = mp.Apply(ctx, edits); err != nil {
			t.Fatal(err)
		}
		checkMap(t, mp)
		compareAll(t, mp, m)
		if want := build(t, NewNodeStore(chunks.NewMemoryStore()), m).Address(); want != mp.Address() {
			t.Fatalf("step %d: edited %s, built %s", step, mp.Address(), want)
		}
	}
}

// TestNoopEdits checks that edits that change nothing give the same map and
// write nothing above the leaves they touch.
func TestNoopEdits(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 13))
	m := seqModel(r, 50000)
	ns := NewNodeStore(chunks.NewMemoryStore())
	mp := build(t, ns, m)
	k := m.keys[777]
	edits := []Edit{{Key: EncodeKey(nil, Int(-1)), Delete: true}, {Key: k, Value: m.vals[string(k)]}}
	before := ns.Stats().Writes
	got, err := mp.Apply(ctx, edits)
	if err != nil || got.Address() != mp.Address() {
		t.Fatalf("no-op edits changed the map: %v", err)
	}
	if w := ns.Stats().Writes - before; w > 2 {
		t.Fatalf("no-op edits wrote %d nodes", w)
	}
}

// TestEveryStepHistoryIndependence edits small maps of big values, whose
// height changes often, and compares each result with a tree built from
// scratch: growing and shrinking roots, emptied first and last nodes.
func TestEveryStepHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 16))
	ns := NewNodeStore(chunks.NewMemoryStore())
	for round := 0; round < 50; round++ {
		mp, m := NewMap(ns), newModel()
		space := 20 + r.IntN(400)
		for step := 0; step < 150; step++ {
			byKey := map[string]Edit{}
			n := 1 + r.IntN(6)
			if r.IntN(10) == 0 {
				n = 1 + r.IntN(space)
			}
			del := r.IntN(3) == 0
			for i := 0; i < n; i++ {
				k := EncodeKey(nil, Int(int64(r.IntN(space))))
				if del || r.IntN(3) == 0 {
					byKey[string(k)] = Edit{Key: k, Delete: true}
				} else {
					byKey[string(k)] = Edit{Key: k, Value: make([]byte, 100+r.IntN(400))}
				}
			}
			var edits []Edit
			for _, e := range byKey {
				edits = append(edits, e)
				if e.Delete {
					m.del(e.Key)
				} else {
					m.put(e.Key, e.Value)
				}
			}
			slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
			prev := mp
			var err error
			if mp, err = mp.Apply(ctx, edits); err != nil {
				t.Fatal(err)
			}
			want := build(t, NewNodeStore(chunks.NewMemoryStore()), m)
			if want.Address() != mp.Address() {
				t.Fatalf("round %d step %d: %d edits on a map of height %d: got %s (height %d), built %s (height %d); check: %v",
					round, step, len(edits), prev.Height(), mp.Address(), mp.Height(), want.Address(), want.Height(), mp.Check(ctx))
			}
		}
	}
}

// FuzzApply decodes a script of edit batches from the fuzzer's bytes and
// checks each resulting map against the model and against a fresh build.
// Each byte pair is one edit: key number and value size (0 deletes); a
// 0xFF key byte ends the batch.
func FuzzApply(f *testing.F) {
	f.Add([]byte{1, 200, 2, 200, 3, 200, 0xFF, 0, 0, 2, 0, 0xFF, 7, 255})
	f.Add(bytes.Repeat([]byte{5, 250, 9, 250, 13, 250, 17, 0, 0xFF, 0}, 30))
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 4000 {
			return
		}
		ctx := context.Background()
		ns := NewNodeStore(chunks.NewMemoryStore())
		mp, m := NewMap(ns), newModel()
		byKey := map[string]Edit{}
		apply := func() {
			var edits []Edit
			for _, e := range byKey {
				edits = append(edits, e)
				if e.Delete {
					m.del(e.Key)
				} else {
					m.put(e.Key, e.Value)
				}
			}
			clear(byKey)
			slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
			var err error
			if mp, err = mp.Apply(ctx, edits); err != nil {
				t.Fatal(err)
			}
			if want := build(t, NewNodeStore(chunks.NewMemoryStore()), m); want.Address() != mp.Address() {
				t.Fatalf("edited %s, built %s; check: %v", mp.Address(), want.Address(), mp.Check(ctx))
			}
		}
		for i := 0; i+1 < len(script); i += 2 {
			if script[i] == 0xFF {
				apply()
				continue
			}
			k := EncodeKey(nil, Int(int64(script[i])))
			if script[i+1] == 0 {
				byKey[string(k)] = Edit{Key: k, Delete: true}
			} else {
				byKey[string(k)] = Edit{Key: k, Value: bytes.Repeat([]byte{script[i+1]}, 4*int(script[i+1]))}
			}
		}
		apply()
		compareAll(t, mp, m)
	})
}
