package systables

import (
	"context"
	"sync"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Caches of immutable things, so that a point lookup costs what the
// lookup itself needs: decoded commits (a commit never changes), and what
// is derived from one refs snapshot (the refs column of dolt_log, the
// heads of dolt_commits). Both are bounded: when full, they start over.

const (
	commitCacheSize = 1 << 14
	refsCacheSize   = 64
)

type commitKey struct {
	g *commitgraph.DB // the same address in another store is another question
	a chunks.Address
}

var commitCache struct {
	sync.Mutex
	m map[commitKey]*commitgraph.Commit
}

// readCommit returns the commit at a in g, decoded once. Callers must not
// change it.
func readCommit(ctx context.Context, g *commitgraph.DB, a chunks.Address) (*commitgraph.Commit, error) {
	k := commitKey{g, a}
	commitCache.Lock()
	c, ok := commitCache.m[k]
	commitCache.Unlock()
	if ok {
		return c, nil
	}
	c, err := g.ReadCommit(ctx, a)
	if err != nil {
		return nil, err
	}
	commitCache.Lock()
	if commitCache.m == nil || len(commitCache.m) >= commitCacheSize {
		commitCache.m = map[commitKey]*commitgraph.Commit{}
	}
	commitCache.m[k] = c
	commitCache.Unlock()
	return c, nil
}

// refsInfo is what the tables derive from one refs snapshot.
type refsInfo struct {
	deco  map[chunks.Address]string // per session branch: see View.decorations
	heads []chunks.Address          // branch heads and tagged commits
}

type refsKey struct {
	g      *commitgraph.DB
	root   chunks.Address
	branch string
}

var refsCache struct {
	sync.Mutex
	m map[refsKey]*refsInfo
}

// info returns the refs column and heads of v's snapshot, computed once
// per snapshot root and branch.
func (v *View) info(ctx context.Context) (*refsInfo, error) {
	k := refsKey{v.Graph, v.Refs.Root(), v.Branch}
	refsCache.Lock()
	ri, ok := refsCache.m[k]
	refsCache.Unlock()
	if ok {
		return ri, nil
	}
	deco, heads, err := v.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	ri = &refsInfo{deco: deco, heads: heads}
	refsCache.Lock()
	if refsCache.m == nil || len(refsCache.m) >= refsCacheSize {
		refsCache.m = map[refsKey]*refsInfo{}
	}
	refsCache.m[k] = ri
	refsCache.Unlock()
	return ri, nil
}
