package commitgraph

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// RootConflict is a name that both sides of a merge changed, differently.
// An address is zero when its In flag is false (the name is absent there).
type RootConflict struct {
	Name                     string
	Base, Ours, Theirs       chunks.Address
	InBase, InOurs, InTheirs bool
}

// RootResolver decides a conflicting name: keep it at addr, or drop it
// (keep false). The table layer merges a table's rows here. An error (for
// example wrapping ErrMergeConflict) stops the merge and is returned.
type RootResolver func(ctx context.Context, c RootConflict) (addr chunks.Address, keep bool, err error)

// MergeRoots merges the changes from base to theirs into ours. A name
// changed on one side only takes that side's change; a name changed the
// same way on both sides takes it once; a name changed differently on each
// side goes to resolve. The cost follows the size of the two diffs.
func MergeRoots(ctx context.Context, base, ours, theirs RootValue, resolve RootResolver) (RootValue, error) {
	ourChanges := map[string]RootChange{}
	if err := base.Diff(ctx, ours, func(c RootChange) error {
		ourChanges[c.Name] = c
		return nil
	}); err != nil {
		return RootValue{}, err
	}
	var edits []RootEdit
	err := base.Diff(ctx, theirs, func(t RootChange) error {
		o, both := ourChanges[t.Name]
		switch {
		case !both:
			edits = append(edits, RootEdit{Name: t.Name, Addr: t.To, Delete: !t.InTo})
			return nil
		case o.InTo == t.InTo && o.To == t.To:
			return nil // the same change on both sides
		}
		addr, keep, err := resolve(ctx, RootConflict{
			Name: t.Name, Base: t.From, InBase: t.InFrom,
			Ours: o.To, InOurs: o.InTo, Theirs: t.To, InTheirs: t.InTo,
		})
		if err != nil {
			return fmt.Errorf("commitgraph: merge of %q: %w", t.Name, err)
		}
		edits = append(edits, RootEdit{Name: t.Name, Addr: addr, Delete: !keep})
		return nil
	})
	if err != nil {
		return RootValue{}, err
	}
	if len(edits) == 0 {
		return ours, nil
	}
	return ours.Edit(ctx, edits...)
}

// MergeResult is what Merge found and made.
type MergeResult struct {
	// Base is the merge base of the two commits.
	Base *Commit
	// UpToDate: theirs is an ancestor of ours (or ours); nothing to merge.
	UpToDate bool
	// FastForward: ours is an ancestor of theirs; the branch can move to
	// theirs without a merge commit. Root is then theirs' root.
	FastForward bool
	// Root is the merged root value (not committed).
	Root RootValue
}

// Merge merges the commit theirs into the commit ours: it finds their
// merge base, detects up-to-date and fast-forward cases, and otherwise
// merges the three root values with MergeRoots. It writes no commit: the
// caller commits Root with CommitOptions.MergeParents = {theirs}.
func (db *DB) Merge(ctx context.Context, ours, theirs chunks.Address, resolve RootResolver) (*MergeResult, error) {
	base, err := db.MergeBase(ctx, ours, theirs)
	if err != nil {
		return nil, err
	}
	res := &MergeResult{Base: base}
	switch base.Addr {
	case theirs:
		res.UpToDate = true
		oc, err := db.ReadCommit(ctx, ours)
		if err != nil {
			return nil, err
		}
		res.Root, err = db.OpenRoot(ctx, oc.Root)
		return res, err
	case ours:
		res.FastForward = true
		tc, err := db.ReadCommit(ctx, theirs)
		if err != nil {
			return nil, err
		}
		res.Root, err = db.OpenRoot(ctx, tc.Root)
		return res, err
	}
	roots := make([]RootValue, 3)
	for i, a := range []chunks.Address{base.Addr, ours, theirs} {
		c, err := db.ReadCommit(ctx, a)
		if err != nil {
			return nil, err
		}
		if roots[i], err = db.OpenRoot(ctx, c.Root); err != nil {
			return nil, err
		}
	}
	res.Root, err = MergeRoots(ctx, roots[0], roots[1], roots[2], resolve)
	return res, err
}
