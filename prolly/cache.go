package prolly

import (
	"sync"

	"github.com/verso-db/verso/chunks"
)

// DefaultCacheBytes is the size of the decoded-node cache of NewNodeStore.
const DefaultCacheBytes = 64 << 20

// nodeCache holds recently used decoded nodes, up to a bound on the sum of
// their costs. Nodes are immutable, so a cached node may be shared by any
// number of readers.
//
// It is split into shards by address (addresses are uniform), each with
// its own lock, map and CLOCK ring: a hit takes a read lock, one map
// lookup and sets the node's referenced bit (a field of the node itself,
// so a hit follows one pointer from the map, not two), touching no other
// entry (an LRU list would move the entry and rewrite its neighbours, a
// cache miss or two per hit on a large cache, under an exclusive lock).
// An insertion evicts from the ring's hand the first entries not
// referenced since the hand last passed them, clearing the bits it
// passes: the second-chance approximation of LRU. An evicted entry leaves
// a hole in the ring, which the hand has just passed, and the insertion
// fills it. Where it then stands depends on where the node came from:
//
//   - A node read from the store is on probation: the hand is set back
//     onto it, so the next eviction looks at it first and takes it unless
//     it was read again meanwhile. A scan, or a skewed stream of reads,
//     does not push out the nodes read twice.
//   - A node just written (an edit's new version of a node it read) has a
//     whole turn of the hand: the next edit of the same rows reads it
//     back. Put on probation too, as an earlier ring did with every new
//     node, each insertion evicted the one before it, and the nodes one
//     commit wrote were gone when the next one edited them (Zipf-skewed
//     single-row edits of a 1M-row map through a 16 MiB cache missed 34%
//     of their node loads that way, 8.4% with the whole turn:
//     BenchmarkEditCacheSmall).
type nodeCache struct {
	shards []cacheShard
	mask   uint32
}

type cacheShard struct {
	mu    sync.RWMutex
	max   int
	size  int
	items map[chunks.Address]*node
	ring  []*node // nil where an entry was evicted
	holes []int   // the nil slots of ring
	hand  int
}

// shardMin is the least bound a shard gets: with less, nodes of a few
// tens of KiB would not fit.
const shardMin = 4 << 20

func newNodeCache(maxBytes int) *nodeCache {
	n := 1
	for n < 16 && maxBytes/(2*n) >= shardMin {
		n *= 2
	}
	c := &nodeCache{shards: make([]cacheShard, n), mask: uint32(n - 1)}
	for i := range c.shards {
		c.shards[i] = cacheShard{max: maxBytes / n, items: map[chunks.Address]*node{}}
	}
	return c
}

// cost is what a node counts against the bound: its bytes and the
// decoded overhead.
func cost(nd *node) int { return len(nd.data) + 8*len(nd.cum) + 160 }

func (c *nodeCache) shard(addr chunks.Address) *cacheShard {
	return &c.shards[(uint32(addr[0])|uint32(addr[1])<<8)&c.mask]
}

func (c *nodeCache) get(addr chunks.Address) (*node, bool) {
	nd, ok := c.peek(addr)
	if ok {
		markUsed(nd)
	}
	return nd, ok
}

// peek is get without marking the node used (see markUsed).
func (c *nodeCache) peek(addr chunks.Address) (*node, bool) {
	s := c.shard(addr)
	s.mu.RLock()
	nd, ok := s.items[addr]
	s.mu.RUnlock()
	return nd, ok
}

// markUsed sets the referenced bit of a node taken from the cache.
func markUsed(nd *node) {
	if !nd.ref.Load() {
		nd.ref.Store(true)
	}
}

// put caches nd: on probation if it was read from the store, for a whole
// turn of the hand if it was just written (see nodeCache).
func (c *nodeCache) put(nd *node, written bool) {
	s := c.shard(nd.addr)
	n := cost(nd)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[nd.addr]; ok || n > s.max {
		return
	}
	evicted := false
	for s.size+n > s.max {
		s.evict()
		evicted = true
	}
	s.items[nd.addr] = nd
	if h := len(s.holes) - 1; h >= 0 {
		i := s.holes[h]
		s.ring[i] = nd
		s.holes = s.holes[:h]
		if evicted && !written {
			s.hand = i // the hand passed the hole when it evicted
		}
	} else {
		s.ring = append(s.ring, nd)
	}
	s.size += n
}

// evict removes one entry: the first at or after the hand whose bit is
// clear, clearing the bits it passes, and leaves a hole where it was, with
// the hand past it. The shard holds an entry.
func (s *cacheShard) evict() {
	for {
		if s.hand >= len(s.ring) {
			s.hand = 0
		}
		nd := s.ring[s.hand]
		switch {
		case nd == nil:
		case nd.ref.Load():
			nd.ref.Store(false)
		default:
			s.ring[s.hand] = nil
			s.holes = append(s.holes, s.hand)
			s.hand++
			delete(s.items, nd.addr)
			s.size -= cost(nd)
			return
		}
		s.hand++
	}
}

// setMax changes the cache's bound to maxBytes, evicting what no longer
// fits.
func (c *nodeCache) setMax(maxBytes int) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.max = maxBytes / len(c.shards)
		for s.size > s.max {
			s.evict()
		}
		s.mu.Unlock()
	}
}

// maxBytes returns the cache's bound.
func (c *nodeCache) maxBytes() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += s.max
		s.mu.RUnlock()
	}
	return n
}

// len returns the number of nodes and bytes held.
func (c *nodeCache) len() (int, int) {
	nodes, bytes := 0, 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		nodes += len(s.items)
		bytes += s.size
		s.mu.RUnlock()
	}
	return nodes, bytes
}

// evict removes every node for which drop reports true.
func (c *nodeCache) evictIf(drop func(chunks.Address) bool) int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		keep := s.ring[:0]
		for _, nd := range s.ring {
			if nd == nil {
				continue
			}
			if drop(nd.addr) {
				delete(s.items, nd.addr)
				s.size -= cost(nd)
				n++
				continue
			}
			keep = append(keep, nd)
		}
		clear(s.ring[len(keep):])
		s.ring = keep
		s.holes = s.holes[:0]
		s.hand = 0
		s.mu.Unlock()
	}
	return n
}
