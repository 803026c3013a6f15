package prolly

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestLookupModel gets runs of keys (mostly ascending: present, absent,
// near and far ahead, past the end; sometimes going back) with one Lookup
// and compares each value with the sorted model.
func TestLookupModel(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 31))
	for _, size := range []int{0, 1, 50, 3000, 20000} {
		m := randModel(r, size, 3*size+10)
		// A small cache: runs also read leaves from the store.
		mp := build(t, NewNodeStoreCache(chunks.NewMemoryStore(), 64<<10), m)
		lk := mp.Lookup()
		cur := 0 // model index the keys are drawn near
		for run := 0; run < 300; run++ {
			keys := make([][]byte, r.IntN(40))
			for i := range keys {
				switch {
				case r.IntN(40) == 0: // go back
					cur = r.IntN(len(m.keys) + 1)
				case r.IntN(10) == 0: // far ahead
					cur += r.IntN(500)
				default:
					cur += r.IntN(4)
				}
				switch {
				case r.IntN(3) > 0 && cur < len(m.keys):
					keys[i] = m.keys[cur]
				case r.IntN(2) == 0 && cur < len(m.keys):
					keys[i] = append(slices.Clone(m.keys[cur]), 0) // absent, just after
				default:
					keys[i] = randKey(r, 3*size+10)
				}
			}
			vals := make([][]byte, len(keys)+1)
			vals[len(keys)] = []byte("untouched")
			if err := lk.Get(ctx, keys, vals); err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				want, ok := m.vals[string(k)]
				if ok != (vals[i] != nil) || !bytes.Equal(vals[i], want) {
					t.Fatalf("size %d run %d key %d (%x): got %x (%v), want %x (%v)", size, run, i, k, vals[i], vals[i] != nil, want, ok)
				}
			}
			if string(vals[len(keys)]) != "untouched" {
				t.Fatalf("Get wrote past len(keys)")
			}
			if cur > len(m.keys)+100 {
				cur = 0
			}
		}
	}
}
