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

// openDirect opens path for writes that bypass the page cache
// (O_DIRECT): offsets, lengths and buffers aligned to DirectBlock.
func openDirect(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_DIRECT, 0)
}

// errDirectRefused is a file system's refusal of a direct write.
var errDirectRefused error = unix.EINVAL
