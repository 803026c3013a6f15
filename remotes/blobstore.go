package remotes

import (
	"context"
	"errors"
	"io"
)

// Blobstore is the object storage a remote lives on: named objects that
// are written once and never changed (the table files), plus the manifest,
// which is only ever replaced by a conditional write. A folder (FileBlobstore)
// and S3 or an S3-compatible store (S3Blobstore) implement it.
//
// Every method is safe to call from many goroutines at once. Names are
// slash-separated paths relative to the remote's root ("manifest",
// "tables/<name>.table"); a backend maps them onto its own namespace (a
// folder's files, a bucket's keys under a prefix).
type Blobstore interface {
	// Get returns the whole object and its version tag (an opaque string
	// that changes whenever the object's bytes do: replacing an object
	// with the same bytes may keep it). A missing object is an error
	// wrapping ErrNotExist.
	Get(ctx context.Context, name string) (data []byte, version string, err error)
	// ReadRange returns n bytes of the object from offset off. A range
	// that ends past the object is an error; a missing object wraps
	// ErrNotExist.
	ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error)
	// Put writes an immutable object. Writing a name again with the same
	// bytes is allowed (content-addressed names make that the only case).
	// The object is either wholly there afterwards or not at all: a reader
	// never sees part of it.
	Put(ctx context.Context, name string, data []byte) error
	// PutFrom is Put of the size bytes that r holds from offset 0, read
	// as they go up (a file's, without holding it in memory).
	PutFrom(ctx context.Context, name string, r io.ReaderAt, size int64) error
	// CheckAndPut replaces the object name with data only if its current
	// version is expected; expected "" means the object must not exist. It
	// returns the new version. When another writer got there first it
	// returns an error wrapping ErrPrecondition and changes nothing.
	CheckAndPut(ctx context.Context, name, expected string, data []byte) (version string, err error)
	// Close releases the backend's resources.
	Close() error
}

var (
	// ErrNotExist: the object does not exist.
	ErrNotExist = errors.New("remotes: object does not exist")
	// ErrPrecondition: a conditional write found another version than the
	// one expected (another writer replaced the object first).
	ErrPrecondition = errors.New("remotes: the object changed since it was read")
)
