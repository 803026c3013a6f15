package commitgraph

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// Branch state: the head and the working set of a branch changed together,
// for the staging operations (add, commit, reset, checkout of tables) that
// read both and must not overwrite a concurrent change of either.

// BranchUpdate is an atomic change of a branch's head and working set.
type BranchUpdate struct {
	// ExpectedHead is the head the caller read; the update fails with
	// ErrBranchMoved if the branch is elsewhere.
	ExpectedHead chunks.Address
	// ExpectedWorkingSet is the working set the caller read (as
	// WorkingSet returns it); the update fails with ErrWorkingSetMoved if
	// it changed.
	ExpectedWorkingSet WorkingSet
	// Head is the new head: ExpectedHead to leave it.
	Head chunks.Address
	// WorkingSet is the new working set.
	WorkingSet WorkingSet
}

// UpdateBranch moves branch's head and replaces its working set with one
// compare-and-swap of the store root, if both are still what the caller
// read.
func (db *DB) UpdateBranch(ctx context.Context, branch string, u BranchUpdate) error {
	if u.Head != u.ExpectedHead {
		if _, err := db.ReadCommit(ctx, u.Head); err != nil {
			return err
		}
	}
	wsAddr, err := db.putWorkingSet(ctx, u.WorkingSet)
	if err != nil {
		return err
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if err := checkHead(ctx, tx, branch, u.ExpectedHead); err != nil {
			return err
		}
		cur, _, err := readWorkingSet(ctx, db, tx, branch)
		if err != nil {
			return err
		}
		if !cur.Equal(u.ExpectedWorkingSet) {
			return fmt.Errorf("%w: %q", ErrWorkingSetMoved, branch)
		}
		tx.Set(branchRef(branch), u.Head)
		tx.Set(workingSetRef(branch), wsAddr)
		return nil
	})
}

// BranchState returns branch's head commit and working set as of one read
// of the refs.
func (db *DB) BranchState(ctx context.Context, branch string) (*Commit, WorkingSet, error) {
	var head chunks.Address
	var ws WorkingSet
	err := db.View(ctx, func(tx *RefTx) error {
		var ok bool
		var err error
		if head, ok, err = tx.Get(ctx, branchRef(branch)); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
		}
		ws, _, err = readWorkingSet(ctx, db, tx, branch)
		return err
	})
	if err != nil {
		return nil, WorkingSet{}, err
	}
	c, err := db.ReadCommit(ctx, head)
	if err != nil {
		return nil, WorkingSet{}, err
	}
	return c, ws, nil
}

// SetBranch points branch at the commit at, creating it or, if force,
// moving it from wherever it is; a moved branch loses its working set (its
// roots become those of at). ws, if not nil, is written as the branch's
// working set in the same step (a copy of another branch's). Without force
// an existing branch gives ErrBranchExists.
func (db *DB) SetBranch(ctx context.Context, branch string, at chunks.Address, ws *WorkingSet, force bool) error {
	if err := CheckName(branch); err != nil {
		return err
	}
	if _, err := db.ReadCommit(ctx, at); err != nil {
		return err
	}
	var wsAddr chunks.Address
	if ws != nil {
		var err error
		if wsAddr, err = db.putWorkingSet(ctx, *ws); err != nil {
			return err
		}
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, branchRef(branch)); err != nil {
			return err
		} else if ok && !force {
			return fmt.Errorf("%w: %q", ErrBranchExists, branch)
		}
		tx.Set(branchRef(branch), at)
		if ws != nil {
			tx.Set(workingSetRef(branch), wsAddr)
		} else {
			tx.Delete(workingSetRef(branch))
		}
		return nil
	})
}
