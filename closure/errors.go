package closure

import (
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrBadKey is returned for a stored closure key that is not 28 bytes
	// with a non-zero height. It wraps chunks.ErrCorrupt.
	ErrBadKey = fmt.Errorf("closure: malformed key: %w", chunks.ErrCorrupt)
	// ErrBadParent is returned by Build for a parent with height 0 or a zero
	// address.
	ErrBadParent = fmt.Errorf("closure: bad parent")
)
