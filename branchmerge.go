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
	// ErrNoCherryPick is returned by AbortCherryPick when no cherry-pick
	// (nor merge) is in progress.
	ErrNoCherryPick = errors.New("verso: there is no cherry-pick in progress to abort")
	// ErrRootCommit is returned for a cherry-pick or revert of the root
	// commit, which has no parent to compare with.
	ErrRootCommit = errors.New("verso: the root commit has no parent to compare with")
	// ErrMergeCommit is returned for a cherry-pick of a merge commit:
	// only commits with one parent are supported.
	ErrMergeCommit = errors.New("verso: a merge commit cannot be cherry-picked; only commits with one parent are supported")
	// ErrEmptyCommit is returned for a cherry-pick of a commit that
	// changes nothing, unless AllowEmpty.
	ErrEmptyCommit = errors.New("verso: the commit changes nothing")
	// ErrNoAuthor is returned for a commit to be made without an
	// author's (or committer's) name and email in the options.
	ErrNoAuthor = errors.New("verso: a commit needs an author's name and email")
	// ErrAlreadyApplied is returned by a cherry-pick or revert whose
	// changes leave the branch as it is: nothing to commit.
	ErrAlreadyApplied = errors.New("verso: the branch has the changes already; nothing to commit")
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

// RevertConflictError refuses a revert of the revision Spec whose changes
// clash with later ones of the tables named: nothing is changed.
type RevertConflictError struct {
	Spec   string
	Tables []string
}

func (e *RevertConflictError) Error() string {
	return "verso: the revert of " + e.Spec + " conflicts with later changes to " + strings.Join(e.Tables, ", ") + "; nothing was changed"
}

// ApplyError refuses the cherry-pick or revert of one commit: the
// revision as given, the commit it names, and why (ErrRootCommit,
// ErrMergeCommit, ErrEmptyCommit, ErrAlreadyApplied).
type ApplyError struct {
	Spec   string
	Commit chunks.Address
	Err    error
}

func (e *ApplyError) Error() string { return fmt.Sprintf("%v: %s (%s)", e.Err, e.Spec, e.Commit) }

// Unwrap returns Err.
func (e *ApplyError) Unwrap() error { return e.Err }

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
	// RefuseConflicts fails a merge that would leave conflicts or schema
	// conflicts with ErrConflictsRefused, changing nothing (Dolt's
	// autocommit merge without @@dolt_allow_commit_conflicts).
	RefuseConflicts bool
	// Verify, when set, records the constraint violations of the merged
	// root that the engine cannot see (foreign keys, CHECK constraints:
	// the SQL layer's) and returns the root with them (under
	// violations/<table>, tablemerge.SetViolations); theirs is the merged
	// commit, to record as where they come from. A merge whose root then
	// holds violations stops before its commit, as one with conflicts
	// does.
	Verify func(ctx context.Context, base, merged RootValue, theirs chunks.Address) (RootValue, error)
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
	// SchemaConflicts and Violations list the tables left with a schema
	// conflict or with constraint violations in the working set.
	SchemaConflicts []string
	Violations      []tablemerge.TableViolations
}

