package closure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Closure is an immutable set of (height, address) entries: the strict
// ancestors of one commit. Methods that change it return a new Closure.
type Closure struct {
	m prolly.Map
}

// Empty returns the empty closure, the closure of a root commit.
func Empty(ns *prolly.NodeStore) Closure { return Closure{m: prolly.NewMap(ns)} }

// Open returns the closure stored at addr; the zero address is the empty
// closure.
func Open(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (Closure, error) {
	m, err := prolly.OpenMap(ctx, ns, addr)
	if err != nil {
		return Closure{}, fmt.Errorf("closure: open %s: %w", addr, err)
	}
	return Closure{m: m}, nil
}

// Address returns the closure's address (the zero address when empty).
func (c Closure) Address() chunks.Address { return c.m.Address() }

// Count returns the number of entries, in O(1).
func (c Closure) Count() uint64 { return c.m.Count() }

// Map returns the prolly map under the closure.
func (c Closure) Map() prolly.Map { return c.m }

// Contains reports whether e is in the closure, in O(log n).
func (c Closure) Contains(ctx context.Context, e Entry) (bool, error) {
	var buf [KeySize]byte
	return c.m.Has(ctx, appendKey(buf[:0], e))
}

// CountRange returns the number of entries with lo <= height < hi.
func (c Closure) CountRange(ctx context.Context, lo, hi Height) (uint64, error) {
	return c.m.CountRange(ctx, heightKey(lo), heightKey(hi))
}

// AtHeight iterates over the entries at height h, by ascending address.
func (c Closure) AtHeight(ctx context.Context, h Height) *Iter {
	return &Iter{it: c.m.Iter(ctx, prolly.PrefixRange(heightKey(h)))}
}

// Descending iterates from the greatest entry down to the least. If below
// is not the zero Entry, it starts at the greatest entry strictly less than
// below.
func (c Closure) Descending(ctx context.Context, below Entry) *Iter {
	r := prolly.Range{Reverse: true}
	if below != (Entry{}) {
		r.Stop = below.Key()
	}
	return &Iter{it: c.m.Iter(ctx, r)}
}

// DescendingFrom iterates from the greatest entry at most from down.
func (c Closure) DescendingFrom(ctx context.Context, from Entry) *Iter {
	return &Iter{it: c.m.Iter(ctx, prolly.Range{Stop: from.Key(), StopInclusive: true, Reverse: true})}
}

// Ascending iterates from the least entry with height at least from, up.
func (c Closure) Ascending(ctx context.Context, from Height) *Iter {
	return &Iter{it: c.m.Iter(ctx, prolly.Range{Start: heightKey(from)})}
}

// Iter iterates over the entries of a closure. It is not safe for
// concurrent use.
type Iter struct {
	it  *prolly.Iter
	cur Entry
	err error
}

// Next moves to the next entry and reports whether there is one.
func (it *Iter) Next(ctx context.Context) bool {
	if it.err != nil || !it.it.Next(ctx) {
		return false
	}
	e, err := DecodeKey(it.it.Key())
	if err != nil {
		it.err = err
		return false
	}
	it.cur = e
	return true
}

// Entry returns the current entry.
func (it *Iter) Entry() Entry { return it.cur }

// Err returns the error that stopped the iteration, if any.
func (it *Iter) Err() error {
	if it.err != nil {
		return it.err
	}
	return it.it.Err()
}

// Parent is one parent of a commit being built: its entry and its closure.
type Parent struct {
	Entry   Entry
	Closure Closure
}

// Build returns the closure of a commit whose parents are parents (in
// order, first parent first). With no parents it returns the empty closure.
//
// With one parent P it inserts (h(P), P) into closure(P). With several it
// starts from the first parent's closure, inserts every parent, and inserts
// what each diff from the first parent's closure to another parent's reports
// as added; entries reported as removed are in the first closure already.
func Build(ctx context.Context, ns *prolly.NodeStore, parents []Parent) (Closure, error) {
	if len(parents) == 0 {
		return Empty(ns), nil
	}
	for _, p := range parents {
		if p.Entry.Height == 0 || p.Entry.Addr.IsEmpty() {
			return Closure{}, fmt.Errorf("%w: %v", ErrBadParent, p.Entry)
		}
	}
	first := parents[0].Closure
	var keys [][]byte
	for _, p := range parents {
		keys = append(keys, p.Entry.Key())
	}
	for _, p := range parents[1:] {
		if p.Closure.Address() == first.Address() {
			continue
		}
		err := prolly.DiffMaps(ctx, first.m, p.Closure.m, func(d prolly.Diff) error {
			if d.Type != prolly.Added {
				return nil
			}
			if _, err := DecodeKey(d.Key); err != nil {
				return err
			}
			keys = append(keys, bytes.Clone(d.Key))
			return nil
		})
		if err != nil {
			return Closure{}, fmt.Errorf("closure: diff of parent closures: %w", err)
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	edits := make([]prolly.Edit, len(keys))
	for i, k := range keys {
		edits[i] = prolly.Edit{Key: k, Value: []byte{}}
	}
	m, err := first.m.Apply(ctx, edits)
	if err != nil {
		return Closure{}, fmt.Errorf("closure: insert %d entries: %w", len(edits), err)
	}
	return Closure{m: m}, nil
}

// Check verifies the prolly tree under the closure and that every key is a
// well-formed closure key. It reads every node: use it in tests.
func (c Closure) Check(ctx context.Context) error {
	if err := c.m.Check(ctx); err != nil {
		return err
	}
	it := c.m.IterAll(ctx)
	for it.Next(ctx) {
		if _, err := DecodeKey(it.Key()); err != nil {
			return err
		}
		if len(it.Value()) != 0 {
			return errors.New("closure: check: an entry has a non-empty value")
		}
	}
	return it.Err()
}
