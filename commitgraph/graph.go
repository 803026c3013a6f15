package commitgraph

import (
	"context"
	"fmt"
	"slices"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

// Queries over the commit graph. Each goes through the closures: a commit's
// closure holds every strict ancestor keyed by (height, address), so
//
//   - IsAncestor(A, B) is A == B, or h(A) < h(B) and closure(B) holds
//     (h(A), A): two chunk reads and one O(log n) lookup;
//   - MergeBase walks two closures from the top down in step, seeking past
//     the entries only one side has, so its cost follows how far the two
//     histories diverged;
//   - Children reads one closure at one height, entries and merge-child
//     aliases;
//   - Log reads one closure downwards, a height at a time.

// IsAncestor reports whether the commit a is an ancestor of the commit b
// or b itself.
func (db *DB) IsAncestor(ctx context.Context, a, b chunks.Address) (bool, error) {
	if a == b {
		if _, err := db.ReadCommit(ctx, a); err != nil {
			return false, err
		}
		return true, nil
	}
	ca, err := db.ReadCommit(ctx, a)
	if err != nil {
		return false, err
	}
	cb, err := db.ReadCommit(ctx, b)
	if err != nil {
		return false, err
	}
	return db.IsAncestorCommit(ctx, ca, cb)
}

// IsAncestorCommit is IsAncestor for decoded commits: one O(log n) lookup
// in b's closure.
func (db *DB) IsAncestorCommit(ctx context.Context, a, b *Commit) (bool, error) {
	if a.Addr == b.Addr {
		return true, nil
	}
	if a.Height >= b.Height {
		return false, nil
	}
	cl, err := db.Closure(ctx, b)
	if err != nil {
		return false, err
	}
	return cl.Contains(ctx, a.Entry())
}

// CanFastForward reports whether a branch at from can move to to without a
// merge: from is an ancestor of to (or to itself).
func (db *DB) CanFastForward(ctx context.Context, from, to chunks.Address) (bool, error) {
	return db.IsAncestor(ctx, from, to)
}

// MergeBase returns the best common ancestor of the commits a and b: a if
// it is an ancestor of b (and b if it is one of a); otherwise the common
// ancestor of greatest height, and among several at that height (as
// criss-cross merges make) the one with the greatest address. No other
// common ancestor descends from the one returned. It returns ErrNoMergeBase
// for commits with no common ancestor (two root commits, for one).
func (db *DB) MergeBase(ctx context.Context, a, b chunks.Address) (*Commit, error) {
	ca, err := db.ReadCommit(ctx, a)
	if err != nil {
		return nil, err
	}
	cb, err := db.ReadCommit(ctx, b)
	if err != nil {
		return nil, err
	}
	for _, p := range [][2]*Commit{{ca, cb}, {cb, ca}} {
		ok, err := db.IsAncestorCommit(ctx, p[0], p[1])
		if err != nil {
			return nil, err
		}
		if ok {
			return p[0], nil
		}
	}
	e, ok, err := db.highestCommon(ctx, ca, cb)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s and %s", ErrNoMergeBase, a, b)
	}
	return db.ReadCommit(ctx, e.Addr)
}

// seekSteps is how many entries a side of highestCommon steps through
// before it seeks instead.
const seekSteps = 8

// highestCommon returns the greatest entry both closures hold: a leapfrog
// join of two descending iterations that moves the side with the greater
// entry to the other's entry, stepping a few entries and then seeking.
func (db *DB) highestCommon(ctx context.Context, a, b *Commit) (closure.Entry, bool, error) {
	cls := [2]closure.Closure{}
	for i, c := range []*Commit{a, b} {
		var err error
		if cls[i], err = db.Closure(ctx, c); err != nil {
			return closure.Entry{}, false, err
		}
	}
	var its [2]*closure.Iter
	var cur [2]closure.Entry
	for i := range its {
		its[i] = cls[i].Descending(ctx, closure.Entry{})
		if !its[i].Next(ctx) {
			return closure.Entry{}, false, its[i].Err()
		}
		cur[i] = its[i].Entry()
	}
	for {
		c := cur[0].Compare(cur[1])
		if c == 0 {
			return cur[0], true, nil
		}
		hi, lo := 0, 1
		if c < 0 {
			hi, lo = 1, 0
		}
		// Move side hi down to at most cur[lo].
		moved := false
		for range seekSteps {
			if !its[hi].Next(ctx) {
				return closure.Entry{}, false, its[hi].Err()
			}
			cur[hi] = its[hi].Entry()
			if cur[hi].Compare(cur[lo]) <= 0 {
				moved = true
				break
			}
		}
		if !moved {
			its[hi] = cls[hi].DescendingFrom(ctx, cur[lo])
			if !its[hi].Next(ctx) {
				return closure.Entry{}, false, its[hi].Err()
			}
			cur[hi] = its[hi].Entry()
		}
	}
}

