package verso

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tablemerge"
)

// Stashes: a branch's uncommitted changes put aside, and put back later.
//
// Stashes come in named lists, as Dolt's (dolt_stash('push', name);
// Dolt's command line uses the list "dolt-cli", and so does verso's).
// Stash saves the branch's working and staged roots as two commits on
// its head, as git does: one of the staged root ("index on main: ..."),
// and one of the working root whose parents are the head and that one
// ("WIP on main: ..."), named by the ref refs/stash/<list>/<n> (n a
// 16-digit sequence number, so names sort by age; commitgraph's refs.go), then
// resets the branch to its head. The ref is written before the branch is
// reset, so a crash between loses nothing (the changes stay, with a
// stash of them). StashApply merges the stash's changes (from its head to
// its working root) into the branch's working root, three-way as a
// cherry-pick does, and refuses a clash; the staged changes come back
// unstaged, as git stash apply without --index has them. The stash
// commits are ordinary commits: a collection keeps them while their ref
// lives, and fsck checks them.

// Stash is a stash: Index counts from 0, the newest of its list.
type Stash struct {
	List    string // the list's name
	Index   int
	Ref     string
	Commit  *Commit // the working root's commit
	Base    Hash    // the head it was taken on
	Branch  string  // the branch it was taken on
	Message string
}

// stashListPrefix is the prefix of the refs of the stash list name.
func stashListPrefix(name string) string { return commitgraph.StashPrefix + name + "/" }

// checkStashList refuses a list name that cannot be a ref segment.
func checkStashList(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\\x00 ") || name == "." || name == ".." {
		return fmt.Errorf("%w: stash list %q", ErrBadName, name)
	}
	return nil
}

// Errors of stashes.
var (
	ErrNothingToStash = errors.New("verso: no local changes to stash")
	ErrNoStash        = errors.New("verso: no such stash")
)

// StashConflictError is StashApply's refusal of a stash whose changes
// clash with the working set's.
type StashConflictError struct{ Tables []string }

func (e *StashConflictError) Error() string {
	return fmt.Sprintf("verso: the stash's changes clash with the working set's in %s; commit or reset those first", strings.Join(e.Tables, ", "))
}

// Stash puts the branch's uncommitted changes aside (see above), under
// message (default "WIP on <branch>: <head> <subject>"), and returns it.
func (t *Txn) Stash(ctx context.Context, list, message string, author Signature) (*Stash, error) {
	return t.stash(ctx, list, message, author, true)
}

// StashTracked is Stash of the tracked tables' changes only, as Dolt's
// dolt_stash does without -u: the untracked tables (new in the working
// root, not staged) stay in the working set, and stashing only them is
// ErrNothingToStash.
func (t *Txn) StashTracked(ctx context.Context, list, message string, author Signature) (*Stash, error) {
	return t.stash(ctx, list, message, author, false)
}

