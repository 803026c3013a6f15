package commitgraph

import "github.com/verso-db/verso/chunks"

// Working-set chunk format, version 1.
//
//	+----------------------------------------------------------+
//	| magic "VWKS" [4] | version u8 (1)                         |
//	| working root value address [20]                          |
//	| staged root value address [20]                           |
//	| merging u8: 0 = no merge in progress, 1 = fields follow   |
//	|   [merge commit address [20]]      the commit being merged |
//	|   [pre-merge working root [20]]    to restore on abort     |
//	+----------------------------------------------------------+
//
// A branch's working set is the ref workingSets/heads/<branch>. A branch
// without one has the implicit working set whose working and staged roots
// are the root of its head commit.

const workingSetMagic = "VWKS"

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
}

// Equal reports whether two working sets hold the same roots and merge.
func (ws WorkingSet) Equal(o WorkingSet) bool {
	if ws.Working != o.Working || ws.Staged != o.Staged || (ws.Merge == nil) != (o.Merge == nil) {
		return false
	}
	return ws.Merge == nil || *ws.Merge == *o.Merge
}

func encodeWorkingSet(ws WorkingSet) []byte {
	w := &writer{}
	w.header(workingSetMagic)
	w.addr(ws.Working)
	w.addr(ws.Staged)
	if ws.Merge == nil {
		w.u8(0)
	} else {
		w.u8(1)
		w.addr(ws.Merge.Commit)
		w.addr(ws.Merge.PreMergeWorking)
	}
	return w.buf
}

// DecodeWorkingSet decodes a working-set chunk. It returns an error
// wrapping ErrBadChunk for bytes that are not one; it never panics.
func DecodeWorkingSet(b []byte) (WorkingSet, error) {
	r := &reader{b: b, kind: "working set"}
	r.header(workingSetMagic)
	var ws WorkingSet
	ws.Working = r.addr("working root")
	ws.Staged = r.addr("staged root")
	switch f := r.u8("merge flag"); {
	case r.err != nil:
	case f == 1:
		ws.Merge = &MergeState{Commit: r.addr("merge commit"), PreMergeWorking: r.addr("pre-merge working root")}
		if r.err == nil && ws.Merge.Commit.IsEmpty() {
			return WorkingSet{}, badChunk("working set: zero merge commit")
		}
	case f != 0:
		return WorkingSet{}, badChunk("working set: merge flag %d", f)
	}
	if err := r.done(); err != nil {
		return WorkingSet{}, err
	}
	return ws, nil
}
