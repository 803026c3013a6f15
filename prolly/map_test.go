package prolly

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/verso-db/verso/chunks"

	"github.com/verso-db/verso/internal/testseed"
)

// stores lists the chunk stores the map tests run on. The durable file
// store joins this list when it lands in chunks/.
var stores = []struct {
	name string
	open func(t testing.TB) chunks.Store
}{
	{"memory", func(t testing.TB) chunks.Store { return chunks.NewMemoryStore() }},
}

// forEachStore runs fn once per store kind.
func forEachStore(t *testing.T, fn func(t *testing.T, newStore func(testing.TB) chunks.Store)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { fn(t, s.open) })
	}
}

// testSeed returns the seed of the randomized tests (see internal/testseed).
func testSeed(t testing.TB) uint64 { return testseed.Seed(t) }

// model is the reference: a sorted list of entries.
type model struct {
	keys [][]byte
	vals map[string][]byte
}

func newModel() *model { return &model{vals: map[string][]byte{}} }

func (m *model) search(k []byte) (int, bool) {
	return slices.BinarySearchFunc(m.keys, k, bytes.Compare)
}

func (m *model) put(k, v []byte) {
	i, ok := m.search(k)
	if !ok {
		m.keys = slices.Insert(m.keys, i, append([]byte(nil), k...))
	}
	m.vals[string(k)] = append([]byte(nil), v...)
}

func (m *model) del(k []byte) {
	if i, ok := m.search(k); ok {
		m.keys = slices.Delete(m.keys, i, i+1)
		delete(m.vals, string(k))
	}
}

func (m *model) clone() *model {
	c := newModel()
	c.keys = slices.Clone(m.keys)
	for k, v := range m.vals {
		c.vals[k] = v
	}
	return c
}

// randKey draws a key from a space of about n keys, of several shapes.
func randKey(r *rand.Rand, n int) []byte {
	i := r.IntN(n)
	switch i % 3 {
	case 0:
		return EncodeKey(nil, Int(int64(i)))
	case 1:
		return EncodeKey(nil, String("k"+strconv.Itoa(i)), Int(int64(i%7)))
	}
	return EncodeKey(nil, Uint(uint64(i)), Bytes(bytes.Repeat([]byte{byte(i)}, i%40)))
}

func randVal(r *rand.Rand) []byte {
	n := r.IntN(60)
	if r.IntN(50) == 0 {
		n = r.IntN(3000)
	}
	v := make([]byte, n)
	for i := range v {
		v[i] = byte(r.Uint32())
	}
	return v
}

