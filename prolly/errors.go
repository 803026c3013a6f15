package prolly

import (
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrBadTuple is returned when the bytes of a key or value tuple cannot
	// be decoded. It wraps chunks.ErrCorrupt, so chunks.IsCorrupt reports
	// true for it.
	ErrBadTuple = fmt.Errorf("prolly: malformed tuple: %w", chunks.ErrCorrupt)
	// ErrBadNode is returned when the bytes of a chunk are not a valid node.
	// It wraps chunks.ErrCorrupt.
	ErrBadNode = fmt.Errorf("prolly: malformed node: %w", chunks.ErrCorrupt)
	// ErrBadDecimal is returned by ParseDecimal for text that is not a
	// decimal number.
	ErrBadDecimal = errors.New("prolly: malformed decimal")
	// ErrKeyTooLarge is returned for a key longer than MaxKeySize.
	ErrKeyTooLarge = errors.New("prolly: key too large")
	// ErrValueTooLarge is returned for a value longer than MaxValueSize;
	// store large values out of line with PutLarge.
	ErrValueTooLarge = errors.New("prolly: value too large")
	// ErrUnsorted is returned when keys given to a Builder or to Apply are
	// not strictly ascending.
	ErrUnsorted = errors.New("prolly: keys not strictly ascending")
	// ErrOutOfRange is returned for an ordinal at or past the map's count.
	ErrOutOfRange = errors.New("prolly: ordinal out of range")
	// ErrCheck is returned by Check for a tree that breaks an invariant.
	ErrCheck = errors.New("prolly: check failed")
	// ErrConflict may be returned by a merge Resolver to report that a key
	// cannot be merged; Merge returns it wrapped with the key.
	ErrConflict = errors.New("prolly: merge conflict")
)

// badTuple wraps ErrBadTuple with a description.
func badTuple(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadTuple, fmt.Sprintf(format, args...))
}

// badNode wraps ErrBadNode with a description.
func badNode(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadNode, fmt.Sprintf(format, args...))
}
