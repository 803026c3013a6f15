package chunks

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync makes f's written data durable: fdatasync(2), which skips the
// metadata a read does not need.
func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

// writeBackHint starts writing f's bytes [off, off+n) back to the disk,
// so that a later datasync finds less to do; a hint only
// (sync_file_range(2)).
func writeBackHint(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
