package eventindex

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/verso-db/verso/prolly"
)

// IndexStats describes the events of one category or one event type.
type IndexStats struct {
	Name                        string
	Count                       uint64
	FirstPosition, LastPosition Position
	FirstCreated, LastCreated   time.Time
}

// Stats describes a log.
type Stats struct {
	Events       uint64
	NextPosition Position
	Categories   []IndexStats // by name
	Types        []IndexStats // by name
}

// Stats returns the event count and, per category and per event type, the
// count and the first and last position and created time. Its cost is
// O(log n) per category and type (one seek, a count from the subtree
// counts, and two event reads), not a scan. Events past their max age but
// not yet swept are counted.
func (l Log) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Events: l.log.Count(), NextPosition: l.next}
	var err error
	if st.Categories, err = l.indexStats(ctx, l.byCat); err != nil {
		return Stats{}, err
	}
	if st.Types, err = l.indexStats(ctx, l.byType); err != nil {
		return Stats{}, err
	}
	return st, nil
}

func (l Log) indexStats(ctx context.Context, m prolly.Map) ([]IndexStats, error) {
	var out []IndexStats
	err := l.distinct(ctx, m, "", func(name string) error {
		s, err := l.prefixStats(ctx, m, nameKey(name))
		s.Name = name
		out = append(out, s)
		return err
	})
	return out, err
}

// prefixStats returns the count, and the first and last position and
// created time, of the entries of m under prefix (which end in a
// position): a count from the subtree counts, two seeks and two event
// reads. There is at least one.
func (l Log) prefixStats(ctx context.Context, m prolly.Map, prefix []byte) (IndexStats, error) {
	r := prolly.PrefixRange(prefix)
	n, err := m.CountIn(ctx, r)
	if err != nil {
		return IndexStats{}, err
	}
	s := IndexStats{Count: n}
	for i, rev := range []bool{false, true} {
		r.Reverse = rev
		it := m.Iter(ctx, r)
		if !it.Next(ctx) {
			if err := it.Err(); err != nil {
				return IndexStats{}, err
			}
			return IndexStats{}, corruptf("index range counted %d entries and holds none", n)
		}
		p, err := decodeOrderedUint(it.Key()[len(prefix):])
		if err != nil {
			return IndexStats{}, err
		}
		e, err := l.mustEvent(ctx, Position(p))
		if err != nil {
			return IndexStats{}, err
		}
		if i == 0 {
			s.FirstPosition, s.FirstCreated = e.Position, e.Created
		} else {
			s.LastPosition, s.LastCreated = e.Position, e.Created
		}
	}
	return s, nil
}

// PairStats describes the events of one event type in one category.
type PairStats struct {
	Category, Type string
	IndexStats     // its Name is empty
}

// PairStats returns, for each (category, event type) pair that has
// events, their count and first and last position and created time, by
// category then type. With the pair index (events/by-pair) its cost is
// O(log n) per pair, as Stats' per category: one seek to the next pair, a
// count from the subtree counts and two event reads. A log written before
// the pair index (it holds none while it holds events; Rebuild builds it)
// is read whole instead.
func (l Log) PairStats(ctx context.Context) ([]PairStats, error) {
	if !l.pairsIndexed() {
		return l.scanPairStats(ctx)
	}
	var out []PairStats
	r := prolly.PrefixRange(nil)
	for {
		it := l.byPair.Iter(ctx, r)
		if !it.Next(ctx) {
			return out, it.Err()
		}
		vs, err := prolly.DecodeKey(it.Key())
		if err != nil || len(vs) != 3 || vs[0].Kind() != prolly.KindString || vs[1].Kind() != prolly.KindString || vs[2].Kind() != prolly.KindUint {
			return nil, corruptf("pair index key shape")
		}
		cat, typ := vs[0].AsString(), vs[1].AsString()
		prefix := prolly.EncodeKey(nil, prolly.String(cat), prolly.String(typ))
		s, err := l.prefixStats(ctx, l.byPair, prefix)
		if err != nil {
			return nil, err
		}
		out = append(out, PairStats{Category: cat, Type: typ, IndexStats: s})
		// Every key of the pair begins with prefix; prefix+FF sorts after
		// them and before the next pair's keys.
		r.Start = append(prefix, 0xff)
	}
}

// scanPairStats is PairStats by a read of every event.
func (l Log) scanPairStats(ctx context.Context) ([]PairStats, error) {
	type pair struct{ cat, typ string }
	by := map[pair]*PairStats{}
	var e Event
	var names nameCache
	it := l.log.IterAll(ctx)
	for it.Next(ctx) {
		p, err := decodeLogKey(it.Key())
		if err != nil {
			return nil, err
		}
		if err := decodeEventInto(&e, p, it.Value(), &names); err != nil {
			return nil, err
		}
		k := pair{Category(e.Stream), e.Type}
		s := by[k]
		if s == nil {
			s = &PairStats{Category: k.cat, Type: k.typ}
			s.FirstPosition, s.FirstCreated = e.Position, e.Created
			by[k] = s
		}
		s.Count++
		s.LastPosition, s.LastCreated = e.Position, e.Created
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	out := make([]PairStats, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b PairStats) int {
		if c := strings.Compare(a.Category, b.Category); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	return out, nil
}
