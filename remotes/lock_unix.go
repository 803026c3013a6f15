//go:build unix

package remotes

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive lock without waiting; held is true when
// another process or file handle holds it.
func tryLock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
