package prolly

import (
	"bytes"
	"context"
)

// A Lookup gets the values of many keys of one map, a run of keys at a
// time, for a reader whose keys ascend (a join, the records an index
// points to). It keeps its path from the root between keys, as a seeking
// Iter does, so a key near the last one costs a search in the nodes the
// path holds, not a descent from the root.
//
// It also reads the leaves a run needs in three passes instead of one
// leaf after the other: first it routes every key of the run through the
// internal nodes (few, and hot in the processor's caches) to its leaf,
// taking the leaf from the node store without reading its bytes; then it
// reads one byte of each new leaf's offsets and keys, loads that depend
// on no other and so overlap their cache misses; then it checks each new
// leaf against its parent entry and searches it. Leaves scattered in
// memory, one per key (an index that picks one event in ten), cost about
// one miss's wait for a run instead of one for each leaf.
//
// A Lookup is not safe for concurrent use. The values it returns point
// into immutable nodes: do not modify them.
type Lookup struct {
	m    Map
	path []frame // internal nodes from the root to level 1, each at the child the last key went to
	leaf *node   // the leaf the last key went to; nil: none yet, or past the end
	last []byte  // the last key routed
	// Per key of a run: its leaf (nil: past the end of the map), and for a
	// leaf not checked yet against its parent entry, the parent frame.
	leaves []*node
	unchkd []frame
	// The leaf the last key was searched in, and the index found: the
	// next key, if it ascends from there, is searched from that index.
	sleaf *node
	sidx  int
	skey  []byte // the key searched last
	sink  byte   // what touch read, kept so that the loads stay
}

// Lookup returns a Lookup over m.
func (m Map) Lookup() *Lookup { return &Lookup{m: m} }

// Get sets vals[i] to the value of keys[i] (len(vals) >= len(keys)), or to
// nil when m does not hold it. Keys in ascending order, within a run and
// from one run to the next, are the fast case; a key before the one
// routed last makes the Lookup start again from the root.
func (lk *Lookup) Get(ctx context.Context, keys, vals [][]byte) error {
	if lk.m.root == nil {
		clear(vals[:len(keys)])
		return nil
	}
	n := len(keys)
	if cap(lk.leaves) < n {
		lk.leaves = make([]*node, n)
		lk.unchkd = make([]frame, n)
	}
	leaves, unchkd := lk.leaves[:n], lk.unchkd[:n]
	// 1. Route each key to its leaf.
	for i, k := range keys {
		unchkd[i] = frame{}
		if err := lk.route(ctx, k, &unchkd[i]); err != nil {
			clear(leaves)
			return err
		}
		leaves[i] = lk.leaf
	}
	// 2. Touch the new leaves.
	sum, loads := touchLeaves(unchkd, leaves)
	lk.sink ^= sum
	if loads > 0 {
		lk.m.ns.loads.Add(uint64(loads))
	}
	// 3. Check the new leaves and search them: from where the last
	// search in the same leaf ended if the key ascends from its key.
	prev, j, pk := lk.sleaf, lk.sidx, lk.skey
	for i, k := range keys {
		nd := leaves[i]
		vals[i] = nil
		if nd == nil {
			continue
		}
		if p := unchkd[i]; p.nd != nil {
			if err := checkChild(p.nd, p.idx, nd); err != nil {
				lk.reset()
				clear(leaves)
				return err
			}
		}
		if nd == prev && bytes.Compare(pk, k) <= 0 {
			j = nd.seekFrom(j, k)
		} else {
			j = nd.search(k)
			prev = nd
		}
		pk = k
		if j < nd.n && bytes.Equal(nd.key(j), k) {
			vals[i] = nd.value(j)
		}
	}
	lk.sleaf, lk.sidx = prev, j
	if prev != nil {
		lk.skey = append(lk.skey[:0], pk...)
	}
	clear(leaves)
	clear(unchkd)
	return nil
}

// touchLeaves reads three bytes of each leaf loaded in this run (its
// header and offsets, the middle and the end of its keys), marks it used
// in the node cache, and returns the sum of the bytes and the number of
// leaves.
func touchLeaves(unchkd []frame, leaves []*node) (byte, int) {
	var s byte
	n := 0
	for i, p := range unchkd {
		if p.nd == nil {
			continue
		}
		nd := leaves[i]
		markUsed(nd)
		s += nd.data[0] + nd.data[(nd.kbase+nd.vbase)/2] + nd.data[nd.vbase-1]
		n++
	}
	return s, n
}

func (lk *Lookup) reset() {
	lk.path = lk.path[:0]
	lk.leaf = nil
	lk.last = lk.last[:0]
	lk.sleaf = nil
}

// route moves the path to key and sets lk.leaf to the leaf that holds it
// if any key of the map does (nil past the map's end). A leaf it loads
// anew is not checked: route sets *unchkd to its parent frame.
func (lk *Lookup) route(ctx context.Context, key []byte, unchkd *frame) error {
	root := lk.m.root
	if root.leaf() {
		lk.leaf = root
		return nil
	}
	if len(lk.path) == 0 || bytes.Compare(key, lk.last) < 0 {
		lk.reset()
		lk.path = append(lk.path, frame{nd: root})
	}
	lk.last = append(lk.last[:0], key...)
	// Climb to the first node whose last key reaches key (the root if
	// none does), and search it from where it is.
	d := len(lk.path) - 1
	for d > 0 && bytes.Compare(lk.path[d].nd.lastKey(), key) < 0 {
		d--
	}
	f := &lk.path[d]
	i := f.nd.seekFrom(f.idx, key)
	if i == f.nd.n {
		// Only the root ends before key: the whole map does.
		f.idx = i - 1
		lk.path = lk.path[:d+1]
		lk.leaf = nil
		return nil
	}
	if d == len(lk.path)-1 && i == f.idx && lk.leaf != nil {
		return nil // the same leaf as the last key
	}
	f.idx = i
	lk.path = lk.path[:d+1]
	for {
		top := lk.path[len(lk.path)-1]
		if top.nd.level == 1 {
			nd, err := lk.m.ns.peek(ctx, top.nd.child(top.idx))
			if err != nil {
				lk.reset()
				return err
			}
			lk.leaf = nd
			*unchkd = top
			return nil
		}
		child, err := lk.m.ns.readChild(ctx, top.nd, top.idx)
		if err != nil {
			lk.reset()
			return err
		}
		// The parent entry's key, child's last key, is >= key.
		lk.path = append(lk.path, frame{nd: child, idx: child.search(key)})
	}
}
