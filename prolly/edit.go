package prolly

import (
	"bytes"
	"context"
	"fmt"
	"slices"
)

// Edit is one change to a map: put Key -> Value, or delete Key if Delete.
type Edit struct {
	Key    []byte
	Value  []byte
	Delete bool
}

// entryEdit is a change to the entries of one level: at level 0 a user's
// edit, above it the replacement of children (count is the subtree count
// of a put).
type entryEdit struct {
	key, val []byte
	count    uint64
	del      bool
}

// Apply returns the map with the edits applied, in one pass. The edits must
// be sorted by strictly ascending key. Deleting an absent key does nothing.
//
// Apply re-chunks only around the edits: at each level it starts at the
// first node an edit touches, feeds that node's entries merged with the
// edits to a fresh splitter, and stops as soon as a new boundary falls on
// an old one past the last edit of the stretch; the old nodes after that
// are kept. The nodes replaced and written become the edits of the level
// above. The result is the tree a Builder makes from the same entries.
func (m Map) Apply(ctx context.Context, edits []Edit) (Map, error) {
	cur := make([]entryEdit, len(edits))
	for i, e := range edits {
		if i > 0 && bytes.Compare(edits[i-1].Key, e.Key) >= 0 {
			return Map{}, fmt.Errorf("%w: edit %d (%x) after %x", ErrUnsorted, i, e.Key, edits[i-1].Key)
		}
		if err := checkEntry(e.Key, e.Value); err != nil {
			return Map{}, err
		}
		cur[i] = entryEdit{key: e.Key, val: e.Value, count: 1, del: e.Delete}
	}
	for level := uint8(0); ; level++ {
		if len(cur) == 0 {
			return m, nil
		}
		if level > maxLevel {
			return Map{}, fmt.Errorf("prolly: tree deeper than %d levels", maxLevel)
		}
		res, err := m.editLevel(ctx, level, cur)
		if err != nil {
			return Map{}, err
		}
		if !res.untouched {
			switch len(res.written) {
			case 0:
				return NewMap(m.ns), nil
			case 1:
				root, err := m.collapse(ctx, res.written[0].nd)
				if err != nil {
					return Map{}, err
				}
				return checkWritten(ctx, Map{ns: m.ns, root: root}, "Apply")
			}
		}
		// Above the old root there is no parent entry to keep: every node
		// written must go up.
		cur = res.parentEdits(m.root != nil && level < m.root.level)
	}
}

// collapse returns the root for a tree whose top node is nd: the first
// node, going down, with more than one entry (or the leaf). Deleting the
// last nodes of a level can leave a top node with one child, kept from the
// old tree; the root is the lowest level that has a single node.
func (m Map) collapse(ctx context.Context, nd *node) (*node, error) {
	for !nd.leaf() && nd.n == 1 {
		var err error
		if nd, err = m.ns.readChild(ctx, nd, 0); err != nil {
			return nil, err
		}
	}
	return nd, nil
}

// levelResult is what editing one level did.
type levelResult struct {
	removed   []ref // the old nodes replaced (key and address), ascending
	written   []ref // the new nodes, ascending
	untouched bool  // some old nodes of the level were kept
}

// parentEdits turns the replaced and written nodes of a level into edits
// of the level above: delete the old children, put the new ones. With
// keepUnchanged, a node rewritten exactly as it was needs no edit, since
// its parent entry stands.
func (r *levelResult) parentEdits(keepUnchanged bool) []entryEdit {
	out := make([]entryEdit, 0, len(r.removed)+len(r.written))
	i, j := 0, 0
	for i < len(r.removed) || j < len(r.written) {
		var c int
		switch {
		case i == len(r.removed):
			c = 1
		case j == len(r.written):
			c = -1
		default:
			c = bytes.Compare(r.removed[i].key, r.written[j].key)
		}
		if c < 0 {
			out = append(out, entryEdit{key: r.removed[i].key, del: true})
			i++
			continue
		}
		w := r.written[j]
		if keepUnchanged && c == 0 && r.removed[i].addr == w.addr {
			// The node was rewritten as it was: its parent entry stands.
			i++
			j++
			continue
		}
		out = append(out, entryEdit{key: w.key, val: refValue(w.addr, w.count), count: w.count})
		j++
		if c == 0 {
			i++
		}
	}
	return out
}

// levelCursor walks the nodes of one level of an old tree.
type levelCursor struct {
	m     Map
	level uint8
	path  []frame // ancestors, root first; idx is the child taken
	nd    *node   // the current node at the level
}

// seek moves to the first node at the level whose last key is >= key, or
// to the last node.
func (c *levelCursor) seek(ctx context.Context, key []byte) error {
	c.path = c.path[:0]
	nd := c.m.root
	for nd.level > c.level {
		i := min(nd.search(key), nd.n-1)
		c.path = append(c.path, frame{nd: nd, idx: i})
		var err error
		if nd, err = c.m.ns.readChild(ctx, nd, i); err != nil {
			return err
		}
	}
	c.nd = nd
	return nil
}

