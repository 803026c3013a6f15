//go:build unix && !linux && !darwin

package chunks

import "os"

// datasync makes f's written data durable: fsync(2).
func datasync(f *os.File) error { return f.Sync() }

// writeBackHint does nothing here.
func writeBackHint(*os.File, int64, int64) {}
