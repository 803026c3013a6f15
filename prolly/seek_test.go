package prolly

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestIterSeekModel interleaves Next and Seek (to keys near, far, behind
// and outside the range) on ascending iterators over random ranges, and
// compares every step with the sorted model: Seek lands on the first
// model key >= max(sought, current) within the range.
func TestIterSeekModel(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(testSeed(t), 21))
	for _, size := range []int{0, 1, 50, 3000, 20000} {
		m := randModel(r, size, 3*size+10)
		mp := build(t, NewNodeStore(chunks.NewMemoryStore()), m)
		for trial := 0; trial < 40; trial++ {
			var rg Range
			if r.IntN(3) > 0 {
				rg.Start = randKey(r, 3*size+10)
				rg.StartExclusive = r.IntN(2) == 0
			}
			if r.IntN(3) > 0 {
				rg.Stop = randKey(r, 3*size+10)
				rg.StopInclusive = r.IntN(2) == 0
			}
			// want is the model index the iterator should be at; -1 before
			// the first step.
			in := func(i int) bool { return i < len(m.keys) && rg.Contains(m.keys[i]) }
			first, _ := slices.BinarySearchFunc(m.keys, rg.Start, bytes.Compare)
			if rg.Start == nil {
				first = 0
			}
			for first < len(m.keys) && rg.beforeStart(m.keys[first]) {
				first++
			}
			it := mp.Iter(ctx, rg)
			cur := -1 // model index of the iterator's entry; -1 before the first step
			for step := 0; ; step++ {
				var got bool
				var want int
				if r.IntN(2) == 0 {
					got = it.Next(ctx)
					want = max(cur+1, first)
				} else {
					var k []byte
					switch j := cur + 1 + r.IntN(20); {
					case r.IntN(4) == 0 && j < len(m.keys): // a key a short way ahead
						k = m.keys[j]
					case r.IntN(3) == 0 && len(m.keys) > 0: // just after a model key
						k = append(slices.Clone(m.keys[r.IntN(len(m.keys))]), 0)
					default:
						k = randKey(r, 3*size+10)
					}
					got = it.Seek(ctx, k)
					i, _ := slices.BinarySearchFunc(m.keys, k, bytes.Compare)
					want = max(i, cur, first)
				}
				ok := in(want)
				if got != ok {
					t.Fatalf("size %d, range %+v, step %d: got %v, model index %d in range %v", size, rg, step, got, want, ok)
				}
				if !ok {
					if it.Err() != nil {
						t.Fatal(it.Err())
					}
					if it.Next(ctx) || it.Seek(ctx, nil) {
						t.Fatalf("size %d, step %d: the iterator went on after its end", size, step)
					}
					break
				}
				if !bytes.Equal(it.Key(), m.keys[want]) || !bytes.Equal(it.Value(), m.vals[string(m.keys[want])]) {
					t.Fatalf("size %d, step %d: at %x, model %x", size, step, it.Key(), m.keys[want])
				}
				cur = want
			}
		}
	}
}

func TestIterSeekReversePanics(t *testing.T) {
	mp := build(t, NewNodeStore(chunks.NewMemoryStore()), seqModel(rand.New(rand.NewPCG(1, 1)), 10))
	defer func() {
		if recover() == nil {
			t.Fatal("Seek on a reverse Iter did not panic")
		}
	}()
	mp.Iter(context.Background(), Range{Reverse: true}).Seek(context.Background(), nil)
}
