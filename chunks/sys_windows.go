package chunks

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// Platform code, Windows: the folder lock is LockFileEx, files are read
// into memory instead of mapped (slower to open, the same to use), and
// datasync is FlushFileBuffers.

// lockFile takes f's exclusive lock without waiting; errLockHeld if
// another holds it.
func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLockHeld
	}
	return err
}

// openShared opens path for reading with FILE_SHARE_DELETE beside the
// read and write sharing that os.Open allows, so that a writer of the
// store (another process) can rename a file over it and remove it while
// a read-only store reads it (readonly.go).
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// mapFileData reads the whole of f (of size bytes).
func mapFileData(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, err
	}
	return data, nil
}

// unmapFile releases data from mapFileData (the garbage collector does).
func unmapFile([]byte) error { return nil }

// datasync makes f's written data durable (FlushFileBuffers).
func datasync(f *os.File) error { return f.Sync() }

// writeBackHint does nothing on Windows.
func writeBackHint(*os.File, int64, int64) {}
