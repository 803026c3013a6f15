package prolly

import (
	"bytes"
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// DiffType says how an entry changed between two maps.
type DiffType uint8

const (
	Added    DiffType = 1 // the key is only in the new map
	Removed  DiffType = 2 // the key is only in the old map
	Modified DiffType = 3 // the key is in both, with different values
)

func (t DiffType) String() string {
	switch t {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	}
	return fmt.Sprintf("DiffType(%d)", uint8(t))
}

// Diff is one changed entry. From is the old value (nil if Added), To the
// new one (nil if Removed). The slices point into immutable nodes.
type Diff struct {
	Type     DiffType
	Key      []byte
	From, To []byte
}

// diffSide walks one tree as a stream of items in key order: children not
// yet opened, or leaf entries. An item is opened only when it cannot be
// skipped.
type diffSide struct {
	ns    *NodeStore
	root  *node // the root, before it is opened
	stack []frame
}

func (s *diffSide) settle() {
	for len(s.stack) > 0 {
		f := s.stack[len(s.stack)-1]
		if f.idx < f.nd.n {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
}

func (s *diffSide) done() bool { return s.root == nil && len(s.stack) == 0 }

// level returns the level of the head item: the level of the node it names,
// or -1 for a leaf entry.
func (s *diffSide) level() int {
	if s.root != nil {
		return int(s.root.level)
	}
	return int(s.top().nd.level) - 1
}

func (s *diffSide) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *diffSide) addr() chunks.Address {
	if s.root != nil {
		return s.root.addr
	}
	f := s.top()
	return f.nd.child(f.idx)
}

func (s *diffSide) key() []byte   { f := s.top(); return f.nd.key(f.idx) }
func (s *diffSide) value() []byte { f := s.top(); return f.nd.value(f.idx) }

// skip drops the head item.
func (s *diffSide) skip() {
	if s.root != nil {
		s.root = nil
		return
	}
	s.top().idx++
	s.settle()
}

// open replaces the head item, a node, by its entries.
func (s *diffSide) open(ctx context.Context) error {
	if s.root != nil {
		s.stack = append(s.stack, frame{nd: s.root})
		s.root = nil
		return nil
	}
	f := s.top()
	child, err := s.ns.readChild(ctx, f.nd, f.idx)
	if err != nil {
		return err
	}
	f.idx++
	s.stack = append(s.stack, frame{nd: child})
	s.settle()
	return nil
}

// Differ streams the differences between two maps in key order. Subtrees
// whose addresses are equal on both sides are skipped unopened, so the
// work follows the size of the change, not of the maps.
//
//	d := prolly.NewDiffer(from, to)
//	for d.Next(ctx) {
//		use(d.Diff())
//	}
//	if err := d.Err(); err != nil { ... }
type Differ struct {
	from, to diffSide
	cur      Diff
	err      error
}

// NewDiffer returns a Differ from the map from to the map to.
func NewDiffer(from, to Map) *Differ {
	d := &Differ{from: diffSide{ns: from.ns, root: from.root}, to: diffSide{ns: to.ns, root: to.root}}
	if from.root != nil && to.root != nil && from.root.addr == to.root.addr {
		d.from.root, d.to.root = nil, nil
	}
	return d
}

// Diff returns the current difference.
func (d *Differ) Diff() Diff { return d.cur }

// Err returns the error that stopped the Differ, if any.
func (d *Differ) Err() error { return d.err }

// Next moves to the next difference and reports whether there is one.
func (d *Differ) Next(ctx context.Context) bool {
	if d.err != nil {
		return false
	}
	f, t := &d.from, &d.to
	for {
		switch {
		case f.done() && t.done():
			return false
		case f.done() || t.done():
			s, typ := t, Added
			if t.done() {
				s, typ = f, Removed
			}
			if s.level() >= 0 {
				if d.err = s.open(ctx); d.err != nil {
					return false
				}
				continue
			}
			d.cur = Diff{Type: typ, Key: s.key()}
			if typ == Added {
				d.cur.To = s.value()
			} else {
				d.cur.From = s.value()
			}
			s.skip()
			return true
		}
		lf, lt := f.level(), t.level()
		switch {
		case lf >= 0 && lf == lt && f.addr() == t.addr():
			f.skip()
			t.skip()
			continue
		case lf > lt:
			d.err = f.open(ctx)
		case lt > lf:
			d.err = t.open(ctx)
		case lf >= 0:
			if d.err = f.open(ctx); d.err == nil {
				d.err = t.open(ctx)
			}
		default:
			kf, kt := f.key(), t.key()
			switch c := bytes.Compare(kf, kt); {
			case c < 0:
				d.cur = Diff{Type: Removed, Key: kf, From: f.value()}
				f.skip()
				return true
			case c > 0:
				d.cur = Diff{Type: Added, Key: kt, To: t.value()}
				t.skip()
				return true
			default:
				vf, vt := f.value(), t.value()
				f.skip()
				t.skip()
				if !bytes.Equal(vf, vt) {
					d.cur = Diff{Type: Modified, Key: kf, From: vf, To: vt}
					return true
				}
			}
			continue
		}
		if d.err != nil {
			return false
		}
	}
}

// DiffMaps calls fn for each difference from the map from to the map to,
// in key order, and stops at the first error fn returns.
func DiffMaps(ctx context.Context, from, to Map, fn func(Diff) error) error {
	d := NewDiffer(from, to)
	for d.Next(ctx) {
		if err := fn(d.Diff()); err != nil {
			return err
		}
	}
	return d.Err()
}
