package eventindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/verso-db/verso/prolly"
)

// Merge merges the changes from base to theirs into ours and returns the
// merged log.
//
// It walks the diff of the stream records from base to theirs (every
// change to a stream's events changes its record, so this diff names
// every stream theirs changed, at a cost that follows the change). A
// stream that ours changed too is a conflict: appends, retention or
// metadata on both sides all are (ErrMergeConflict naming the stream).
// For each stream only theirs changed, the events theirs removed leave
// ours with their index entries, the events theirs appended are taken,
// and theirs' record replaces ours'. Theirs' new events get new positions
// after ours' last, in theirs' order; their event numbers are kept (the
// stream was theirs alone).
func Merge(ctx context.Context, base, ours, theirs Log) (Log, error) {
	b := ours.Batch()
	type added struct {
		pos Position
		rec []byte
		e   Event
	}
	var adds []added
	var records []prolly.Edit
	d := prolly.NewDiffer(base.streams, theirs.streams)
	for d.Next(ctx) {
		df := d.Diff()
		stream, head, err := decodeStreamsKey(df.Key)
		if err != nil {
			return Log{}, err
		}
		if head {
			continue
		}
		baseRec, _, err := base.streams.Get(ctx, df.Key)
		if err != nil {
			return Log{}, err
		}
		oursRec, _, err := ours.streams.Get(ctx, df.Key)
		if err != nil {
			return Log{}, err
		}
		if !bytes.Equal(baseRec, oursRec) {
			return Log{}, fmt.Errorf("%w: stream %q changed on both sides", ErrMergeConflict, stream)
		}
		var bm streamMeta
		if baseRec != nil {
			if bm, err = decodeStreamMeta(baseRec); err != nil {
				return Log{}, err
			}
		}
		theirsRec, ok, err := theirs.streams.Get(ctx, df.Key)
		if err != nil {
			return Log{}, err
		}
		if !ok {
			return Log{}, fmt.Errorf("%w: stream %q has no record in theirs", ErrCorrupt, stream)
		}
		tm, err := decodeStreamMeta(theirsRec)
		if err != nil {
			return Log{}, err
		}
		// Events theirs removed.
		for n := bm.First; n < min(tm.First, bm.Next); n++ {
			e, err := b.streamEvent(ctx, stream, n)
			if err != nil {
				return Log{}, err
			}
			b.remove(&e)
		}
		// Events theirs appended and kept.
		for n := max(bm.Next, tm.First); n < tm.Next; n++ {
			v, ok, err := theirs.byStream.Get(ctx, streamKey(stream, n))
			if err != nil {
				return Log{}, err
			}
			if !ok {
				return Log{}, fmt.Errorf("%w: theirs lacks event %d of %q", ErrCorrupt, n, stream)
			}
			p, err := decodePos(v)
			if err != nil {
				return Log{}, err
			}
			rec, ok, err := theirs.log.Get(ctx, logKey(p))
			if err != nil {
				return Log{}, err
			}
			if !ok {
				return Log{}, fmt.Errorf("%w: theirs lacks position %d", ErrCorrupt, p)
			}
			e, err := decodeEvent(p, rec)
			if err != nil {
				return Log{}, err
			}
			adds = append(adds, added{p, rec, e})
		}
		records = append(records, prolly.Edit{Key: df.Key, Value: theirsRec})
	}
	if err := d.Err(); err != nil {
		return Log{}, err
	}
	slices.SortFunc(adds, func(a, b added) int { return cmpPos(a.pos, b.pos) })
	for _, a := range adds {
		if _, ok, err := b.byID.get(ctx, idKey(a.e.Stream, a.e.ID)); err != nil {
			return Log{}, err
		} else if ok {
			return Log{}, fmt.Errorf("%w: event id %s appended on both sides", ErrMergeConflict, a.e.ID)
		}
		p := b.next
		b.next++
		b.log.put(p, a.rec)
		b.byStream.put(streamKey(a.e.Stream, a.e.Number), encodePos(p))
		b.byCat.put(namePosKey(a.e.Category(), p), encodeCross(a.e.Type))
		b.byType.put(namePosKey(a.e.Type, p), encodeCross(a.e.Category()))
		if b.pairs {
			b.byPair.put(pairPosKey(a.e.Category(), a.e.Type, p), nil)
		}
		b.byID.put(idKey(a.e.Stream, a.e.ID), encodePos(p))
	}
	for _, r := range records {
		b.streams.put(r.Key, r.Value)
	}
	return b.Log(ctx)
}

func cmpPos(a, b Position) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// remove deletes an event and its index entries.
func (b *Batch) remove(e *Event) {
	b.log.del(e.Position)
	b.byStream.del(streamKey(e.Stream, e.Number))
	b.byCat.del(namePosKey(Category(e.Stream), e.Position))
	b.byType.del(namePosKey(e.Type, e.Position))
	b.byID.del(idKey(e.Stream, e.ID))
	if b.pairs {
		b.byPair.del(pairPosKey(Category(e.Stream), e.Type, e.Position))
	}
}
