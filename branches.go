package verso

import (
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso/commitgraph"
)

// Branches and tags, as dolt_branch, dolt_checkout -b and dolt_tag have
// them. Each change is one compare-and-swap of the store's refs (package
// commitgraph), so one fsync. A caller with a checked-out branch (a SQL
// session's, the command line's .verso/HEAD) names it in BranchOptions.Head:
// HEAD in revisions stands for it, and no operation moves it by force or
// deletes it. The database's default branch (.verso/HEAD, DefaultBranch) is
// neither renamed nor deleted.

var (
	// ErrBranchCheckedOut is returned for a forced move or a deletion of
	// the branch the caller has checked out (BranchOptions.Head, or the
	// transaction's branch): reset it instead, or check out another.
	ErrBranchCheckedOut = errors.New("verso: the branch is checked out")
	// ErrDefaultBranch is returned for a rename or deletion of the
	// database's default branch (.verso/HEAD).
	ErrDefaultBranch = errors.New("verso: the default branch of the database cannot be renamed or deleted")
	// ErrNotMerged is returned by DeleteBranch, without Force, for a branch
	// whose head is not an ancestor of the head of BranchOptions.Head.
	ErrNotMerged = errors.New("verso: the branch is not fully merged")
	// ErrUncommittedChanges is returned by MoveHead for a branch whose
	// head cannot move without losing work: changes to tracked tables,
	// staged or not, conflicts, a merge in progress, or an untracked table
	// the new head has too.
	ErrUncommittedChanges = errors.New("verso: the branch has uncommitted changes")
)

// BranchOptions tune the branch operations.
type BranchOptions struct {
	// Head is the branch the caller has checked out ("" for the default
	// branch): HEAD in a revision names its head, SetBranch with Force
	// will not move it, DeleteBranch will not delete it and, without
	// Force, deletes only branches merged into it.
	Head string
	// Force lets SetBranch, CopyBranch and RenameBranch replace a branch
	// of the new name, and DeleteBranch delete a branch not merged into
	// Head.
	Force bool
}

// head returns the branch HEAD stands for under opts.
func (db *DB) head(opts BranchOptions) string {
	if opts.Head != "" {
		return opts.Head
	}
	return db.DefaultBranch()
}

// resolve returns the commit the revision rev names, HEAD standing for
// the branch head; a failure is a *RevisionError.
func (db *DB) resolve(ctx context.Context, rev, head string) (*Commit, error) {
	c, err := db.graph.Resolve(ctx, rev, head)
	if err != nil {
		return nil, &RevisionError{Rev: rev, Err: err}
	}
	return c, nil
}

// Resolve returns the commit the revision rev names: a branch, a tag, a
// commit hash, HEAD, with ~ and ^ steps (main~2, HEAD^2). HEAD stands for
// the branch head ("" for the default branch). A revision that names
// nothing fails with a *RevisionError.
func (db *DB) Resolve(ctx context.Context, rev, head string) (*Commit, error) {
	if head == "" {
		head = db.DefaultBranch()
	}
	return db.resolve(ctx, rev, head)
}

// Branches returns the database's branches, sorted by name.
func (db *DB) Branches(ctx context.Context) ([]Branch, error) {
	return db.graph.Branches(ctx)
}

// CreateBranch makes the branch name at the revision from ("" for the
// default branch's head), with a working set equal to that commit.
func (db *DB) CreateBranch(ctx context.Context, name, from string) error {
	if from == "" {
		from = db.DefaultBranch()
	}
	return db.SetBranch(ctx, name, from, BranchOptions{})
}

