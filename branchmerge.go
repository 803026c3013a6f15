package verso

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tablemerge"
)

// Branch merges, cherry-picks and reverts, as Dolt has them: three-way
// merges of root values (package tablemerge: row by row and cell by cell,
// schemas by column, conflicts kept under conflicts/<table> of the working
// root), each one durable step on the transaction's branch (UpdateBranch).
// A merge with conflicts leaves them in the working set, with the merge in
// progress; committing (CommitChanges) is refused until they are resolved
// (ResolveConflicts, or by editing rows and clearing the conflicts) and
// makes a merge commit of two parents.

var (
	// ErrMergeActive is returned for a merge, cherry-pick or revert begun
	// while a merge is in progress on the branch: commit it or abort it.
	ErrMergeActive = errors.New("verso: a merge is in progress; commit it or abort it")
	// ErrNoMerge is returned by AbortMerge when no merge is in progress.
	ErrNoMerge = errors.New("verso: there is no merge to abort")
	// ErrNotFastForward is returned by a merge with FFOnly whose branches
	// have diverged.
	ErrNotFastForward = errors.New("verso: the branches have diverged; a fast-forward is not possible")
	// ErrConflictsRefused is returned by a merge with RefuseConflicts
	// that would leave conflicts: nothing is changed.
	ErrConflictsRefused = errors.New("verso: the merge has conflicts; nothing was changed")
	// ErrNoCherryPick is returned by AbortCherryPick when the working set
	// holds no conflicts of a cherry-pick.
	ErrNoCherryPick = errors.New("verso: there is no cherry-pick with conflicts to abort")
	// ErrConflictsOfMerge is returned by AbortCherryPick when the
	// working set's conflicts are a merge's (AbortMerge them).
	ErrConflictsOfMerge = errors.New("verso: the conflicts are a merge's; abort the merge")
	// ErrRootCommit is returned for a cherry-pick or revert of the root
	// commit, which has no parent to compare with.
	ErrRootCommit = errors.New("verso: the root commit has no parent to compare with")
	// ErrMergeCommit is returned for a cherry-pick or revert of a merge
	// commit: only commits with one parent are supported.
	ErrMergeCommit = errors.New("verso: a merge commit cannot be applied; only commits with one parent are supported")
	// ErrNoAuthor is returned for a commit to be made without an
	// author's (or committer's) name and email in the options.
	ErrNoAuthor = errors.New("verso: a commit needs an author's name and email")
	// ErrAlreadyApplied is returned by a cherry-pick whose changes the
	// branch has already (unless AllowEmpty).
	ErrAlreadyApplied = errors.New("verso: the changes are already on the branch; nothing to commit")
)

// UncommittedError refuses a merge, cherry-pick or revert on a branch with
// uncommitted changes, or with unresolved conflicts: the merge's result
// would mix with them.
type UncommittedError struct {
	Tables    []string // the items changed, sorted
	Conflicts bool     // the changes are unresolved conflicts
}

func (e *UncommittedError) Error() string {
	if e.Conflicts {
		return "verso: the working set has unresolved conflicts in " + strings.Join(e.Tables, ", ") + "; resolve them and commit, or reset the branch"
	}
	return "verso: cannot merge with uncommitted changes (in " + strings.Join(e.Tables, ", ") + "); commit them or reset the branch first"
}

// StompError refuses a merge that would change tables the working set
// has uncommitted changes to (or bring a table of the name of a new one):
// the merge result would overwrite them. Changes to other tables are
// carried over the merge.
type StompError struct{ Tables []string }

func (e *StompError) Error() string {
	return "verso: the merge would overwrite uncommitted changes to " + strings.Join(e.Tables, ", ") + "; commit them or reset the branch first"
}

// UntrackedClashError refuses a merge that would bring a table of the name
// of an untracked table of the working set (new, never staged).
type UntrackedClashError struct{ Table string }

func (e *UntrackedClashError) Error() string {
	return "verso: the merge would overwrite the untracked table " + e.Table + " of the working set; commit it or drop it first"
}

// RevertConflictError refuses a revert whose changes clash with later ones
// of the tables named: nothing is changed.
type RevertConflictError struct{ Tables []string }

