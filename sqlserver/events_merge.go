package sqlserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tablemerge"
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
	l, err := mergeLogs(ctx, st.graph.NodeStore(), base, ours, theirs)
	if errors.Is(err, eventindex.ErrMergeConflict) {
		return commitgraph.RootValue{}, errSerialization("%v", err)
	}
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return l.Store(ctx, merged)
}

// mergeBranchEvents is the tablemerge.PrefixMerger of the event log
// (mergeOptions passes it for events/...): its entries merge as one log in
// dolt_merge, dolt_cherry_pick and dolt_revert, theirs' new events
// following ours' (renumbered), and both branches changing one stream
// fails the merge.
func mergeBranchEvents(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
	l, err := mergeLogs(ctx, ns, base, ours, theirs)
	if errors.Is(err, eventindex.ErrMergeConflict) {
		return commitgraph.RootValue{}, fmt.Errorf("%w; the merge changed nothing: merge one branch's events into the other stream by stream (read them with dolt_read_stream and append them with dolt_append_events), then merge again", err)
	}
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return l.Store(ctx, merged)
}

var _ tablemerge.PrefixMerger = mergeBranchEvents

// mergeLogs merges the event logs of three root values (eventindex.Merge).
func mergeLogs(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs commitgraph.RootValue) (eventindex.Log, error) {
	var logs [3]eventindex.Log
	for i, r := range []commitgraph.RootValue{base, ours, theirs} {
		var err error
		if logs[i], err = eventindex.LoadLog(ctx, ns, r); err != nil {
			return eventindex.Log{}, err
		}
	}
	return eventindex.Merge(ctx, logs[0], logs[1], logs[2])
}
