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
//
// It is a base, a prolly map, and a tail: entries above every entry of
// the base, by descending height, one at each height (a first-parent
// chain of commits that are not merges; see the format in doc.go).
type Closure struct {
	m    prolly.Map
	tail []Entry
}

// MaxTail is the most entries BuildTail keeps in a tail before it folds
// them into the base: each commit of a linear history adds one entry to
// its parent's tail, without writing anything, and one commit in
// MaxTail+1 writes a base.
const MaxTail = 16

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

// WithTail returns the closure whose base is c's (whose tail must be
// empty) and whose tail is tail: entries by descending height, one per
// height, every one above the base's entries. It checks that the heights
// step down by one and stay above 0; that the base is below them is the
// caller's to know (Check verifies it).
func (c Closure) WithTail(tail []Entry) (Closure, error) {
	if len(c.tail) > 0 {
		return Closure{}, errors.New("closure: WithTail of a closure that has a tail")
	}
	if len(tail) > MaxTail {
		return Closure{}, fmt.Errorf("%w: a tail of %d entries, at most %d", ErrBadKey, len(tail), MaxTail)
	}
	for i, e := range tail {
		if e.Height == 0 || e.Height > MaxHeight || e.Addr.IsEmpty() || (i > 0 && e.Height+1 != tail[i-1].Height) {
			return Closure{}, fmt.Errorf("%w: tail entry %d is %v", ErrBadKey, i, e)
		}
	}
	return Closure{m: c.m, tail: slices.Clone(tail)}, nil
}

// Address returns the address of the closure's base (the zero address
// when it is empty). Two closures are equal when their bases' addresses
// and their tails are.
func (c Closure) Address() chunks.Address { return c.m.Address() }

// Map returns the prolly map of the closure's base: its entries and,
// after them, its aliases (the tail's entries are not in it).
func (c Closure) Map() prolly.Map { return c.m }

// Tail returns the closure's tail, by descending height. The slice
// belongs to the closure.
func (c Closure) Tail() []Entry { return c.tail }

// Equal reports whether two closures are the same: the same base and the
// same tail.
func (c Closure) Equal(o Closure) bool {
	return c.m.Address() == o.m.Address() && slices.Equal(c.tail, o.tail)
}

// tailFloor returns the least height of the tail (0 when it is empty):
// the base holds no entry at or above it.
func (c Closure) tailFloor() Height {
	if len(c.tail) == 0 {
		return 0
	}
	return c.tail[len(c.tail)-1].Height
}

// atTail returns the tail entry at height h, if the tail covers h.
func (c Closure) atTail(h Height) (Entry, bool, bool) {
	if len(c.tail) == 0 || h < c.tailFloor() {
		return Entry{}, false, false
	}
	if h > c.tail[0].Height {
		return Entry{}, false, true
	}
	return c.tail[c.tail[0].Height-h], true, true
}

// Count returns the number of entries (aliases left out), in O(log n): the
// ordinal of the first alias key, and the tail's length.
func (c Closure) Count(ctx context.Context) (uint64, error) {
	n, err := c.m.Ordinal(ctx, aliasStart)
	if err != nil {
		return 0, fmt.Errorf("closure: count: %w", err)
	}
	return n + uint64(len(c.tail)), nil
}

// Contains reports whether e is in the closure, in O(log n).
func (c Closure) Contains(ctx context.Context, e Entry) (bool, error) {
	if e.Height == 0 || e.Height > MaxHeight {
		return false, nil
	}
	if t, ok, covered := c.atTail(e.Height); covered {
		return ok && t.Addr == e.Addr, nil
	}
	var buf [KeySize]byte
	return c.m.Has(ctx, appendKey(buf[:0], e))
}

