package prolly

import (
	"bytes"
	"context"

	"github.com/verso-db/verso/chunks"
)

// Map is an immutable ordered map from keys to values stored as a prolly
// tree. Methods that change it return a new Map; the old one stays valid.
// The zero Map is not usable: start from NewMap, OpenMap or a Builder.
type Map struct {
	ns   *NodeStore
	root *node // nil for the empty map
}

// NewMap returns the empty map.
func NewMap(ns *NodeStore) Map { return Map{ns: ns} }

// OpenMap returns the map whose root node is at addr; the zero address is
// the empty map.
func OpenMap(ctx context.Context, ns *NodeStore, addr chunks.Address) (Map, error) {
	if addr.IsEmpty() {
		return NewMap(ns), nil
	}
	root, err := ns.read(ctx, addr)
	if err != nil {
		return Map{}, err
	}
	return Map{ns: ns, root: root}, nil
}

// Address returns the address of the root node, the zero address for the
// empty map. Two maps with the same entries have the same address.
func (m Map) Address() chunks.Address {
	if m.root == nil {
		return chunks.Address{}
	}
	return m.root.addr
}

// NodeStore returns the node store m reads from.
func (m Map) NodeStore() *NodeStore { return m.ns }

// Count returns the number of entries, in O(1).
func (m Map) Count() uint64 {
	if m.root == nil {
		return 0
	}
	return m.root.count()
}

// Height returns the number of levels: 0 for the empty map, 1 for a single
// leaf.
func (m Map) Height() int {
	if m.root == nil {
		return 0
	}
	return int(m.root.level) + 1
}

// Get returns the value of key. The value must not be modified.
func (m Map) Get(ctx context.Context, key []byte) (value []byte, ok bool, err error) {
	if m.root == nil {
		return nil, false, nil
	}
	nd := m.root
	for {
		i := nd.search(key)
		if i == nd.n {
			return nil, false, nil
		}
		if nd.leaf() {
			if !bytes.Equal(nd.key(i), key) {
				return nil, false, nil
			}
			return nd.value(i), true, nil
		}
		if nd, err = m.ns.readChild(ctx, nd, i); err != nil {
			return nil, false, err
		}
	}
}

// Has reports whether key is in m.
func (m Map) Has(ctx context.Context, key []byte) (bool, error) {
	_, ok, err := m.Get(ctx, key)
	return ok, err
}

// Ordinal returns the number of keys less than key (the position key has or
// would have), in O(log n).
func (m Map) Ordinal(ctx context.Context, key []byte) (uint64, error) {
	if m.root == nil {
		return 0, nil
	}
	var rank uint64
	nd := m.root
	for {
		i := nd.search(key)
		if i == nd.n {
			return rank + nd.count(), nil
		}
		rank += nd.before(i)
		if nd.leaf() {
			return rank, nil
		}
		var err error
		if nd, err = m.ns.readChild(ctx, nd, i); err != nil {
			return 0, err
		}
	}
}

// CountRange returns the number of keys k with lo <= k < hi, in O(log n);
// a nil bound is open.
func (m Map) CountRange(ctx context.Context, lo, hi []byte) (uint64, error) {
	a, b := uint64(0), m.Count()
	var err error
	if lo != nil {
		if a, err = m.Ordinal(ctx, lo); err != nil {
			return 0, err
		}
	}
	if hi != nil {
		if b, err = m.Ordinal(ctx, hi); err != nil {
			return 0, err
		}
	}
	if b < a {
		return 0, nil
	}
	return b - a, nil
}

// CountIn returns the number of keys in r (its direction is ignored), in
// O(log n).
func (m Map) CountIn(ctx context.Context, r Range) (uint64, error) {
	// rank returns the number of keys < key, or <= key if inclusive.
	rank := func(key []byte, inclusive bool) (uint64, error) {
		n, err := m.Ordinal(ctx, key)
		if err != nil || !inclusive {
			return n, err
		}
		ok, err := m.Has(ctx, key)
		if ok {
			n++
		}
		return n, err
	}
	a, b := uint64(0), m.Count()
	var err error
	if r.Start != nil {
		if a, err = rank(r.Start, r.StartExclusive); err != nil {
			return 0, err
		}
	}
	if r.Stop != nil {
		if b, err = rank(r.Stop, r.StopInclusive); err != nil {
			return 0, err
		}
	}
	if b < a {
		return 0, nil
	}
	return b - a, nil
}

// GetOrdinal returns the i-th entry (from 0) in key order, in O(log n).
func (m Map) GetOrdinal(ctx context.Context, i uint64) (key, value []byte, err error) {
	c, err := m.cursorAtOrdinal(ctx, i)
	if err != nil {
		return nil, nil, err
	}
	return c.key(), c.value(), nil
}