func (e *RevertConflictError) Error() string {
	return "verso: the revert conflicts with later changes to " + strings.Join(e.Tables, ", ") + "; nothing was changed"
}

// MergeOptions tune Merge.
type MergeOptions struct {
	Author  Signature // of the merge commit; required unless it fast-forwards
	Message string    // of the merge commit; by default "Merge branch '<theirs>' into <branch>"
	// NoFF makes a merge commit even where the branch could fast-forward;
	// FFOnly refuses a merge that cannot fast-forward (ErrNotFastForward).
	NoFF, FFOnly bool
	// Squash merges the changes into the working set, staged, without a
	// merge in progress or a commit; NoCommit leaves the merge in progress
	// uncommitted.
	Squash, NoCommit bool
	// Default computes, for the other side's rows, a column one side
	// added; nil is tablemerge.LiteralDefault (literal defaults only).
	Default tablemerge.DefaultFunc
	// RefuseConflicts fails a merge that would leave conflicts with
	// ErrConflictsRefused, changing nothing (Dolt's autocommit merge
	// without @@dolt_allow_commit_conflicts).
	RefuseConflicts bool
}

// MergeResult is what Merge, CherryPick or Revert did.
type MergeResult struct {
	// Commit is the commit made (a merge commit, the cherry-picked or
	// reverting commit) or, for a fast-forward, the new head; nil when
	// none was made (conflicts, Squash, NoCommit).
	Commit *Commit
	// FastForward: the branch's head moved to theirs or, with Squash,
	// could have (theirs' changes were staged without a commit).
	FastForward bool
	UpToDate    bool // the branch had theirs already: nothing changed
	// Theirs is the merged commit (for an UpToDate merge, the head
	// itself or one of its ancestors).
	Theirs *Commit
	// Conflicts lists the tables left with conflicts in the working set.
	Conflicts []tablemerge.TableConflicts
}

// mergeOptions are the tablemerge options of a merge of the commit theirs.
func (db *DB) mergeOptions(theirs chunks.Address, def tablemerge.DefaultFunc) tablemerge.Options {
	return tablemerge.Options{
		Theirs:        theirs,
		Default:       def,
		PrefixMergers: map[string]tablemerge.PrefixMerger{commitgraph.EventsPrefix: mergeBranchEvents},
		Collations:    db.Collations(),
	}
}

// Merge merges the revision spec (a branch, tag, hash, main~2) into the
// transaction's branch: a fast-forward where possible (unless NoFF), else a
// three-way merge committed with two parents, or left in the working set
// with its conflicts.
func (t *Txn) Merge(ctx context.Context, spec string, opts MergeOptions) (*MergeResult, error) {
	switch {
	case opts.NoFF && opts.FFOnly:
		return nil, errors.New("verso: NoFF and FFOnly contradict each other; give one")
	case opts.Squash && opts.NoFF:
		return nil, errors.New("verso: Squash and NoFF contradict each other; give one")
	}
	var out *MergeResult
	g := t.db.graph
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		out = &MergeResult{}
		local, err := localChanges(ctx, s)
		if err != nil {
			return nil, err
		}
		theirs, err := t.db.resolve(ctx, spec, t.branch)
		if err != nil {
			return nil, err
		}
		base, err := g.MergeBase(ctx, s.Head.Addr, theirs.Addr)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", t.branch, spec, err)
		}
		theirsRoot, err := g.OpenRoot(ctx, theirs.Root)
		if err != nil {
			return nil, err
		}
		var ch *BranchChange
		out.Theirs = theirs
		switch {
		case base.Addr == theirs.Addr:
			out.UpToDate, out.Commit = true, s.Head
			return nil, nil
		case base.Addr == s.Head.Addr && opts.Squash:
			out.FastForward = true
			ch = &BranchChange{Working: theirsRoot, Staged: theirsRoot}
		case base.Addr == s.Head.Addr && !opts.NoFF:
			out.FastForward, out.Commit = true, theirs
			ch = &BranchChange{Head: theirs.Addr, Working: theirsRoot, Staged: theirsRoot}
		case opts.FFOnly:
			return nil, fmt.Errorf("%w: %s and %s", ErrNotFastForward, t.branch, spec)
		default:
			if ch, err = t.threeWay(ctx, s, base, theirs, theirsRoot, spec, opts, out); err != nil {
				return nil, err
			}
		}
		return carryLocal(ctx, s, local, ch)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// threeWay is Merge's change of the branch when both sides moved.
