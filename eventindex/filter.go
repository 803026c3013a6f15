package eventindex

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"

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
	ages := ageFilter{l: l}
	// keep reports whether e passes the filter and its stream's max age.
	keep := func(e *Event) (bool, error) {
		next = e.Position + 1
		if !f.Match(e) {
			return false, nil
		}
		c, err := ages.cutoff(ctx, e.Stream)
		return e.Created.UnixMicro() >= c, err
	}
	var out []Event
	// keepPage drops the events of out[n:] that fail the filter.
	keepPage := func(n int) error {
		evs := out[n:]
		if err := ages.load(ctx, evs); err != nil {
			return err
		}
		for i := range evs {
			ok, err := keep(&evs[i])
			if err != nil {
				return err
			}
			if ok {
				out[n] = evs[i]
				n++
			}
		}
		out = out[:n]
		return nil
	}
	var curs []logCursor
	var pos []Position
	if rs := src.rank; rs != nil && rs.cross {
		// Category AND type: the candidates of the smaller range, by
		// their cross values, then their events.
		for len(out) < limit && rs.lo < rs.hi {
			want := min(limit-len(out), MaxPage)
			if pos, err = l.scanCross(ctx, rs, want, &curs, pos); err != nil {
				return nil, f.From, err
			}
			n := len(out)
			out = slices.Grow(out, len(pos))[:n+len(pos)]
			if err := l.fetch(ctx, pos, out[n:], &curs); err != nil {
				return nil, f.From, err
			}
			if err := keepPage(n); err != nil {
				return nil, f.From, err
			}
		}
		return out, next, nil
	}
	if rs := src.rank; rs != nil {
		// One index range: each page's share of it goes to goroutines by
		// ordinal, each scanning its part of the index and reading the
		// events, straight into out.
		for len(out) < limit && rs.lo < rs.hi {
			want := min(limit-len(out), MaxPage)
			k := int(min(uint64(want), rs.hi-rs.lo))
			n := len(out)
			out = slices.Grow(out, k)[:n+k]
			if err := l.fetchRank(ctx, rs, out[n:], &curs); err != nil {
				return nil, f.From, err
			}
			rs.lo += uint64(k)
			if err := keepPage(n); err != nil {
				return nil, f.From, err
			}
		}
		return out, next, nil
	}
	if ps := src.pos; ps != nil {
		// Index-driven: take the page's positions from the index first
		// (keys only), then read their events straight into out, in
		// parallel for big pages, and drop those that fail the filter.
		for len(out) < limit {
			want := min(limit-len(out), MaxPage)
			pos = pos[:0]
			for len(pos) < want {
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
			n := len(out)
			out = slices.Grow(out, len(pos))[:n+len(pos)]
			if err := l.fetch(ctx, pos, out[n:], &curs); err != nil {
				return nil, f.From, err
			}
			if err := keepPage(n); err != nil {
				return nil, f.From, err
			}
			if len(pos) < want {
				break
			}
		}
		return out, next, nil
	}
	ls := src.log
	var e Event
	for len(out) < limit {
		ok, err := ls.next(ctx, &e)
		if err != nil {
			return nil, f.From, err
		}
		if !ok || (f.To != 0 && e.Position >= f.To) {
			break
		}
		if ok, err := keep(&e); err != nil {
			return nil, f.From, err
		} else if ok {
			out = append(out, e)
		}
	}
	return out, next, nil
}

// posSource is a source driven by an index: it yields positions, whose
// events Read fetches.
type posSource interface {
	nextPos(ctx context.Context) (Position, bool, error)
}

// source is what drives a read: an index that yields positions, or the
// log itself.
type source struct {
	pos  posSource
	rank *rankSource
	log  *logSource
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
		prefix []byte
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
		ixs = append(ixs, ixRange{m, r, prefix, n})
		consider(n, func() (source, error) {
			lo, err := m.Ordinal(ctx, r.Start)
			return source{rank: &rankSource{m: m, name: prefix, lo: lo, hi: lo + n}}, err
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
				is.srcs = append(is.srcs, &indexSource{it: x.m.Iter(ctx, x.r), prefix: len(x.prefix), name: x.prefix})
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
	if f.Category != "" && f.Type != "" {
		// Scan the smaller of the two ranges and read only the events
		// whose cross value hashes the other name: index entries (keys
		// and 5-byte values, in order) cost far less than events, counted
		// as an eighth. A range written before cross values (its first
		// value empty) would read every event: the plain index read.
		x, other := ixs[0], f.Type
		if ixs[1].n < x.n {
			x, other = ixs[1], f.Category
		}
		it := x.m.Iter(ctx, x.r)
		if it.Next(ctx) {
			if _, ok, err := decodeCross(it.Value()); err != nil {
				return source{}, err
			} else if ok {
				consider(x.n/8, func() (source, error) {
					lo, err := x.m.Ordinal(ctx, x.r.Start)
					return source{rank: &rankSource{m: x.m, name: x.prefix, lo: lo, hi: lo + x.n, cross: true, hash: nameHash(other)}}, err
				})
			}
		} else if err := it.Err(); err != nil {
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
	names nameCache
}

// next decodes the next event of the scan into *e.
func (s *logSource) next(ctx context.Context, e *Event) (bool, error) {
	if !s.it.Next(ctx) {
		return false, s.it.Err()
	}
	p, err := decodeOrderedUint(s.it.Key())
	if err != nil {
		return false, err
	}
	if err := decodeEventInto(e, Position(p), s.it.Value(), &s.names); err != nil {
		return false, err
	}
	return true, nil
}

// indexSource follows the category or type index: each key is a name
// (prefix bytes long) and an ordered uint position.
type indexSource struct {
	it     *prolly.Iter
	prefix int
	name   []byte // the prefix itself, for seekPos
	key    []byte // scratch for seekPos
}

func (s *indexSource) nextPos(ctx context.Context) (Position, bool, error) {
	if !s.it.Next(ctx) {
		return 0, false, s.it.Err()
	}
	return s.pos()
}

// seekPos moves forward to the first entry at position p or after it
// (never back), as nextPos does, skipping the entries before p with one
// seek (needs name).
func (s *indexSource) seekPos(ctx context.Context, p Position) (Position, bool, error) {
	s.key = prolly.EncodeKey(append(s.key[:0], s.name...), prolly.Uint(uint64(p)))
	if !s.it.Seek(ctx, s.key) {
		return 0, false, s.it.Err()
	}
	return s.pos()
}

func (s *indexSource) pos() (Position, bool, error) {
	p, err := decodeOrderedUint(s.it.Key()[s.prefix:])
	return Position(p), err == nil, err
}

// intersectSource yields the positions every one of several index
// sources holds (a merge join on positions, reading only index keys),
// then reads those events alone. A source behind the others seeks to
// the highest position any of them is at (a leapfrog join): a category
// and a type that share a few events skip each other's runs in one seek
// each rather than stepping over every key of them.
type intersectSource struct {
	srcs  []*indexSource
	heads []Position
}

func (s *intersectSource) nextPos(ctx context.Context) (Position, bool, error) {
	if s.heads == nil {
		s.heads = make([]Position, len(s.srcs))
	}
	heads := s.heads
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
			if heads[i] < hi {
				p, ok, err := s.srcs[i].seekPos(ctx, hi)
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
