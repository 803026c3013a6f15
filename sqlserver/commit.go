package sqlserver

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

// commit writes the transaction's root into the branch's working set. If
// the working set is still the one the transaction started from, its root
// replaces it; if another transaction committed meanwhile, the two are
// merged (mergeRoots) and a conflict fails the commit with a serialization
// failure (ER_LOCK_DEADLOCK, retryable). The working-set update is the one
// durable step: one store commit, one fsync.
func (d *txDB) commit(ctx *sql.Context) error {
	if d.root.Address() == d.base.Address() {
		return nil
	}
	if d.readOnly {
		return fmt.Errorf("cannot write to %s of database %s: it is a read-only revision (a tag or a commit); USE a branch to make changes", d.branch, d.st.name)
	}
	d.st.commitMu.Lock()
	defer d.st.commitMu.Unlock()
	for {
		ws, err := d.st.graph.WorkingSet(ctx, d.branch)
		if err != nil {
			return err
		}
		next, err := d.pendingWorking(ctx, ws)
		if err != nil {
			return err
		}
		nws := ws
		nws.Working = next.Address()
		err = d.st.graph.UpdateWorkingSet(ctx, d.branch, ws, nws)
		if errors.Is(err, commitgraph.ErrWorkingSetMoved) {
			continue // another writer of this store (not a session of ours)
		}
		if err != nil {
			return err
		}
		d.start, d.base = nws, next
		return nil
	}
}
