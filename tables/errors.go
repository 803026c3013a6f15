package tables

import (
	"errors"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrBadSchema is returned for a schema that breaks a rule (duplicate
	// names, a key column that cannot be a key, ...). The message says which.
	ErrBadSchema = errors.New("tables: invalid schema")
	// ErrDuplicateKey is returned when a write would give two rows the same
	// primary key or the same values in a unique index. See DuplicateKeyError.
	ErrDuplicateKey = errors.New("tables: duplicate key")
	// ErrNotNull is returned when a write puts NULL in a NOT NULL column.
	ErrNotNull = errors.New("tables: column cannot be null")
	// ErrRowShape is returned for a row whose length or value kinds do not
	// match the schema.
	ErrRowShape = errors.New("tables: row does not match the schema")
	// ErrRowNotFound is returned when an update or delete names a row the
	// table does not hold.
	ErrRowNotFound = errors.New("tables: row not found")
	// ErrTooLarge is returned for a row or key too large to store.
	ErrTooLarge = errors.New("tables: too large")
	// ErrUnknownCollation is returned for a schema naming a collation that
	// the Collations given to New or Load do not have.
	ErrUnknownCollation = errors.New("tables: unknown collation")
	// ErrCorrupt marks stored table or schema bytes that cannot be decoded.
	// It wraps chunks.ErrCorrupt, so chunks.IsCorrupt reports it too.
	ErrCorrupt = corruptError{}
	// ErrDuplicateUnique marks Check's finding of a value a unique index
	// holds twice: corruption, unless a merge recorded those rows as
	// unique-key violations beside the table (Editor.AllowDuplicates).
	ErrDuplicateUnique = errors.New("tables: a unique index holds a value twice")
)

type corruptError struct{}

func (corruptError) Error() string        { return "tables: corrupt table data" }
func (corruptError) Unwrap() error        { return chunks.ErrCorrupt }
func (corruptError) Is(target error) bool { return target == ErrCorrupt }

// DuplicateKeyError says which key a write duplicated.
type DuplicateKeyError struct {
	Index string // "PRIMARY" or the unique index's name
	Key   string // the duplicated key values, as text
	// Existing is the row already holding the key.
	Existing []Value
}

func (e *DuplicateKeyError) Error() string {
	return "tables: duplicate entry '" + e.Key + "' for key '" + e.Index + "'"
}

func (e *DuplicateKeyError) Unwrap() error { return ErrDuplicateKey }
