package eventindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// ageFilter gives the oldest created time a read may show of each
// stream (by its max age), reading each stream's record once per read.
type ageFilter struct {
	l       Log
	cutoffs map[string]int64
	last    string // the stream asked for last, and its cutoff
	lastCut int64
}

// load finds the cutoffs of the streams of evs not looked up yet: from
// the Log's cache of max ages, then with one ascending walk of the
// stream records for the others. An index-driven page holds events of
// hundreds of streams (a type's), and a lookup from the root for each
// would cost more than the walk.
func (a *ageFilter) load(ctx context.Context, evs []Event) error {
	var want []string
	last := ""
	for i := range evs {
		s := evs[i].Stream
		if s == last {
			continue
		}
		last = s
		if _, ok := a.cutoffs[s]; !ok {
			want = append(want, s)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if a.cutoffs == nil {
		a.cutoffs = make(map[string]int64, len(want))
	}
	now := a.l.clock().UnixMicro()
	cutoff := func(maxAge int64) int64 {
		if maxAge == 0 {
			return minMicros
		}
		return now - maxAge
	}
	cache := a.l.ages
	want = cache.lookup(a.l.streams.Address(), want, func(s string, maxAge int64) {
		a.cutoffs[s] = cutoff(maxAge)
	})
	if len(want) == 0 {
		return nil
	}
	slices.Sort(want)
	want = slices.Compact(want)
	ages := make([]int64, len(want))
	it := a.l.streams.Iter(ctx, prolly.Range{Start: nameKey(want[0])})
	var key []byte
	for i, s := range want {
		key = prolly.EncodeKey(key[:0], prolly.String(s))
		if it.Seek(ctx, key) && bytes.Equal(it.Key(), key) {
			m, err := decodeStreamMeta(it.Value())
			if err != nil {
				return fmt.Errorf("stream %q: %w", s, err)
			}
			ages[i] = m.MaxAge
		} else if err := it.Err(); err != nil {
			return err
		}
		a.cutoffs[s] = cutoff(ages[i]) // no record: no max age
	}
	cache.add(a.l.streams.Address(), want, ages)
	return nil
}

func (a *ageFilter) cutoff(ctx context.Context, stream string) (int64, error) {
	if stream == a.last && a.cutoffs != nil {
		return a.lastCut, nil
	}
	c, ok := a.cutoffs[stream]
	if !ok {
		m, _, err := a.l.getMeta(ctx, stream)
		if err != nil {
			return 0, err
		}
		c = a.l.cutoff(&m)
		if a.cutoffs == nil {
			a.cutoffs = map[string]int64{}
		}
		a.cutoffs[stream] = c
	}
	a.last, a.lastCut = stream, c
	return c, nil
}

// ageCache remembers the max ages of the streams a Log's reads looked
// up, so that the pages of a read, and the reads of one Log, read each
// stream's record once. It holds the ages of one streams map, whose root
// address it keeps: a Log made from another (a Batch's) may share the
// pointer, and its other address empties the cache rather than reading
// stale ages. A nil *ageCache holds nothing.
type ageCache struct {
	mu   sync.Mutex
	addr chunks.Address
	m    map[string]int64 // stream -> max age in microseconds, 0: none
}

// ageCacheMax bounds the streams an ageCache holds; past it the cache
// starts again empty.
const ageCacheMax = 1 << 16

// lookup calls found for each stream of want the cache holds for the
// streams map at addr, and returns the others, in order, in want's
// array.
func (c *ageCache) lookup(addr chunks.Address, want []string, found func(stream string, maxAge int64)) []string {
	if c == nil {
		return want
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr != addr {
		return want
	}
	n := 0
	for _, s := range want {
		if age, ok := c.m[s]; ok {
			found(s, age)
		} else {
			want[n] = s
			n++
		}
	}
	return want[:n]
}

// add records the max ages of streams for the streams map at addr.
func (c *ageCache) add(addr chunks.Address, streams []string, ages []int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr != addr || c.m == nil || len(c.m)+len(streams) > ageCacheMax {
		c.addr = addr
		c.m = make(map[string]int64, len(streams))
	}
	for i, s := range streams {
		c.m[s] = ages[i]
	}
}
