package prolly

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/verso-db/verso/chunks"
)

// ref is an entry of an internal node: a child's last key, its address and
// its subtree count.
type ref struct {
	key   []byte
	addr  chunks.Address
	count uint64
	nd    *node // the child, when at hand
}

// levelWriter cuts the entries of one level into nodes by the boundary rule
// and hands each node written to emit.
type levelWriter struct {
	ns    *NodeStore
	level uint8
	sp    splitter
	keys  [][]byte
	vals  [][]byte
	count uint64
	emit  func(context.Context, ref) error
}

func newLevelWriter(ns *NodeStore, level uint8, emit func(context.Context, ref) error) *levelWriter {
	return &levelWriter{ns: ns, level: level, sp: splitter{level: level}, emit: emit}
}

// editWriters keeps the level writers of edits (editLevel) for reuse: an
// edit of one key rewrites a node of about a hundred entries per level,
// and growing the entry slices anew each time cost more than the rest of
// the entry copying.
var editWriters = sync.Pool{New: func() any {
	return &levelWriter{keys: make([][]byte, 0, 256), vals: make([][]byte, 0, 256)}
}}

// getEditWriter returns a pooled levelWriter (putEditWriter returns it).
func getEditWriter(ns *NodeStore, level uint8, emit func(context.Context, ref) error) *levelWriter {
	w := editWriters.Get().(*levelWriter)
	w.ns, w.level, w.sp, w.emit = ns, level, splitter{level: level}, emit
	return w
}

// putEditWriter drops w's entries and returns it to the pool.
func putEditWriter(w *levelWriter) {
	clear(w.keys)
	clear(w.vals)
	w.keys, w.vals, w.count, w.ns, w.emit = w.keys[:0], w.vals[:0], 0, nil, nil
	editWriters.Put(w)
}

// add appends an entry covering count leaf entries (1 at level 0).
func (w *levelWriter) add(ctx context.Context, key, val []byte, count uint64) error {
	w.keys = append(w.keys, key)
	w.vals = append(w.vals, val)
	w.count += count
	if w.sp.add(key, entrySize(key, val)) {
		return w.flush(ctx)
	}
	return nil
}

// pending reports whether entries wait for a boundary.
func (w *levelWriter) pending() bool { return len(w.keys) > 0 }

// flush writes the pending entries, if any, as a node.
func (w *levelWriter) flush(ctx context.Context) error {
	if len(w.keys) == 0 {
		return nil
	}
	nd, err := w.ns.write(ctx, w.level, w.keys, w.vals)
	if err != nil {
		return err
	}
	r := ref{key: nd.lastKey(), addr: nd.addr, count: w.count, nd: nd}
	clear(w.keys)
	clear(w.vals)
	w.keys, w.vals, w.count = w.keys[:0], w.vals[:0], 0
	w.sp.reset()
	return w.emit(ctx, r)
}

// Builder streams entries in ascending key order into a new tree, holding
// only one partial node per level in memory.
type Builder struct {
	ns     *NodeStore
	levels []*levelWriter
	nodes  []int   // nodes written per level
	last   []*node // last node written per level
	prev   []byte
	n      uint64
	err    error
	arena  []byte // copies of the pending leaf entries, reused per node
}

// NewBuilder returns a Builder writing to ns.
func NewBuilder(ns *NodeStore) *Builder {
	b := &Builder{ns: ns}
	b.addLevel()
	return b
}

func (b *Builder) addLevel() {
	level := uint8(len(b.levels))
	b.levels = append(b.levels, newLevelWriter(b.ns, level, func(ctx context.Context, r ref) error {
		return b.emitted(ctx, level, r)
	}))
	b.nodes = append(b.nodes, 0)
	b.last = append(b.last, nil)
}

func (b *Builder) emitted(ctx context.Context, level uint8, r ref) error {
	if level == 0 {
		// The leaf is encoded: nothing points into the arena any more.
		b.arena = b.arena[:0]
	}
	b.nodes[level]++
	b.last[level] = r.nd
	if int(level)+1 == len(b.levels) {
		if level+1 > maxLevel {
			return fmt.Errorf("prolly: tree deeper than %d levels", maxLevel)
		}
		b.addLevel()
	}
	return b.levels[level+1].add(ctx, r.key, refValue(r.addr, r.count), r.count)
}

// Add appends an entry. Keys must be strictly ascending. Add copies key and
// value.
func (b *Builder) Add(ctx context.Context, key, value []byte) error {
	if b.err != nil {
		return b.err
	}
	if err := checkEntry(key, value); err != nil {
		return err
	}
	if b.n > 0 && bytes.Compare(b.prev, key) >= 0 {
		b.err = fmt.Errorf("%w: %x after %x", ErrUnsorted, key, b.prev)
		return b.err
	}
	b.prev = append(b.prev[:0], key...)
	b.n++
	start := len(b.arena)
	b.arena = append(append(b.arena, key...), value...)
	k := b.arena[start : start+len(key) : start+len(key)]
	v := b.arena[start+len(key) : len(b.arena) : len(b.arena)]
	if err := b.levels[0].add(ctx, k, v, 1); err != nil {
		b.err = err
	}
	return b.err
}

func checkEntry(key, value []byte) error {
	if len(key) > MaxKeySize {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrKeyTooLarge, len(key), MaxKeySize)
	}
	if len(value) > MaxValueSize {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrValueTooLarge, len(value), MaxValueSize)
	}
	return nil
}

// Map writes the remaining nodes and returns the map built. The Builder
// must not be used afterwards.
func (b *Builder) Map(ctx context.Context) (Map, error) {
	if b.err != nil {
		return Map{}, b.err
	}
	for l := 0; l < len(b.levels); l++ {
		if err := b.levels[l].flush(ctx); err != nil {
			return Map{}, err
		}
		switch b.nodes[l] {
		case 0:
			return NewMap(b.ns), nil
		case 1:
			return checkWritten(ctx, Map{ns: b.ns, root: b.last[l]}, "Builder")
		}
	}
	panic("prolly: builder finished without a root (invariant: a level with two nodes has a level above it)")
}
