package eventindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/verso-db/verso/prolly"
)

// overlay is a prolly map with pending edits that reads see: a Batch's
// view of one of the log's maps. Its memory grows with the batch. It
// keeps the keys in the order they were first edited: the log's keys
// (new positions) arrive sorted, which spares the sort.
type overlay struct {
	base  prolly.Map
	edits map[string]pendingValue
	order []string
}

type pendingValue struct {
	key []byte // the key as put (apply hands it on without a copy)
	val []byte
	del bool
}

func newOverlay(m prolly.Map) overlay {
	return overlay{base: m, edits: make(map[string]pendingValue, 256)}
}

func (o *overlay) get(ctx context.Context, k []byte) ([]byte, bool, error) {
	if pv, ok := o.edits[string(k)]; ok {
		return pv.val, !pv.del, nil
	}
	return o.base.Get(ctx, k)
}

func (o *overlay) set(k []byte, pv pendingValue) {
	pv.key = k
	if _, ok := o.edits[string(k)]; ok {
		o.edits[string(k)] = pv
		return
	}
	s := string(k)
	o.edits[s] = pv
	o.order = append(o.order, s)
}

func (o *overlay) put(k, v []byte) { o.set(k, pendingValue{val: v}) }

func (o *overlay) del(k []byte) { o.set(k, pendingValue{del: true}) }

func (o *overlay) apply(ctx context.Context) (prolly.Map, error) {
	if len(o.order) == 0 {
		return o.base, nil
	}
	if !slices.IsSorted(o.order) {
		slices.SortFunc(o.order, strings.Compare)
	}
	edits := make([]prolly.Edit, len(o.order))
	for i, k := range o.order {
		pv := o.edits[k]
		edits[i] = prolly.Edit{Key: pv.key, Value: pv.val, Delete: pv.del}
	}
	return o.base.Apply(ctx, edits)
}

// editList is a write-only overlay, for the category and type indexes,
// which a Batch never reads: puts and deletes are kept in order in one
// slice, with no map, and sorted once (the last edit of a key wins).
type editList struct {
	base  prolly.Map
	edits []prolly.Edit
}

func (o *editList) put(k, v []byte) { o.edits = append(o.edits, prolly.Edit{Key: k, Value: v}) }

func (o *editList) del(k []byte) { o.edits = append(o.edits, prolly.Edit{Key: k, Delete: true}) }

func (o *editList) apply(ctx context.Context) (prolly.Map, error) {
	if len(o.edits) == 0 {
		return o.base, nil
	}
	cmp := func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(o.edits, cmp) {
		slices.SortStableFunc(o.edits, cmp)
	}
	out := o.edits[:0]
	for _, e := range o.edits {
		if len(out) > 0 && bytes.Equal(out[len(out)-1].Key, e.Key) {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	return o.base.Apply(ctx, out)
}

// logOverlay is a Batch's view of the log. Every event a Batch appends
// gets the next position, so the records it adds are kept in a slice
// indexed by position (no map, no sort); the positions it removes from
// the base (retention) are kept in a set.
type logOverlay struct {
	base    prolly.Map
	first   Position   // the base's next position: added[i] is at first+i
	added   [][]byte   // nil: added, then removed by this Batch
	removed []Position // positions of the base removed
	gone    map[Position]bool
}

func newLogOverlay(m prolly.Map, next Position) logOverlay {
	return logOverlay{base: m, first: next}
}

func (o *logOverlay) get(ctx context.Context, p Position) ([]byte, bool, error) {
	if p >= o.first {
		if i := p - o.first; i < Position(len(o.added)) && o.added[i] != nil {
			return o.added[i], true, nil
		}
		return nil, false, nil
	}
	if o.gone[p] {
		return nil, false, nil
	}
	return o.base.Get(ctx, logKey(p))
}

// put adds the record of the next position.
func (o *logOverlay) put(p Position, rec []byte) {
	if p != o.first+Position(len(o.added)) {
		panic(fmt.Sprintf("eventindex: log record put at %d, next is %d (invariant: a Batch appends at its next position)", p, o.first+Position(len(o.added))))
	}
	o.added = append(o.added, rec)
}

func (o *logOverlay) del(p Position) {
	if p >= o.first {
		if i := p - o.first; i < Position(len(o.added)) {
			o.added[i] = nil
		}
		return
	}
	if o.gone == nil {
		o.gone = map[Position]bool{}
	}
	if !o.gone[p] {
		o.gone[p] = true
		o.removed = append(o.removed, p)
	}
}

func (o *logOverlay) apply(ctx context.Context) (prolly.Map, error) {
	if len(o.added) == 0 && len(o.removed) == 0 {
		return o.base, nil
	}
	slices.Sort(o.removed)
	edits := make([]prolly.Edit, 0, len(o.removed)+len(o.added))
	for _, p := range o.removed {
		edits = append(edits, prolly.Edit{Key: logKey(p), Delete: true})
	}
	for i, rec := range o.added {
		if rec != nil {
			edits = append(edits, prolly.Edit{Key: logKey(o.first + Position(i)), Value: rec})
		}
	}
	if len(edits) == 0 {
		return o.base, nil
	}
	return o.base.Apply(ctx, edits)
}
