package eventindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/verso-db/verso/prolly"
)

// fetchParallelMin is the smallest batch of positions fetch splits
// between goroutines.
const fetchParallelMin = 256

// fetch reads the events at ascending positions pos into evs (as long
// as pos), splitting them into runs read concurrently (one per
// processor, each with its cursor) when there are enough.
func (l Log) fetch(ctx context.Context, pos []Position, evs []Event, curs *[]logCursor) error {
	return split(len(pos), curs, func(c *logCursor, lo, hi int) error {
		return c.getRun(ctx, l, pos[lo:hi], evs[lo:hi])
	})
}

// fetchRank reads the events of the next len(evs) entries of rs into
// evs, splitting them as fetch does: each goroutine scans its share of
// the index from its first ordinal, then reads the events.
func (l Log) fetchRank(ctx context.Context, rs *rankSource, evs []Event, curs *[]logCursor) error {
	return split(len(evs), curs, func(c *logCursor, lo, hi int) error {
		c.pos = c.pos[:0]
		it := rs.m.IterFrom(ctx, rs.lo+uint64(lo))
		for len(c.pos) < hi-lo && it.Next(ctx) {
			k := it.Key()
			if !bytes.HasPrefix(k, rs.name) {
				return corruptf("index entry %x outside its range %x", k, rs.name)
			}
			p, err := decodeOrderedUint(k[len(rs.name):])
			if err != nil {
				return err
			}
			c.pos = append(c.pos, Position(p))
		}
		if err := it.Err(); err != nil {
			return err
		}
		if len(c.pos) < hi-lo {
			return corruptf("index range %x holds fewer entries than its count", rs.name)
		}
		return c.getRun(ctx, l, c.pos, evs[lo:hi])
	})
}

// split calls fn for the parts [lo, hi) of [0, n), concurrently (one part
// per processor, each with its cursor) when n is big enough.
func split(n int, curs *[]logCursor, fn func(c *logCursor, lo, hi int) error) error {
	k := 1
	if n >= fetchParallelMin {
		k = min(runtime.GOMAXPROCS(0), 4, n/(fetchParallelMin/2))
	}
	for len(*curs) < k {
		*curs = append(*curs, logCursor{})
	}
	if k == 1 {
		return fn(&(*curs)[0], 0, n)
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for j := 0; j < k; j++ {
		lo, hi := j*n/k, (j+1)*n/k
		c := &(*curs)[j]
		wg.Go(func() { errs[j] = fn(c, lo, hi) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// rankSource is the entries of one name of the category or type index,
// in a range of positions, by ordinal: Read splits each page of it
// between goroutines, the index scan as well as the event reads.
type rankSource struct {
	m      prolly.Map
	name   []byte // the entries' key prefix, the encoded name
	lo, hi uint64 // ordinals of the entries left to read
}

// logCursor reads the events at ascending positions with one
// prolly.Lookup of the log, which keeps its path between positions (a
// search within the nodes it holds when the next position is near, a
// partial descent when it is far, and no step over the events in
// between), and reads a run of scattered leaves with overlapping cache
// misses.
type logCursor struct {
	lk    *prolly.Lookup
	names nameCache
	keys  [fetchRun][]byte // scratch for getRun: the run's keys,
	recs  [fetchRun][]byte // and their records
	kbuf  []byte           // the bytes of keys
	pos   []Position       // scratch for fetchRank
	sink  byte             // what touch read, kept so that the loads stay
}

// fetchRun is how many events getRun locates before it decodes them.
const fetchRun = 32

// get reads the event at position p into *e.
func (c *logCursor) get(ctx context.Context, l Log, p Position, e *Event) error {
	if c.lk == nil {
		c.lk = l.log.Lookup()
	}
	c.kbuf = prolly.EncodeKey(c.kbuf[:0], prolly.Uint(uint64(p)))
	c.keys[0] = c.kbuf
	if err := c.lk.Get(ctx, c.keys[:1], c.recs[:1]); err != nil {
		return err
	}
	rec := c.recs[0]
	c.recs[0] = nil
	if rec == nil {
		return fmt.Errorf("%w: index entry points to missing position %d", ErrCorrupt, p)
	}
	return decodeEventInto(e, p, rec, &c.names)
}

// getRun reads the events at ascending positions pos into evs. It
// locates a run of records first (prolly.Lookup.Get), then reads a byte
// of each record's first and last cache lines (touch), then decodes
// them: the records of an index read lie in different leaves, scattered
// in memory, and loops of independent loads let their cache misses
// overlap where decoding each right after its seek would wait for them
// one by one.
func (c *logCursor) getRun(ctx context.Context, l Log, pos []Position, evs []Event) error {
	if c.lk == nil {
		c.lk = l.log.Lookup()
	}
	for len(pos) > 0 {
		n := min(len(pos), fetchRun)
		keys, recs := c.keys[:n], c.recs[:n]
		c.kbuf = c.kbuf[:0]
		for i, p := range pos[:n] {
			at := len(c.kbuf)
			c.kbuf = prolly.EncodeKey(c.kbuf, prolly.Uint(uint64(p)))
			keys[i] = c.kbuf[at:len(c.kbuf):len(c.kbuf)]
		}
		if err := c.lk.Get(ctx, keys, recs); err != nil {
			return err
		}
		c.sink ^= touch(recs)
		for i, rec := range recs {
			if rec == nil {
				return fmt.Errorf("%w: index entry points to missing position %d", ErrCorrupt, pos[i])
			}
			if err := decodeEventInto(&evs[i], pos[i], rec, &c.names); err != nil {
				return err
			}
		}
		clear(recs)
		pos, evs = pos[n:], evs[n:]
	}
	return nil
}

// touch reads the first and the last byte of each record and returns
// their sum, which the caller keeps: loads whose results no later load
// depends on, issued back to back, so the processor overlaps their
// misses. An event record's fixed fields are at its start, its metadata
// (and the length before it) at its end.
func touch(recs [][]byte) byte {
	var s byte
	for _, r := range recs {
		if len(r) > 0 {
			s += r[0] + r[len(r)-1]
		}
	}
	return s
}
