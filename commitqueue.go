package verso

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/verso-db/verso/commitgraph"
)

// Commits of transactions, grouped.
//
// A transaction's commit writes its root into the branch's working set. If
// the working set is still the one the transaction started from, its root
// replaces it; if another transaction committed meanwhile, the two are
// merged and a conflict fails the commit with a serialization failure
// (ER_LOCK_DEADLOCK, retryable). The working-set update is the one durable
// step: one store commit, one fsync.
//
// Commits that arrive while another is being made wait, and then go
// together (group commit): one of them, the leader, merges each into the
// working set in arrival order, exactly as one after another (groupmerge.go:
// the group's row changes go into one edit of each table), and writes the
// result with one store commit and one fsync. Each learns its own outcome
// (a conflict fails only the transaction that met it) once that fsync is
// done, so a COMMIT still returns only when it is durable, and concurrent
// writers share the disk's flushes instead of queueing for one each.
//
// Groups are pipelined in two stages. A leader merges under the database's
// commitMu (prepareBranch), then takes storeMu, lets go of commitMu and
// hands the queue to the next leader, and writes and syncs (finishBranch)
// under storeMu. The next group therefore merges while this one's fsync
// runs, into the working set this one is writing (db.pending), which is not
// yet durable: its own write waits for storeMu, so it lands after the one
// it merged into, and its transactions are told nothing before their own
// fsync. If a write fails, or finds the branch's working set moved by a
// writer outside the queue, the groups that merged into it find it moved
// too (the pending epoch keeps a failed write's successors from being
// merged into), and each merges again from the branch as stored.

// commitQueue is a database's queue of commits waiting for the next
// group.
type commitQueue struct {
	mu      sync.Mutex
	waiting []*commitReq
	leading bool // a leader is committing a group

	writes atomic.Int64 // working-set updates made (one fsync each on a file store)
	edited atomic.Int64 // commits made with pending edits (CommitEdits)
}

// commitReq is one transaction's commit in a queue.
type commitReq struct {
	ctx  context.Context
	t    *Txn
	err  error
	lead bool          // promoted to leader of the next group
	wake chan struct{} // closed when done, or when promoted
}

// Commit makes the transaction's writes durable in its branch's working
// set (see above) and returns once they are on disk. A conflict with a
// transaction that committed first fails with a SerializationError and
// writes nothing. After a commit the transaction goes on from the working
// root it made.
func (t *Txn) Commit(ctx context.Context) error {
	defer t.endOp()
	defer t.releaseLocks() // once its writes are durable, or dropped
	defer func() { t.edits = nil }()
	if t.Unchanged() {
		return nil
	}
	if t.readOnly {
		return fmt.Errorf("%w: cannot write to %s of database %s: it is a revision at a commit (a tag, a hash or a time); use a branch to make changes", ErrReadOnly, t.branch, t.db.name)
	}
	q := &t.db.commits
	r := &commitReq{ctx: ctx, t: t, wake: make(chan struct{})}
	q.mu.Lock()
	q.waiting = append(q.waiting, r)
	if q.leading {
		q.mu.Unlock()
		<-r.wake
		if !r.lead {
			return r.err
		}
		q.mu.Lock() // promoted: leading stays set
	}
	q.leading = true
	group := q.waiting
	q.waiting = nil
	q.mu.Unlock()

	t.db.commitGroup(ctx, group, q.handOff)
	for _, g := range group {
		if g != r {
			close(g.wake)
		}
	}
	return r.err
}

// handOff makes the first waiting commit the leader of the next group, or
// ends the leading.
func (q *commitQueue) handOff() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		next.lead = true
		close(next.wake)
		return
	}
	q.leading = false
}

// commitGroup commits the group's transactions, branch by branch, and sets
// each one's err. It calls handOff once the group's merges are done: the
// next group merges while this one's working sets go to disk.
func (db *DB) commitGroup(ctx context.Context, group []*commitReq, handOff func()) {
	// The leader's client may go away; the others still want their
	// commits.
	bg := context.WithoutCancel(ctx)
	var branches []string
	byBranch := map[string][]*commitReq{}
	for _, r := range group {
		if _, ok := byBranch[r.t.branch]; !ok {
			branches = append(branches, r.t.branch)
		}
		byBranch[r.t.branch] = append(byBranch[r.t.branch], r)
	}
	for len(branches) > 0 {
		db.commitMu.Lock()
		db.maybeCheckpoint(bg)
		plans := make([]*branchCommit, len(branches))
		for i, b := range branches {
			plans[i] = db.prepareBranch(bg, b, byBranch[b])
		}
		db.storeMu.Lock() // the previous group's working sets are durable
		db.commitMu.Unlock()
		if handOff != nil {
			handOff()
			handOff = nil
		}
		branches = branches[:0]
		for _, p := range plans {
			if !db.finishBranch(bg, p) {
				branches = append(branches, p.branch)
			}
		}
		db.storeMu.Unlock()
	}
}

// branchCommit is a group's commit of one branch between its merges
// (prepareBranch) and its write (finishBranch).
type branchCommit struct {
	branch  string
	merged  []*commitReq           // the transactions that merged
	ws      commitgraph.WorkingSet // the working set they merged into
	next    commitgraph.WorkingSet // the working set to write
	root    commitgraph.RootValue  // next's working root
	pending *pendingWS             // next, for the next group; nil if nothing to write
	edited  []editCommit           // tables written from pending edits
	redo    *redoWait              // the group's redo record, if logged
	// fromPending marks a ws that was the previous group's, not yet
	// durable when the merges began.
	fromPending bool
}