// Beyond calls fn with the entries of c that o's base lacks: c's tail,
// then the entries of c's base that o's base does not hold (aliases left
// out), found by a diff of the two bases, so that the cost follows how far
// the two closures differ. An entry fn gets may still be in o's tail
// (Contains tells).
func (c Closure) Beyond(ctx context.Context, o Closure, fn func(Entry) error) error {
	for _, e := range c.tail {
		if err := fn(e); err != nil {
			return err
		}
	}
	return prolly.DiffMaps(ctx, o.m, c.m, func(d prolly.Diff) error {
		if d.Type != prolly.Added {
			return nil
		}
		e, alias, err := decodeAny(d.Key)
		if err != nil {
			return fmt.Errorf("closure: %w", err)
		}
		if alias {
			return nil
		}
		return fn(e)
	})
}

// CountRange returns the number of entries with lo <= height < hi.
func (c Closure) CountRange(ctx context.Context, lo, hi Height) (uint64, error) {
	n, err := c.m.CountRange(ctx, heightKey(lo), heightKey(hi))
	for _, e := range c.tail {
		if e.Height >= lo && e.Height < hi {
			n++
		}
	}
	return n, err
}

// noEntries is the empty range at the start of the alias range.
var noEntries = prolly.Range{Start: aliasStart, Stop: aliasStart}

// AtHeight iterates over the entries at height h, by ascending address.
func (c Closure) AtHeight(ctx context.Context, h Height) *Iter {
	if h > MaxHeight {
		return &Iter{it: c.m.Iter(ctx, noEntries)}
	}
	if t, ok, covered := c.atTail(h); covered {
		if ok {
			return &Iter{pre: []Entry{t}}
		}
		return &Iter{}
	}
	return &Iter{it: c.m.Iter(ctx, prolly.PrefixRange(heightKey(h)))}
}

// Descending iterates from the greatest entry down to the least. If below
// is not the zero Entry, it starts at the greatest entry strictly less than
// below.
func (c Closure) Descending(ctx context.Context, below Entry) *Iter {
	r := prolly.Range{Reverse: true, Stop: aliasStart}
	pre := c.tail
	if below != (Entry{}) && below.Height <= MaxHeight {
		r.Stop = below.Key()
		i := 0
		for i < len(pre) && pre[i].Compare(below) >= 0 {
			i++
		}
		pre = pre[i:]
	}
	return &Iter{pre: pre, it: c.m.Iter(ctx, r)}
}

// DescendingFrom iterates from the greatest entry at most from down.
func (c Closure) DescendingFrom(ctx context.Context, from Entry) *Iter {
	r := prolly.Range{Stop: aliasStart, Reverse: true}
	pre := c.tail
	if from.Height <= MaxHeight {
		r.Stop, r.StopInclusive = from.Key(), true
		i := 0
		for i < len(pre) && pre[i].Compare(from) > 0 {
			i++
		}
		pre = pre[i:]
	}
	return &Iter{pre: pre, it: c.m.Iter(ctx, r)}
}