// Unmerged reports whether the merge left anything to resolve.
func (r *MergeResult) Unmerged() bool {
	return len(r.Conflicts) > 0 || len(r.SchemaConflicts) > 0 || len(r.Violations) > 0
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
	mo := t.db.mergeOptions(theirs.Addr, opts.Default)
	mo.RecordViolations, mo.KeepSchemaConflicts = true, true
	res, err := tablemerge.Merge(ctx, g.NodeStore(), baseRoot, s.HeadRoot, theirsRoot, mo)
	if err != nil {
		return nil, err
	}
	if err := recordSchemaConflicts(ctx, g.NodeStore().Store(), res); err != nil {
		return nil, err
	}
	if opts.Verify != nil {
		if res.Root, err = opts.Verify(ctx, baseRoot, res.Root, theirs.Addr); err != nil {
			return nil, err
		}
		if res.Violations, err = tablemerge.ListViolations(ctx, g.NodeStore(), res.Root); err != nil {
			return nil, err
		}
	}
	var merge *commitgraph.MergeState
	if !opts.Squash {
		merge = &commitgraph.MergeState{Commit: theirs.Addr, PreMergeWorking: s.Working.Address()}
		if strings.HasPrefix(spec, commitgraph.RemoteTrackingPrefix) {
			merge.Source = spec // a pull's: dolt_merge_status names the ref
		}
	}
	for _, sc := range res.SchemaConflicts {
		out.SchemaConflicts = append(out.SchemaConflicts, sc.Table)
	}
	if res.HasConflicts() || len(res.SchemaConflicts) > 0 || len(res.Violations) > 0 {
		if opts.RefuseConflicts && (res.HasConflicts() || len(res.SchemaConflicts) > 0) {
			return nil, ErrConflictsRefused
		}
		out.Conflicts, out.Violations = res.Conflicts, res.Violations
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
	Committer Signature
	// AllowEmpty commits the pick of a commit that changes nothing; a
	// commit whose changes the branch has already is refused all the
	// same (ErrAlreadyApplied), as Dolt's is.
	AllowEmpty bool
	Default    tablemerge.DefaultFunc
	// RefuseConflicts fails a cherry-pick that would leave conflicts
	// with ErrConflictsRefused, changing nothing.
	RefuseConflicts bool
}

// CherryPick applies the changes of the commit spec names (from its first
// parent) to the branch and commits them with that commit's author and
// message. With conflicts, no commit is made: the working set holds them,
// with the cherry-pick in progress (a MergeState of KindCherryPick, so
// that the commit that finishes it has one parent); resolve them and
// commit, or AbortCherryPick.
func (t *Txn) CherryPick(ctx context.Context, spec string, opts CherryPickOptions) (*MergeResult, error) {
	var out *MergeResult
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		out = &MergeResult{}
		untracked, err := checkClean(ctx, s)
		if err != nil {
			return nil, err
		}
		c, err := t.db.resolve(ctx, spec, t.branch)
		if err != nil {
			return nil, err
		}
		if len(c.Parents) > 1 {
			return nil, &ApplyError{Spec: spec, Commit: c.Addr, Err: ErrMergeCommit}
		}
		res, empty, err := t.applyCommit(ctx, s.HeadRoot, c, spec, false, opts.Default)
		if err != nil {
			return nil, err
		}
		out.Theirs = c
		switch {
		case empty && !opts.AllowEmpty:
			return nil, &ApplyError{Spec: spec, Commit: c.Addr, Err: ErrEmptyCommit}
		case res.HasConflicts() && opts.RefuseConflicts:
			return nil, ErrConflictsRefused
		case res.HasConflicts():
			out.Conflicts = res.Conflicts
			ch, err := conflictState(ctx, s, res, &commitgraph.MergeState{
				Commit: c.Addr, PreMergeWorking: s.Working.Address(), Kind: commitgraph.KindCherryPick, Source: spec,
			})
			if err != nil {
				return nil, err
			}
			return carryUntracked(ctx, s, untracked, ch)
		case !empty && res.Root.Address() == s.HeadRoot.Address():
			return nil, &ApplyError{Spec: spec, Commit: c.Addr, Err: ErrAlreadyApplied}
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

// AbortCherryPick abandons the cherry-pick in progress (or, as Dolt's
// does, any merge in progress): the working root goes back to what it was
// before it, and the staged root to the head's.
func (t *Txn) AbortCherryPick(ctx context.Context) error {
	err := t.AbortMerge(ctx)
	if errors.Is(err, ErrNoMerge) {
		return ErrNoCherryPick
	}
	return err
}

// Revert commits, for each commit the revisions specs name, in the order
// given, the inverse of its changes (from its first parent) on the
// branch: one commit each, with the message Revert "<message>" and the
// author given. Every spec is resolved before the first revert, so HEAD~1
// names the same commit throughout. It is all or nothing: a revert whose
// changes clash with later ones fails with a RevertConflictError, and one
// that would change nothing with an ApplyError of ErrAlreadyApplied, and
// then no commit of the call is kept.
func (t *Txn) Revert(ctx context.Context, specs []string, author Signature, def tablemerge.DefaultFunc) ([]*Commit, error) {
	if author.Name == "" || author.Email == "" {
		return nil, ErrNoAuthor
	}
	if len(specs) == 0 {
		return nil, errors.New("verso: Revert needs at least one revision")
	}
	var made []*Commit
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		made = nil
		commits := make([]*Commit, len(specs))
		for i, spec := range specs {
			c, err := t.db.resolve(ctx, spec, t.branch)
			if err != nil {
				return nil, err
			}
			commits[i] = c
		}
		untracked, err := checkClean(ctx, s)
		if err != nil {
			return nil, err
		}
		head, root := s.Head, s.HeadRoot
		for i, c := range commits {
			res, _, err := t.applyCommit(ctx, root, c, specs[i], true, def)
			if err != nil {
				return nil, err
			}
			if res.HasConflicts() {
				return nil, &RevertConflictError{Spec: specs[i], Tables: res.ConflictTables()}
			}
			if res.Root.Address() == root.Address() {
				return nil, &ApplyError{Spec: specs[i], Commit: c.Addr, Err: ErrAlreadyApplied}
			}
			msg := fmt.Sprintf("Revert %q", c.Meta.Message)
			if head, err = t.db.graph.WriteCommit(ctx, res.Root.Address(), []chunks.Address{head.Addr}, commitgraph.Meta{Author: author, Message: msg}); err != nil {
				return nil, err
			}
			made, root = append(made, head), res.Root
		}
		return carryUntracked(ctx, s, untracked, &BranchChange{Head: head.Addr, Working: root, Staged: root})
	})
	if err != nil {
		return nil, err
	}
	return made, nil
}

// applyCommit merges the changes of the commit c (from its first parent to
// it; reversed for a revert) into onto. empty reports that c changes
// nothing.
func (t *Txn) applyCommit(ctx context.Context, onto RootValue, c *Commit, spec string, revert bool, def tablemerge.DefaultFunc) (res *tablemerge.Result, empty bool, err error) {
	g := t.db.graph
	if len(c.Parents) == 0 {
		return nil, false, &ApplyError{Spec: spec, Commit: c.Addr, Err: ErrRootCommit}
	}
	parent, err := g.ReadCommit(ctx, c.Parents[0])
	if err != nil {
		return nil, false, err
	}
	from, err := g.OpenRoot(ctx, parent.Root)
	if err != nil {
		return nil, false, err
	}
	to, err := g.OpenRoot(ctx, c.Root)
	if err != nil {
		return nil, false, err
	}
	if revert {
		from, to = to, from
	}
	res, err = tablemerge.Merge(ctx, g.NodeStore(), from, onto, to, t.db.mergeOptions(c.Addr, def))
	if err != nil {
		return nil, false, err
	}
	return res, from.Address() == to.Address(), nil
}

// checkClean refuses a merge, cherry-pick or revert on a branch with
// uncommitted changes, as Dolt does: the merge result would mix with them.
// Untracked tables (new in the working root, not staged) are no such
// change: it returns them, for carryUntracked to carry over the merge.
func checkClean(ctx context.Context, s *BranchState) (untracked []string, err error) {
	if s.WS.Merge != nil {
		return nil, ErrMergeActive
	}
	if ts, err := UnmergedTables(ctx, s.Working); err != nil {
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
	if ts, err := UnmergedTables(ctx, s.Working); err != nil {
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

// conflictState returns the change that leaves a merge with conflicts,
// schema conflicts or violations in the working set: the merged root
// (with them) as working, and as staged the merged root with each such
// table as staged had it.
func conflictState(ctx context.Context, s *BranchState, res *tablemerge.Result, merge *commitgraph.MergeState) (*BranchChange, error) {
	clean, err := withoutConflicts(ctx, res.Root)
	if err != nil {
		return nil, err
	}
	unmerged, err := UnmergedTables(ctx, res.Root)
	if err != nil {
		return nil, err
	}
	// A table ours dropped and theirs changed is in neither root.
	staged, err := copyItemsOf(ctx, s.Staged, clean, unmerged, true)
	if err != nil {
		return nil, err
	}
	return &BranchChange{Working: res.Root, Staged: staged, Merge: merge}, nil
}

// recordSchemaConflicts writes the tables' schema conflicts of res (its
// SchemaConflicts) into its root, under schemaconflicts/<table>; a
// conflict of a table's options fails the merge with its error, as
// before (Dolt has no record of those).
func recordSchemaConflicts(ctx context.Context, store chunks.Store, res *tablemerge.Result) error {
	var edits []commitgraph.RootEdit
	for _, sc := range res.SchemaConflicts {
		if sc.Options {
			return sc.Err
		}
		addr, err := store.Put(ctx, tablemerge.EncodeSchemaConflict(sc.Stored()))
		if err != nil {
			return err
		}
		edits = append(edits, commitgraph.RootEdit{Name: tablemerge.SchemaConflictsPrefix + sc.Table, Addr: addr})
	}
	if len(edits) == 0 {
		return nil
	}
	root, err := res.Root.Edit(ctx, edits...)
	if err != nil {
		return err
	}
	res.Root = root
	return nil
}
