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
			p, err := rs.position(it.Key())
			if err != nil {
				return err
			}
			c.pos = append(c.pos, p)
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

// crossScanMin is the fewest index entries scanCross takes at a time.
const crossScanMin = 4096

// scanCross scans the next entries of rs (whose cross filter is set),
// enough for about want candidates, and returns the positions of the
// candidates, at most want: the entries whose cross value hashes the
// other name or holds no hash. It moves rs past the entries it used,
// and splits the scan between goroutines as fetch does.
func (l Log) scanCross(ctx context.Context, rs *rankSource, want int, curs *[]logCursor, pos []Position) ([]Position, error) {
	pos = pos[:0]
	for len(pos) < want && rs.lo < rs.hi {
		// Scan ahead by the entries per candidate seen so far (8 before
		// any scan; twice the entries scanned while none was found), for
		// the candidates still wanted.
		per := uint64(8)
		if rs.cands > 0 {
			per = (rs.scanned + rs.cands - 1) / rs.cands
		} else if rs.scanned > 0 {
			per = 2 * rs.scanned
		}
		n := int(min(rs.hi-rs.lo, max(crossScanMin, per*uint64(want-len(pos)))))
		k := parts(n)
		err := split(n, curs, func(c *logCursor, lo, hi int) error {
			c.cands, c.ords = c.cands[:0], c.ords[:0]
			it := rs.m.IterFrom(ctx, rs.lo+uint64(lo))
			for i := lo; i < hi; i++ {
				if !it.Next(ctx) {
					if err := it.Err(); err != nil {
						return err
					}
					return corruptf("index range %x holds fewer entries than its count", rs.name)
				}
				h, ok, err := decodeCross(it.Value())
				if err != nil {
					return err
				}
				if ok && h != rs.hash {
					continue
				}
				p, err := rs.position(it.Key())
				if err != nil {
					return err
				}
				c.cands = append(c.cands, p)
				c.ords = append(c.ords, rs.lo+uint64(i))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		next := rs.lo + uint64(n)
		for j := 0; j < k; j++ {
			c := &(*curs)[j]
			take := min(len(c.cands), want-len(pos))
			pos = append(pos, c.cands[:take]...)
			if len(pos) == want && take > 0 {
				// Enough: the entries after the last one taken wait for the
				// next page.
				next = c.ords[take-1] + 1
				break
			}
		}
		rs.scanned += next - rs.lo
		rs.cands += uint64(len(pos))
		rs.lo = next
	}
	return pos, nil
}

// parts returns how many parts split cuts n into.
func parts(n int) int {
	if n < fetchParallelMin {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 4, n/(fetchParallelMin/2))
}

// split calls fn for the parts [lo, hi) of [0, n), concurrently (one part
// per processor, each with its cursor) when n is big enough.
func split(n int, curs *[]logCursor, fn func(c *logCursor, lo, hi int) error) error {
	k := parts(n)
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
	// With cross set, only the entries whose cross value is hash or
	// holds none are read (scanCross), and scanned and cands count the
	// entries scanned and the candidates they gave so far.
	cross          bool
	hash           uint32
	scanned, cands uint64
}

// position decodes the position of index key k, an entry of rs's range.
func (rs *rankSource) position(k []byte) (Position, error) {
	if !bytes.HasPrefix(k, rs.name) {
		return 0, corruptf("index entry %x outside its range %x", k, rs.name)
	}
	p, err := decodeOrderedUint(k[len(rs.name):])
	return Position(p), err
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
	cands []Position       // scratch for scanCross: candidates,
	ords  []uint64         // and their ordinals
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

// touch reads a byte of each record's first 64 bytes' cache lines (one
// or two) and its last byte, and returns their sum, which the caller
// keeps: loads whose results no later load depends on, issued back to
// back, so the processor overlaps their misses. An event record's fixed
// fields and the length of its data are in its first 64 bytes or so, its
// metadata (and the length before it) at its end.
func touch(recs [][]byte) byte {
	var s byte
	for _, r := range recs {
		if len(r) > 0 {
			s += r[0] + r[min(63, len(r)-1)] + r[len(r)-1]
		}
	}
	return s
}