// Ascending iterates from the least entry with height at least from, up.
func (c Closure) Ascending(ctx context.Context, from Height) *Iter {
	var post []Entry
	for i := len(c.tail) - 1; i >= 0; i-- {
		if c.tail[i].Height >= from {
			post = append(post, c.tail[i])
		}
	}
	return &Iter{it: c.m.Iter(ctx, prolly.Range{Start: heightKey(from), Stop: aliasStart}), post: post}
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
	// The tail's entry at h+1, or the base's; a tail holds no merge, so
	// its commits have no aliases, and the base's aliases are all below
	// the tail.
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

// Iter iterates over the entries of a closure: pre (tail entries), then
// the base's, then post (tail entries). It is not safe for concurrent use.
type Iter struct {
	pre, post []Entry
	it        *prolly.Iter // nil: no base entries
	cur       Entry
	err       error
}

// Next moves to the next entry and reports whether there is one.
func (it *Iter) Next(ctx context.Context) bool {
	if it.err != nil {
		return false
	}
	if len(it.pre) > 0 {
		it.cur, it.pre = it.pre[0], it.pre[1:]
		return true
	}
	if it.it != nil {
		if it.it.Next(ctx) {
			e, err := DecodeKey(it.it.Key())
			if err != nil {
				it.err = err
				return false
			}
			it.cur = e
			return true
		}
		if it.it.Err() != nil {
			return false
		}
		it.it = nil
	}
	if len(it.post) > 0 {
		it.cur, it.post = it.post[0], it.post[1:]
		return true
	}
	return false
}

// Entry returns the current entry.
func (it *Iter) Entry() Entry { return it.cur }

// Err returns the error that stopped the iteration, if any.
func (it *Iter) Err() error {
	if it.err != nil || it.it == nil {
		return it.err
	}
	return it.it.Err()
}

// Parent is one parent of a commit being built: its entry, its closure,
// whether it is a merge, and the heights of its own parents.
type Parent struct {
	Entry   Entry
	Closure Closure
	// Merge says the parent has several parents. BuildTail never extends
	// a tail with a merge (its aliases belong in a base).
	Merge bool
	// Parents are the heights of the parent's parents. For a merge (two or
	// more), Build adds an alias of the parent at h+1 for each h with
	// h+1 < the parent's height. Nil adds none: a closure built without
	// them lacks those aliases (commitgraph does so for commits of its
	// format 1).
	Parents []Height
}

// Build returns the closure of a commit whose parents are parents (in
// order, first parent first), with no tail: BuildTail(ctx, ns, parents, 0).
func Build(ctx context.Context, ns *prolly.NodeStore, parents []Parent) (Closure, error) {
	return BuildTail(ctx, ns, parents, 0)
}

// BuildTail returns the closure of a commit whose parents are parents (in
// order, first parent first). With no parents it returns the empty
// closure.
//
// With one parent P that is not a merge, whose closure's tail is shorter
// than maxTail (at most MaxTail), it returns P's base with P's tail and P
// in front: nothing is written. Otherwise it writes a base holding the
// whole closure, with no tail: with one parent P, closure(P) plus (h(P),
// P) and P's aliases if P is a merge; with several, the first parent's
// closure plus every parent, its aliases and its tail, and what each diff
// from the first parent's base to another parent's reports as added
// (entries and aliases; keys reported as removed are in the first base
// already).
func BuildTail(ctx context.Context, ns *prolly.NodeStore, parents []Parent, maxTail int) (Closure, error) {
	if len(parents) == 0 {
		return Empty(ns), nil
	}
	maxTail = min(maxTail, MaxTail)
	for _, p := range parents {
		if p.Entry.Height == 0 || p.Entry.Height > MaxHeight || p.Entry.Addr.IsEmpty() {
			return Closure{}, fmt.Errorf("%w: %v", ErrBadParent, p.Entry)
		}
		if f := p.Closure.tail; len(f) > 0 && f[0].Height+1 != p.Entry.Height {
			return Closure{}, fmt.Errorf("%w: %v has a tail from height %d", ErrBadParent, p.Entry, f[0].Height)
		}
	}
	if p := parents[0]; len(parents) == 1 && !p.Merge && len(p.Closure.tail) < maxTail {
		tail := make([]Entry, 0, len(p.Closure.tail)+1)
		tail = append(append(tail, p.Entry), p.Closure.tail...)
		return Closure{m: p.Closure.m, tail: tail}, nil
	}
	var keys [][]byte
	for _, p := range parents {
		keys = append(keys, p.Entry.Key())
		for _, e := range p.Closure.tail {
			keys = append(keys, e.Key())
		}
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
	var top Height
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
			top = max(top, e.Height)
			continue
		}
		if h, ok := heights[e.Addr]; !ok || h <= e.Height {
			return fmt.Errorf("closure: check: alias %v names no entry above height %d (entry height %d)", Alias{e.Height, e.Addr}, e.Height, h)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if len(c.tail) > 0 && top >= c.tailFloor() {
		return fmt.Errorf("closure: check: the base holds an entry at height %d, the tail begins at %d", top, c.tailFloor())
	}
	if _, err := (Closure{m: c.m}).WithTail(c.tail); err != nil {
		return fmt.Errorf("closure: check: %w", err)
	}
	return nil
}
