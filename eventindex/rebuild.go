package eventindex

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/verso-db/verso/prolly"
)

// Rebuild returns l with its stream, category, type, pair and event-id indexes
// built afresh from the log alone (the stream records are kept). Prolly
// trees are history independent, so a sound log rebuilds to the very
// same index addresses: a repair, and a check.
//
// It reads the log once and holds every index key in memory (about 30
// bytes an event per index) while it sorts them, then streams each index
// into a Builder. It writes cross values of the current version: a log
// written before them (empty values) rebuilds to other category and type
// index addresses.
func Rebuild(ctx context.Context, l Log) (Log, error) {
	// Each index entry: its position, and the name its cross value
	// hashes.
	type entry struct {
		p     Position
		other string
	}
	byCat := map[string][]entry{}
	byType := map[string][]entry{}
	type sref struct {
		stream string
		n      EventNumber
		id     EventID
		p      Position
	}
	streams := make([]sref, 0, l.log.Count())
	var names nameCache // one string per stream and type name, not per event
	var e Event
	it := l.log.IterAll(ctx)
	for it.Next(ctx) {
		p, err := decodeLogKey(it.Key())
		if err != nil {
			return Log{}, err
		}
		if err := decodeEventInto(&e, p, it.Value(), &names); err != nil {
			return Log{}, err
		}
		c := Category(e.Stream)
		byCat[c] = append(byCat[c], entry{p, e.Type})
		byType[e.Type] = append(byType[e.Type], entry{p, c})
		streams = append(streams, sref{e.Stream, e.Number, e.ID, p})
	}
	if err := it.Err(); err != nil {
		return Log{}, err
	}
	buildNamed := func(m map[string][]entry) (prolly.Map, error) {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		b := prolly.NewBuilder(l.ns)
		for _, n := range names {
			prefix := nameKey(n)
			k := make([]byte, 0, len(prefix)+10)
			cross := map[string][]byte{} // other names repeat
			for _, x := range m[n] {
				k = prolly.EncodeKey(append(k[:0], prefix...), prolly.Uint(uint64(x.p)))
				v, ok := cross[x.other]
				if !ok {
					v = encodeCross(x.other)
					cross[x.other] = v
				}
				if err := b.Add(ctx, k, v); err != nil {
					return prolly.Map{}, err
				}
			}
		}
		return b.Map(ctx)
	}
	var err error
	if l.byCat, err = buildNamed(byCat); err != nil {
		return Log{}, err
	}
	if l.byType, err = buildNamed(byType); err != nil {
		return Log{}, err
	}
	slices.SortFunc(streams, func(a, b sref) int {
		if c := strings.Compare(a.stream, b.stream); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	b := prolly.NewBuilder(l.ns)
	for _, s := range streams {
		if err := b.Add(ctx, streamKey(s.stream, s.n), encodePos(s.p)); err != nil {
			return Log{}, err
		}
	}
	if l.byStream, err = b.Map(ctx); err != nil {
		return Log{}, err
	}
	// Within a stream, by id.
	slices.SortFunc(streams, func(a, b sref) int {
		if c := strings.Compare(a.stream, b.stream); c != 0 {
			return c
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
	b = prolly.NewBuilder(l.ns)
	for _, s := range streams {
		if err := b.Add(ctx, idKey(s.stream, s.id), encodePos(s.p)); err != nil {
			return Log{}, err
		}
	}
	if l.byID, err = b.Map(ctx); err != nil {
		return Log{}, err
	}
	// By (category, type), then position.
	type pref struct {
		cat, typ string
		p        Position
	}
	pairs := make([]pref, 0, len(streams))
	for c, es := range byCat {
		for _, x := range es {
			pairs = append(pairs, pref{c, x.other, x.p})
		}
	}
	slices.SortFunc(pairs, func(a, b pref) int {
		if c := strings.Compare(a.cat, b.cat); c != 0 {
			return c
		}
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return cmp.Compare(a.p, b.p)
	})
	b = prolly.NewBuilder(l.ns)
	for _, x := range pairs {
		if err := b.Add(ctx, pairPosKey(x.cat, x.typ, x.p), nil); err != nil {
			return Log{}, err
		}
	}
	if l.byPair, err = b.Map(ctx); err != nil {
		return Log{}, err
	}
	return l, nil
}
