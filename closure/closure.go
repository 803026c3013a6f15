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

// Count returns the number of entries (aliases left out), in O(log n): the
// ordinal of the first alias key.
func (c Closure) Count(ctx context.Context) (uint64, error) {
	n, err := c.m.Ordinal(ctx, aliasStart)
	if err != nil {
		return 0, fmt.Errorf("closure: count: %w", err)
	}
	return n, nil
}

// Map returns the prolly map under the closure: its entries and, after
// them, its aliases.
func (c Closure) Map() prolly.Map { return c.m }

// Contains reports whether e is in the closure, in O(log n).
func (c Closure) Contains(ctx context.Context, e Entry) (bool, error) {
	if e.Height == 0 || e.Height > MaxHeight {
		return false, nil
	}
	var buf [KeySize]byte
	return c.m.Has(ctx, appendKey(buf[:0], e))
}

// CountRange returns the number of entries with lo <= height < hi.
func (c Closure) CountRange(ctx context.Context, lo, hi Height) (uint64, error) {
	return c.m.CountRange(ctx, heightKey(lo), heightKey(hi))
}

// noEntries is the empty range at the start of the alias range.
var noEntries = prolly.Range{Start: aliasStart, Stop: aliasStart}

// AtHeight iterates over the entries at height h, by ascending address.
func (c Closure) AtHeight(ctx context.Context, h Height) *Iter {
	if h > MaxHeight {
		return &Iter{it: c.m.Iter(ctx, noEntries)}
	}
	return &Iter{it: c.m.Iter(ctx, prolly.PrefixRange(heightKey(h)))}
}

// Descending iterates from the greatest entry down to the least. If below
// is not the zero Entry, it starts at the greatest entry strictly less than
// below.
func (c Closure) Descending(ctx context.Context, below Entry) *Iter {
	r := prolly.Range{Reverse: true, Stop: aliasStart}
	if below != (Entry{}) && below.Height <= MaxHeight {
		r.Stop = below.Key()
	}
	return &Iter{it: c.m.Iter(ctx, r)}
}

// DescendingFrom iterates from the greatest entry at most from down.
func (c Closure) DescendingFrom(ctx context.Context, from Entry) *Iter {
	r := prolly.Range{Stop: aliasStart, Reverse: true}
	if from.Height <= MaxHeight {
		r.Stop, r.StopInclusive = from.Key(), true
	}
	return &Iter{it: c.m.Iter(ctx, r)}
}

// Ascending iterates from the least entry with height at least from, up.
func (c Closure) Ascending(ctx context.Context, from Height) *Iter {
	return &Iter{it: c.m.Iter(ctx, prolly.Range{Start: heightKey(from), Stop: aliasStart})}
}

