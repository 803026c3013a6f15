package sqlserver

import (
	"github.com/verso-db/verso"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/tablemerge"
)

// The event log's entries (events/...) merge as one log in dolt_merge,
// dolt_cherry_pick and dolt_revert: theirs' new events follow ours'
// (renumbered), and both branches changing one stream fails the merge.
func init() {
	tablemerge.RegisterPrefixMerger(eventindex.NamePrefix, verso.MergeBranchEvents)
}
