package commitgraph

import (
	"context"
	"slices"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

// LogIter yields a commit and its ancestors in log order: by descending
// height, commits of equal height by descending time, then by ascending
// address. Heights put every commit after all its descendants, as in
// Dolt's log. It reads head's closure downwards one height at a time and
// reads each commit once.
//
//	it := db.Log(ctx, head)
//	for it.Next(ctx) {
//		use(it.Commit())
//	}
//	if err := it.Err(); err != nil { ... }
//
// A LogIter is not safe for concurrent use.
type LogIter struct {
	db      *DB
	head    chunks.Address
	started bool
	cl      *closure.Iter
	next    closure.Entry // the closure entry read ahead, if have
	have    bool
	group   []*Commit // commits of the current height still to yield
	cur     *Commit
	err     error
}

// Log returns an iterator over head and its ancestors in log order.
func (db *DB) Log(ctx context.Context, head chunks.Address) *LogIter {
	return &LogIter{db: db, head: head}
}

// Next moves to the next commit and reports whether there is one.
func (it *LogIter) Next(ctx context.Context) bool {
	if it.err != nil {
		return false
	}
	if !it.started {
		it.started = true
		hc, err := it.db.ReadCommit(ctx, it.head)
		if err != nil {
			it.err = err
			return false
		}
		cl, err := it.db.Closure(ctx, hc)
		if err != nil {
			it.err = err
			return false
		}
		it.cl = cl.Descending(ctx, closure.Entry{})
		it.have = it.cl.Next(ctx)
		if it.have {
			it.next = it.cl.Entry()
		}
		it.cur = hc
		return true
	}
	if len(it.group) == 0 && !it.fill(ctx) {
		return false
	}
	it.cur, it.group = it.group[0], it.group[1:]
	return true
}

// fill reads the commits of the next height into group.
func (it *LogIter) fill(ctx context.Context) bool {
	if !it.have {
		it.err = it.cl.Err()
		return false
	}
	h := it.next.Height
	for it.have && it.next.Height == h {
		c, err := it.db.ReadCommit(ctx, it.next.Addr)
		if err != nil {
			it.err = err
			return false
		}
		it.group = append(it.group, c)
		it.have = it.cl.Next(ctx)
		if it.have {
			it.next = it.cl.Entry()
		}
	}
	if err := it.cl.Err(); err != nil {
		it.err = err
		return false
	}
	slices.SortFunc(it.group, compareLog)
	return true
}

// compareLog orders commits of one height: later first, then by address.
func compareLog(a, b *Commit) int {
	if c := b.Meta.Time.Compare(a.Meta.Time); c != 0 {
		return c
	}
	return a.Addr.Compare(b.Addr)
}

// Commit returns the current commit.
func (it *LogIter) Commit() *Commit { return it.cur }

// Err returns the error that stopped the iteration, if any.
func (it *LogIter) Err() error { return it.err }
