package tables

import (
	"bytes"
	"context"

	"github.com/google/btree"
	"github.com/verso-db/verso/prolly"
)

// overlay is a map's pending edits over its stored state: reads see the
// edits, and apply writes them in one batch. Cloning it is O(1) (the
// B-tree copies on write), which is how savepoints are taken.
type overlay struct {
	base prolly.Map
	pend *btree.BTreeG[pendEntry]
}

type pendEntry struct {
	key string
	val []byte
	del bool
}

func lessPend(a, b pendEntry) bool { return a.key < b.key }

func newOverlay(m prolly.Map) *overlay {
	return &overlay{base: m, pend: btree.NewG(32, lessPend)}
}

func (o *overlay) clone() *overlay { return &overlay{base: o.base, pend: o.pend.Clone()} }

func (o *overlay) get(ctx context.Context, key []byte) ([]byte, bool, error) {
	if e, ok := o.pend.Get(pendEntry{key: string(key)}); ok {
		return e.val, !e.del, nil
	}
	return o.base.Get(ctx, key)
}

func (o *overlay) put(key, val []byte) {
	o.pend.ReplaceOrInsert(pendEntry{key: string(key), val: val})
}

func (o *overlay) del(key []byte) {
	o.pend.ReplaceOrInsert(pendEntry{key: string(key), del: true})
}

// scan calls fn for each live entry with lo <= key < hi in key order, the
// pending edits merged over the stored map, until fn returns false.
func (o *overlay) scan(ctx context.Context, lo, hi []byte, fn func(key, val []byte) bool) error {
	var pend []pendEntry
	collect := func(e pendEntry) bool {
		pend = append(pend, e)
		return true
	}
	if hi == nil {
		o.pend.AscendGreaterOrEqual(pendEntry{key: string(lo)}, collect)
	} else {
		o.pend.AscendRange(pendEntry{key: string(lo)}, pendEntry{key: string(hi)}, collect)
	}
	it := o.base.IterRange(ctx, lo, hi, false)
	more := it.Next(ctx)
	for more || len(pend) > 0 {
		var c int
		switch {
		case !more:
			c = 1
		case len(pend) == 0:
			c = -1
		default:
			c = bytes.Compare(it.Key(), []byte(pend[0].key))
		}
		if c < 0 {
			if !fn(it.Key(), it.Value()) {
				return nil
			}
			more = it.Next(ctx)
			continue
		}
		e := pend[0]
		pend = pend[1:]
		if c == 0 {
			more = it.Next(ctx)
		}
		if !e.del && !fn([]byte(e.key), e.val) {
			return nil
		}
	}
	return it.Err()
}

// apply writes the pending edits and returns the new map.
func (o *overlay) apply(ctx context.Context) (prolly.Map, error) {
	if o.pend.Len() == 0 {
		return o.base, nil
	}
	edits := make([]prolly.Edit, 0, o.pend.Len())
	o.pend.Ascend(func(e pendEntry) bool {
		edits = append(edits, prolly.Edit{Key: []byte(e.key), Value: e.val, Delete: e.del})
		return true
	})
	return o.base.Apply(ctx, edits)
}
