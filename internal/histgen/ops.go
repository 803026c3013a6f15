package histgen

import (
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// OpKind says what an Op does.
type OpKind uint8

const (
	// OpCommit commits Changes to t on Branch.
	OpCommit OpKind = iota + 1
	// OpMerge commits the merge of Theirs into Branch: its t is Branch's
	// with Changes applied (the rows Theirs changed since the merge base,
	// as Theirs has them).
	OpMerge
	// OpBranch starts Branch at the head of From or, when From is empty,
	// at the commit History.Commits[At].
	OpBranch
	// OpDeleteBranch forgets Branch (merged, and no longer moved).
	OpDeleteBranch
)

// An Op is one step of a history as Build made it, in order: with
// History.Ops another writer can make the same history (SQL renders them
// as statements for a SQL server).
type Op struct {
	Kind   OpKind
	Branch string
	// From and At place an OpBranch.
	From string
	At   int
	// Theirs are the branches an OpMerge merges, in parent order.
	Theirs []string
	// Meta is an OpCommit's or OpMerge's commit metadata.
	Meta commitgraph.Meta
	// Create: the commit creates t (Schema(false)) before its Changes.
	Create bool
	// AddColumn: the commit adds the column extra to t before its Changes.
	AddColumn bool
	// Events: the commit also changes the events/ root entry.
	Events bool
	// Changes are the commit's row writes to t, in order.
	Changes []Change
}

// A Change is one row written to t (inserted, or replacing the row with its
// primary key) or, if Delete, removed from it.
type Change struct {
	Row    []tables.Value
	Delete bool
}
