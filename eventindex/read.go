package eventindex

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/prolly"
)

// ReadStream returns up to limit events of stream from the event numbered
// from, forwards (ascending numbers) or backwards (descending; from is
// then the highest number wanted, and a from past the end starts at the
// last event). Events past the stream's max age are left out. A stream
// with no record at all returns ErrStreamNotFound; a deleted or emptied
// one returns no events.
func (l Log) ReadStream(ctx context.Context, stream string, from EventNumber, limit int, backwards bool) ([]Event, error) {
	m, ok, err := l.getMeta(ctx, stream)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrStreamNotFound, stream)
	}
	r := prolly.PrefixRange(nameKey(stream))
	if backwards {
		r.Reverse = true
		r.Stop, r.StopInclusive = streamKey(stream, from), true
	} else {
		r.Start = streamKey(stream, from)
	}
	cutoff := l.cutoff(&m)
	var out []Event
	it := l.byStream.Iter(ctx, r)
	for len(out) < limit && it.Next(ctx) {
		p, err := decodePos(it.Value())
		if err != nil {
			return nil, err
		}
		e, err := l.mustEvent(ctx, p)
		if err != nil {
			return nil, err
		}
		if e.Created.UnixMicro() < cutoff {
			if backwards {
				break
			}
			continue
		}
		out = append(out, e)
	}
	return out, it.Err()
}

// cutoff returns the oldest created time (microseconds) a read may show
// of a stream with record m.
func (l Log) cutoff(m *streamMeta) int64 {
	if m.MaxAge == 0 {
		return minMicros
	}
	return l.clock().UnixMicro() - m.MaxAge
}

const minMicros = -1 << 63

func (l Log) mustEvent(ctx context.Context, p Position) (Event, error) {
	e, ok, err := l.event(ctx, p)
	if err != nil {
		return Event{}, err
	}
	if !ok {
		return Event{}, fmt.Errorf("%w: index entry points to missing position %d", ErrCorrupt, p)
	}
	return e, nil
}

// StreamInfo describes a stream.
type StreamInfo struct {
	Stream string
	// Version is the number of the last event appended, -1 if none (or
	// soft deleted since).
	Version     int64
	First       EventNumber // lowest number still stored
	Next        EventNumber // number the next event gets
	SoftDeleted bool
	HardDeleted bool
	Metadata    StreamMetadata
}

// Stream returns the stream's state, or ErrStreamNotFound.
func (l Log) Stream(ctx context.Context, stream string) (StreamInfo, error) {
	m, ok, err := l.getMeta(ctx, stream)
	if err != nil {
		return StreamInfo{}, err
	}
	if !ok {
		return StreamInfo{}, fmt.Errorf("%w: %q", ErrStreamNotFound, stream)
	}
	return m.info(stream), nil
}

func (m *streamMeta) info(stream string) StreamInfo {
	return StreamInfo{Stream: stream, Version: m.version(), First: m.First, Next: m.Next,
		SoftDeleted: m.SoftDeleted, HardDeleted: m.HardDeleted,
		Metadata: StreamMetadata{MaxCount: m.MaxCount, MaxAge: microDuration(m.MaxAge), TruncateBefore: m.TruncateBefore}}
}

// Streams calls fn for every stream with a record, in name order.
func (l Log) Streams(ctx context.Context, fn func(StreamInfo) error) error {
	return l.eachStream(ctx, func(stream string, m *streamMeta) error { return fn(m.info(stream)) })
}

// eachStream calls fn with the record of every stream, in name order.
func (l Log) eachStream(ctx context.Context, fn func(stream string, m *streamMeta) error) error {
	it := l.streams.IterAll(ctx)
	for it.Next(ctx) {
		stream, head, err := decodeStreamsKey(it.Key())
		if err != nil {
			return err
		}
		if head {
			continue
		}
		m, err := decodeStreamMeta(it.Value())
		if err != nil {
			return err
		}
		if err := fn(stream, &m); err != nil {
			return err
		}
	}
	return it.Err()
}
