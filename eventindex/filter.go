package eventindex

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/verso-db/verso/prolly"
)

// Filter selects events of the log for Read. Its conditions are a
// conjunction; empty ones are unset, so the zero Filter reads all.
type Filter struct {
	Category     string   // the stream's category is this
	Type         string   // the event type is this
	Stream       string   // the stream is this
	StreamPrefix string   // the stream id begins with this
	From, To     Position // From <= position < To; To 0: no bound
}

// ParseFilter returns the filter a KurrentDB-style name stands for:
// "$all", "$idx-ce-<category>", "$idx-et-<type>", "$ce-<category>" (the
// same as $idx-ce-), or a stream id.
func ParseFilter(name string) (Filter, error) {
	switch {
	case name == "$all":
		return Filter{}, nil
	case strings.HasPrefix(name, "$idx-ce-") && len(name) > len("$idx-ce-"):
		return Filter{Category: name[len("$idx-ce-"):]}, nil
	case strings.HasPrefix(name, "$ce-") && len(name) > len("$ce-"):
		return Filter{Category: name[len("$ce-"):]}, nil
	case strings.HasPrefix(name, "$idx-et-") && len(name) > len("$idx-et-"):
		return Filter{Type: name[len("$idx-et-"):]}, nil
	case strings.HasPrefix(name, "$"):
		return Filter{}, fmt.Errorf("%w: %q", ErrBadFilter, name)
	case name == "":
		return Filter{}, fmt.Errorf("%w: empty name", ErrBadFilter)
	}
	return Filter{Stream: name}, nil
}

// Match reports whether e passes every condition of f.
func (f *Filter) Match(e *Event) bool {
	return (f.Category == "" || Category(e.Stream) == f.Category) &&
		(f.Type == "" || e.Type == f.Type) &&
		(f.Stream == "" || e.Stream == f.Stream) &&
		(f.StreamPrefix == "" || strings.HasPrefix(e.Stream, f.StreamPrefix)) &&
		e.Position >= f.From && (f.To == 0 || e.Position < f.To)
}

// Read returns up to limit events that pass f, in ascending position,
// and the position to read the next page from (pass it as f.From). A page
// shorter than limit means the log held no more; events past their
// stream's max age are left out.
//
// Read drives the scan from the most selective source the filter allows,
// counted in O(log n) from the subtree counts of each candidate range:
// the category index, the type index, the stream index, the categories a
// stream prefix covers (merged by position), or the log itself. It checks
// the other conditions on each event it reads.
func (l Log) Read(ctx context.Context, f Filter, limit int) ([]Event, Position, error) {
	src, err := l.source(ctx, &f)
	if err != nil {
		return nil, f.From, err
	}
	next := max(f.From, 1)
	cutoffs := map[string]int64{}
	var out []Event
	keep := func(e *Event) (bool, error) {
		next = e.Position + 1
		if !f.Match(e) {
			return false, nil
		}
		c, ok := cutoffs[e.Stream]
		if !ok {
			m, _, err := l.getMeta(ctx, e.Stream)
			if err != nil {
				return false, err
			}
			c = l.cutoff(&m)
			cutoffs[e.Stream] = c
		}
		return e.Created.UnixMicro() >= c, nil
	}
	if ps := src.pos; ps != nil {
		// Index-driven: take the page's positions from the index first
		// (keys only), then read their events, in parallel for big pages.
		var curs []logCursor
		for len(out) < limit {
			want := limit - len(out)
			pos := make([]Position, 0, min(want, MaxPage))
			for len(pos) < cap(pos) {
				p, ok, err := ps.nextPos(ctx)
				if err != nil {
					return nil, f.From, err
				}
				if !ok || (f.To != 0 && p >= f.To) {
					break
				}
				pos = append(pos, p)
			}
			if len(pos) == 0 {
				break
			}
			evs, err := l.fetch(ctx, pos, &curs)
			if err != nil {
				return nil, f.From, err
			}
			for i := range evs {
				ok, err := keep(&evs[i])
				if err != nil {
					return nil, f.From, err
				}
				if ok {
					out = append(out, evs[i])
				}
			}
			if len(pos) < cap(pos) {
				break
			}
		}
		return out, next, nil
	}
	ls := src.log
	for len(out) < limit {
		e, ok, err := ls.next(ctx)
		if err != nil {
			return nil, f.From, err
		}
		if !ok {
			break
		}
		if f.To != 0 && e.Position >= f.To {
			break
		}
		next = e.Position + 1
		if !f.Match(&e) {
			continue
		}
		c, ok := cutoffs[e.Stream]
		if !ok {
			m, _, err := l.getMeta(ctx, e.Stream)
			if err != nil {
				return nil, f.From, err
			}
			c = l.cutoff(&m)
			cutoffs[e.Stream] = c
		}
		if e.Created.UnixMicro() < c {
			continue
		}
		out = append(out, e)
	}
	return out, next, nil
}

