package verso

import (
	"context"
	"errors"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Resets and checkouts of tables, as dolt_reset and dolt_checkout have
// them: they move tables (items, staging.go) from the head commit, another
// commit or the staged root into the staged and working roots of the
// transaction's branch, and move its head, each in one durable step
// (UpdateBranch). The transaction's own writes are folded into the working
// root first.

// ResetOptions say what Reset does. The zero value unstages every change
// (the staged root becomes the head's), keeping the working root: a mixed
// reset, Dolt's and git's default.
type ResetOptions struct {
	// Rev is the revision the branch's head moves to (a branch, tag or
	// hash, HEAD~1; HEAD is the transaction's branch); "" keeps the head.
	Rev string
	// Hard makes the staged and working roots the target commit's,
	// keeping untracked tables (those only in the working root: neither
	// staged, nor in the head, nor in the target), and abandons a merge in
	// progress.
	Hard bool
	// Soft keeps the staged and working roots and moves only the head
	// (git's --soft, and Dolt's): without Rev it changes nothing.
	Soft bool
	// Tables, if given, unstages only these tables (their staged versions
	// become the head's); it excludes Rev, Hard and Soft. A name in neither
	// root is a *TableNotFoundError.
	Tables []string
}

// Reset resets the transaction's branch as opts say. A revision that
// names nothing is a *RevisionError.
func (t *Txn) Reset(ctx context.Context, opts ResetOptions) error {
	switch {
	case opts.Hard && opts.Soft:
		return errors.New("verso: a reset is Hard or Soft, not both")
	case len(opts.Tables) > 0 && (opts.Hard || opts.Soft || opts.Rev != ""):
		return errors.New("verso: a reset of tables takes neither Rev, Hard nor Soft")
	}
	var target *Commit
	if opts.Rev != "" {
		c, err := t.db.resolve(ctx, opts.Rev, t.branch)
		if err != nil {
			return err
		}
		target = c
	}
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		ch := &BranchChange{Working: s.Working, Staged: s.Staged, Merge: s.WS.Merge}
		if len(opts.Tables) > 0 {
			staged, err := copyItems(ctx, s.HeadRoot, s.Staged, opts.Tables)
			if err != nil {
				return nil, err
			}
			ch.Staged = staged
			return ch, nil
		}
		toRoot := s.HeadRoot
		if target != nil {
			ch.Head = target.Addr
			var err error
			if toRoot, err = t.db.graph.OpenRoot(ctx, target.Root); err != nil {
				return nil, err
			}
		}
		switch {
		case opts.Hard:
			w, err := keepUntracked(ctx, s, toRoot)
			if err != nil {
				return nil, err
			}
			ch.Working, ch.Staged, ch.Merge = w, toRoot, nil
		case opts.Soft:
			// The head moves to the target, if any; staged and working
			// stay (git's --soft and Dolt's: alone it changes nothing).
		default:
			ch.Staged = toRoot
		}
		return ch, nil
	})
}

// keepUntracked returns to with the items of s's working root that are
// neither staged, nor in the head, nor in to (the schema objects aside):
// a hard reset keeps them, as git's and Dolt's do (removing them is
// dolt_clean's business). A table renamed in the working root (its table
// value the same as a staged or head table's that the working root no
// longer has under that name) is tracked: the reset undoes the rename, as
// Dolt's does (its tables keep their columns' tags across a rename).
func keepUntracked(ctx context.Context, s *BranchState, to RootValue) (RootValue, error) {
	working, err := itemEntries(ctx, s.Working)
	if err != nil {
		return to, err
	}
	var others []map[string][]RootEntry
	for _, r := range []RootValue{s.Staged, s.HeadRoot, to} {
		items, err := itemEntries(ctx, r)
		if err != nil {
			return to, err
		}
		others = append(others, items)
	}
	renamedAway := map[chunks.Address]bool{}
	for _, o := range others[:2] {
		for name, ents := range o {
			if findItem(working, name) != "" {
				continue
			}
			for _, e := range ents {
				if strings.HasPrefix(e.Name, commitgraph.TablePrefix) {
					renamedAway[e.Addr] = true
				}
			}
		}
	}
	var untracked []string
	for name, ents := range working {
		if IsObjectItem(name) {
			continue
		}
		tracked := false
		for _, o := range others {
			if findItem(o, name) != "" {
				tracked = true
			}
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name, commitgraph.TablePrefix) && renamedAway[e.Addr] {
				tracked = true
			}
		}
		if !tracked {
			untracked = append(untracked, name)
		}
	}
	if len(untracked) == 0 {
		return to, nil
	}
	return copyItems(ctx, s.Working, to, untracked)
}

// CheckoutTables discards changes of the named tables (items, matched
// without case). With rev "" their working versions become the staged
// ones (dolt_checkout('t')): a name in neither the working nor the staged
// root is a *TableNotFoundError. With a revision (HEAD is the
// transaction's branch) both their staged and working versions become
// that commit's, as git checkout <rev> -- <file> does; a name the commit
// lacks is a *TableNotFoundError (the table is not dropped). A merge in
// progress stays.
func (t *Txn) CheckoutTables(ctx context.Context, rev string, names []string) error {
	var from *Commit
	if rev != "" {
		c, err := t.db.resolve(ctx, rev, t.branch)
		if err != nil {
			return err
		}
		from = c
	}
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if from != nil {
			src, err := t.db.graph.OpenRoot(ctx, from.Root)
			if err != nil {
				return nil, err
			}
			items, err := itemEntries(ctx, src)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if findItem(items, n) == "" {
					return nil, &TableNotFoundError{Table: n}
				}
			}
			staged, err := copyItems(ctx, src, s.Staged, names)
			if err != nil {
				return nil, err
			}
			w, err := copyItems(ctx, src, s.Working, names)
			if err != nil {
				return nil, err
			}
			return &BranchChange{Working: w, Staged: staged, Merge: s.WS.Merge}, nil
		}
		working, err := itemEntries(ctx, s.Working)
		if err != nil {
			return nil, err
		}
		staged, err := itemEntries(ctx, s.Staged)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if findItem(working, n) == "" && findItem(staged, n) == "" {
				return nil, &TableNotFoundError{Table: n}
			}
		}
		w, err := copyItems(ctx, s.Staged, s.Working, names)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: w, Staged: s.Staged, Merge: s.WS.Merge}, nil
	})
}

// CheckoutAll discards the working changes of every table, as
// dolt_checkout('.') does: each item of the staged root takes its staged
// version in the working root (one dropped from the working root comes
// back). Untracked tables (only in the working root) stay, as do a merge
// in progress and conflicts.
func (t *Txn) CheckoutAll(ctx context.Context) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		items, err := itemEntries(ctx, s.Staged)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(items))
		for n := range items {
			names = append(names, n)
		}
		w, err := copyItems(ctx, s.Staged, s.Working, names)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: w, Staged: s.Staged, Merge: s.WS.Merge}, nil
	})
}