// pendingWS is a branch's working set that a group is writing: the next
// group merges into it before it is durable (db.pending).
type pendingWS struct {
	ws   commitgraph.WorkingSet
	root commitgraph.RootValue
}

// prepareBranch merges reqs, transactions on branch, into its working set
// (the one the previous group is writing, if any), under commitMu, and
// sets the err of each that failed.
func (db *DB) prepareBranch(ctx context.Context, branch string, reqs []*commitReq) *branchCommit {
	p := &branchCommit{branch: branch}
	fail := func(rs []*commitReq, err error) *branchCommit {
		for _, r := range rs {
			r.err = err
		}
		p.merged = nil
		return p
	}
	var root commitgraph.RootValue // the working root so far
	loaded := false                // root is set
	load := func() (err error) {   // sets root to p.ws's working root, once
		if !loaded {
			root, err = db.graph.OpenRoot(ctx, p.ws.Working)
			loaded = err == nil
		}
		return err
	}
	db.pendMu.Lock()
	prev, epoch := db.pending[branch], db.pendEpoch[branch]
	db.pendMu.Unlock()
	if prev != nil {
		p.ws, root, loaded, p.fromPending = prev.ws, prev.root, true, true
	} else {
		var err error
		if p.ws, err = db.graph.WorkingSet(ctx, branch); err != nil {
			return fail(reqs, err)
		}
	}
	changed := false  // a transaction's root became root as it is
	var g *groupMerge // the merges since root, once one is needed
	for _, r := range reqs {
		t := r.t
		var err error
		switch {
		case t.Unchanged():
		case !changed && g == nil && p.ws.Working == t.start.Working && len(t.edits) == 0:
			// The group's first change, made from the working root as
			// it is: its root as it is (the rows it adopted when it
			// locked them are the snapshot's: see groupMerge.replay).
			root, loaded, changed = t.root, true, true
		default:
			if g == nil {
				if err = load(); err != nil {
					break
				}
				g = newGroupMerge(db, root)
			}
			err = g.add(r.ctx, t)
		}
		if r.err = err; err == nil {
			p.merged = append(p.merged, r)
		}
	}
	if len(p.merged) == 0 {
		return p
	}
	var err error
	if g != nil {
		// A group of row changes is made durable by its redo record,
		// whose sync runs while the trees are edited (redo.go), and
		// its trees stay in the store's nursery (nursery.go). A lone
		// writer's too: a sync of the record and no journal write
		// measured faster than a synced commit of the trees once the
		// nursery kept them (docs/BENCHMARKS.md).
		if !changed {
			p.redo = db.logGroup(ctx, branch, p.ws, g)
		}
		err = g.flush(ctx)
		root, p.edited = g.root, g.edited
	} else {
		err = load()
	}
	if err != nil {
		return fail(p.merged, err)
	}
	p.next, p.root = p.ws, root
	p.next.Working = root.Address()
	if p.next != p.ws {
		p.pending = &pendingWS{ws: p.next, root: root}
		db.pendMu.Lock()
		if db.pendEpoch[branch] == epoch {
			db.pending[branch] = p.pending
		} // else what it merged into will not land: its write fails
		db.pendMu.Unlock()
	}
	return p
}

// finishBranch writes the working set prepareBranch made, under storeMu
// (so once the previous group's is durable), and tells each merged
// transaction its outcome. It returns false if the branch's working set
// had moved and the group must be merged again.
func (db *DB) finishBranch(ctx context.Context, p *branchCommit) bool {
	if len(p.merged) == 0 {
		return true
	}
	if p.pending == nil {
		// Nothing to write (rows only locked and adopted). A working
		// set that was the previous group's must have landed.
		if p.fromPending {
			ws, err := db.graph.WorkingSet(ctx, p.branch)
			if err == nil && ws != p.ws {
				return false
			}
		}
		for _, r := range p.merged {
			r.t.continueFrom(p.next, p.root)
		}
		return true
	}
	var err error
	if p.redo != nil {
		// Durable once the record is: the working set is staged, not
		// synced, and no reader sees it before the record's sync. Its
		// store commit is computed while the sync runs.
		var ps *commitgraph.PreparedStage
		ps, err = db.graph.PrepareStage(ctx, p.branch, p.ws, p.next)
		if serr := p.redo.wait(); err == nil {
			err = serr
		}
		if err == nil {
			err = ps.Stage(ctx, p.redo.pos)
		}
	} else {
		err = db.graph.UpdateWorkingSet(ctx, p.branch, p.ws, p.next)
	}
	db.pendMu.Lock()
	if err != nil {
		// Whatever later groups merged into it will not land either.
		db.pendEpoch[p.branch]++
		delete(db.pending, p.branch)
	} else if db.pending[p.branch] == p.pending {
		delete(db.pending, p.branch)
	}
	db.pendMu.Unlock()
	if errors.Is(err, commitgraph.ErrWorkingSetMoved) {
		// Another writer of this store (not a session of ours), or the
		// previous group's write failed.
		return false
	}
	if err == nil {
		db.commits.writes.Add(1)
		db.changed(p.branch) // durable: wake the branch's subscribers
		db.maybeAutoGC()
		if p.redo != nil {
			db.maybeCollectNursery()
			db.armNurseryTimer()
		}
		for _, e := range p.edited {
			e.edit.Committed = e.nt
		}
	}
	for _, r := range p.merged {
		if r.err = err; err == nil {
			if len(r.t.edits) > 0 {
				db.commits.edited.Add(1)
			}
			r.t.continueFrom(p.next, p.root)
		}
	}
	return true
}
