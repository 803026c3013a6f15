package tables

import (
	"fmt"
	"strings"
)

// A collation other than the binary one orders a string column's keys by a
// sort key: a byte string whose bytes.Compare order is the collation's
// order, equal for strings the collation holds equal. A key column in such a
// collation stores the sort key in the key and the original string in the
// row, so rows read back exactly as written.
//
// Storage knows no collation but the binary ones: the layer above passes
// the ones it supports to New and Load (a Collations), and storage only
// applies them. A name must never change its function: keys already stored
// depend on it.

// Collations gives the sort keys of the collations, other than binary
// ones, that a schema's string columns may name (Column.Collation).
// Implementations must be safe for concurrent use.
type Collations interface {
	// SortKey returns the sort-key function of the collation name
	// (case-insensitive), or false if it knows no such collation.
	SortKey(name string) (func(string) []byte, bool)
}

// CollationMap is a Collations given by a map from lower-case names.
type CollationMap map[string]func(string) []byte

var _ Collations = CollationMap(nil)

// SortKey implements Collations.
func (m CollationMap) SortKey(name string) (func(string) []byte, bool) {
	f, ok := m[strings.ToLower(name)]
	return f, ok
}

func isBinaryCollation(name string) bool {
	switch strings.ToLower(name) {
	case "", "binary", "utf8mb4_bin", "utf8mb3_bin", "ascii_bin", "latin1_bin":
		return true
	}
	return false
}

// collationKeyFunc returns the sort-key function of a collation from cs,
// or nil for a binary one (the string's bytes are its key). cs may be nil:
// only binary collations are known then.
func collationKeyFunc(cs Collations, name string) (func(string) []byte, error) {
	if isBinaryCollation(name) {
		return nil, nil
	}
	var f func(string) []byte
	ok := false
	if cs != nil {
		f, ok = cs.SortKey(name)
	}
	if !ok || f == nil {
		return nil, fmt.Errorf("%w %q: the tables were opened without it (pass it in the Collations given to New or Load)", ErrUnknownCollation, name)
	}
	return f, nil
}
