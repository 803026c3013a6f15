package prolly

import (
	"bytes"
	"context"
	"fmt"
	"sort"
)

// frame is one level of a cursor: a node and an index into it.
type frame struct {
	nd  *node
	idx int
}

// cursor is a path from the root to a leaf entry. frames[0] is the root and
// the last frame the leaf. The cursor is valid when the leaf index is in
// range; it may sit one past either end.
type cursor struct {
	ns     *NodeStore
	frames []frame
}

func (c *cursor) leaf() *frame { return &c.frames[len(c.frames)-1] }

func (c *cursor) valid() bool {
	f := c.leaf()
	return f.idx >= 0 && f.idx < f.nd.n
}

func (c *cursor) key() []byte   { f := c.leaf(); return f.nd.key(f.idx) }
func (c *cursor) value() []byte { f := c.leaf(); return f.nd.value(f.idx) }

// descend loads the children below frame d down to a leaf, at each level
// taking the first entry (last if toLast).
func (c *cursor) descend(ctx context.Context, d int, toLast bool) error {
	c.frames = c.frames[:d+1]
	for {
		f := c.frames[len(c.frames)-1]
		if f.nd.leaf() {
			return nil
		}
		child, err := c.ns.readChild(ctx, f.nd, f.idx)
		if err != nil {
			return err
		}
		idx := 0
		if toLast {
			idx = child.n - 1
		}
		c.frames = append(c.frames, frame{nd: child, idx: idx})
	}
}

// next moves to the next entry; past the last one, the cursor is invalid.
func (c *cursor) next(ctx context.Context) error {
	top := len(c.frames) - 1
	f := &c.frames[top]
	if f.idx+1 < f.nd.n {
		f.idx++
		return nil
	}
	d := top - 1
	for d >= 0 && c.frames[d].idx+1 >= c.frames[d].nd.n {
		d--
	}
	if d < 0 {
		f.idx = f.nd.n
		return nil
	}
	c.frames[d].idx++
	return c.descend(ctx, d, false)
}

// prev moves to the previous entry; before the first one, the cursor is
// invalid.
func (c *cursor) prev(ctx context.Context) error {
	top := len(c.frames) - 1
	f := &c.frames[top]
	if f.idx-1 >= 0 {
		f.idx--
		return nil
	}
	d := top - 1
	for d >= 0 && c.frames[d].idx == 0 {
		d--
	}
	if d < 0 {
		f.idx = -1
		return nil
	}
	c.frames[d].idx--
	return c.descend(ctx, d, true)
}

// seek moves the cursor forward to the first entry >= key, or past the
// end; a key at or before the current entry leaves the cursor where it
// is. It climbs only as far as the first node whose last key reaches key,
// so a seek a short way ahead costs a search within the leaf, and one far
// ahead a partial descent: never more than a fresh cursorAtKey.
func (c *cursor) seek(ctx context.Context, key []byte) error {
	top := len(c.frames) - 1
	d := top
	for d > 0 && bytes.Compare(c.frames[d].nd.lastKey(), key) < 0 {
		d--
	}
	f := &c.frames[d]
	nd := f.nd
	if f.idx < 0 {
		f.idx = 0
	}
	if f.idx >= nd.n {
		return nil // already past the end
	}
	i := nd.seekFrom(f.idx, key)
	if i == nd.n {
		// Only the root can end before key: the whole map does.
		c.frames[top].idx = c.frames[top].nd.n
		return nil
	}
	f.idx = i
	c.frames = c.frames[:d+1]
	for !nd.leaf() {
		child, err := c.ns.readChild(ctx, nd, c.frames[len(c.frames)-1].idx)
		if err != nil {
			return err
		}
		nd = child
		c.frames = append(c.frames, frame{nd: nd, idx: nd.search(key)})
	}
	return nil
}

