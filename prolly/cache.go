package prolly

import (
	"container/list"
	"sync"

	"github.com/verso-db/verso/chunks"
)

// DefaultCacheBytes is the size of the decoded-node cache of NewNodeStore.
const DefaultCacheBytes = 64 << 20

// nodeCache holds recently used decoded nodes, up to a bound on the sum of
// their chunk sizes, evicting the least recently used. Nodes are immutable,
// so a cached node may be shared by any number of readers.
type nodeCache struct {
	mu    sync.Mutex
	max   int
	size  int
	items map[chunks.Address]*list.Element // of *node
	lru   list.List                        // front: most recently used
}

func newNodeCache(maxBytes int) *nodeCache {
	return &nodeCache{max: maxBytes, items: map[chunks.Address]*list.Element{}}
}

// cost is what a node counts against the bound: its bytes and the
// decoded overhead.
func cost(nd *node) int { return len(nd.data) + 8*len(nd.cum) + 128 }

func (c *nodeCache) get(addr chunks.Address) (*node, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[addr]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*node), true
}

func (c *nodeCache) put(nd *node) {
	n := cost(nd)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[nd.addr]; ok {
		c.lru.MoveToFront(e)
		return
	}
	c.items[nd.addr] = c.lru.PushFront(nd)
	c.size += n
	for c.size > c.max {
		e := c.lru.Back()
		old := e.Value.(*node)
		c.lru.Remove(e)
		delete(c.items, old.addr)
		c.size -= cost(old)
	}
}

// len returns the number of nodes and bytes held.
func (c *nodeCache) len() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.size
}
