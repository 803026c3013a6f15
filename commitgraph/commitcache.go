package commitgraph

import (
	"sync"

	"github.com/verso-db/verso/chunks"
)

// DefaultCommitCacheBytes bounds a DB's cache of decoded commits unless
// SetCommitCacheBytes says otherwise: about 100,000 commits of short
// messages.
const DefaultCommitCacheBytes = 64 << 20

// commitCache keeps decoded commits, up to a bound on the sum of their
// costs, so that a scan of a history read before costs no chunk read and
// no decoding: a scan of dolt_log over a file store spent two thirds of
// its time reading each commit's chunk (a system call) and decoding it.
// Commits are immutable and named by their contents, so a cached commit
// is right for as long as the store holds its chunk (a collection drops
// what it removed: evictIf). ReadCommit's callers share the commits it
// returns and must not change them.
//
// It is split into shards by address, each with its own lock and map. A
// full shard drops entries picked by the map's randomized iteration
// order: a scan of more commits than the cache holds still hits for the
// share of them it holds, where an LRU order would miss them all.
type commitCache struct {
	shards [commitShards]commitShard
}

const commitShards = 16

type commitShard struct {
	mu    sync.RWMutex
	max   int
	size  int
	items map[chunks.Address]*Commit
}

func newCommitCache(maxBytes int) *commitCache {
	c := &commitCache{}
	c.setMax(maxBytes)
	return c
}

// commitCost is what a commit counts against the bound: its strings,
// address lists and the decoded overhead.
func commitCost(c *Commit) int {
	m := &c.Meta
	return 256 + chunks.AddressSize*(len(c.Parents)+len(c.Tail)) +
		len(m.Message) + len(m.Author.Name) + len(m.Author.Email) + len(m.Committer.Name) + len(m.Committer.Email)
}

func (c *commitCache) shard(a chunks.Address) *commitShard {
	return &c.shards[a[0]%commitShards]
}

func (c *commitCache) get(a chunks.Address) (*Commit, bool) {
	s := c.shard(a)
	s.mu.RLock()
	cm, ok := s.items[a]
	s.mu.RUnlock()
	return cm, ok
}

func (c *commitCache) put(cm *Commit) {
	s := c.shard(cm.Addr)
	n := commitCost(cm)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[cm.Addr]; ok || n > s.max {
		return
	}
	s.shrink(s.max - n)
	if s.items == nil {
		s.items = map[chunks.Address]*Commit{}
	}
	s.items[cm.Addr] = cm
	s.size += n
}

// shrink drops entries, in the map's random order, until the shard's
// costs sum to at most limit; s.mu is held.
func (s *commitShard) shrink(limit int) {
	for k, old := range s.items {
		if s.size <= limit {
			return
		}
		delete(s.items, k)
		s.size -= commitCost(old)
	}
}

// setMax bounds the cache to maxBytes (0 caches nothing), dropping what
// no longer fits.
func (c *commitCache) setMax(maxBytes int) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.max = maxBytes / commitShards
		s.shrink(s.max)
		s.mu.Unlock()
	}
}

// len returns the number of commits held and the sum of their costs.
func (c *commitCache) len() (commits, bytes int) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		commits += len(s.items)
		bytes += s.size
		s.mu.RUnlock()
	}
	return commits, bytes
}

// evictIf drops the commits whose address drop reports, and returns how
// many it dropped.
func (c *commitCache) evictIf(drop func(chunks.Address) bool) int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, old := range s.items {
			if drop(k) {
				delete(s.items, k)
				s.size -= commitCost(old)
				n++
			}
		}
		s.mu.Unlock()
	}
	return n
}
