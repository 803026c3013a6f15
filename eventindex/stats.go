package eventindex

import (
	"context"
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
		prefix := nameKey(name)
		r := prolly.PrefixRange(prefix)
		n, err := m.CountIn(ctx, r)
		if err != nil {
			return err
		}
		s := IndexStats{Name: name, Count: n}
		for i, rev := range []bool{false, true} {
			r.Reverse = rev
			it := m.Iter(ctx, r)
			if !it.Next(ctx) {
				return it.Err()
			}
			p, err := decodeOrderedUint(it.Key()[len(prefix):])
			if err != nil {
				return err
			}
			e, err := l.mustEvent(ctx, Position(p))
			if err != nil {
				return err
			}
			if i == 0 {
				s.FirstPosition, s.FirstCreated = e.Position, e.Created
			} else {
				s.LastPosition, s.LastCreated = e.Position, e.Created
			}
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