// posSource is a source driven by an index: it yields positions, whose
// events Read fetches.
type posSource interface {
	nextPos(ctx context.Context) (Position, bool, error)
}

// fetchParallelMin is the smallest batch of positions fetch splits
// between goroutines.
const fetchParallelMin = 256

// fetch reads the events at ascending positions pos, splitting them into
// runs read concurrently (one per processor, each with its cursor) when
// there are enough.
func (l Log) fetch(ctx context.Context, pos []Position, curs *[]logCursor) ([]Event, error) {
	k := 1
	if len(pos) >= fetchParallelMin {
		k = min(runtime.GOMAXPROCS(0), 4, len(pos)/(fetchParallelMin/2))
	}
	for len(*curs) < k {
		*curs = append(*curs, logCursor{})
	}
	evs := make([]Event, len(pos))
	if k == 1 {
		c := &(*curs)[0]
		for i, p := range pos {
			e, err := c.get(ctx, l, p)
			if err != nil {
				return nil, err
			}
			evs[i] = e
		}
		return evs, nil
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for j := 0; j < k; j++ {
		lo, hi := j*len(pos)/k, (j+1)*len(pos)/k
		c := &(*curs)[j]
		c.it = nil
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				e, err := c.get(ctx, l, pos[i])
				if err != nil {
					errs[j] = err
					return
				}
				evs[i] = e
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return evs, nil
}

// source is what drives a read: an index that yields positions, or the
// log itself.
type source struct {
	pos posSource
	log *logSource
}

func posBounds(prefix []byte, f *Filter) prolly.Range {
	r := prolly.Range{Start: prolly.EncodeKey(append([]byte(nil), prefix...), prolly.Uint(uint64(f.From)))}
	if f.To != 0 {
		r.Stop = prolly.EncodeKey(append([]byte(nil), prefix...), prolly.Uint(uint64(f.To)))
	} else {
		r.Stop = prolly.PrefixRange(prefix).Stop
	}
	return r
}

func (l Log) source(ctx context.Context, f *Filter) (source, error) {
	type cand struct {
		n    uint64
		make func() (source, error)
	}
	var best *cand
	consider := func(n uint64, mk func() (source, error)) {
		if best == nil || n < best.n {
			best = &cand{n, mk}
		}
	}
	logRange := prolly.Range{Start: logKey(max(f.From, 1))}
	if f.To != 0 {
		logRange.Stop = logKey(f.To)
	}
	n, err := l.log.CountIn(ctx, logRange)
	if err != nil {
		return source{}, err
	}
	consider(n, func() (source, error) { return source{log: &logSource{it: l.log.Iter(ctx, logRange)}}, nil })
	type ixRange struct {
		m      prolly.Map
		r      prolly.Range
		prefix int
		n      uint64
	}
	var ixs []ixRange
	indexed := func(m prolly.Map, name string) error {
		prefix := nameKey(name)
		r := posBounds(prefix, f)
		n, err := m.CountIn(ctx, r)
		if err != nil {
			return err
		}
		ixs = append(ixs, ixRange{m, r, len(prefix), n})
		consider(n, func() (source, error) {
			return source{pos: &indexSource{it: m.Iter(ctx, r), prefix: len(prefix)}}, nil
		})
		return nil
	}
	joinIndexes := func() {
		// Two or more index ranges: join them on position before reading
		// any event. Its cost is the sum of the index ranges (keys only)
		// plus the matching events, so it wins whenever the smallest range
		// is not tiny: counted as a quarter of the keys.
		if len(ixs) < 2 || best == nil {
			return
		}
		var keys uint64
		for _, x := range ixs {
			keys += x.n
		}
		consider(keys/4, func() (source, error) {
			is := &intersectSource{}
			for _, x := range ixs {
				is.srcs = append(is.srcs, &indexSource{it: x.m.Iter(ctx, x.r), prefix: x.prefix})
			}
			return source{pos: is}, nil
		})
	}
	if f.Category != "" {
		if err := indexed(l.byCat, f.Category); err != nil {
			return source{}, err
		}
	}
	if f.Type != "" {
		if err := indexed(l.byType, f.Type); err != nil {
			return source{}, err
		}
	}
	if f.StreamPrefix != "" && f.Category == "" && f.Stream == "" {
		if strings.IndexByte(f.StreamPrefix, '-') >= 0 {
			if err := indexed(l.byCat, Category(f.StreamPrefix)); err != nil {
				return source{}, err
			}
		} else {
			cats, total, err := l.categoriesWithPrefix(ctx, f)
			if err != nil {
				return source{}, err
			}
			consider(total, func() (source, error) {
				ms := &mergeSource{}
				for _, c := range cats {
					prefix := nameKey(c)
					is := &indexSource{it: l.byCat.Iter(ctx, posBounds(prefix, f)), prefix: len(prefix)}
					if err := ms.add(ctx, is); err != nil {
						return source{}, err
					}
				}
				return source{pos: ms}, nil
			})
		}
	}
	if f.Stream != "" {
		r := prolly.PrefixRange(nameKey(f.Stream))
		n, err := l.byStream.CountIn(ctx, r)
		if err != nil {
			return source{}, err
		}
		consider(n, func() (source, error) { return source{pos: &streamSource{it: l.byStream.Iter(ctx, r)}}, nil })
	}
	joinIndexes()
	return best.make()
}

// categoriesWithPrefix lists the categories that begin with f's stream
// prefix, and the number of their entries in f's position range.
func (l Log) categoriesWithPrefix(ctx context.Context, f *Filter) ([]string, uint64, error) {
	var cats []string
	var total uint64
	err := l.distinct(ctx, l.byCat, f.StreamPrefix, func(c string) error {
		n, err := l.byCat.CountIn(ctx, posBounds(nameKey(c), f))
		total += n
		cats = append(cats, c)
		return err
	})
	return cats, total, err
}

// distinct calls fn for each distinct name (first key field) of an index
// that begins with prefix, in order, with one seek per name.
func (l Log) distinct(ctx context.Context, m prolly.Map, prefix string, fn func(string) error) error {
	// The key encoding of a string without its terminator is a prefix of
	// the encoding of every string that begins with it.
	p := nameKey(prefix)
	p = p[:len(p)-2]
	r := prolly.PrefixRange(p)
	for {
		it := m.Iter(ctx, r)
		if !it.Next(ctx) {
			return it.Err()
		}
		name, _, err := decodeNameNumKey(it.Key())
		if err != nil {
			return err
		}
		if err := fn(name); err != nil {
			return err
		}
		// Every key of name begins with nameKey(name); nameKey(name)+FF
		// sorts after all of them and before the next name's keys.
		r.Start = append(nameKey(name), 0xff)
	}
}

type logSource struct {
	it    *prolly.Iter
	names map[string]string
}

func (s *logSource) next(ctx context.Context) (Event, bool, error) {
	if !s.it.Next(ctx) {
		return Event{}, false, s.it.Err()
	}
	p, err := decodeOrderedUint(s.it.Key())
	if err != nil {
		return Event{}, false, err
	}
	if s.names == nil {
		s.names = map[string]string{}
	}
	e, err := decodeEventIn(Position(p), s.it.Value(), s.names)
	return e, err == nil, err
}

// indexSource follows the category or type index: each key is a name
// (prefix bytes long) and an ordered uint position.
type indexSource struct {
	it     *prolly.Iter
	prefix int
}

func (s *indexSource) nextPos(ctx context.Context) (Position, bool, error) {
	if !s.it.Next(ctx) {
		return 0, false, s.it.Err()
	}
	p, err := decodeOrderedUint(s.it.Key()[s.prefix:])
	return Position(p), err == nil, err
}

// logCursor reads events at ascending positions. For a position a short
// way ahead it steps a log iterator forward (a few cheap steps within
// the leaves it already holds); for one far ahead it starts a new
// iterator there (one descent, as a Get).
type logCursor struct {
	it    *prolly.Iter
	last  Position // last position the iterator yielded
	names map[string]string
}

const cursorSkip = 32

func (c *logCursor) get(ctx context.Context, l Log, p Position) (Event, error) {
	if c.it == nil || p <= c.last || p-c.last > cursorSkip {
		c.it = l.log.Iter(ctx, prolly.Range{Start: logKey(p)})
		c.last = p - 1
	}
	for c.it.Next(ctx) {
		k, err := decodeOrderedUint(c.it.Key())
		if err != nil {
			return Event{}, err
		}
		c.last = Position(k)
		if c.last == p {
			if c.names == nil {
				c.names = map[string]string{}
			}
			return decodeEventIn(p, c.it.Value(), c.names)
		}
		if c.last > p {
			break
		}
	}
	if err := c.it.Err(); err != nil {
		return Event{}, err
	}
	c.it = nil
	return Event{}, fmt.Errorf("%w: index entry points to missing position %d", ErrCorrupt, p)
}

// intersectSource yields the positions every one of several index
// sources holds (a merge join on positions, reading only index keys),
// then reads those events alone.
type intersectSource struct {
	srcs []*indexSource
}

func (s *intersectSource) nextPos(ctx context.Context) (Position, bool, error) {
	heads := make([]Position, len(s.srcs))
	for i, src := range s.srcs {
		p, ok, err := src.nextPos(ctx)
		if !ok {
			return 0, false, err
		}
		heads[i] = p
	}
	for {
		hi := heads[0]
		for _, p := range heads[1:] {
			hi = max(hi, p)
		}
		same := true
		for i := range heads {
			for heads[i] < hi {
				p, ok, err := s.srcs[i].nextPos(ctx)
				if !ok {
					return 0, false, err
				}
				heads[i] = p
			}
			if heads[i] != hi {
				same = false
			}
		}
		if same {
			return hi, true, nil
		}
	}
}

// decodeOrderedUint decodes a key field holding an ordered uint (tag 11,
// length byte, big-endian bytes) that ends the key.
func decodeOrderedUint(b []byte) (uint64, error) {
	if len(b) < 2 || b[0] != byte(prolly.KindUint) || int(b[1]) != len(b)-2 || b[1] > 8 || (b[1] > 0 && b[2] == 0) {
		return 0, corruptf("index key position")
	}
	var v uint64
	for _, c := range b[2:] {
		v = v<<8 | uint64(c)
	}
	return v, nil
}

type streamSource struct {
	it *prolly.Iter
}

func (s *streamSource) nextPos(ctx context.Context) (Position, bool, error) {
	if !s.it.Next(ctx) {
		return 0, false, s.it.Err()
	}
	p, err := decodePos(s.it.Value())
	return p, err == nil, err
}

// mergeSource merges several index sources by position.
type mergeSource struct {
	h posHeap
}

type posHead struct {
	p   Position
	src *indexSource
}

type posHeap []posHead

func (h posHeap) Len() int           { return len(h) }
func (h posHeap) Less(i, j int) bool { return h[i].p < h[j].p }
func (h posHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *posHeap) Push(x any)        { *h = append(*h, x.(posHead)) }
func (h *posHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *mergeSource) add(ctx context.Context, is *indexSource) error {
	p, ok, err := is.nextPos(ctx)
	if err != nil || !ok {
		return err
	}
	heap.Push(&s.h, posHead{p, is})
	return nil
}

func (s *mergeSource) nextPos(ctx context.Context) (Position, bool, error) {
	if len(s.h) == 0 {
		return 0, false, nil
	}
	top := heap.Pop(&s.h).(posHead)
	if err := s.add(ctx, top.src); err != nil {
		return 0, false, err
	}
	return top.p, true, nil
}
