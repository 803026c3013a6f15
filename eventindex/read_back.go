package eventindex

import (
	"context"

	"github.com/verso-db/verso/prolly"
)

// ReadBackwards returns up to limit events that pass f, in descending
// position: from the last below f.To (the end of the log when f.To is 0)
// down to f.From. It also returns the position to read the next page
// from: pass it as f.To (0 when the log holds no more). It walks the log
// itself, checking f's other conditions event by event, so it suits
// position ranges (the latest events of the log) rather than selective
// filters. Events past their stream's max age are left out.
func (l Log) ReadBackwards(ctx context.Context, f Filter, limit int) ([]Event, Position, error) {
	r := prolly.Range{Start: logKey(max(f.From, 1)), Reverse: true}
	if f.To != 0 {
		r.Stop = logKey(f.To)
	}
	cutoffs := map[string]int64{}
	var names nameCache
	var out []Event
	next := Position(0)
	it := l.log.Iter(ctx, r)
	for len(out) < limit && it.Next(ctx) {
		p, err := decodeLogKey(it.Key())
		if err != nil {
			return nil, 0, err
		}
		next = p
		var e Event
		if err := decodeEventInto(&e, p, it.Value(), &names); err != nil {
			return nil, 0, err
		}
		if !f.Match(&e) {
			continue
		}
		c, ok := cutoffs[e.Stream]
		if !ok {
			m, _, err := l.getMeta(ctx, e.Stream)
			if err != nil {
				return nil, 0, err
			}
			c = l.cutoff(&m)
			cutoffs[e.Stream] = c
		}
		if e.Created.UnixMicro() >= c {
			out = append(out, e)
		}
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	if len(out) < limit || next <= max(f.From, 1) {
		next = 0
	}
	return out, next, nil
}
