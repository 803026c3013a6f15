package verso

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/tablemerge"
)

// Side picks one side of a merge conflict: Ours keeps the branch's row,
// Theirs takes the merged commit's.
type Side = tablemerge.Side

// The sides of a conflict.
const (
	Ours   = tablemerge.Ours
	Theirs = tablemerge.Theirs
)

// TableConflicts is the number of rows in conflict in one table.
type TableConflicts = tablemerge.TableConflicts

// Conflicts returns the tables of the transaction's root with rows in
// conflict (a merge, cherry-pick left them), by name.
func (t *Txn) Conflicts(ctx context.Context) ([]TableConflicts, error) {
	return tablemerge.ListConflicts(ctx, t.db.graph.NodeStore(), t.root)
}

// ResolveConflicts resolves every conflict of table with side, in the
// transaction's root: Ours keeps the table's rows, Theirs writes the
// merged commit's row of each conflict. Stage and commit the table to
// finish the merge (CommitChanges with StageAll).
func (t *Txn) ResolveConflicts(ctx context.Context, table string, side Side) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot resolve conflicts at a commit", ErrReadOnly)
	}
	root, err := tablemerge.ResolveConflicts(ctx, t.db.graph.NodeStore(), t.root, table, side, t.db.Collations())
	if err != nil {
		return err
	}
	t.root = root
	return nil
}