func (t *Txn) threeWay(ctx context.Context, s *BranchState, base, theirs *Commit, theirsRoot RootValue, spec string, opts MergeOptions, out *MergeResult) (*BranchChange, error) {
	g := t.db.graph
	baseRoot, err := g.OpenRoot(ctx, base.Root)
	if err != nil {
		return nil, err
	}
	res, err := tablemerge.Merge(ctx, g.NodeStore(), baseRoot, s.HeadRoot, theirsRoot, t.db.mergeOptions(theirs.Addr, opts.Default))
	if err != nil {
		return nil, err
	}
	var merge *commitgraph.MergeState
	if !opts.Squash {
		merge = &commitgraph.MergeState{Commit: theirs.Addr, PreMergeWorking: s.Working.Address()}
	}
	if res.HasConflicts() {
		if opts.RefuseConflicts {
			return nil, ErrConflictsRefused
		}
		out.Conflicts = res.Conflicts
		return conflictState(ctx, s, res, merge)
	}
	if opts.NoCommit || opts.Squash {
		return &BranchChange{Working: res.Root, Staged: res.Root, Merge: merge}, nil
	}
	if opts.Author.Name == "" || opts.Author.Email == "" {
		return nil, fmt.Errorf("%w (MergeOptions.Author)", ErrNoAuthor)
	}
	m := commitgraph.Meta{Author: opts.Author, Message: opts.Message}
	if m.Message == "" {
		m.Message = fmt.Sprintf("Merge branch '%s' into %s", spec, t.branch)
	}
	c, err := g.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.Head.Addr, theirs.Addr}, m)
	if err != nil {
		return nil, err
	}
	out.Commit = c
	return &BranchChange{Head: c.Addr, Working: res.Root, Staged: res.Root}, nil
}

// AbortMerge abandons the merge in progress: the working root goes back to
// what it was before the merge, and the staged root to the head's.
func (t *Txn) AbortMerge(ctx context.Context) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if s.WS.Merge == nil {
			return nil, ErrNoMerge
		}
		pre, err := t.db.graph.OpenRoot(ctx, s.WS.Merge.PreMergeWorking)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: pre, Staged: s.HeadRoot}, nil
	})
}

// CherryPickOptions tune CherryPick.
type CherryPickOptions struct {
	// Committer is who makes the commit; the commit keeps the picked
	// one's author and message.
	Committer  Signature
	AllowEmpty bool // commit even if the branch has the changes already
	Default    tablemerge.DefaultFunc
}

// CherryPick applies the changes of the commit spec names (from its first
// parent) to the branch and commits them with that commit's author and
// message. With conflicts, no commit is made and the working set holds
// them: resolve them and commit, or AbortCherryPick.
func (t *Txn) CherryPick(ctx context.Context, spec string, opts CherryPickOptions) (*MergeResult, error) {
	var out *MergeResult
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		out = &MergeResult{}
		untracked, err := checkClean(ctx, s)
		if err != nil {
			return nil, err
		}
		res, c, err := t.applyCommit(ctx, s, spec, false, opts.Default)
		if err != nil {
			return nil, err
		}
		if res.HasConflicts() {
			out.Conflicts = res.Conflicts
			return conflictState(ctx, s, res, nil)
		}
		if res.Root.Address() == s.HeadRoot.Address() && !opts.AllowEmpty {
			return nil, fmt.Errorf("%w: the changes of %s are on %s", ErrAlreadyApplied, spec, t.branch)
		}
		if opts.Committer.Name == "" || opts.Committer.Email == "" {
			return nil, fmt.Errorf("%w (CherryPickOptions.Committer)", ErrNoAuthor)
		}
		m := c.Meta // the commit's author and message; made now, by the committer
		m.Time, m.Committer = time.Time{}, commitgraph.Signature{}
		if opts.Committer != m.Author {
			m.Committer = opts.Committer
		}
		made, err := t.db.graph.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.Head.Addr}, m)
		if err != nil {
			return nil, err
		}
		out.Commit = made
		return carryUntracked(ctx, s, untracked, &BranchChange{Head: made.Addr, Working: res.Root, Staged: res.Root})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AbortCherryPick abandons a cherry-pick that stopped on conflicts: the
