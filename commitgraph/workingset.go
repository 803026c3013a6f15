package commitgraph

import (
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// Working-set chunk format, versions 1 and 2.
//
//	+----------------------------------------------------------+
//	| magic "VWKS" [4] | version u8 (1 or 2)                    |
//	| working root value address [20]                          |
//	| staged root value address [20]                           |
//	| merging u8: 0 = no merge in progress, 1 = fields follow   |
//	|   [merge commit address [20]]      the commit being merged |
//	|   [pre-merge working root [20]]    to restore on abort     |
//	|   version 2 only:                                        |
//	|   [kind u8: 0 = merge, 1 = cherry-pick]                  |
//	|   [source: length u16 | bytes]     the revision as given   |
//	+----------------------------------------------------------+
//
// Version 2 adds the kind of the operation in progress and the revision
// it was given as (dolt_merge_status shows it). A working set is written
// in version 1 unless it needs version 2's fields (a cherry-pick, or a
// source): one encoding per working set, so a version 2 chunk of a plain
// merge without a source, or without a merge, is refused as not
// canonical.
//
// A branch's working set is the ref workingSets/heads/<branch>. A branch
// without one has the implicit working set whose working and staged roots
// are the root of its head commit.

const (
	workingSetMagic    = "VWKS"
	workingSetVersion1 = 1
	workingSetVersion2 = 2
)

// WorkingSet is the uncommitted state of a branch.
type WorkingSet struct {
	// Working is the root value with every uncommitted change.
	Working chunks.Address
	// Staged is the root value that the next commit takes.
	Staged chunks.Address
	// Merge is the merge in progress, or nil.
	Merge *MergeState
}

// MergeState is a merge that has begun and not been committed or aborted.
type MergeState struct {
	// Commit is the commit being merged into the branch.
	Commit chunks.Address
	// PreMergeWorking is the working root before the merge began.
	PreMergeWorking chunks.Address
	// Kind says what began it: a merge, or a cherry-pick (whose commit
	// then has one parent, the branch's head).
	Kind MergeKind
	// Source is the revision the operation was given ("feature~1"), or
	// "" if it was not recorded.
	Source string
}

// MergeKind is the operation a MergeState belongs to.
type MergeKind uint8

// The kinds of MergeState.
const (
	KindMerge      MergeKind = 0 // a merge: its commit has two parents
	KindCherryPick MergeKind = 1 // a cherry-pick: its commit has one parent
)

// Equal reports whether two working sets hold the same roots and merge.
func (ws WorkingSet) Equal(o WorkingSet) bool {
	if ws.Working != o.Working || ws.Staged != o.Staged || (ws.Merge == nil) != (o.Merge == nil) {
		return false
	}
	return ws.Merge == nil || *ws.Merge == *o.Merge
}

func encodeWorkingSet(ws WorkingSet) ([]byte, error) {
	w := &writer{}
	m := ws.Merge
	v2 := m != nil && (m.Kind != KindMerge || m.Source != "")
	if v2 {
		w.versionedHeader(workingSetMagic, workingSetVersion2)
	} else {
		w.versionedHeader(workingSetMagic, workingSetVersion1)
	}
	w.addr(ws.Working)
	w.addr(ws.Staged)
	if m == nil {
		w.u8(0)
		return w.result()
	}
	w.u8(1)
	w.addr(m.Commit)
	w.addr(m.PreMergeWorking)
	if v2 {
		if m.Kind > KindCherryPick {
			w.fail(fmt.Errorf("commitgraph: working set: merge kind %d", m.Kind))
		}
		w.u8(uint8(m.Kind))
		w.short("merge source", m.Source)
	}
	return w.result()
}

// putWorkingSet stores ws's chunk and returns its address.
func (db *DB) putWorkingSet(ctx context.Context, ws WorkingSet) (chunks.Address, error) {
	b, err := encodeWorkingSet(ws)
	if err != nil {
		return chunks.Address{}, err
	}
	return db.cs.Put(ctx, b)
}

// DecodeWorkingSet decodes a working-set chunk. It returns an error
// wrapping ErrBadChunk for bytes that are not one; it never panics.
func DecodeWorkingSet(b []byte) (WorkingSet, error) {
	r := &reader{b: b, kind: "working set"}
	v := r.versionedHeader(workingSetMagic, workingSetVersion1, workingSetVersion2)
	var ws WorkingSet
	ws.Working = r.addr("working root")
	ws.Staged = r.addr("staged root")
	switch f := r.u8("merge flag"); {
	case r.err != nil:
	case f == 1:
		m := &MergeState{Commit: r.addr("merge commit"), PreMergeWorking: r.addr("pre-merge working root")}
		if v == workingSetVersion2 {
			m.Kind = MergeKind(r.u8("merge kind"))
			m.Source = r.short("merge source")
		}
		switch {
		case r.err != nil:
		case m.Commit.IsEmpty():
			return WorkingSet{}, badChunk("working set: zero merge commit")
		case m.Kind > KindCherryPick:
			return WorkingSet{}, badChunk("working set: merge kind %d", m.Kind)
		case v == workingSetVersion2 && m.Kind == KindMerge && m.Source == "":
			return WorkingSet{}, badChunk("working set: version 2 for a merge without a source (not canonical)")
		}
		ws.Merge = m
	case f != 0:
		return WorkingSet{}, badChunk("working set: merge flag %d", f)
	case v == workingSetVersion2:
		return WorkingSet{}, badChunk("working set: version 2 without a merge (not canonical)")
	}
	if err := r.done(); err != nil {
		return WorkingSet{}, err
	}
	return ws, nil
}

// WorkingSet returns the working set of branch: the stored one, or, if the
// branch has none, the implicit one whose roots are its head's root.
func (db *DB) WorkingSet(ctx context.Context, branch string) (WorkingSet, error) {
	var ws WorkingSet
	err := db.View(ctx, func(tx *RefTx) error {
		var err error
		ws, _, err = readWorkingSet(ctx, db, tx, branch)
		return err
	})
	return ws, err
}

// readWorkingSet reads branch's working set in tx; ok is false for an
// implicit one.
func readWorkingSet(ctx context.Context, db *DB, tx *RefTx, branch string) (WorkingSet, bool, error) {
	head, ok, err := tx.Get(ctx, branchRef(branch))
	if err != nil {
		return WorkingSet{}, false, err
	}
	if !ok {
		return WorkingSet{}, false, fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
	}
	a, ok, err := tx.Get(ctx, workingSetRef(branch))
	if err != nil {
		return WorkingSet{}, false, err
	}
	if ok {
		b, err := db.cs.Get(ctx, a)
		if err != nil {
			return WorkingSet{}, false, fmt.Errorf("commitgraph: working set of %q: %w", branch, err)
		}
		ws, err := DecodeWorkingSet(b)
		if err != nil {
			return WorkingSet{}, false, fmt.Errorf("commitgraph: working set of %q: %w", branch, err)
		}
		return ws, true, nil
	}
	c, err := db.ReadCommit(ctx, head)
	if err != nil {
		return WorkingSet{}, false, err
	}
	return WorkingSet{Working: c.Root, Staged: c.Root}, false, nil
}

// UpdateWorkingSet replaces branch's working set expected (as returned by
// WorkingSet) with next, or returns ErrWorkingSetMoved if it is not
// expected any more.
func (db *DB) UpdateWorkingSet(ctx context.Context, branch string, expected, next WorkingSet) error {
	return db.updateWorkingSet(ctx, branch, expected, next, db.cs.Commit)
}

// Stager is a store whose commits can be staged: current at once, durable
// with its next sync (chunks.FileStore.CommitStaged).
type Stager interface {
	CommitStaged(ctx context.Context, newRoot, expected chunks.Address, log uint64) error
}

// StageWorkingSet is UpdateWorkingSet with a staged commit of the store at
// log position log (Stager): the working set is current at once and
// durable with the store's next sync. The caller has made the change
// durable in a log of its own, which it replays past the store's position
// after a crash.
func (db *DB) StageWorkingSet(ctx context.Context, branch string, expected, next WorkingSet, log uint64) error {
	st, ok := db.cs.(Stager)
	if !ok {
		return fmt.Errorf("commitgraph: the store cannot stage commits")
	}
	return db.updateWorkingSet(ctx, branch, expected, next, func(ctx context.Context, newRoot, expected chunks.Address) error {
		return st.CommitStaged(ctx, newRoot, expected, log)
	})
}

// PreparedStage is a staged working-set update computed ahead of its
// commit (PrepareStage), so that a caller waiting for its own log's sync
// can do the work meanwhile.
type PreparedStage struct {
	db               *DB
	branch           string
	expected, next   WorkingSet
	newRoot, oldRoot chunks.Address // the store commit computed; zero if none
}

// PrepareStage computes StageWorkingSet's store commit without making it.
func (db *DB) PrepareStage(ctx context.Context, branch string, expected, next WorkingSet) (*PreparedStage, error) {
	p := &PreparedStage{db: db, branch: branch, expected: expected, next: next}
	err := db.updateWorkingSet(ctx, branch, expected, next, func(_ context.Context, newRoot, oldRoot chunks.Address) error {
		p.newRoot, p.oldRoot = newRoot, oldRoot
		return nil
	})
	return p, err
}

// Stage makes the prepared update at log position log, as StageWorkingSet
// would; if the store's root moved since PrepareStage, it computes it
// again.
func (p *PreparedStage) Stage(ctx context.Context, log uint64) error {
	st, ok := p.db.cs.(Stager)
	if !ok {
		return fmt.Errorf("commitgraph: the store cannot stage commits")
	}
	if !p.newRoot.IsEmpty() {
		err := st.CommitStaged(ctx, p.newRoot, p.oldRoot, log)
		if !errors.Is(err, chunks.ErrRootMoved) {
			return err
		}
	}
	return p.db.StageWorkingSet(ctx, p.branch, p.expected, p.next, log)
}

func (db *DB) updateWorkingSet(ctx context.Context, branch string, expected, next WorkingSet, commit func(ctx context.Context, newRoot, expected chunks.Address) error) error {
	a, err := db.putWorkingSet(ctx, next)
	if err != nil {
		return err
	}
	return db.updateRefs(ctx, func(tx *RefTx) error {
		cur, _, err := readWorkingSet(ctx, db, tx, branch)
		if err != nil {
			return err
		}
		if !cur.Equal(expected) {
			return fmt.Errorf("%w: %q", ErrWorkingSetMoved, branch)
		}
		tx.Set(workingSetRef(branch), a)
		return nil
	}, commit)
}