// next moves to the next node at the level; it reports false at the end.
func (c *levelCursor) next(ctx context.Context) (bool, error) {
	d := len(c.path) - 1
	for d >= 0 && c.path[d].idx+1 >= c.path[d].nd.n {
		d--
	}
	if d < 0 {
		return false, nil
	}
	c.path[d].idx++
	c.path = c.path[:d+1]
	nd, err := c.m.ns.readChild(ctx, c.path[d].nd, c.path[d].idx)
	for err == nil && nd.level > c.level {
		c.path = append(c.path, frame{nd: nd, idx: 0})
		nd, err = c.m.ns.readChild(ctx, nd, 0)
	}
	c.nd = nd
	return err == nil, err
}

func (c *levelCursor) first() bool {
	for _, f := range c.path {
		if f.idx != 0 {
			return false
		}
	}
	return true
}

func (c *levelCursor) last() bool {
	for _, f := range c.path {
		if f.idx != f.nd.n-1 {
			return false
		}
	}
	return true
}

// editLevel applies sorted edits to the entries of one level.
func (m Map) editLevel(ctx context.Context, level uint8, edits []entryEdit) (*levelResult, error) {
	res := &levelResult{}
	w := getEditWriter(m.ns, level, func(_ context.Context, r ref) error {
		res.written = append(res.written, r)
		return nil
	})
	defer putEditWriter(w)
	if m.root == nil || level > m.root.level {
		// No old entries at this level: chunk the puts.
		for _, e := range edits {
			if !e.del {
				if err := w.add(ctx, e.key, e.val, e.count); err != nil {
					return nil, err
				}
			}
		}
		return res, w.flush(ctx)
	}
	c := &levelCursor{m: m, level: level}
	if err := c.seek(ctx, edits[0].key); err != nil {
		return nil, err
	}
	if !c.first() {
		res.untouched = true
	}
	ei := 0
	for {
		nd, lastNode := c.nd, c.last()
		res.removed = append(res.removed, ref{key: nd.lastKey(), addr: nd.addr})
		i := 0
		for {
			haveOld := i < nd.n
			haveEdit := ei < len(edits) && (lastNode || bytes.Compare(edits[ei].key, nd.lastKey()) <= 0)
			if !haveOld && !haveEdit {
				break
			}
			if haveEdit && (!haveOld || bytes.Compare(edits[ei].key, nd.key(i)) <= 0) {
				e := edits[ei]
				ei++
				if haveOld && bytes.Equal(e.key, nd.key(i)) {
					i++
				}
				if !e.del {
					if err := w.add(ctx, e.key, e.val, e.count); err != nil {
						return nil, err
					}
				}
				continue
			}
			cnt := uint64(1)
			if !nd.leaf() {
				cnt = nd.childCount(i)
			}
			if err := w.add(ctx, nd.key(i), nd.value(i), cnt); err != nil {
				return nil, err
			}
			i++
		}
		if lastNode {
			return res, w.flush(ctx)
		}
		if !w.pending() {
			// The new boundaries meet the old ones here: what follows is
			// unchanged up to the next edit.
			if ei == len(edits) {
				res.untouched = true
				return res, nil
			}
			if ok, err := c.next(ctx); err != nil || !ok {
				return nil, fmt.Errorf("prolly: edits past the last node (invariant: the last node takes every later edit): %v", err)
			}
			if bytes.Compare(edits[ei].key, c.nd.lastKey()) > 0 && !c.last() {
				res.untouched = true
				if err := c.seek(ctx, edits[ei].key); err != nil {
					return nil, err
				}
			}
			continue
		}
		if _, err := c.next(ctx); err != nil {
			return nil, err
		}
	}
}

// Editor collects puts and deletes in memory, in any order, and applies
// them in one pass with Map. The last change to a key wins.
type Editor struct {
	m       Map
	pending map[string]Edit
}

// Edit returns an Editor starting from m.
func (m Map) Edit() *Editor { return &Editor{m: m, pending: map[string]Edit{}} }

// Put records key -> value. Both are copied.
func (e *Editor) Put(key, value []byte) error {
	if err := checkEntry(key, value); err != nil {
		return err
	}
	e.pending[string(key)] = Edit{Key: []byte(string(key)), Value: append([]byte(nil), value...)}
	return nil
}

// Delete records the removal of key.
func (e *Editor) Delete(key []byte) {
	e.pending[string(key)] = Edit{Key: []byte(string(key)), Delete: true}
}

// Len returns the number of keys changed.
func (e *Editor) Len() int { return len(e.pending) }

// Map applies the changes and returns the new map. The Editor is then
// empty and continues from the new map.
func (e *Editor) Map(ctx context.Context) (Map, error) {
	edits := make([]Edit, 0, len(e.pending))
	for _, ed := range e.pending {
		edits = append(edits, ed)
	}
	slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
	m, err := e.m.Apply(ctx, edits)
	if err != nil {
		return Map{}, err
	}
	e.m, e.pending = m, map[string]Edit{}
	return m, nil
}

// Put returns the map with key set to value: Apply of one edit.
func (m Map) Put(ctx context.Context, key, value []byte) (Map, error) {
	return m.Apply(ctx, []Edit{{Key: key, Value: value}})
}

// Delete returns the map without key: Apply of one edit.
func (m Map) Delete(ctx context.Context, key []byte) (Map, error) {
	return m.Apply(ctx, []Edit{{Key: key, Delete: true}})
}
