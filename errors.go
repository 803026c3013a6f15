package verso

import (
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

var (
	// ErrNoDatabase is returned by Open for a folder that holds no
	// database.
	ErrNoDatabase = errors.New("verso: no database")
	// ErrExists is returned by Init for a folder that holds a database
	// already.
	ErrExists = errors.New("verso: a database exists already")
	// ErrReadOnly is returned for a write to a read-only transaction (one
	// at a commit: a tag, a hash, a time).
	ErrReadOnly = errors.New("verso: read-only")
	// ErrSerialization is the class of SerializationError: a transaction
	// whose commit met a conflicting committed change. Nothing of it was
	// written; retry it from a new transaction.
	ErrSerialization = errors.New("verso: this transaction conflicts with a committed transaction")
)

// The lower layers' errors that the engine's calls return, named here so
// that a caller needs only this package: each is the lower layer's value,
// so errors.Is holds with either name.
var (
	// ErrBranchNotFound: no branch of the name.
	ErrBranchNotFound = commitgraph.ErrBranchNotFound
	// ErrBranchExists: a branch of the name exists already.
	ErrBranchExists = commitgraph.ErrBranchExists
	// ErrTagNotFound: no tag of the name.
	ErrTagNotFound = commitgraph.ErrTagNotFound
	// ErrTagExists: a tag of the name exists already.
	ErrTagExists = commitgraph.ErrTagExists
	// ErrBadName: a branch or tag name that is not allowed.
	ErrBadName = commitgraph.ErrBadName
	// ErrBadRevision: a revision that cannot be parsed or names nothing.
	ErrBadRevision = commitgraph.ErrBadRevision
	// ErrNoSuchAncestor: a revision that steps past a root commit
	// (main~9) or to a parent a commit lacks (main^2).
	ErrNoSuchAncestor = commitgraph.ErrNoSuchAncestor
	// ErrLocked: Open of a database another process holds for writing
	// (a running server); a read-only open (Options.ReadOnly) works.
	ErrLocked = chunks.ErrLocked
	// ErrCorrupt: stored bytes that fail their checksum or do not decode
	// (chunks.IsCorrupt). DB.Check reports them; Open fails with it for a
	// store whose manifest, table index or committed journal is damaged.
	ErrCorrupt = chunks.ErrCorrupt
	// ErrVersion: a store file of a format version this build cannot read.
	ErrVersion = chunks.ErrVersion
)

// RevisionError is the failure to resolve the revision Rev that a call was
// given (a branch, tag or hash that does not exist, main~9 past the root
// commit): Err says why, and is the error's text.
type RevisionError struct {
	Rev string
	Err error
}

func (e *RevisionError) Error() string { return e.Err.Error() }

// Unwrap returns Err (ErrBadRevision, ErrNoSuchAncestor, ...).
func (e *RevisionError) Unwrap() error { return e.Err }

// TableNotFoundError names a table (an item of the working set, see
// staging.go) that a staging call was given and that neither root it
// moves tables between holds. errors.Is(err, ErrTableNotFound) holds.
type TableNotFoundError struct{ Table string }

func (e *TableNotFoundError) Error() string { return fmt.Sprintf("%v: %q", ErrTableNotFound, e.Table) }

// Is makes errors.Is(err, ErrTableNotFound) hold.
func (e *TableNotFoundError) Is(target error) bool { return target == ErrTableNotFound }

// SerializationError is a transaction's conflict with a transaction that
// committed first: both changed one row, took one unique value, changed
// one table's schema or one event stream. The SQL layer reports it as
// MySQL's ER_LOCK_DEADLOCK (1213), which clients retry.
type SerializationError struct {
	Detail string // what both changed
}

func (e *SerializationError) Error() string {
	return "this transaction conflicts with a committed transaction from another client: " + e.Detail
}

// Is makes errors.Is(err, ErrSerialization) hold.
func (e *SerializationError) Is(target error) bool { return target == ErrSerialization }

// errSerialization returns a SerializationError.
func errSerialization(format string, args ...any) error {
	return &SerializationError{Detail: fmt.Sprintf(format, args...)}
}
