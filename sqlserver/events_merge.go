package sqlserver

import (
	"context"
	"errors"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
)

// mergeEvents merges the event logs of a committing transaction (theirs,
// from its snapshot base) and of the working root it commits into (ours),
// when both appended or changed streams since: eventindex.Merge takes
// theirs' new events after ours' (renumbering their positions: the later
// committer's events come after the earlier one's). Two transactions that
// changed one stream (appends, metadata or deletes) conflict: the second
// commit fails with a serialization failure (1213), to be retried.
// merged is the root merged so far; the result holds the merged log.
func mergeEvents(ctx context.Context, st *dbState, base, ours, theirs, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
	ns := st.graph.NodeStore()
	var logs [3]eventindex.Log
	for i, r := range []commitgraph.RootValue{base, ours, theirs} {
		var err error
		if logs[i], err = eventindex.LoadLog(ctx, ns, r); err != nil {
			return commitgraph.RootValue{}, err
		}
	}
	l, err := eventindex.Merge(ctx, logs[0], logs[1], logs[2])
	if errors.Is(err, eventindex.ErrMergeConflict) {
		return commitgraph.RootValue{}, errSerialization("%v", err)
	}
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return l.Store(ctx, merged)
}
