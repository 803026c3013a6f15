package tables

import (
	"fmt"
	"strings"
	"sync"
)

// A collation other than the binary one orders a string column's keys by a
// sort key: a byte string whose bytes.Compare order is the collation's
// order, equal for strings the collation holds equal. A key column in such a
// collation stores the sort key in the key and the original string in the
// row, so rows read back exactly as written.
//
// The SQL layer registers the collations it supports; storage only applies
// them. A registered name must never change its function: keys already
// stored depend on it.

var collations = struct {
	sync.RWMutex
	m map[string]func(string) []byte
}{m: map[string]func(string) []byte{}}

// RegisterCollation makes the collation name (case-insensitive) available
// to schemas, with the function computing its sort keys. Registering a name
// twice panics.
func RegisterCollation(name string, sortKey func(string) []byte) {
	collations.Lock()
	defer collations.Unlock()
	n := strings.ToLower(name)
	if _, ok := collations.m[n]; ok || isBinaryCollation(n) {
		panic(fmt.Sprintf("tables.RegisterCollation: %q registered twice", name))
	}
	collations.m[n] = sortKey
}

func isBinaryCollation(name string) bool {
	switch strings.ToLower(name) {
	case "", "binary", "utf8mb4_bin", "utf8mb3_bin", "ascii_bin", "latin1_bin":
		return true
	}
	return false
}

// collationKeyFunc returns the sort-key function of a collation, or nil for
// a binary one (the string's bytes are its key).
func collationKeyFunc(name string) (func(string) []byte, error) {
	if isBinaryCollation(name) {
		return nil, nil
	}
	collations.RLock()
	f, ok := collations.m[strings.ToLower(name)]
	collations.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q: the SQL layer must register it before use", ErrUnknownCollation, name)
	}
	return f, nil
}