// build bulk-builds a map from the model.
func build(t testing.TB, ns *NodeStore, m *model) Map {
	t.Helper()
	ctx := context.Background()
	b := NewBuilder(ns)
	for _, k := range m.keys {
		if err := b.Add(ctx, k, m.vals[string(k)]); err != nil {
			t.Fatal(err)
		}
	}
	mp, err := b.Map(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

func randModel(r *rand.Rand, n, space int) *model {
	m := newModel()
	for i := 0; i < n; i++ {
		m.put(randKey(r, space), randVal(r))
	}
	return m
}

func checkMap(t testing.TB, mp Map) {
	t.Helper()
	if err := mp.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// compareAll checks that mp holds exactly the model's entries.
func compareAll(t testing.TB, mp Map, m *model) {
	t.Helper()
	ctx := context.Background()
	if mp.Count() != uint64(len(m.keys)) {
		t.Fatalf("Count() = %d, model has %d", mp.Count(), len(m.keys))
	}
	it := mp.IterAll(ctx)
	i := 0
	for it.Next(ctx) {
		if i >= len(m.keys) || !bytes.Equal(it.Key(), m.keys[i]) || !bytes.Equal(it.Value(), m.vals[string(m.keys[i])]) {
			t.Fatalf("entry %d: got %x", i, it.Key())
		}
		i++
	}
	if it.Err() != nil || i != len(m.keys) {
		t.Fatalf("iterated %d of %d entries: %v", i, len(m.keys), it.Err())
	}
}

// readOp runs one random read against mp and the model.
func readOp(t testing.TB, r *rand.Rand, mp Map, m *model, space int) {
	t.Helper()
	ctx := context.Background()
	switch r.IntN(6) {
	case 0: // get / has
		k := randKey(r, space)
		if r.IntN(2) == 0 && len(m.keys) > 0 {
			k = m.keys[r.IntN(len(m.keys))]
		}
		v, ok, err := mp.Get(ctx, k)
		want, wok := m.vals[string(k)]
		if err != nil || ok != wok || !bytes.Equal(v, want) {
			t.Fatalf("Get(%x) = %x, %v, %v; want %x, %v", k, v, ok, err, want, wok)
		}
		if has, err := mp.Has(ctx, k); err != nil || has != wok {
			t.Fatalf("Has(%x) = %v, %v", k, has, err)
		}
	case 1, 2: // range scan, both directions, with optional bounds
		var lo, hi []byte
		if r.IntN(4) != 0 {
			lo = randKey(r, space)
		}
		if r.IntN(4) != 0 {
			hi = randKey(r, space)
		}
		if r.IntN(4) == 0 && lo != nil && len(m.keys) > 0 {
			lo = m.keys[r.IntN(len(m.keys))]
		}
		if r.IntN(4) == 0 && hi != nil && len(m.keys) > 0 {
			hi = m.keys[r.IntN(len(m.keys))]
		}
		rg := Range{Start: lo, Stop: hi, Reverse: r.IntN(2) == 0}
		if r.IntN(3) == 0 {
			rg.StartExclusive, rg.StopInclusive = r.IntN(2) == 0, r.IntN(2) == 0
		}
		if r.IntN(8) == 0 && lo != nil {
			rg = PrefixRange(lo[:r.IntN(len(lo)+1)])
			rg.Reverse = r.IntN(2) == 0
		}
		reverse := rg.Reverse
		var want [][]byte
		for _, k := range m.keys {
			if rg.Contains(k) {
				want = append(want, k)
			}
		}
		if reverse {
			slices.Reverse(want)
		}
		limit := 1 + r.IntN(400)
		it := mp.Iter(ctx, rg)
		n := 0
		for n < limit && it.Next(ctx) {
			if n >= len(want) || !bytes.Equal(it.Key(), want[n]) || !bytes.Equal(it.Value(), m.vals[string(want[n])]) {
				t.Fatalf("range [%x, %x) reverse=%v: entry %d is %x", lo, hi, reverse, n, it.Key())
			}
			n++
		}
		if it.Err() != nil || (n < limit && n != len(want)) {
			t.Fatalf("range [%x, %x) reverse=%v: %d entries, want %d: %v", lo, hi, reverse, n, len(want), it.Err())
		}
		if c, err := mp.CountIn(ctx, rg); err != nil || c != uint64(len(want)) {
			t.Fatalf("CountIn(%+v) = %d, %v; want %d", rg, c, err, len(want))
		}
	case 3: // i-th key
		if len(m.keys) == 0 {
			if _, _, err := mp.GetOrdinal(ctx, 0); !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("GetOrdinal on empty map: %v", err)
			}
			return
		}
		i := r.IntN(len(m.keys))
		k, v, err := mp.GetOrdinal(ctx, uint64(i))
		if err != nil || !bytes.Equal(k, m.keys[i]) || !bytes.Equal(v, m.vals[string(k)]) {
			t.Fatalf("GetOrdinal(%d) = %x, %v", i, k, err)
		}
		it := mp.IterFrom(ctx, uint64(i))
		for j := i; j < i+5 && j < len(m.keys); j++ {
			if !it.Next(ctx) || !bytes.Equal(it.Key(), m.keys[j]) {
				t.Fatalf("IterFrom(%d): entry %d wrong", i, j)
			}
		}
	case 4: // ordinal of a key
		k := randKey(r, space)
		want, _ := m.search(k)
		got, err := mp.Ordinal(ctx, k)
		if err != nil || got != uint64(want) {
			t.Fatalf("Ordinal(%x) = %d, %v; want %d", k, got, err, want)
		}
	case 5: // count of a range
		lo, hi := randKey(r, space), randKey(r, space)
		a, _ := m.search(lo)
		b, _ := m.search(hi)
		want := max(b-a, 0)
		got, err := mp.CountRange(ctx, lo, hi)
		if err != nil || got != uint64(want) {
			t.Fatalf("CountRange(%x, %x) = %d, %v; want %d", lo, hi, got, err, want)
		}
	}
}

func TestMapReadsModel(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(testing.TB) chunks.Store) {
		seed := testSeed(t)
		r := rand.New(rand.NewPCG(seed, 2))
		ops := 0
		for _, n := range []int{0, 1, 2, 50, 3000, 20000} {
			m := randModel(r, n, 2*n+1)
			mp := build(t, NewNodeStore(newStore(t)), m)
			checkMap(t, mp)
			compareAll(t, mp, m)
			for i := 0; i < 3000; i++ {
				readOp(t, r, mp, m, 2*n+1)
				ops++
			}
		}
		t.Logf("%d read operations", ops)
	})
}

func TestMapReopen(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	m := randModel(r, 5000, 10000)
	ns := NewNodeStore(chunks.NewMemoryStore())
	mp := build(t, ns, m)
	again, err := OpenMap(ctx, ns, mp.Address())
	if err != nil {
		t.Fatal(err)
	}
	compareAll(t, again, m)
	if mp.Height() < 2 {
		t.Fatalf("height %d for 5000 entries", mp.Height())
	}
}

func TestBuilderErrors(t *testing.T) {
	ctx := context.Background()
	b := NewBuilder(NewNodeStore(chunks.NewMemoryStore()))
	if err := b.Add(ctx, []byte("b"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, []byte("a"), nil); !errors.Is(err, ErrUnsorted) {
		t.Fatalf("unsorted Add: %v", err)
	}
	if _, err := b.Map(ctx); !errors.Is(err, ErrUnsorted) {
		t.Fatalf("Map after unsorted Add: %v", err)
	}
	b = NewBuilder(NewNodeStore(chunks.NewMemoryStore()))
	if err := b.Add(ctx, make([]byte, MaxKeySize+1), nil); !errors.Is(err, ErrKeyTooLarge) {
		t.Fatalf("large key: %v", err)
	}
	if err := b.Add(ctx, []byte("k"), make([]byte, MaxValueSize+1)); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("large value: %v", err)
	}
}

