package commitgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
)

// Branch is a branch and its head commit.
type Branch struct {
	Name string
	Head chunks.Address
}

// Branches returns every branch, sorted by name.
func (db *DB) Branches(ctx context.Context) ([]Branch, error) {
	refs, err := db.Refs(ctx, branchPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]Branch, len(refs))
	for i, r := range refs {
		out[i] = Branch{Name: strings.TrimPrefix(r.Name, branchPrefix), Head: r.Addr}
	}
	return out, nil
}

// Head returns the head commit address of branch, or an error wrapping
// ErrBranchNotFound.
func (db *DB) Head(ctx context.Context, branch string) (chunks.Address, error) {
	a, ok, err := db.ref(ctx, branchRef(branch))
	if err != nil {
		return a, err
	}
	if !ok {
		return a, fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
	}
	return a, nil
}

// HeadCommit returns the head commit of branch.
func (db *DB) HeadCommit(ctx context.Context, branch string) (*Commit, error) {
	a, err := db.Head(ctx, branch)
	if err != nil {
		return nil, err
	}
	return db.ReadCommit(ctx, a)
}

// CreateBranch creates branch at the commit at. It returns ErrBranchExists
// if the name is taken.
func (db *DB) CreateBranch(ctx context.Context, branch string, at chunks.Address) error {
	if err := CheckName(branch); err != nil {
		return err
	}
	if _, err := db.ReadCommit(ctx, at); err != nil {
		return err
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, branchRef(branch)); err != nil || ok {
			if ok {
				return fmt.Errorf("%w: %q", ErrBranchExists, branch)
			}
			return err
		}
		tx.Set(branchRef(branch), at)
		return nil
	})
}

// SetHead moves branch from the commit expected to the commit to (a
// fast-forward, a reset, or a merge's result), or returns ErrBranchMoved
// if the branch is not at expected.
func (db *DB) SetHead(ctx context.Context, branch string, expected, to chunks.Address) error {
	if _, err := db.ReadCommit(ctx, to); err != nil {
		return err
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if err := checkHead(ctx, tx, branch, expected); err != nil {
			return err
		}
		tx.Set(branchRef(branch), to)
		return nil
	})
}

// DeleteBranch deletes branch and its working set. It returns
// ErrBranchNotFound if there is no such branch.
func (db *DB) DeleteBranch(ctx context.Context, branch string) error {
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, branchRef(branch)); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
			}
			return err
		}
		tx.Delete(branchRef(branch))
		tx.Delete(workingSetRef(branch))
		tx.Delete(UpstreamPrefix + branch)
		return nil
	})
}

// RenameBranch renames branch from to to, with its working set and
// upstream, in one atomic step. With force it replaces a branch named to
// (its working set and upstream go with it); without, such a branch is
// ErrBranchExists.
func (db *DB) RenameBranch(ctx context.Context, from, to string, force bool) error {
	if err := CheckName(to); err != nil {
		return err
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		head, ok, err := tx.Get(ctx, branchRef(from))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %q", ErrBranchNotFound, from)
		}
		if from == to {
			return errNoChange
		}
		if _, ok, err := tx.Get(ctx, branchRef(to)); err != nil || ok {
			if err != nil {
				return err
			}
			if !force {
				return fmt.Errorf("%w: %q", ErrBranchExists, to)
			}
			tx.Delete(workingSetRef(to))
			tx.Delete(UpstreamPrefix + to)
		}
		tx.Delete(branchRef(from))
		tx.Set(branchRef(to), head)
		ws, ok, err := tx.Get(ctx, workingSetRef(from))
		if err != nil {
			return err
		}
		tx.Delete(workingSetRef(from))
		if up, ok, err := tx.Get(ctx, UpstreamPrefix+from); err != nil {
			return err
		} else if ok {
			tx.Delete(UpstreamPrefix + from)
			tx.Set(UpstreamPrefix+to, up)
		}
		if ok {
			tx.Set(workingSetRef(to), ws)
		}
		return nil
	})
}
