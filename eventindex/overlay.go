package eventindex

import (
	"context"
	"slices"

	"github.com/verso-db/verso/prolly"
)

// overlay is a prolly map with pending edits that reads see: a Batch's
// view of one of the log's maps. Its memory grows with the batch.
type overlay struct {
	base  prolly.Map
	edits map[string]pendingValue
}

type pendingValue struct {
	val []byte
	del bool
}

func newOverlay(m prolly.Map) overlay { return overlay{base: m, edits: map[string]pendingValue{}} }

func (o *overlay) get(ctx context.Context, k []byte) ([]byte, bool, error) {
	if pv, ok := o.edits[string(k)]; ok {
		return pv.val, !pv.del, nil
	}
	return o.base.Get(ctx, k)
}

func (o *overlay) put(k, v []byte) { o.edits[string(k)] = pendingValue{val: v} }

func (o *overlay) del(k []byte) { o.edits[string(k)] = pendingValue{del: true} }

func (o *overlay) apply(ctx context.Context) (prolly.Map, error) {
	if len(o.edits) == 0 {
		return o.base, nil
	}
	keys := make([]string, 0, len(o.edits))
	for k := range o.edits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	edits := make([]prolly.Edit, len(keys))
	for i, k := range keys {
		pv := o.edits[k]
		edits[i] = prolly.Edit{Key: []byte(k), Value: pv.val, Delete: pv.del}
	}
	return o.base.Apply(ctx, edits)
}
