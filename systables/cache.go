package systables

import (
	"context"
	"sync"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Cache keeps what the system tables derive from one refs snapshot (the
// refs column of dolt_log, the heads of dolt_commits), so that a point
// lookup costs what the lookup itself needs. It is bounded: when full, it
// starts over. (Decoded commits are cached by the commit graph itself:
// commitgraph.DB.ReadCommit.)
//
// The SQL layer keeps one per provider and hands it to every View
// (View.Cache), so that queries share it; two caches never share or
// evict each other's entries. Entries are keyed by commit graph as well:
// the same address in another store is another question. A Cache is safe
// for concurrent use.
type Cache struct {
	mu   sync.Mutex
	refs map[refsKey]*refsInfo
}

const refsCacheSize = 64

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// Len returns the number of refs snapshots held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.refs)
}

// Evict drops the refs snapshots of graph g that a garbage collection
// removed (collected reports which).
func (c *Cache) Evict(g *commitgraph.DB, collected func(chunks.Address) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.refs {
		if k.g == g && collected(k.root) {
			delete(c.refs, k)
		}
	}
}

// cache returns the view's cache: View.Cache, or one of its own.
func (v *View) cache() *Cache {
	if v.Cache != nil {
		return v.Cache
	}
	v.ownOnce.Do(func() { v.own = NewCache() })
	return v.own
}

// refsInfo is what the tables derive from one refs snapshot.
type refsInfo struct {
	refs        map[chunks.Address][]refName // see refsColumn
	heads       []chunks.Address             // branch heads and tagged commits
	branchHeads []chunks.Address             // branch heads
}

type refsKey struct {
	g    *commitgraph.DB
	root chunks.Address
}

// info returns the refs and heads of v's snapshot, computed once per
// snapshot root.
func (v *View) info(ctx context.Context) (*refsInfo, error) {
	c := v.cache()
	k := refsKey{v.Graph, v.Refs.Root()}
	c.mu.Lock()
	ri, ok := c.refs[k]
	c.mu.Unlock()
	if ok {
		return ri, nil
	}
	ri, err := v.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.refs == nil || len(c.refs) >= refsCacheSize {
		c.refs = map[refsKey]*refsInfo{}
	}
	c.refs[k] = ri
	c.mu.Unlock()
	return ri, nil
}
