//go:build unix

package chunks

import (
	"errors"
	"os"
	"syscall"
)

// Platform code, Unix: the folder lock is flock(2), files are read through
// mmap(2) (see sys_linux.go, sys_darwin.go and sys_unix_other.go for
// syncing, sys_windows.go for Windows).

// lockFile takes f's exclusive lock without waiting; errLockHeld if
// another holds it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}

// openShared opens path for reading. (On Unix a writer can always rename
// over and remove a file that a reader has open.)
func openShared(path string) (*os.File, error) { return os.Open(path) }

// mapFileData maps the whole of f (of size bytes, > 0) read-only;
// unmapFile releases it.
func mapFileData(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases data from mapFileData.
func unmapFile(data []byte) error { return syscall.Munmap(data) }
