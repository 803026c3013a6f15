package verso

import (
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// The engine's plain Go types, named here so that a program embedding
// verso needs only this package. They are the lower layers' types (aliases,
// not copies): a value of one is a value of the other.
type (
	// Hash is a chunk's content address: a commit's, a root value's, a
	// table's. Its String is Dolt's 32-character base32 form.
	Hash = chunks.Address
	// Commit is a commit of the graph: its address, parents, root value
	// and metadata (author, time, message).
	Commit = commitgraph.Commit
	// Signature is who made a commit: a name and an email.
	Signature = commitgraph.Signature
	// Branch is a branch's name and head.
	Branch = commitgraph.Branch
	// WorkingSet is a branch's working and staged roots, and the merge in
	// progress.
	WorkingSet = commitgraph.WorkingSet
	// RootValue is the value a commit records: names to addresses of
	// tables, the event log and schema objects (commitgraph/rootnames.go).
	RootValue = commitgraph.RootValue
	// RootEntry is one name of a RootValue and the address it maps to.
	RootEntry = commitgraph.RootEntry
	// MergeState is a merge in progress in a working set: the commit
	// being merged and the working root before the merge.
	MergeState = commitgraph.MergeState
	// Schema is a table's columns, primary key, indexes and checks.
	Schema = tables.Schema
	// Column is one column of a Schema.
	Column = tables.Column
	// Index is a secondary index of a Schema.
	Index = tables.Index
	// Value is one typed value of a row.
	Value = prolly.Value
	// Kind is the type of a Value (KindInt, KindString, ...).
	Kind = prolly.Kind
)

// The kinds of values a column holds.
const (
	KindNull      = prolly.KindNull
	KindInt       = prolly.KindInt
	KindUint      = prolly.KindUint
	KindFloat32   = prolly.KindFloat32
	KindFloat64   = prolly.KindFloat64
	KindDecimal   = prolly.KindDecimal
	KindString    = prolly.KindString
	KindBytes     = prolly.KindBytes
	KindDate      = prolly.KindDate
	KindTime      = prolly.KindTime
	KindDatetime  = prolly.KindDatetime
	KindTimestamp = prolly.KindTimestamp
	KindEnum      = prolly.KindEnum
	KindSet       = prolly.KindSet
	KindJSON      = prolly.KindJSON
)

// Int returns a signed integer value.
func Int(v int64) Value { return prolly.Int(v) }

// Uint returns an unsigned integer value.
func Uint(v uint64) Value { return prolly.Uint(v) }

// Float64 returns a floating-point value.
func Float64(f float64) Value { return prolly.Float64(f) }

// String returns a text value.
func String(s string) Value { return prolly.String(s) }

// Bytes returns a binary value.
func Bytes(b []byte) Value { return prolly.Bytes(b) }

// Datetime returns a date-and-time value (microseconds, wall clock).
func Datetime(t time.Time) Value { return prolly.Datetime(t) }

// JSON returns a JSON document value.
func JSON(doc []byte) Value { return prolly.JSON(doc) }

// Null returns SQL's NULL.
func Null() Value { return prolly.Null() }