// working and staged roots go back to the head's.
func (t *Txn) AbortCherryPick(ctx context.Context) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if ts, err := ConflictedTables(ctx, s.Working); err != nil {
			return nil, err
		} else if len(ts) == 0 {
			return nil, ErrNoCherryPick
		}
		if s.WS.Merge != nil {
			return nil, ErrConflictsOfMerge
		}
		return &BranchChange{Working: s.HeadRoot, Staged: s.HeadRoot}, nil
	})
}

// Revert commits the inverse of the changes of the commit spec names (from
// its first parent) on the branch, with the message Revert "<message>". A
// revert whose changes clash with later ones fails with a
// RevertConflictError and changes nothing.
func (t *Txn) Revert(ctx context.Context, spec string, author Signature, def tablemerge.DefaultFunc) (*Commit, error) {
	if author.Name == "" || author.Email == "" {
		return nil, ErrNoAuthor
	}
	var made *Commit
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		untracked, err := checkClean(ctx, s)
		if err != nil {
			return nil, err
		}
		res, c, err := t.applyCommit(ctx, s, spec, true, def)
		if err != nil {
			return nil, err
		}
		if res.HasConflicts() {
			return nil, &RevertConflictError{Tables: res.ConflictTables()}
		}
		msg := fmt.Sprintf("Revert %q", c.Meta.Message)
		if made, err = t.db.graph.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.Head.Addr}, commitgraph.Meta{Author: author, Message: msg}); err != nil {
			return nil, err
		}
		return carryUntracked(ctx, s, untracked, &BranchChange{Head: made.Addr, Working: res.Root, Staged: res.Root})
	})
	if err != nil {
		return nil, err
	}
	return made, nil
}

// applyCommit merges the changes of the commit spec names (from its first
// parent to it; reversed for a revert) into the branch's head root.
func (t *Txn) applyCommit(ctx context.Context, s *BranchState, spec string, revert bool, def tablemerge.DefaultFunc) (*tablemerge.Result, *Commit, error) {
	g := t.db.graph
	c, err := t.db.resolve(ctx, spec, t.branch)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(c.Parents) == 0:
		return nil, nil, fmt.Errorf("%w: %s", ErrRootCommit, spec)
	case len(c.Parents) > 1:
		return nil, nil, fmt.Errorf("%w: %s", ErrMergeCommit, spec)
	}
	parent, err := g.ReadCommit(ctx, c.Parents[0])
	if err != nil {
		return nil, nil, err
	}
	from, err := g.OpenRoot(ctx, parent.Root)
	if err != nil {
		return nil, nil, err
	}
	to, err := g.OpenRoot(ctx, c.Root)
	if err != nil {
		return nil, nil, err
	}
	if revert {
		from, to = to, from
	}
	res, err := tablemerge.Merge(ctx, g.NodeStore(), from, s.HeadRoot, to, t.db.mergeOptions(c.Addr, def))
	if err != nil {
		return nil, nil, err
	}
	return res, c, nil
}

