package commitgraph

import (
	"bytes"
	"context"
	"errors"

	"github.com/verso-db/verso/prolly"
)

// apply (a copy of closure/apply.go) is prolly.Map.Apply with a workaround for a bug in prolly (found on
// 2026-11-30, prolly/edit.go, levelResult.parentEdits): when an edit makes
// the tree one level taller and the old root's entries come out as the
// first new node unchanged, the new root is built without that node and the
// map silently loses its entries. It happens only when the height grows, so
// then the map is rebuilt from its entries with a Builder (O(n), but the
// height grows only O(log n) times in a history). Built with -tags
// invariants, prolly's own check catches the broken map and Apply fails
// with prolly.ErrCheck: that too falls back to the rebuild.
func apply(ctx context.Context, m prolly.Map, edits []prolly.Edit) (prolly.Map, error) {
	n, err := m.Apply(ctx, edits)
	if errors.Is(err, prolly.ErrCheck) || err == nil && n.Height() > m.Height() {
		return rebuild(ctx, m, edits)
	}
	return n, err
}

// rebuild streams the entries of m merged with the sorted edits into a
// Builder.
func rebuild(ctx context.Context, m prolly.Map, edits []prolly.Edit) (prolly.Map, error) {
	b := prolly.NewBuilder(m.NodeStore())
	it := m.IterAll(ctx)
	more := it.Next(ctx)
	for _, e := range edits {
		for more && bytes.Compare(it.Key(), e.Key) < 0 {
			if err := b.Add(ctx, it.Key(), it.Value()); err != nil {
				return prolly.Map{}, err
			}
			more = it.Next(ctx)
		}
		if more && bytes.Equal(it.Key(), e.Key) {
			more = it.Next(ctx)
		}
		if !e.Delete {
			if err := b.Add(ctx, e.Key, e.Value); err != nil {
				return prolly.Map{}, err
			}
		}
	}
	for ; more; more = it.Next(ctx) {
		if err := b.Add(ctx, it.Key(), it.Value()); err != nil {
			return prolly.Map{}, err
		}
	}
	if err := it.Err(); err != nil {
		return prolly.Map{}, err
	}
	return b.Map(ctx)
}
