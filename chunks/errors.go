package chunks

import "errors"

var (
	// ErrNotFound is returned for an address the store does not hold.
	ErrNotFound = errors.New("chunks: not found")
	// ErrRootMoved is returned by Commit when the store's root is not the
	// expected one: another writer committed first. Pending puts stay
	// pending; read the new root and try again.
	ErrRootMoved = errors.New("chunks: root moved")
	// ErrBadAddress is returned for the malformed text form of an address.
	ErrBadAddress = errors.New("chunks: malformed address")
	// ErrClosed is returned by every call on a closed store.
	ErrClosed = errors.New("chunks: store is closed")
	// ErrLocked is returned when another process holds the store open for
	// writing.
	ErrLocked = errors.New("chunks: store is locked by another process")
	// ErrCorrupt marks damaged stored bytes: a checksum or address that does
	// not match, or a structure that cannot be decoded. Test with IsCorrupt.
	ErrCorrupt = errors.New("chunks: corrupt data")
	// ErrVersion is returned for a file written in a format version this
	// build does not read: open it with the verso release that wrote it.
	ErrVersion = errors.New("chunks: unsupported format version")
	// ErrReadOnly is returned by Put, Commit and Compact of a store opened
	// with Options.ReadOnly.
	ErrReadOnly = errors.New("chunks: store is open read-only")
	// ErrFailed is returned by every write after a write or sync to disk
	// failed: the store cannot know what reached the disk, so it refuses
	// further writes until it is reopened.
	ErrFailed = errors.New("chunks: an earlier write failed; close and reopen the store")

	// errLockHeld is lockFile's answer when another holds the lock (the
	// platform's own error differs per OS).
	errLockHeld = errors.New("chunks: lock held")
)

// IsCorrupt reports whether err marks damaged stored bytes.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

// errMissingRoot is returned by Commit for a root that names no stored chunk.
var errMissingRoot = errors.New("chunks: the new root names no chunk in the store; put the root chunk before committing it")

// IsNotFound reports whether err says a chunk is absent.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