// checkClean refuses a merge, cherry-pick or revert on a branch with
// uncommitted changes, as Dolt does: the merge result would mix with them.
// Untracked tables (new in the working root, not staged) are no such
// change: it returns them, for carryUntracked to carry over the merge.
func checkClean(ctx context.Context, s *BranchState) (untracked []string, err error) {
	if s.WS.Merge != nil {
		return nil, ErrMergeActive
	}
	if ts, err := ConflictedTables(ctx, s.Working); err != nil {
		return nil, err
	} else if len(ts) > 0 {
		return nil, &UncommittedError{Tables: ts, Conflicts: true}
	}
	staged, err := ChangedItems(ctx, s.HeadRoot, s.Staged)
	if err != nil {
		return nil, err
	}
	working, err := ChangedItems(ctx, s.HeadRoot, s.Working)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, c := range staged {
		names[c.Name] = true
	}
	for _, c := range working {
		if c.IsTable && !c.InFrom && !names[c.Name] {
			untracked = append(untracked, c.Name)
			continue
		}
		names[c.Name] = true
	}
	if len(names) == 0 {
		return untracked, nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return nil, &UncommittedError{Tables: list}
}

// localChanges returns the items (tables, ...) the working set changes
// against the head, staged or not, for a merge to carry over: Dolt merges
// over them as long as the merge leaves them alone. A merge in progress
// or unresolved conflicts refuse the merge.
func localChanges(ctx context.Context, s *BranchState) ([]string, error) {
	if s.WS.Merge != nil {
		return nil, ErrMergeActive
	}
	if ts, err := ConflictedTables(ctx, s.Working); err != nil {
		return nil, err
	} else if len(ts) > 0 {
		return nil, &UncommittedError{Tables: ts, Conflicts: true}
	}
	names := map[string]bool{}
	for _, r := range []RootValue{s.Staged, s.Working} {
		changed, err := ChangedItems(ctx, s.HeadRoot, r)
		if err != nil {
			return nil, err
		}
		for _, c := range changed {
			names[c.Name] = true
		}
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return list, nil
}

// carryLocal carries the working root's changes to the items local into
// the working root ch leaves (the merge's staged root and commit do not
// take them), unless the merge changes one of those items itself, which
// it refuses with a StompError.
func carryLocal(ctx context.Context, s *BranchState, local []string, ch *BranchChange) (*BranchChange, error) {
	if ch == nil || len(local) == 0 {
		return ch, nil
	}
	head, err := itemEntries(ctx, s.HeadRoot)
	if err != nil {
		return nil, err
	}
	merged, err := itemEntries(ctx, ch.Working)
	if err != nil {
		return nil, err
	}
	working, err := itemEntries(ctx, s.Working)
	if err != nil {
		return nil, err
	}
	var stomped, carry []string
	for _, n := range local {
		switch {
		case !slices.Equal(head[n], merged[n]):
			stomped = append(stomped, n)
		case len(working[n]) > 0 || len(merged[n]) > 0: // else made and dropped again
			carry = append(carry, n)
		}
	}
	if len(stomped) > 0 {
		return nil, &StompError{Tables: stomped}
	}
	w, err := copyItems(ctx, s.Working, ch.Working, carry)
	if err != nil {
		return nil, err
	}
	c := *ch
	c.Working = w
	return &c, nil
}

// carryUntracked carries the untracked tables of the working root into the
// working root ch leaves, unless the merge brings a table of one of their
// names, which it refuses.
func carryUntracked(ctx context.Context, s *BranchState, untracked []string, ch *BranchChange) (*BranchChange, error) {
	if ch == nil || len(untracked) == 0 {
		return ch, nil
	}
	items, err := itemEntries(ctx, ch.Working)
	if err != nil {
		return nil, err
	}
	for _, n := range untracked {
		if findItem(items, n) != "" {
			return nil, &UntrackedClashError{Table: n}
		}
	}
	w, err := copyItems(ctx, s.Working, ch.Working, untracked)
	if err != nil {
		return nil, err
	}
	c := *ch
	c.Working = w
	return &c, nil
}

// conflictState returns the change that leaves a merge with conflicts in
// the working set: the merged root (with conflicts) as working, and as
// staged the merged root with each conflicted table as staged had it.
func conflictState(ctx context.Context, s *BranchState, res *tablemerge.Result, merge *commitgraph.MergeState) (*BranchChange, error) {
	clean, err := withoutConflicts(ctx, res.Root)
	if err != nil {
		return nil, err
	}
	staged, err := copyItems(ctx, s.Staged, clean, res.ConflictTables())
	if err != nil {
		return nil, err
	}
	return &BranchChange{Working: res.Root, Staged: staged, Merge: merge}, nil
}