// cursorAtKey returns a cursor at the first entry >= key, or past the end.
func (m Map) cursorAtKey(ctx context.Context, key []byte) (*cursor, error) {
	c := &cursor{ns: m.ns, frames: make([]frame, 0, m.Height())}
	nd := m.root
	for {
		i := nd.search(key)
		if !nd.leaf() && i == nd.n {
			i = nd.n - 1
		}
		c.frames = append(c.frames, frame{nd: nd, idx: i})
		if nd.leaf() {
			return c, nil
		}
		var err error
		if nd, err = m.ns.readChild(ctx, nd, i); err != nil {
			return nil, err
		}
	}
}

// cursorAtEnd returns a cursor at the first (or last) entry.
func (m Map) cursorAtEnd(ctx context.Context, last bool) (*cursor, error) {
	c := &cursor{ns: m.ns, frames: make([]frame, 0, m.Height())}
	idx := 0
	if last {
		idx = m.root.n - 1
	}
	c.frames = append(c.frames, frame{nd: m.root, idx: idx})
	return c, c.descend(ctx, 0, last)
}

// cursorAtOrdinal returns a cursor at the i-th entry.
func (m Map) cursorAtOrdinal(ctx context.Context, i uint64) (*cursor, error) {
	if i >= m.Count() {
		return nil, fmt.Errorf("%w: %d of %d", ErrOutOfRange, i, m.Count())
	}
	c := &cursor{ns: m.ns, frames: make([]frame, 0, m.Height())}
	nd := m.root
	for {
		if nd.leaf() {
			c.frames = append(c.frames, frame{nd: nd, idx: int(i)})
			return c, nil
		}
		j := sort.Search(nd.n, func(j int) bool { return nd.cum[j] > i })
		i -= nd.before(j)
		c.frames = append(c.frames, frame{nd: nd, idx: j})
		var err error
		if nd, err = m.ns.readChild(ctx, nd, j); err != nil {
			return nil, err
		}
	}
}

// Range selects the keys between two optional bounds, in ascending order
// or, if Reverse, descending. By default Start is included and Stop is
// excluded: [Start, Stop).
type Range struct {
	Start, Stop    []byte // nil: unbounded
	StartExclusive bool   // leave out Start itself
	StopInclusive  bool   // take Stop itself
	Reverse        bool
}

// PrefixRange returns the ascending range of the keys that begin with
// prefix. For tuple keys, a prefix is the encoding of the first fields.
func PrefixRange(prefix []byte) Range {
	r := Range{Start: prefix}
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			r.Stop = append(append([]byte(nil), prefix[:i]...), prefix[i]+1)
			break
		}
	}
	return r
}

// Contains reports whether key is in the range.
func (r Range) Contains(key []byte) bool { return !r.beforeStart(key) && !r.afterStop(key) }

func (r Range) beforeStart(k []byte) bool {
	if r.Start == nil {
		return false
	}
	c := bytes.Compare(k, r.Start)
	return c < 0 || c == 0 && r.StartExclusive
}

func (r Range) afterStop(k []byte) bool {
	if r.Stop == nil {
		return false
	}
	c := bytes.Compare(k, r.Stop)
	return c > 0 || c == 0 && !r.StopInclusive
}

// Iter iterates over the entries of a range of a Map:
//
//	it := m.Iter(ctx, prolly.Range{Start: lo, Stop: hi})
//	for it.Next(ctx) {
//		use(it.Key(), it.Value())
//	}
//	if err := it.Err(); err != nil { ... }
//
// Key and Value return slices into immutable nodes: they stay valid but
// must not be modified. An Iter is not safe for concurrent use.
type Iter struct {
	c       *cursor
	r       Range
	started bool
	done    bool
	err     error
}