// SetBranch points the branch name at the commit the revision start
// names, creating it, or with opts.Force moving it (it then loses its
// working set: both roots become the commit's). A new branch's working set
// is the commit's. It fails with ErrBranchExists for a branch that exists
// (without Force), ErrBranchCheckedOut for a forced move of opts.Head,
// ErrBadName for a name not allowed, and a *RevisionError for a start that
// names nothing.
func (db *DB) SetBranch(ctx context.Context, name, start string, opts BranchOptions) error {
	defer db.op()()
	head := db.head(opts)
	if opts.Force && name == head {
		return fmt.Errorf("%w: %q", ErrBranchCheckedOut, name)
	}
	c, err := db.resolve(ctx, start, head)
	if err != nil {
		return err
	}
	return db.graph.SetBranch(ctx, name, c.Addr, nil, opts.Force)
}

// CopyBranch makes the branch to a copy of from: its head and its working
// set (uncommitted changes included). With opts.Force it replaces a branch
// named to. It fails with ErrBranchNotFound if from does not exist, and
// for to as SetBranch does.
func (db *DB) CopyBranch(ctx context.Context, from, to string, opts BranchOptions) error {
	defer db.op()()
	head, ws, err := db.graph.BranchState(ctx, from)
	if err != nil {
		return err
	}
	return db.graph.SetBranch(ctx, to, head.Addr, &ws, opts.Force)
}

// RenameBranch gives the branch from, with its working set and its
// upstream, the name to (replacing a branch of that name with
// opts.Force), in one step. The default branch cannot be renamed
// (ErrDefaultBranch); a caller that has from checked out switches to to
// itself. Renaming a branch to its own name changes nothing, and without
// Force fails with ErrBranchExists.
func (db *DB) RenameBranch(ctx context.Context, from, to string, opts BranchOptions) error {
	defer db.op()()
	if from != to && from == db.DefaultBranch() {
		return fmt.Errorf("%w: %q", ErrDefaultBranch, from)
	}
	if from == to {
		if _, err := db.graph.Head(ctx, from); err != nil {
			return err
		}
		if !opts.Force {
			return fmt.Errorf("%w: %q", ErrBranchExists, to)
		}
		return nil
	}
	return db.graph.RenameBranch(ctx, from, to, opts.Force)
}

// DeleteBranch deletes the branch name and its working set. It refuses
// the caller's checked-out branch (ErrBranchCheckedOut), the default
// branch (ErrDefaultBranch) and, without opts.Force, a branch whose head
// is not an ancestor of opts.Head's (ErrNotMerged); a branch that does not
// exist is ErrBranchNotFound.
func (db *DB) DeleteBranch(ctx context.Context, name string, opts BranchOptions) error {
	defer db.op()()
	head := db.head(opts)
	switch {
	case name == head:
		return fmt.Errorf("%w: %q", ErrBranchCheckedOut, name)
	case name == db.DefaultBranch():
		return fmt.Errorf("%w: %q", ErrDefaultBranch, name)
	}
	at, err := db.graph.Head(ctx, name)
	if err != nil {
		return err
	}
	if !opts.Force {
		into, err := db.graph.Head(ctx, head)
		if err != nil {
			return err
		}
		ok, err := db.graph.IsAncestor(ctx, at, into)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %q into %q", ErrNotMerged, name, head)
		}
	}
	return db.graph.DeleteBranch(ctx, name)
}

// ForkBranch makes the branch name at the head of the transaction's
// branch, with a copy of its working set that holds the transaction's
// writes (as dolt_checkout -b without a start point does). With force it
// replaces a branch named name, other than the transaction's own
// (ErrBranchCheckedOut). The transaction's branch is unchanged.
func (t *Txn) ForkBranch(ctx context.Context, name string, force bool) error {
	if t.readOnly {
		return fmt.Errorf("%w: %s is a revision at a commit", ErrReadOnly, t.branch)
	}
	if force && name == t.branch {
		return fmt.Errorf("%w: %q", ErrBranchCheckedOut, name)
	}
	g := t.db.graph
	head, ws, err := g.BranchState(ctx, t.branch)
	if err != nil {
		return err
	}
	w, err := t.PendingWorking(ctx, ws)
	if err != nil {
		return err
	}
	return g.SetBranch(ctx, name, head.Addr, &commitgraph.WorkingSet{Working: w.Address(), Staged: ws.Staged}, force)
}

