package closure

import (
	"encoding/binary"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

// Height is the height of a commit: 1 for a commit without parents, and
// 1 + the greatest height of its parents otherwise. Every ancestor of a
// commit has a smaller height. Heights are at most MaxHeight.
type Height uint64

// MaxHeight is the greatest height a commit may have: the keys with the top
// bit of the height set are the alias range (see the package format).
const MaxHeight Height = aliasBase - 1

// aliasBase is added to an alias's height in its key: every alias key sorts
// after every entry key.
const aliasBase = 1 << 63

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

// Alias says that the merge commit Merge is a child of a commit at height
// Height: one of its parents sits there, lower than Merge's height - 1.
type Alias struct {
	Height Height
	Merge  chunks.Address
}

// String returns "alias height:address".
func (a Alias) String() string { return fmt.Sprintf("alias %d:%s", a.Height, a.Merge) }

// Key returns the 28-byte key of a:
//
//	| 2^63 + height u64 big-endian | merge address [20] |
func (a Alias) Key() []byte {
	dst := binary.BigEndian.AppendUint64(make([]byte, 0, KeySize), aliasBase+uint64(a.Height))
	return append(dst, a.Merge[:]...)
}

// heightKey returns the 8-byte prefix shared by every key at height h; h
// is clamped to the alias range's start, so no entry range reaches it.
func heightKey(h Height) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(min(h, aliasBase)))
}

// aliasHeightKey returns the 8-byte prefix shared by every alias key at
// height h.
func aliasHeightKey(h Height) []byte {
	return binary.BigEndian.AppendUint64(nil, aliasBase+uint64(min(h, MaxHeight)))
}

// aliasStart is the least alias key: the end of the entry range.
var aliasStart = heightKey(aliasBase)

// DecodeKey decodes the key of an entry. It returns an error wrapping
// ErrBadKey for bytes that are not 28 bytes long, that hold height 0, or
// whose height is in the alias range.
func DecodeKey(b []byte) (Entry, error) {
	e, alias, err := decodeAny(b)
	if err == nil && alias {
		return Entry{}, fmt.Errorf("%w: an alias key where an entry was expected", ErrBadKey)
	}
	return e, err
}

// DecodeAliasKey decodes the key of an alias. It returns an error wrapping
// ErrBadKey for bytes that are not 28 bytes long, that are an entry's key,
// or that hold an alias height below 2 (a commit at height 1 has no
// parents).
func DecodeAliasKey(b []byte) (Alias, error) {
	e, alias, err := decodeAny(b)
	if err != nil {
		return Alias{}, err
	}
	if !alias {
		return Alias{}, fmt.Errorf("%w: an entry key where an alias was expected", ErrBadKey)
	}
	return Alias{Height: e.Height, Merge: e.Addr}, nil
}

// decodeAny decodes an entry or alias key; for an alias, the Entry holds
// the alias's height (without the 2^63) and the merge's address.
func decodeAny(b []byte) (e Entry, alias bool, err error) {
	if len(b) != KeySize {
		return Entry{}, false, fmt.Errorf("%w: %d bytes, want %d", ErrBadKey, len(b), KeySize)
	}
	h := binary.BigEndian.Uint64(b)
	if h >= aliasBase {
		alias = true
		h -= aliasBase
		if h < 2 {
			return Entry{}, false, fmt.Errorf("%w: alias height %d", ErrBadKey, h)
		}
	} else if h == 0 {
		return Entry{}, false, fmt.Errorf("%w: height 0", ErrBadKey)
	}
	e.Height = Height(h)
	copy(e.Addr[:], b[8:])
	return e, alias, nil
}
