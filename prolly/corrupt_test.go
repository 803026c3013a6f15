package prolly

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// lyingStore returns wrong bytes for some addresses: another chunk, a
// truncated chunk, or a chunk with one byte flipped.
type lyingStore struct {
	chunks.Store
	seed  uint64
	other [][]byte
}

func (s *lyingStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	data, err := s.Store.Get(ctx, a)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(s.seed, uint64(a[0])<<8|uint64(a[1])))
	switch r.IntN(24) {
	case 0:
		return s.other[r.IntN(len(s.other))], nil
	case 1:
		return data[:r.IntN(len(data)+1)], nil
	case 2:
		data[r.IntN(len(data))] ^= byte(1 + r.IntN(255))
	}
	return data, nil
}

// TestCorruptStoreNoPanic runs every kind of operation over a store that
// returns wrong chunks: operations may fail or give wrong answers, but must
// not panic.
func TestCorruptStoreNoPanic(t *testing.T) {
	ctx := context.Background()
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 14))
	mem := chunks.NewMemoryStore()
	good := NewNodeStore(mem)
	m := randModel(r, 20000, 40000)
	gm := build(t, good, m)
	other := build(t, good, randModel(r, 5000, 40000))
	var all [][]byte
	for _, mp := range []Map{gm, other} {
		var walk func(nd *node)
		walk = func(nd *node) {
			all = append(all, nd.data)
			for i := 0; i < nd.n && !nd.leaf(); i++ {
				c, _ := good.read(ctx, nd.child(i))
				walk(c)
			}
		}
		walk(mp.root)
	}
	opened := 0
	for round := 0; round < 30; round++ {
		bad := NewNodeStoreCache(&lyingStore{Store: mem, seed: seed + uint64(round), other: all}, 0)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("round %d: panic: %v", round, p)
				}
			}()
			bm, err := OpenMap(ctx, bad, gm.Address())
			if err != nil {
				return
			}
			opened++
			for i := 0; i < 200; i++ {
				k := randKey(r, 40000)
				_, _, _ = bm.Get(ctx, k)
				_, _ = bm.Ordinal(ctx, k)
				_, _, _ = bm.GetOrdinal(ctx, uint64(r.IntN(int(bm.Count()+1))))
				keys := [][]byte{randKey(r, 40000), randKey(r, 40000), k}
				_ = bm.Lookup().Get(ctx, keys, make([][]byte, len(keys)))
			}
			for _, rev := range []bool{false, true} {
				it := bm.Iter(ctx, Range{Reverse: rev})
				for it.Next(ctx) {
				}
			}
			_, _ = bm.Apply(ctx, randBatch(r, m.clone(), 200, 40000))
			_ = DiffMaps(ctx, bm, other, func(Diff) error { return nil })
			_, _ = Merge(ctx, other, bm, gm, ResolveOurs)
			_ = bm.Check(ctx)
		}()
	}
	t.Logf("%d of 30 rounds could open the root", opened)
}
