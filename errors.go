package verso

import (
	"errors"
	"fmt"
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