// MoveHead points the transaction's branch at the commit the revision rev
// names (HEAD is the branch's head), its staged and working roots becoming
// the commit's, as dolt_branch -f and dolt_checkout -B do to the session's
// own branch. Nothing is lost: a branch with changes to its tracked tables
// (staged or not, the transaction's writes included), conflicts or a merge
// in progress fails with ErrUncommittedChanges and is left as it was, and
// untracked tables (only in the working root) are kept, unless the commit
// has a table of the same name, which fails too. Reset with Hard discards
// changes on purpose. A revision that names nothing is a *RevisionError.
func (t *Txn) MoveHead(ctx context.Context, rev string) error {
	target, err := t.db.resolve(ctx, rev, t.branch)
	if err != nil {
		return err
	}
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		dirty := func(what string) error {
			return fmt.Errorf("%w: %s on %q", ErrUncommittedChanges, what, t.branch)
		}
		if s.WS.Merge != nil {
			return nil, dirty("a merge in progress")
		}
		if cs, err := s.Working.Entries(ctx, commitgraph.ConflictsPrefix); err != nil || len(cs) > 0 {
			if err == nil {
				err = dirty("conflicts")
			}
			return nil, err
		}
		root, err := t.db.graph.OpenRoot(ctx, target.Root)
		if err != nil {
			return nil, err
		}
		staged, err := ChangedItems(ctx, s.HeadRoot, s.Staged)
		if err != nil {
			return nil, err
		}
		if len(staged) > 0 {
			return nil, dirty(staged[0].Name + " staged")
		}
		working, err := ChangedItems(ctx, s.Staged, s.Working)
		if err != nil {
			return nil, err
		}
		var targetItems map[string][]RootEntry
		for _, c := range working {
			if c.InFrom || IsObjectItem(c.Name) { // keepUntracked keeps no schema objects
				return nil, dirty(c.Name + " changed")
			}
			if targetItems == nil {
				if targetItems, err = itemEntries(ctx, root); err != nil {
					return nil, err
				}
			}
			if findItem(targetItems, c.Name) != "" {
				return nil, dirty("untracked " + c.Name + ", which " + rev + " has too")
			}
		}
		w, err := keepUntracked(ctx, s, root)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Head: target.Addr, Working: w, Staged: root}, nil
	})
}

// Tag is a tag: its name, the commit it names, who made it, when, and its
// message.
type Tag = commitgraph.Tag

// TagOptions say what a new tag records.
type TagOptions struct {
	// Head is the branch HEAD stands for in the revision tagged ("" for
	// the default branch).
	Head    string
	Tagger  Signature // who; required
	Message string
}

// Tags returns the database's tags, sorted by name.
func (db *DB) Tags(ctx context.Context) ([]*Tag, error) {
	return db.graph.Tags(ctx)
}

// CreateTag tags the commit the revision rev names as name. It fails with
// ErrTagExists for a name taken, ErrBadName for a name not allowed, a
// *RevisionError for a revision that names nothing and ErrNoAuthor
// without a tagger.
func (db *DB) CreateTag(ctx context.Context, name, rev string, opts TagOptions) (*Tag, error) {
	defer db.op()()
	head := opts.Head
	if head == "" {
		head = db.DefaultBranch()
	}
	c, err := db.resolve(ctx, rev, head)
	if err != nil {
		return nil, err
	}
	if opts.Tagger.Name == "" || opts.Tagger.Email == "" {
		return nil, fmt.Errorf("%w (TagOptions.Tagger)", ErrNoAuthor)
	}
	return db.graph.CreateTag(ctx, name, c.Addr, commitgraph.TagMeta{Tagger: opts.Tagger, Message: opts.Message})
}

// DeleteTag deletes the tag name; ErrTagNotFound if there is none.
func (db *DB) DeleteTag(ctx context.Context, name string) error {
	defer db.op()()
	return db.graph.DeleteTag(ctx, name)
}
