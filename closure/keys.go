package closure

import (
	"encoding/binary"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// Height is the height of a commit: 1 for a commit without parents, and
// 1 + the greatest height of its parents otherwise. Every ancestor of a
// commit has a smaller height.
type Height uint64

// KeySize is the length of a closure key: an 8-byte height and an address.
const KeySize = 8 + chunks.AddressSize

// Entry is one member of a closure: a commit and its height.
type Entry struct {
	Height Height
	Addr   chunks.Address
}

// Compare orders entries by height, then address: -1, 0 or +1.
func (e Entry) Compare(f Entry) int {
	switch {
	case e.Height < f.Height:
		return -1
	case e.Height > f.Height:
		return 1
	}
	return e.Addr.Compare(f.Addr)
}

// String returns "height:address".
func (e Entry) String() string { return fmt.Sprintf("%d:%s", e.Height, e.Addr) }

// Key returns the 28-byte key of e:
//
//	| height u64 big-endian | address [20] |
func (e Entry) Key() []byte { return appendKey(make([]byte, 0, KeySize), e) }

// appendKey appends the key of e to dst.
func appendKey(dst []byte, e Entry) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Height))
	return append(dst, e.Addr[:]...)
}

// heightKey returns the 8-byte prefix shared by every key at height h.
func heightKey(h Height) []byte { return binary.BigEndian.AppendUint64(nil, uint64(h)) }

// DecodeKey decodes a closure key. It returns an error wrapping ErrBadKey
// for bytes that are not 28 bytes long or that hold height 0.
func DecodeKey(b []byte) (Entry, error) {
	if len(b) != KeySize {
		return Entry{}, fmt.Errorf("%w: %d bytes, want %d", ErrBadKey, len(b), KeySize)
	}
	var e Entry
	e.Height = Height(binary.BigEndian.Uint64(b))
	if e.Height == 0 {
		return Entry{}, fmt.Errorf("%w: height 0", ErrBadKey)
	}
	copy(e.Addr[:], b[8:])
	return e, nil
}