// goldenModel is a fixed input whose root address is pinned.
func goldenModel() *model {
	m := newModel()
	for i := 0; i < 20000; i++ {
		m.put(EncodeKey(nil, Int(int64(i)*7-5000)), EncodeTuple(nil, String("row "+strconv.Itoa(i)), Int(int64(i)), Null()))
	}
	return m
}

// TestGoldenHash pins the root address of a fixed input: if it changes, the
// key, value or node format or the boundary rule changed, and with it every
// stored tree's address. That needs a new format version, not a new pin.
func TestGoldenHash(t *testing.T) {
	const want = "j5tevr3bfl1jn54a72kfvkfv5t8cb079"
	mp := build(t, NewNodeStore(chunks.NewMemoryStore()), goldenModel())
	checkMap(t, mp)
	if got := mp.Address().String(); got != want {
		t.Fatalf("golden root address %s, want %s (height %d, count %d)", got, want, mp.Height(), mp.Count())
	}
}

// FuzzDecodeNode feeds arbitrary bytes to the node decoder: it must never
// panic, and a node it accepts must re-encode to the same bytes.
func FuzzDecodeNode(f *testing.F) {
	f.Add(encodeNode(0, [][]byte{[]byte("a"), []byte("b")}, [][]byte{[]byte("1"), nil}))
	var a chunks.Address
	a[0] = 1
	f.Add(encodeNode(1, [][]byte{[]byte("k")}, [][]byte{refValue(a, 3)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		nd, err := decodeNode(chunks.Of(b), b)
		if err != nil {
			return
		}
		keys, vals := make([][]byte, nd.n), make([][]byte, nd.n)
		for i := 0; i < nd.n; i++ {
			keys[i], vals[i] = nd.key(i), nd.value(i)
			_ = nd.before(i)
		}
		if re := encodeNode(nd.level, keys, vals); !bytes.Equal(re, b) {
			t.Fatalf("node %x re-encodes to %x", b, re)
		}
		_ = nd.count()
		_ = nd.search([]byte("m"))
	})
}

func TestRangeBounds(t *testing.T) {
	ctx := context.Background()
	ns := NewNodeStore(chunks.NewMemoryStore())
	ed := NewMap(ns).Edit()
	for i := 0; i < 10; i++ {
		_ = ed.Put(EncodeKey(nil, Int(int64(i))), nil)
		_ = ed.Put(EncodeKey(nil, Int(int64(i)), String("x")), nil)
	}
	mp, err := ed.Map(ctx)
	if err != nil {
		t.Fatal(err)
	}
	count := func(r Range) int {
		n := 0
		it := mp.Iter(ctx, r)
		for it.Next(ctx) {
			if !r.Contains(it.Key()) {
				t.Fatalf("key %x outside %+v", it.Key(), r)
			}
			n++
		}
		return n
	}
	k3, k6 := EncodeKey(nil, Int(3)), EncodeKey(nil, Int(6))
	for _, c := range []struct {
		r    Range
		want int
	}{
		{Range{Start: k3, Stop: k6}, 6},
		{Range{Start: k3, Stop: k6, StartExclusive: true}, 5},
		{Range{Start: k3, Stop: k6, StopInclusive: true}, 7},
		{Range{Start: k3, Stop: k6, StartExclusive: true, StopInclusive: true, Reverse: true}, 6},
		{Range{Stop: k6, StopInclusive: true, Reverse: true}, 13},
		{PrefixRange(k3), 2},
		{PrefixRange(nil), 20},
		{PrefixRange([]byte{0xFF, 0xFF}), 0},
	} {
		if got := count(c.r); got != c.want {
			t.Errorf("%+v: %d keys, want %d", c.r, got, c.want)
		}
	}
}

func TestWalkNodesAndPut(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 17))
	m := seqModel(r, 20000)
	mem := chunks.NewMemoryStore()
	mp := build(t, NewNodeStore(mem), m)
	seen := chunks.AddressSet{}
	if err := mp.WalkNodes(ctx, func(a chunks.Address, level int) (bool, error) {
		seen.Add(a)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != mem.Len() {
		t.Fatalf("walked %d nodes, the store holds %d", len(seen), mem.Len())
	}
	// A one-key change shares all but one node per level.
	k := m.keys[5000]
	mp2, err := mp.Put(ctx, k, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	fresh := 0
	if err := mp2.WalkNodes(ctx, func(a chunks.Address, level int) (bool, error) {
		if seen.Has(a) {
			return false, nil
		}
		fresh++
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if fresh > mp2.Height()+2 {
		t.Fatalf("a one-key put made %d new nodes in a tree of height %d", fresh, mp2.Height())
	}
	mp3, err := mp2.Delete(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if mp3.Count() != mp.Count()-1 {
		t.Fatalf("count %d after delete, want %d", mp3.Count(), mp.Count()-1)
	}
}