// Children returns the children of the commit c among the ancestors of
// the commit head (head included), ordered by height, then address.
//
// A child of c has a greater height than c, but not necessarily h(c)+1: a
// merge's height is 1 + its highest parent's, so a merge that takes c as a
// lower parent sits higher. ChildCandidates finds both kinds through
// head's closure (its entries at h(c)+1 and its merge-child aliases at
// h(c)+1); Children reads each candidate to check its parents.
func (db *DB) Children(ctx context.Context, c, head chunks.Address) ([]*Commit, error) {
	cc, err := db.ReadCommit(ctx, c)
	if err != nil {
		return nil, err
	}
	hc, err := db.ReadCommit(ctx, head)
	if err != nil {
		return nil, err
	}
	cands, err := db.ChildCandidates(ctx, cc, hc)
	if err != nil {
		return nil, err
	}
	var out []*Commit
	for _, a := range cands {
		x, err := db.ReadCommit(ctx, a)
		if err != nil {
			return nil, err
		}
		if slices.Contains(x.Parents, c) {
			out = append(out, x)
		}
	}
	if slices.Contains(hc.Parents, c) {
		out = append(out, hc)
	}
	slices.SortFunc(out, func(a, b *Commit) int { return a.Entry().Compare(b.Entry()) })
	return out, nil
}

// ChildCandidates returns the strict ancestors of head that may be
// children of c: every child of c among them is there, and the caller
// keeps the commits whose parents include c (head itself is not among
// them). For a head of format 2 they are the entries of head's closure at
// h(c)+1 and its merge-child aliases at h(c)+1: two O(log n) range scans,
// whose cost follows how many commits share that height. For a head of
// format 1, whose closure may lack aliases, they are every ancestor above
// h(c): correct, and one chunk read each for the caller.
func (db *DB) ChildCandidates(ctx context.Context, c, head *Commit) ([]chunks.Address, error) {
	if head.Height <= c.Height+1 {
		return nil, nil
	}
	cl, err := db.Closure(ctx, head)
	if err != nil {
		return nil, err
	}
	if head.HasAliases() {
		return cl.ChildCandidates(ctx, c.Height)
	}
	var out []chunks.Address
	it := cl.Ascending(ctx, c.Height+1)
	for it.Next(ctx) {
		out = append(out, it.Entry().Addr)
	}
	return out, it.Err()
}

// Ancestors returns an iterator over the strict ancestors of the commit
// head, from the greatest (height, address) down.
func (db *DB) Ancestors(ctx context.Context, head chunks.Address) (*closure.Iter, error) {
	hc, err := db.ReadCommit(ctx, head)
	if err != nil {
		return nil, err
	}
	cl, err := db.Closure(ctx, hc)
	if err != nil {
		return nil, err
	}
	return cl.Descending(ctx, closure.Entry{}), nil
}

// CountUnique returns the number of commits in a's history (a included)
// that are not in b's (b included): what dolt_count_commits('--from', b,
// '--to', a) counts as ahead. Its cost follows how far the two histories
// have diverged (closure.Beyond), not their length.
func (db *DB) CountUnique(ctx context.Context, a, b *Commit) (uint64, error) {
	ca, err := db.Closure(ctx, a)
	if err != nil {
		return 0, err
	}
	cb, err := db.Closure(ctx, b)
	if err != nil {
		return 0, err
	}
	inB := func(e closure.Entry) (bool, error) {
		if e.Addr == b.Addr {
			return true, nil
		}
		return cb.Contains(ctx, e)
	}
	var n uint64
	count := func(e closure.Entry) error {
		in, err := inB(e)
		if err == nil && !in {
			n++
		}
		return err
	}
	if err := count(closure.Entry{Height: closure.Height(a.Height), Addr: a.Addr}); err != nil {
		return 0, err
	}
	if err := ca.Beyond(ctx, cb, count); err != nil {
		return 0, err
	}
	return n, nil
}