func (t *Txn) stash(ctx context.Context, list, message string, author Signature, untracked bool) (*Stash, error) {
	if author.Name == "" || author.Email == "" {
		return nil, ErrNoAuthor
	}
	if err := checkStashList(list); err != nil {
		return nil, err
	}
	g := t.db.graph
	var working, stashed, staged chunks.Address
	var head *Commit
	var left []string // untracked tables that stay (not stashed)
	// What to stash, read as UpdateBranch would (the transaction's own
	// writes folded in), without changing anything yet.
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if s.WS.Merge != nil {
			return nil, errors.New("verso: a merge is in progress; finish it (commit) or abort it before stashing")
		}
		working, staged, head = s.Working.Address(), s.Staged.Address(), s.Head
		stashed = working
		if !untracked {
			changed, err := ChangedItems(ctx, s.Staged, s.Working)
			if err != nil {
				return nil, err
			}
			for _, c := range changed {
				if c.IsTable && !c.InFrom {
					left = append(left, c.Name)
				}
			}
			w, err := dropItems(ctx, s.Working, left)
			if err != nil {
				return nil, err
			}
			stashed = w.Address()
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	if stashed == head.Root && staged == head.Root {
		return nil, ErrNothingToStash
	}
	subject, _, _ := strings.Cut(head.Meta.Message, "\n")
	short := head.Addr.String()[:8]
	idx, err := g.WriteCommit(ctx, staged, []chunks.Address{head.Addr}, commitgraph.Meta{Author: author, Message: fmt.Sprintf("index on %s: %s %s", t.branch, short, subject)})
	if err != nil {
		return nil, err
	}
	if message == "" {
		message = fmt.Sprintf("WIP on %s: %s %s", t.branch, short, subject)
	}
	wip, err := g.WriteCommit(ctx, stashed, []chunks.Address{head.Addr, idx.Addr}, commitgraph.Meta{Author: author, Message: message})
	if err != nil {
		return nil, err
	}
	var ref string
	err = g.UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
		refs, err := tx.List(ctx, stashListPrefix(list))
		if err != nil {
			return err
		}
		next := 1
		if len(refs) > 0 {
			n, _ := strconv.Atoi(strings.TrimPrefix(refs[len(refs)-1].Name, stashListPrefix(list)))
			next = n + 1
		}
		ref = fmt.Sprintf("%s%016d", stashListPrefix(list), next)
		tx.Set(ref, wip.Addr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if s.Working.Address() != working || s.Staged.Address() != staged || s.Head.Addr != head.Addr {
			return nil, fmt.Errorf("%w: the branch changed while it was stashed; its changes are kept, and in %s", commitgraph.ErrBranchMoved, ref)
		}
		w, err := copyItems(ctx, s.Working, s.HeadRoot, left)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: w, Staged: s.HeadRoot}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Stash{List: list, Ref: ref, Commit: wip, Base: head.Addr, Branch: t.branch, Message: message}, nil
}

// Stashes returns the stashes of the list (every list's, by list name,
// if "") newest first within each list.
func (db *DB) Stashes(ctx context.Context, list string) ([]Stash, error) {
	prefix := commitgraph.StashPrefix
	if list != "" {
		prefix = stashListPrefix(list)
	}
	refs, err := db.graph.Refs(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var out []Stash
	index := map[string]int{}
	// Refs sort by list, then by age: walk each list from its newest.
	for i := len(refs) - 1; i >= 0; i-- {
		name := strings.TrimPrefix(refs[i].Name, commitgraph.StashPrefix)
		l, _, ok := strings.Cut(name, "/")
		if !ok {
			continue
		}
		c, err := db.graph.ReadCommit(ctx, refs[i].Addr)
		if err != nil {
			return nil, fmt.Errorf("stash %s: %w", refs[i].Name, err)
		}
		// The branch is in the index commit's message (Stash writes
		// "index on <branch>: ..."); the base is the first parent.
		var base Hash
		branch := ""
		if len(c.Parents) > 1 {
			base = c.Parents[0]
			if ic, err := db.graph.ReadCommit(ctx, c.Parents[1]); err == nil {
				if b, ok := strings.CutPrefix(ic.Meta.Message, "index on "); ok {
					branch, _, _ = strings.Cut(b, ":")
				}
			}
		}
		out = append(out, Stash{List: l, Index: index[l], Ref: refs[i].Name, Commit: c, Base: base, Branch: branch, Message: c.Meta.Message})
		index[l]++
	}
	slices.SortStableFunc(out, func(a, b Stash) int { return strings.Compare(a.List, b.List) })
	return out, nil
}

// stash returns the stash of index i of the list.
func (db *DB) stash(ctx context.Context, list string, i int) (*Stash, error) {
	if err := checkStashList(list); err != nil {
		return nil, err
	}
	all, err := db.Stashes(ctx, list)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(all) {
		return nil, fmt.Errorf("%w: stash@{%d} of %s (it has %d)", ErrNoStash, i, list, len(all))
	}
	return &all[i], nil
}

// StashApply puts the changes of the stash of index i back into the
// branch's working set (see above); with drop, the stash is then dropped
// (a pop).
func (t *Txn) StashApply(ctx context.Context, list string, i int, drop bool) (*Stash, error) {
	g := t.db.graph
	s, err := t.db.stash(ctx, list, i)
	if err != nil {
		return nil, err
	}
	if len(s.Commit.Parents) == 0 {
		return nil, fmt.Errorf("%w: %s is not a stash's commit", ErrNoStash, s.Ref)
	}
	base, err := g.ReadCommit(ctx, s.Commit.Parents[0])
	if err != nil {
		return nil, err
	}
	baseRoot, err := g.OpenRoot(ctx, base.Root)
	if err != nil {
		return nil, err
	}
	theirs, err := g.OpenRoot(ctx, s.Commit.Root)
	if err != nil {
		return nil, err
	}
	err = t.UpdateBranch(ctx, func(bs *BranchState) (*BranchChange, error) {
		res, err := tablemerge.Merge(ctx, g.NodeStore(), baseRoot, bs.Working, theirs, t.db.mergeOptions(s.Commit.Addr, nil))
		if err != nil {
			return nil, err
		}
		if res.HasConflicts() {
			return nil, &StashConflictError{Tables: res.ConflictTables()}
		}
		return &BranchChange{Working: res.Root, Staged: bs.Staged, Merge: bs.WS.Merge}, nil
	})
	if err != nil {
		return nil, err
	}
	if drop {
		if err := t.db.dropStash(ctx, s.Ref); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// StashDrop drops the stash of index i of the list.
func (db *DB) StashDrop(ctx context.Context, list string, i int) (*Stash, error) {
	s, err := db.stash(ctx, list, i)
	if err != nil {
		return nil, err
	}
	return s, db.dropStash(ctx, s.Ref)
}

// StashClear drops every stash of the list.
func (db *DB) StashClear(ctx context.Context, list string) error {
	if err := checkStashList(list); err != nil {
		return err
	}
	return db.graph.UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
		refs, err := tx.List(ctx, stashListPrefix(list))
		for _, r := range refs {
			tx.Delete(r.Name)
		}
		return err
	})
}

func (db *DB) dropStash(ctx context.Context, ref string) error {
	return db.graph.UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
		tx.Delete(ref)
		return nil
	})
}
