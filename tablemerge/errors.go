package tablemerge

import (
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrSchemaConflict is returned when both sides changed a table's
	// schema (or its options) in ways that cannot be combined. The merge
	// changes nothing; the message names the table and what clashed.
	ErrSchemaConflict = errors.New("tablemerge: schema conflict")
	// ErrTableConflict is returned when one side dropped a table that the
	// other changed, or both created a table of one name with different
	// schemas.
	ErrTableConflict = errors.New("tablemerge: table conflict")
	// ErrObjectConflict is returned when both sides changed a view,
	// trigger, procedure, foreign key or other named object differently.
	ErrObjectConflict = errors.New("tablemerge: conflicting changes to a database object")
	// ErrUnresolvedConflicts is returned when a side of the merge still
	// holds conflicts of an earlier merge.
	ErrUnresolvedConflicts = errors.New("tablemerge: unresolved conflicts")
	// ErrNoMerger is returned when a root value holds an entry that this
	// package does not merge and that no Options.PrefixMergers entry
	// covers (such as the event log's, when the caller passed no merger
	// for "events/"): the merge changes nothing rather than take or drop
	// it blindly.
	ErrNoMerger = errors.New("tablemerge: no merger for a root value entry")
	// ErrConstraint is returned when the merged rows would break a unique
	// key (see ConstraintError) or another constraint of the table.
	ErrConstraint = errors.New("tablemerge: the merged rows break a constraint")
	// ErrCorrupt marks stored conflict bytes that cannot be decoded. It
	// wraps chunks.ErrCorrupt, so chunks.IsCorrupt reports it too.
	ErrCorrupt = corruptError{}
)

type corruptError struct{}

func (corruptError) Error() string        { return "tablemerge: corrupt conflict data" }
func (corruptError) Unwrap() error        { return chunks.ErrCorrupt }
func (corruptError) Is(target error) bool { return target == ErrCorrupt }

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// DropConflictError is a table that one side of a merge dropped and the
// other changed. The merge changes nothing.
type DropConflictError struct {
	Table string
	// SchemaChanged: the side that kept the table changed its schema (else
	// its rows only).
	SchemaChanged bool
}

// description is how dolt_schema_conflicts describes the conflict, in
// Dolt's words.
func (e *DropConflictError) description() string {
	if e.SchemaChanged {
		return "cannot merge a table deletion with schema modification"
	}
	return "cannot merge a table deletion with data modification"
}

func (e *DropConflictError) Error() string {
	return fmt.Sprintf("%v: table %q was dropped on one branch and changed on the other; drop it on both or restore it, then merge again", ErrTableConflict, e.Table)
}

// Unwrap returns ErrTableConflict.
func (e *DropConflictError) Unwrap() error { return ErrTableConflict }

// ConstraintError is a merged row that breaks a constraint of its table:
// most often two rows, one from each side, that hold the same value of a
// unique index. The merge changes nothing.
type ConstraintError struct {
	Table string
	// Key is the primary key of the merged row that could not be written,
	// as text.
	Key string
	// Err is the table layer's error (a *tables.DuplicateKeyError for a
	// unique key, or one wrapping tables.ErrNotNull, ...).
	Err error
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("tablemerge: table %q: the merged row with key %s cannot be written: %v; change the row on one of the branches so that they agree, then merge again", e.Table, e.Key, e.Err)
}

// Unwrap returns both ErrConstraint and the table layer's error.
func (e *ConstraintError) Unwrap() []error { return []error{ErrConstraint, e.Err} }
