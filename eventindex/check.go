package eventindex

import (
	"bytes"
	"context"

	"github.com/verso-db/verso/prolly"
)

// Check verifies that the indexes match the log exactly: every event
// decodes, lies below the head's next position and has its entry in the
// stream, category, type, pair and event-id indexes pointing back at it
// (the pair index may be empty instead, in a log written before it; the
// category and type entries' cross values hash its type and category, or
// are empty, as logs written before cross values hold them); every
// index has exactly as many entries as the log (so none dangles); every
// stream's record agrees with its entries (numbers First..Next-1 present,
// contiguous, none for a deleted stream). It reads every event: use it in
// tests. With deep set it also runs prolly's Check on each map.
func (l Log) Check(ctx context.Context, deep bool) error {
	if deep {
		for i, m := range l.maps() {
			if err := m.Check(ctx); err != nil {
				return checkf("%s: %v", Names[i], err)
			}
		}
	}
	n := l.log.Count()
	for i, m := range l.maps()[1:5] {
		if m.Count() != n {
			return checkf("%s holds %d entries, the log %d", Names[i+1], m.Count(), n)
		}
	}
	if c := l.byPair.Count(); c != 0 && c != n {
		return checkf("%s holds %d entries, the log %d (a pair index is whole or, before it was built, empty)", NameByPair, c, n)
	}
	perStream := map[string]uint64{}
	it := l.log.IterAll(ctx)
	for it.Next(ctx) {
		p, err := decodeLogKey(it.Key())
		if err != nil {
			return err
		}
		if p >= l.next {
			return checkf("event at %d, next position %d", p, l.next)
		}
		e, err := decodeEvent(p, it.Value())
		if err != nil {
			return err
		}
		if err := l.checkEntry(ctx, &e); err != nil {
			return err
		}
		perStream[e.Stream]++
	}
	if err := it.Err(); err != nil {
		return err
	}
	seen := 0
	err := l.Streams(ctx, func(s StreamInfo) error {
		c := perStream[s.Stream]
		if c > 0 {
			seen++
		}
		if (s.SoftDeleted || s.HardDeleted) && c > 0 {
			return checkf("deleted stream %q holds %d events", s.Stream, c)
		}
		if uint64(s.Next-s.First) != c {
			return checkf("stream %q: record says %d..%d, the log holds %d events", s.Stream, s.First, s.Next, c)
		}
		if c > 0 {
			lo := streamKey(s.Stream, s.First)
			hi := streamKey(s.Stream, s.Next)
			k, err := l.byStream.CountRange(ctx, lo, hi)
			if err != nil {
				return err
			}
			if k != c {
				return checkf("stream %q: %d index entries in %d..%d, want %d", s.Stream, k, s.First, s.Next, c)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen != len(perStream) {
		return checkf("%d streams hold events, %d of them have a record", len(perStream), seen)
	}
	return nil
}

func (l Log) checkEntry(ctx context.Context, e *Event) error {
	v, ok, err := l.byStream.Get(ctx, streamKey(e.Stream, e.Number))
	if err != nil {
		return err
	}
	if !ok || !bytes.Equal(v, encodePos(e.Position)) {
		return checkf("event at %d (%q #%d): stream index entry missing or wrong", e.Position, e.Stream, e.Number)
	}
	cat := Category(e.Stream)
	for _, ix := range []struct {
		what        string
		m           prolly.Map
		name, other string
	}{
		{"category", l.byCat, cat, e.Type},
		{"type", l.byType, e.Type, cat},
	} {
		v, ok, err := ix.m.Get(ctx, namePosKey(ix.name, e.Position))
		if err != nil {
			return err
		}
		if !ok {
			return checkf("event at %d: %s index entry missing", e.Position, ix.what)
		}
		// The cross value: the hash of the other name, or empty (written
		// before cross values).
		if len(v) > 0 && !bytes.Equal(v, encodeCross(ix.other)) {
			return checkf("event at %d: %s index value %x, want %x (the hash of %q) or empty", e.Position, ix.what, v, encodeCross(ix.other), ix.other)
		}
	}
	if l.pairsIndexed() {
		v, ok, err := l.byPair.Get(ctx, pairPosKey(cat, e.Type, e.Position))
		if err != nil {
			return err
		}
		if !ok || len(v) != 0 {
			return checkf("event at %d: pair index entry (%q, %q) missing or not empty", e.Position, cat, e.Type)
		}
	}
	v, ok, err = l.byID.Get(ctx, idKey(e.Stream, e.ID))
	if err != nil {
		return err
	}
	if !ok || !bytes.Equal(v, encodePos(e.Position)) {
		return checkf("event at %d: event-id index entry %s missing or wrong", e.Position, e.ID)
	}
	return nil
}
