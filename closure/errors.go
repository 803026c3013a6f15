package closure

import (
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrBadKey is returned for a stored closure key that is not 28 bytes
	// with a non-zero height (an alias height of at least 2), or that is of
	// the other kind than expected. It wraps chunks.ErrCorrupt.
	ErrBadKey = fmt.Errorf("closure: malformed key: %w", chunks.ErrCorrupt)
	// ErrBadParent is returned by Build for a parent with height 0 or above
	// MaxHeight, a zero address, or a parent height of its own that is 0 or
	// not below its height.
	ErrBadParent = fmt.Errorf("closure: bad parent")
)
