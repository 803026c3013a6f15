package chunks

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync makes f's written data durable. On macOS fsync(2) leaves the
// data in the drive's cache; F_FULLFSYNC flushes it, as power loss
// requires.
func datasync(f *os.File) error {
	_, err := unix.FcntlInt(f.Fd(), unix.F_FULLFSYNC, 0)
	return err
}

// writeBackHint does nothing: macOS has no sync_file_range.
func writeBackHint(*os.File, int64, int64) {}
