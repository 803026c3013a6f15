// Package atomicfile replaces a file whole: a reader sees the old
// content or the new, never a part, and after a crash one of the two.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write replaces path with data, a file of the given mode: a synced
// temporary file beside it, renamed over it, then the folder synced.
func Write(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // an old temporary file keeps its own mode
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
