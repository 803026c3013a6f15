package verso

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// Txn is a transaction over one branch of a database (or a read-only view
// of one commit). It reads a snapshot, the branch's working root when it
// began (REPEATABLE READ), and its writes build new roots from there. Commit
// merges them into the branch's working root as it is then (merge.go) and
// makes the result durable with one store commit, shared with the commits
// that arrive together (commitqueue.go).
//
// A Txn is not safe for concurrent use.
type Txn struct {
	db       *DB
	branch   string
	readOnly bool
	start    commitgraph.WorkingSet // the working set at the snapshot
	refs     *commitgraph.Snapshot  // the refs it was read from; nil at a commit
	base     commitgraph.RootValue  // its working root
	root     commitgraph.RootValue  // base plus the transaction's writes
	// adopted holds, per table (lower-case name) and row key, the version
	// of a row the transaction adopted as its base when it first locked
	// it: its commit replays its change of the row from there.
	adopted Adopted
	// locks holds the row locks of the typed table API (locks.go), made
	// on first use and released by Commit and Rollback; nil for a Txn
	// whose caller locks rows itself (the SQL layer).
	locks *LockOwner
	// LockTimeout bounds the typed API's lock waits; 0 is
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// edits are the row edits CommitEdits commits beside root.
	edits []TableEdit
	// op is the transaction's operation (gc.go), ended by Commit and
	// Rollback: a garbage collection waits for it. cleanup ends it if
	// the program drops the transaction without either.
	op      uint64
	cleanup runtime.Cleanup
}

// RowVersion is a row's stored value, or its absence.
type RowVersion struct {
	Val []byte
	OK  bool // the row exists
}

// Equal reports whether v and o are the same version.
func (v RowVersion) Equal(o RowVersion) bool { return v.OK == o.OK && bytes.Equal(v.Val, o.Val) }

// Adopted holds the row versions a transaction adopted, per table
// (lower-case name) and row key.
type Adopted map[string]map[string]RowVersion

// Copy returns a deep copy of a (nil for an empty one).
func (a Adopted) Copy() Adopted {
	if len(a) == 0 {
		return nil
	}
	out := make(Adopted, len(a))
	for t, m := range a {
		c := make(map[string]RowVersion, len(m))
		for k, v := range m {
			c[k] = v
		}
		out[t] = c
	}
	return out
}

// Begin starts a transaction on branch ("" for the default branch): its
// snapshot is the branch's working root now.
func (db *DB) Begin(ctx context.Context, branch string) (*Txn, error) {
	if branch == "" {
		branch = db.DefaultBranch()
	}
	// The operation begins before the snapshot is read: a collection
	// that starts in between waits for it (gc.go).
	t := db.track(&Txn{db: db, branch: branch})
	refs, ws, root, err := db.Snapshot(ctx, branch)
	if err != nil {
		t.endOp()
		return nil, err
	}
	t.start, t.refs, t.base, t.root = ws, refs, root, root
	return t, nil
}

// BeginAt starts a read-only transaction that reads the commit c.
func (db *DB) BeginAt(ctx context.Context, c *commitgraph.Commit) (*Txn, error) {
	t := db.track(&Txn{db: db, branch: c.Addr.String(), readOnly: true})
	root, err := db.graph.OpenRoot(ctx, c.Root)
	if err != nil {
		t.endOp()
		return nil, err
	}
	t.start, t.base, t.root = commitgraph.WorkingSet{Working: c.Root, Staged: c.Root}, root, root
	return t, nil
}

// track makes t an operation of the database (gc.go) until it commits or
// rolls back, or, if the program drops it without either, until Go's
// collector finds it (the cleanup, which endOp cancels).
func (db *DB) track(t *Txn) *Txn {
	t.op = db.ops.begin()
	o := &db.ops
	t.cleanup = runtime.AddCleanup(t, func(tok uint64) { o.end(tok) }, t.op)
	return t
}

// endOp ends the transaction's operation.
func (t *Txn) endOp() {
	if t.op != 0 {
		t.cleanup.Stop()
		t.db.ops.end(t.op)
		t.op = 0
	}
}

// DB returns the transaction's database.
func (t *Txn) DB() *DB { return t.db }

