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
// merged (mergeRoots) and a conflict fails the commit with a serialization
// failure (ER_LOCK_DEADLOCK, retryable). The working-set update is the one
// durable step: one store commit, one fsync.
//
// Commits that arrive while another is being made wait, and then go
// together (group commit): one of them, the leader, merges each into the
// working set in arrival order, exactly as one after another, and writes
// the result with one store commit and one fsync. Each learns its own
// outcome (a conflict fails only the transaction that met it) once that
// fsync is done, so a COMMIT still returns only when it is durable, and
// concurrent writers share the disk's flushes instead of queueing for one
// each.

// commitQueue is a database's queue of commits waiting for the next
// group.
type commitQueue struct {
	mu      sync.Mutex
	waiting []*commitReq
	leading bool // a leader is committing a group

	writes atomic.Int64 // working-set updates made (one fsync each on a file store)
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

	t.db.commitGroup(ctx, group)

	q.mu.Lock()
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		next.lead = true
		close(next.wake)
	} else {
		q.leading = false
	}
	q.mu.Unlock()
	for _, g := range group {
		if g != r {
			close(g.wake)
		}
	}
	return r.err
}

// commitGroup commits the group's transactions, branch by branch, and sets
// each one's err.
func (db *DB) commitGroup(ctx context.Context, group []*commitReq) {
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
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
	for _, b := range branches {
		db.commitBranch(bg, b, byBranch[b])
	}
}

// commitBranch commits reqs, transactions on branch, with one update of
// its working set.
func (db *DB) commitBranch(ctx context.Context, branch string, reqs []*commitReq) {
	for {
		ws, err := db.graph.WorkingSet(ctx, branch)
		if err != nil {
			for _, r := range reqs {
				r.err = err
			}
			return
		}
		next := ws
		var root commitgraph.RootValue
		var merged []*commitReq
		for _, r := range reqs {
			r.err = nil
			rt, err := r.t.PendingWorking(r.ctx, next)
			if err != nil {
				r.err = err
				continue
			}
			root, next.Working = rt, rt.Address()
			merged = append(merged, r)
		}
		if len(merged) == 0 {
			return
		}
		if next == ws {
			// Nothing to write (rows only locked and adopted).
			for _, r := range merged {
				r.t.continueFrom(next, root)
			}
			return
		}
		err = db.graph.UpdateWorkingSet(ctx, branch, ws, next)
		if errors.Is(err, commitgraph.ErrWorkingSetMoved) {
			continue // another writer of this store (not a session of ours)
		}
		if err == nil {
			db.commits.writes.Add(1)
			db.changed(branch) // durable: wake the branch's subscribers
			db.maybeAutoGC()
		}
		for _, r := range merged {
			if r.err = err; err == nil {
				r.t.continueFrom(next, root)
			}
		}
		return
	}
}