// ChildCandidates returns the commits of the closure that may be children
// of a commit at height h: the entries at height h+1 and the merges with an
// alias at h+1 (a parent at height h, below the merge's height - 1), by
// ascending address within each part. Every child of a commit at height h
// among the closure's commits is there; the caller keeps those whose
// parents include it. Two O(log n) range scans: the cost follows how many
// commits share those heights, not the length of the history.
func (c Closure) ChildCandidates(ctx context.Context, h Height) ([]chunks.Address, error) {
	if h >= MaxHeight {
		return nil, nil
	}
	var out []chunks.Address
	it := c.AtHeight(ctx, h+1)
	for it.Next(ctx) {
		out = append(out, it.Entry().Addr)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("closure: entries at %d: %w", h+1, err)
	}
	ai := c.m.Iter(ctx, prolly.PrefixRange(aliasHeightKey(h+1)))
	for ai.Next(ctx) {
		a, err := DecodeAliasKey(ai.Key())
		if err != nil {
			return nil, err
		}
		out = append(out, a.Merge)
	}
	if err := ai.Err(); err != nil {
		return nil, fmt.Errorf("closure: aliases at %d: %w", h+1, err)
	}
	return out, nil
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

// Parent is one parent of a commit being built: its entry, its closure,
// and the heights of its own parents (in any order).
type Parent struct {
	Entry   Entry
	Closure Closure
	// Parents are the heights of the parent's parents. For a merge (two or
	// more), Build adds an alias of the parent at h+1 for each h with
	// h+1 < the parent's height. Nil adds none: a closure built without
	// them lacks those aliases (commitgraph does so for commits of its
	// format 1).
	Parents []Height
}

// Build returns the closure of a commit whose parents are parents (in
// order, first parent first). With no parents it returns the empty closure.
//
// With one parent P it inserts (h(P), P), and P's aliases if P is a merge,
// into closure(P). With several it starts from the first parent's closure,
// inserts every parent and its aliases, and inserts what each diff from the
// first parent's closure to another parent's reports as added (entries and
// aliases); keys reported as removed are in the first closure already.
func Build(ctx context.Context, ns *prolly.NodeStore, parents []Parent) (Closure, error) {
	if len(parents) == 0 {
		return Empty(ns), nil
	}
	var keys [][]byte
	for _, p := range parents {
		if p.Entry.Height == 0 || p.Entry.Height > MaxHeight || p.Entry.Addr.IsEmpty() {
			return Closure{}, fmt.Errorf("%w: %v", ErrBadParent, p.Entry)
		}
		keys = append(keys, p.Entry.Key())
		if len(p.Parents) < 2 {
			continue
		}
		for _, h := range p.Parents {
			if h == 0 || h >= p.Entry.Height {
				return Closure{}, fmt.Errorf("%w: %v has a parent at height %d", ErrBadParent, p.Entry, h)
			}
			if h+1 < p.Entry.Height {
				keys = append(keys, Alias{Height: h + 1, Merge: p.Entry.Addr}.Key())
			}
		}
	}
	first := parents[0].Closure
	for _, p := range parents[1:] {
		if p.Closure.Address() == first.Address() {
			continue
		}
		err := prolly.DiffMaps(ctx, first.m, p.Closure.m, func(d prolly.Diff) error {
			if d.Type != prolly.Added {
				return nil
			}
			if _, _, err := decodeAny(d.Key); err != nil {
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
	c := Closure{m: m}
	if prolly.InvariantsEnabled {
		if err := c.checkBuilt(ctx, parents); err != nil {
			return Closure{}, err
		}
	}
	return c, nil
}

// checkBuilt verifies, under -tags invariants, what Build promises of c:
// it holds every parent, and at least every entry of the first parent's
// closure and one more.
func (c Closure) checkBuilt(ctx context.Context, parents []Parent) error {
	for _, p := range parents {
		ok, err := c.Contains(ctx, p.Entry)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("closure: invariants: the closure built lacks its parent %v", p.Entry)
		}
	}
	n, err := c.Count(ctx)
	if err != nil {
		return err
	}
	fn, err := parents[0].Closure.Count(ctx)
	if err != nil {
		return err
	}
	if n < fn+1 {
		return fmt.Errorf("closure: invariants: the closure built has %d entries, its first parent's %d", n, fn)
	}
	return nil
}

// Check verifies the prolly tree under the closure, that every key is a
// well-formed entry or alias key with an empty value, and that every alias
// names an entry of the closure higher than the alias (a merge is higher
// than a child of any of its parents). Whether the merge has a parent at
// that height, and whether every merge has its aliases, take the commits:
// commitgraph's Check rebuilds each closure from the parents and compares
// addresses. Check reads every node and holds every entry in memory: use
// it in tests.
func (c Closure) Check(ctx context.Context) error {
	if err := c.m.Check(ctx); err != nil {
		return err
	}
	heights := map[chunks.Address]Height{}
	it := c.m.IterAll(ctx)
	for it.Next(ctx) {
		e, alias, err := decodeAny(it.Key())
		if err != nil {
			return err
		}
		if len(it.Value()) != 0 {
			return errors.New("closure: check: a key has a non-empty value")
		}
		if !alias {
			heights[e.Addr] = e.Height
			continue
		}
		if h, ok := heights[e.Addr]; !ok || h <= e.Height {
			return fmt.Errorf("closure: check: alias %v names no entry above height %d (entry height %d)", Alias{e.Height, e.Addr}, e.Height, h)
		}
	}
	return it.Err()
}