// Branch returns the transaction's branch, or the address of the commit a
// read-only transaction reads.
func (t *Txn) Branch() string { return t.branch }

// ReadOnly reports whether the transaction reads a commit (and cannot
// write).
func (t *Txn) ReadOnly() bool { return t.readOnly }

// Start returns the working set the transaction's snapshot was taken
// from.
func (t *Txn) Start() commitgraph.WorkingSet { return t.start }

// Refs returns the refs the snapshot was read from (nil for a read-only
// transaction at a commit).
func (t *Txn) Refs() *commitgraph.Snapshot { return t.refs }

// Base returns the snapshot's working root.
func (t *Txn) Base() commitgraph.RootValue { return t.base }

// Root returns the transaction's root: its snapshot with its writes.
func (t *Txn) Root() commitgraph.RootValue { return t.root }

// SetRoot replaces the transaction's root: a write, or a rollback to a
// savepoint.
func (t *Txn) SetRoot(r commitgraph.RootValue) { t.root = r }

// Adopted returns the version of the row under key of table the
// transaction adopted, if it did.
func (t *Txn) Adopted(table, key string) (RowVersion, bool) {
	v, ok := t.adopted[table][key]
	return v, ok
}

// HasAdopted reports whether the transaction adopted any row.
func (t *Txn) HasAdopted() bool { return len(t.adopted) > 0 }

// Adopt records v as the transaction's base of the row under key of table
// (lower-case name): the latest committed version, which the transaction
// brought into its root when it locked the row.
func (t *Txn) Adopt(table, key string, v RowVersion) {
	if t.adopted == nil {
		t.adopted = Adopted{}
	}
	if t.adopted[table] == nil {
		t.adopted[table] = map[string]RowVersion{}
	}
	t.adopted[table][key] = RowVersion{Val: bytes.Clone(v.Val), OK: v.OK}
}

// Unadopt forgets the adopted versions of the keys of table (their
// adoption was rolled back with a statement).
func (t *Txn) Unadopt(table string, keys map[string]bool) {
	m := t.adopted[table]
	for k := range keys {
		delete(m, k)
	}
}

// SaveAdopted returns a copy of the adopted versions, for a savepoint.
func (t *Txn) SaveAdopted() Adopted { return t.adopted.Copy() }

// RestoreAdopted makes a (a SaveAdopted copy) the adopted versions.
func (t *Txn) RestoreAdopted(a Adopted) { t.adopted = a.Copy() }

// Unchanged reports whether committing the transaction would write
// nothing: its root is its snapshot's and it adopted no row. A
// transaction that adopted rows and changed them back still commits (its
// adopted rows may have to go back too).
func (t *Txn) Unchanged() bool {
	return t.root.Address() == t.base.Address() && len(t.adopted) == 0 && len(t.edits) == 0
}

// continueFrom makes the transaction go on from the working set ws, whose
// working root is root (after its commit, or a branch update).
func (t *Txn) continueFrom(ws commitgraph.WorkingSet, root commitgraph.RootValue) {
	t.start, t.base, t.root, t.adopted, t.edits = ws, root, root, nil, nil
}

// PendingWorking returns the working root the branch would have if the
// transaction committed now over the working set ws.
func (t *Txn) PendingWorking(ctx context.Context, ws commitgraph.WorkingSet) (commitgraph.RootValue, error) {
	if t.Unchanged() {
		return t.db.graph.OpenRoot(ctx, ws.Working)
	}
	if ws.Working == t.start.Working && len(t.adopted) == 0 {
		return t.root, nil
	}
	cur, err := t.db.graph.OpenRoot(ctx, ws.Working)
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return mergeRoots(ctx, t.db, t.base, cur, t.root, t.adopted)
}

// BranchState is a branch as a branch operation sees it: its head and
// working set as stored, and the working root with the calling
// transaction's writes.
type BranchState struct {
	Head     *commitgraph.Commit
	WS       commitgraph.WorkingSet
	HeadRoot commitgraph.RootValue
	Working  commitgraph.RootValue
	Staged   commitgraph.RootValue
}

// BranchChange is what a branch operation does to a branch: a new head
// (zero to keep it), new roots and the merge in progress (nil for none).
type BranchChange struct {
	Head    chunks.Address
	Working commitgraph.RootValue
	Staged  commitgraph.RootValue
	Merge   *commitgraph.MergeState
}

