//go:build !linux

package chunks

import (
	"errors"
	"os"
)

// openDirect is Linux's; elsewhere an appender writes through the page
// cache.
func openDirect(string) (*os.File, error) { return nil, errors.ErrUnsupported }

var errDirectRefused = errors.ErrUnsupported
