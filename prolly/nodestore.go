package prolly

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/verso-db/verso/chunks"
)

// NodeStore reads and writes tree nodes in a chunk store. It is safe for
// concurrent use.
type NodeStore struct {
	store  chunks.Store
	cache  *nodeCache    // nil: no cache
	loads  atomic.Uint64 // nodes asked for
	reads  atomic.Uint64 // nodes fetched from the chunk store
	writes atomic.Uint64 // nodes put
	bytes  atomic.Uint64 // bytes put
}

// NewNodeStore returns a NodeStore over s with a cache of decoded nodes of
// DefaultCacheBytes.
func NewNodeStore(s chunks.Store) *NodeStore {
	return NewNodeStoreCache(s, DefaultCacheBytes)
}

// NewNodeStoreCache returns a NodeStore over s whose cache of decoded nodes
// holds at most cacheBytes bytes of nodes; 0 disables the cache.
func NewNodeStoreCache(s chunks.Store, cacheBytes int) *NodeStore {
	ns := &NodeStore{store: s}
	if cacheBytes > 0 {
		ns.cache = newNodeCache(cacheBytes)
	}
	return ns
}

// SetCacheBytes bounds the cache of decoded nodes to n bytes (0 empties it
// and caches nothing), evicting what no longer fits. A NodeStore made
// without a cache stays without one.
func (ns *NodeStore) SetCacheBytes(n int) {
	if ns.cache != nil {
		ns.cache.setMax(max(n, 0))
	}
}

// CacheBytes returns the bound of the cache of decoded nodes (0 for none).
func (ns *NodeStore) CacheBytes() int {
	if ns.cache == nil {
		return 0
	}
	return ns.cache.maxBytes()
}

// Store returns the chunk store under ns.
func (ns *NodeStore) Store() chunks.Store { return ns.store }

// Stats counts node traffic since the NodeStore was made.
type Stats struct {
	Loads        uint64 // nodes asked for, from the cache or the store
	Reads        uint64 // nodes fetched from the chunk store (cache misses)
	Writes       uint64 // nodes put to the chunk store
	BytesWritten uint64 // bytes of those nodes
}

// Stats returns the node traffic so far.
func (ns *NodeStore) Stats() Stats {
	return Stats{Loads: ns.loads.Load(), Reads: ns.reads.Load(), Writes: ns.writes.Load(), BytesWritten: ns.bytes.Load()}
}

// read returns the decoded node at addr.
func (ns *NodeStore) read(ctx context.Context, addr chunks.Address) (*node, error) {
	ns.loads.Add(1)
	if ns.cache != nil {
		if nd, ok := ns.cache.get(addr); ok {
			return nd, nil
		}
	}
	return ns.fetch(ctx, addr)
}

// peek is read for Lookup, which counts its loads once per run (the
// counter is shared by every reader) and marks the nodes it takes from
// the cache as used in its touch pass, where the processor need not
// wait for each: peek does neither.
func (ns *NodeStore) peek(ctx context.Context, addr chunks.Address) (*node, error) {
	if ns.cache != nil {
		if nd, ok := ns.cache.peek(addr); ok {
			return nd, nil
		}
	}
	return ns.fetch(ctx, addr)
}

// fetch reads, decodes and caches the node at addr from the chunk store.
func (ns *NodeStore) fetch(ctx context.Context, addr chunks.Address) (*node, error) {
	data, err := ns.store.Get(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("prolly: reading node %s: %w", addr, err)
	}
	ns.reads.Add(1)
	nd, err := decodeNode(addr, data)
	if err != nil {
		return nil, err
	}
	if ns.cache != nil {
		ns.cache.put(nd, false)
	}
	return nd, nil
}

// readChild reads child i of the internal node parent and checks that it
// fits its place: one level down, with the last key and the subtree count
// the parent records. A tree read through readChild cannot lead a cursor
// out of range, even if the store returns wrong (but decodable) chunks.
func (ns *NodeStore) readChild(ctx context.Context, parent *node, i int) (*node, error) {
	nd, err := ns.read(ctx, parent.child(i))
	if err != nil {
		return nil, err
	}
	if err := checkChild(parent, i, nd); err != nil {
		return nil, err
	}
	return nd, nil
}

// checkChild checks that nd, read as child i of parent, fits its place.
func checkChild(parent *node, i int, nd *node) error {
	if nd.level+1 != parent.level || nd.count() != parent.childCount(i) || !bytes.Equal(nd.lastKey(), parent.key(i)) {
		return badNode("%s: child %d of %s (level %d, %d entries) does not match its parent entry (level %d, %d entries)",
			nd.addr, i, parent.addr, nd.level, nd.count(), parent.level, parent.childCount(i))
	}
	return nil
}

// write encodes and puts a node, and returns it decoded.
func (ns *NodeStore) write(ctx context.Context, level uint8, keys, vals [][]byte) (*node, error) {
	data := encodeNode(level, keys, vals)
	addr, err := ns.store.Put(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("prolly: writing node: %w", err)
	}
	ns.writes.Add(1)
	ns.bytes.Add(uint64(len(data)))
	nd, err := parseNode(addr, data, false)
	if err != nil {
		panic(fmt.Sprintf("prolly: a node just encoded does not decode (invariant: encodeNode output is valid): %v", err))
	}
	if ns.cache != nil {
		ns.cache.put(nd, true)
	}
	return nd, nil
}

// Evict drops from the cache every node for which drop reports true (the
// chunks a garbage collection removed), and returns how many it dropped.
func (ns *NodeStore) Evict(drop func(chunks.Address) bool) int {
	if ns.cache == nil {
		return 0
	}
	return ns.cache.evictIf(drop)
}
