package closure

import (
	"context"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// TestApplyWhenTreeGrows appends keys one at a time, the way closures grow,
// through the tree's first growths in height. prolly's Apply lost entries
// there (see apply.go); apply must not. The test logs whether prolly still
// has the bug, so the workaround can go once it is fixed.
func TestApplyWhenTreeGrows(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	m := prolly.NewMap(ns)
	rawBroken := false
	for i := range 12000 {
		edits := []prolly.Edit{{Key: Entry{Height(i + 1), fakeAddr(i)}.Key()}}
		if raw, err := m.Apply(ctx, edits); err == nil && raw.Count() != m.Count()+1 {
			rawBroken = true
		}
		n, err := apply(ctx, m, edits)
		if err != nil {
			t.Fatal(err)
		}
		if n.Count() != m.Count()+1 {
			t.Fatalf("step %d: count %d -> %d, height %d -> %d", i, m.Count(), n.Count(), m.Height(), n.Height())
		}
		m = n
	}
	if err := m.Check(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("prolly.Map.Apply still loses entries when the tree grows: %v", rawBroken)
}