// Iter returns an iterator over the keys in r.
func (m Map) Iter(ctx context.Context, r Range) *Iter {
	it := &Iter{r: r}
	if m.root == nil {
		it.done = true
		return it
	}
	var err error
	switch {
	case !r.Reverse && r.Start == nil:
		it.c, err = m.cursorAtEnd(ctx, false)
	case !r.Reverse:
		it.c, err = m.cursorAtKey(ctx, r.Start)
	case r.Stop == nil:
		it.c, err = m.cursorAtEnd(ctx, true)
	default:
		// At the first key >= Stop, or past the end; Next steps back
		// over keys after the range.
		if it.c, err = m.cursorAtKey(ctx, r.Stop); err == nil && !it.c.valid() {
			err = it.c.prev(ctx)
		}
	}
	it.err = err
	return it
}

// IterRange returns an iterator over the keys k with lo <= k < hi, in
// ascending order, or descending if reverse. A nil bound is open.
func (m Map) IterRange(ctx context.Context, lo, hi []byte, reverse bool) *Iter {
	return m.Iter(ctx, Range{Start: lo, Stop: hi, Reverse: reverse})
}

// IterAll iterates over every entry in ascending order.
func (m Map) IterAll(ctx context.Context) *Iter { return m.Iter(ctx, Range{}) }

// IterFrom iterates in ascending order from the i-th entry (for OFFSET).
func (m Map) IterFrom(ctx context.Context, i uint64) *Iter {
	it := &Iter{}
	if i >= m.Count() {
		it.done = true
		return it
	}
	it.c, it.err = m.cursorAtOrdinal(ctx, i)
	return it
}

// Next advances to the next entry and reports whether there is one.
func (it *Iter) Next(ctx context.Context) bool {
	for {
		if it.done || it.err != nil {
			return false
		}
		if it.started {
			if it.r.Reverse {
				it.err = it.c.prev(ctx)
			} else {
				it.err = it.c.next(ctx)
			}
			if it.err != nil {
				return false
			}
		}
		it.started = true
		if ok, again := it.check(); !again {
			return ok
		}
	}
}

// Seek moves an ascending iterator forward to the first key >= key in its
// range and reports whether there is one, as Next does; Key and Value are
// then that entry's, and Next goes on from it. A key at or before the
// current entry leaves the iterator where it is (Seek never goes back);
// before the first Next, Seek positions the iterator at the first key
// >= key instead of the range's first. A seek a short way ahead costs a
// search within the leaf the iterator holds, one far ahead a partial
// descent: it is how a reader that wants ascending, scattered keys (a
// join, index-driven reads) walks a map without stepping over the keys
// in between. Seek panics on a reverse iterator.
func (it *Iter) Seek(ctx context.Context, key []byte) bool {
	if it.r.Reverse {
		panic("prolly: Seek on a reverse Iter (invariant: Seek moves forward)")
	}
	if it.done || it.err != nil {
		return false
	}
	if it.err = it.c.seek(ctx, key); it.err != nil {
		return false
	}
	it.started = true
	if ok, again := it.check(); !again {
		return ok
	}
	return it.Next(ctx)
}

// check decides on the entry the cursor sits at: ok if it is in the
// range, again if it is before the range's start (step on), neither if
// the iteration is over.
func (it *Iter) check() (ok, again bool) {
	if !it.c.valid() {
		it.done = true
		return false, false
	}
	k := it.c.key()
	if it.r.Reverse {
		if it.r.beforeStart(k) {
			it.done = true
			return false, false
		}
		if it.r.afterStop(k) {
			return false, true // the seek landed on Stop or just after it
		}
	} else {
		if it.r.afterStop(k) {
			it.done = true
			return false, false
		}
		if it.r.beforeStart(k) {
			return false, true // the seek landed on an excluded Start
		}
	}
	return true, false
}

// Key returns the current key.
func (it *Iter) Key() []byte { return it.c.key() }

// Value returns the current value.
func (it *Iter) Value() []byte { return it.c.value() }

// Err returns the error that stopped the iteration, if any.
func (it *Iter) Err() error { return it.err }