// maxBranchRetries bounds the retries of a branch update against writers
// of the same store outside this database's serialization.
const maxBranchRetries = 100

// UpdateBranch runs fn on the branch's state and writes its change (nil:
// none) with one compare-and-swap of the store root, so one fsync. The
// transaction's own writes are folded into the working root first; after
// the update the transaction continues from the new working root, and the
// row locks of its typed writes are released (they are durable). fn may
// run more than once if another writer of the store moves the branch.
func (t *Txn) UpdateBranch(ctx context.Context, fn func(s *BranchState) (*BranchChange, error)) error {
	if t.readOnly {
		return fmt.Errorf("%w: %s is a revision at a commit", ErrReadOnly, t.branch)
	}
	db := t.db
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
	db.storeMu.Lock() // no group is writing a working set
	defer db.storeMu.Unlock()
	for attempt := 0; ; attempt++ {
		head, ws, err := db.graph.BranchState(ctx, t.branch)
		if err != nil {
			return err
		}
		s := &BranchState{Head: head, WS: ws}
		if s.Working, err = t.PendingWorking(ctx, ws); err != nil {
			return err
		}
		if s.Staged, err = db.graph.OpenRoot(ctx, ws.Staged); err != nil {
			return err
		}
		if s.HeadRoot, err = db.graph.OpenRoot(ctx, head.Root); err != nil {
			return err
		}
		ch, err := fn(s)
		if err != nil || ch == nil {
			return err
		}
		next := commitgraph.WorkingSet{Working: ch.Working.Address(), Staged: ch.Staged.Address(), Merge: ch.Merge}
		newHead := head.Addr
		if !ch.Head.IsEmpty() {
			newHead = ch.Head
		}
		err = db.graph.UpdateBranch(ctx, t.branch, commitgraph.BranchUpdate{
			ExpectedHead: head.Addr, ExpectedWorkingSet: ws, Head: newHead, WorkingSet: next,
		})
		if (errors.Is(err, commitgraph.ErrWorkingSetMoved) || errors.Is(err, commitgraph.ErrBranchMoved)) && attempt < maxBranchRetries {
			continue
		}
		if err != nil {
			return err
		}
		t.continueFrom(next, ch.Working) // the new base holds the rows adopted
		t.releaseLocks()                 // its writes are durable
		db.changed(t.branch)
		db.maybeAutoGC()
		return nil
	}
}

// TableEdit is a table's row edits not yet written into a transaction's
// root: an editor begun from the table as the root holds it.
type TableEdit struct {
	Name   string // the table's name as the root holds it
	Editor *tables.Editor
	// Committed is set by a CommitEdits that succeeded to the table
	// value its commit wrote from the edit as it was (the group's edit
	// of the table, when nobody changed it since the snapshot): the
	// working root the commit made holds it. It is nil otherwise. The
	// editor itself is left as it was.
	Committed *tables.Table
}

// CommitEdits commits the transaction as Commit does, with the pending rows
// of edits among its writes. They go into the branch's working root with
// the rest of its commit group's, in one edit of each table
// (groupmerge.go), instead of into the transaction's root first and into
// the working root again: a commit that follows one statement's writes
// (autocommit) saves a tree edit. Each editor must have begun from the
// table as the transaction's root holds it, unchanged since its snapshot,
// and must not be used while the commit runs; an edit of another table is
// written into the root first. On success, each edit's Committed is set
// (edits' elements are written).
func (t *Txn) CommitEdits(ctx context.Context, edits []TableEdit) error {
	t.edits = edits
	return t.Commit(ctx)
}

// applyEdits writes the transaction's pending edits into its root.
func (t *Txn) applyEdits(ctx context.Context) error {
	for _, e := range t.edits {
		nt, err := e.Editor.Clone().Table(ctx) // the caller's stays as it is
		if err != nil {
			return err
		}
		if err := t.putTable(ctx, e.Name, nt); err != nil {
			return err
		}
	}
	t.edits = nil
	return nil
}

// editOf returns the pending edit of the table name, if any.
func (t *Txn) editOf(name string) *TableEdit {
	for i := range t.edits {
		if t.edits[i].Name == name {
			return &t.edits[i]
		}
	}
	return nil
}
