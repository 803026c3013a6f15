package prolly

import (
	"context"
	"fmt"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestApplyGrowsTree grows maps one edit at a time, at the end, at the front
// and in the middle, through every height change: after each Apply the map
// holds every entry and equals the map a Builder makes from them. (Apply
// once lost the entries of an unchanged old root when the tree grew.)
func TestApplyGrowsTree(t *testing.T) {
	ctx := context.Background()
	orders := map[string]func(i int) int64{
		"append":  func(i int) int64 { return int64(i) },
		"prepend": func(i int) int64 { return int64(-i) },
		"middle":  func(i int) int64 { return int64((i * 7919) % 30011) },
	}
	for name, key := range orders {
		t.Run(name, func(t *testing.T) {
			ns := NewNodeStore(chunks.NewMemoryStore())
			m := NewMap(ns)
			ref := newModel()
			grew := 0
			for i := 0; i < 12000; i++ {
				k := EncodeKey(nil, Int(key(i)))
				v := []byte(fmt.Sprintf("value %d of the growing map", i))
				n, err := m.Apply(ctx, []Edit{{Key: k, Value: v}})
				if err != nil {
					t.Fatal(err)
				}
				ref.put(k, v)
				if n.Count() != uint64(i+1) {
					t.Fatalf("after %d edits: %d entries (height %d -> %d)", i+1, n.Count(), m.Height(), n.Height())
				}
				if n.Height() != m.Height() {
					grew++
					if err := n.Check(ctx); err != nil {
						t.Fatal(err)
					}
					if want := build(t, ns, ref); n.Address() != want.Address() {
						t.Fatalf("after %d edits the tree grew to height %d and differs from the built one", i+1, n.Height())
					}
				}
				m = n
			}
			if grew < 2 {
				t.Fatalf("the tree grew only %d times", grew)
			}
		})
	}
}
