package remotes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FileBlobstore is a Blobstore in a folder (a file:// remote): an object
// is a file under the folder, its name's slashes making subfolders.
//
// Put writes a temporary file beside the object, syncs it and renames it
// into place, so an object is there whole or not at all. CheckAndPut does
// the same under an exclusive lock of the file ".lock" in the folder
// (flock on Unix, LockFileEx on Windows), after comparing the object's
// version with the one expected: two processes, or two goroutines, can
// never both replace one version. A version is the hex of the first 16
// bytes of the SHA-256 of the object's bytes: it changes whenever the
// bytes do. A crash leaves at most a temporary file (".tmp-" prefix),
// which no reader looks at.
type FileBlobstore struct {
	dir string
}

var _ Blobstore = (*FileBlobstore)(nil)

// OpenFile returns the Blobstore in the folder dir, which must exist.
func OpenFile(dir string) (*FileBlobstore, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("remotes: the remote folder cannot be read (create it first if it is missing): %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("remotes: the remote %s is not a folder", dir)
	}
	return &FileBlobstore{dir: dir}, nil
}

func (b *FileBlobstore) path(name string) (string, error) {
	bad := name == "" || strings.Contains(name, "\\")
	for _, part := range strings.Split(name, "/") {
		bad = bad || part == "" || part == "." || part == ".." || strings.HasPrefix(part, ".tmp-")
	}
	if bad {
		return "", fmt.Errorf("remotes: bad object name %q", name)
	}
	return filepath.Join(b.dir, filepath.FromSlash(name)), nil
}

func notExist(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%w: %s", ErrNotExist, name)
	}
	return fmt.Errorf("remotes: %s: %w", name, err)
}

func fileVersion(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// Get implements Blobstore.
func (b *FileBlobstore) Get(ctx context.Context, name string) ([]byte, string, error) {
	p, err := b.path(name)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if _, serr := os.Stat(b.dir); serr != nil {
			// The folder itself is gone (or unmounted): no empty remote.
			return nil, "", fmt.Errorf("remotes: the remote folder cannot be read: %w", serr)
		}
		return nil, "", notExist(name, err)
	}
	return data, fileVersion(data), nil
}

// ReadRange implements Blobstore.
func (b *FileBlobstore) ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	p, err := b.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notExist(name, err)
	}
	defer f.Close()
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("remotes: %s: bad range %d+%d", name, off, n)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("remotes: %s: range %d+%d ends past the object", name, off, n)
		}
		return nil, fmt.Errorf("remotes: %s: %w", name, err)
	}
	return buf, nil
}

// Put implements Blobstore.
func (b *FileBlobstore) Put(ctx context.Context, name string, data []byte) error {
	p, err := b.path(name)
	if err != nil {
		return err
	}
	return writeAtomic(p, data)
}

// PutFrom implements Blobstore.
func (b *FileBlobstore) PutFrom(ctx context.Context, name string, r io.ReaderAt, size int64) error {
	p, err := b.path(name)
	if err != nil {
		return err
	}
	return writeAtomicFrom(p, io.NewSectionReader(r, 0, size))
}

// writeAtomic writes data to a temporary file beside p, syncs it, renames
// it to p and syncs the folder.
func writeAtomic(p string, data []byte) error {
	return writeAtomicFrom(p, bytes.NewReader(data))
}

// writeAtomicFrom is writeAtomic of what r holds.
func writeAtomicFrom(p string, r io.Reader) (err error) {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("remotes: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return fmt.Errorf("remotes: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("remotes: write %s: %w", p, err)
		}
	}()
	if _, err = io.Copy(f, r); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), p); err != nil {
		return err
	}
	return syncFolder(dir)
}

func syncFolder(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// CheckAndPut implements Blobstore.
func (b *FileBlobstore) CheckAndPut(ctx context.Context, name, expected string, data []byte) (string, error) {
	p, err := b.path(name)
	if err != nil {
		return "", err
	}
	unlock, err := b.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	cur, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if expected != "" {
			return "", fmt.Errorf("%w: %s no longer exists", ErrPrecondition, name)
		}
	case err != nil:
		return "", fmt.Errorf("remotes: %s: %w", name, err)
	case expected == "":
		return "", fmt.Errorf("%w: %s exists already", ErrPrecondition, name)
	case fileVersion(cur) != expected:
		return "", fmt.Errorf("%w: %s", ErrPrecondition, name)
	}
	if err := writeAtomic(p, data); err != nil {
		return "", err
	}
	return fileVersion(data), nil
}

// lock takes the folder's write lock, waiting for it while ctx allows.
func (b *FileBlobstore) lock(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(b.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("remotes: lock the remote folder: %w", err)
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("remotes: lock the remote folder: %w", err)
		}
		if !held {
			return func() { f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Close implements Blobstore.
func (b *FileBlobstore) Close() error { return nil }
