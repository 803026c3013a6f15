package eventindex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/verso-db/verso/prolly"
)

// Batch applies appends, metadata changes, deletes and sweeps to a Log
// and makes the new Log: one logical write, for one commit. Each call
// either applies whole or fails and changes nothing, so a caller may keep
// using a Batch after an error (a transaction that goes on), or drop it
// (a transaction that rolls back). Appends to several streams in one
// Batch land in one Log, hence one commit: atomically.
//
// Retention runs when the Batch makes its Log: every stream the Batch
// touched (appended to, deleted, given metadata, swept) loses the events
// its rules remove, with their index entries, in the same Log.
//
// A Batch holds its changes in memory and is not safe for concurrent use.
type Batch struct {
	base                    Log
	log                     logOverlay
	byStream, byID, streams overlay
	byCat, byType, byPair   editList
	pairs                   bool // the base log's pair index is whole: keep it so
	next                    Position
	metas                   map[string]*streamMeta
	touched                 map[string]bool
	now                     time.Time
}

// Batch starts a batch of writes to l. Events it appends are created at
// the time of l's clock when the Batch starts.
func (l Log) Batch() *Batch {
	return &Batch{
		base: l, next: l.next,
		log: newLogOverlay(l.log, l.next), byStream: newOverlay(l.byStream), byCat: editList{base: l.byCat},
		byType: editList{base: l.byType}, byID: newOverlay(l.byID), streams: newOverlay(l.streams),
		byPair: editList{base: l.byPair}, pairs: l.pairsIndexed(),
		metas: map[string]*streamMeta{}, touched: map[string]bool{},
		now: l.clock().UTC().Truncate(time.Microsecond),
	}
}

// AppendResult is what an append made.
type AppendResult struct {
	// Positions are the positions of the events appended (or, for an
	// idempotent repeat, of the events already there).
	Positions []Position
	// NextExpected is the stream's version after the append: the number
	// of its last event, to pass as Exact to the next append.
	NextExpected ExpectedVersion
}

// meta returns the stream's record (a zero one, exists false, for a new
// stream). The pointer is the Batch's own copy.
func (b *Batch) meta(ctx context.Context, stream string) (*streamMeta, bool, error) {
	if m, ok := b.metas[stream]; ok {
		return m, true, nil
	}
	v, ok, err := b.streams.get(ctx, nameKey(stream))
	if err != nil {
		return nil, false, err
	}
	m := &streamMeta{}
	if ok {
		if *m, err = decodeStreamMeta(v); err != nil {
			return nil, false, fmt.Errorf("stream %q: %w", stream, err)
		}
	}
	if !ok {
		return m, false, nil
	}
	b.metas[stream] = m
	return m, true, nil
}

// version is the stream's version as an expected-version check sees it.
func (m *streamMeta) version() int64 {
	if m.SoftDeleted || m.Next == 0 {
		return -1
	}
	return int64(m.Next) - 1
}

func checkExpected(stream string, m *streamMeta, exp ExpectedVersion) error {
	ok := false
	switch {
	case exp == Any:
		ok = true
	case exp == NoStream:
		ok = m.SoftDeleted || m.Next == 0
	case exp == StreamExists:
		ok = !m.SoftDeleted && m.Next > 0
	case exp >= 0:
		ok = m.Next > 0 && int64(m.Next)-1 == int64(exp)
	default:
		return fmt.Errorf("%w: invalid expected version %d", ErrWrongExpectedVersion, int64(exp))
	}
	if !ok {
		return &WrongExpectedVersionError{Stream: stream, Expected: exp, Actual: m.version()}
	}
	return nil
}

func (b *Batch) eventAt(ctx context.Context, p Position) (Event, bool, error) {
	v, ok, err := b.log.get(ctx, p)
	if err != nil || !ok {
		return Event{}, false, err
	}
	e, err := decodeEvent(p, v)
	return e, err == nil, err
}

// Append appends events to stream if its version matches expected. An
// append whose event ids the stream already holds at the places this
// append would give them is a no-op that returns their positions; an
// event id held anywhere else fails with ErrDuplicateEventID. On any
// error nothing is appended.
func (b *Batch) Append(ctx context.Context, stream string, expected ExpectedVersion, events []EventData) (AppendResult, error) {
	if err := checkName("stream", stream, false); err != nil {
		return AppendResult{}, err
	}
	seen := map[EventID]bool{}
	for i := range events {
		e := &events[i]
		if err := checkName("event type", e.Type, false); err != nil {
			return AppendResult{}, err
		}
		if err := checkJSON("data", e.Data); err != nil {
			return AppendResult{}, err
		}
		if err := checkJSON("metadata", e.Metadata); err != nil {
			return AppendResult{}, err
		}
		if !e.ID.IsZero() {
			if seen[e.ID] {
				return AppendResult{}, fmt.Errorf("%w: %s twice in one append to %q", ErrDuplicateEventID, e.ID, stream)
			}
			seen[e.ID] = true
		}
	}
	m, _, err := b.meta(ctx, stream)
	if err != nil {
		return AppendResult{}, err
	}
	if m.HardDeleted {
		return AppendResult{}, fmt.Errorf("%w: %q", ErrStreamDeleted, stream)
	}
	if res, done, err := b.idempotent(ctx, stream, m, expected, events); done || err != nil {
		return res, err
	}
	if err := checkExpected(stream, m, expected); err != nil {
		return AppendResult{}, err
	}
	// Encode everything before changing anything.
	recs := make([][]byte, len(events))
	ids := make([]EventID, len(events))
	for i := range events {
		ids[i] = events[i].ID
		if ids[i].IsZero() {
			ids[i] = NewEventID()
		}
		ev := Event{Stream: stream, Number: m.Next + EventNumber(i), ID: ids[i], Type: events[i].Type,
			Data: events[i].Data, Metadata: events[i].Metadata, Created: b.now}
		recs[i] = encodeEvent(nil, &ev)
		if len(recs[i]) > prolly.MaxValueSize {
			return AppendResult{}, fmt.Errorf("%w: %d bytes in stream %q", ErrTooLarge, len(recs[i]), stream)
		}
	}
	if len(events) == 0 {
		return AppendResult{NextExpected: ExpectedVersion(m.version())}, nil
	}
	cat := Category(stream)
	catCross := encodeCross(cat) // values are not modified: one for the batch
	var typ string
	var typCross []byte
	res := AppendResult{Positions: make([]Position, len(events))}
	for i := range events {
		p := b.next
		b.next++
		n := m.Next + EventNumber(i)
		if typCross == nil || events[i].Type != typ {
			typ, typCross = events[i].Type, encodeCross(events[i].Type)
		}
		b.log.put(p, recs[i])
		b.byStream.put(streamKey(stream, n), encodePos(p))
		b.byCat.put(namePosKey(cat, p), typCross)
		b.byType.put(namePosKey(events[i].Type, p), catCross)
		b.byID.put(idKey(stream, ids[i]), encodePos(p))
		if b.pairs {
			b.byPair.put(pairPosKey(cat, events[i].Type, p), nil)
		}
		res.Positions[i] = p
	}
	m.Next += EventNumber(len(events))
	m.SoftDeleted = false
	b.metas[stream] = m
	b.touched[stream] = true
	res.NextExpected = ExpectedVersion(m.Next - 1)
	return res, nil
}

// idempotent decides whether an append repeats one already made: done
// with its result, or an error for ids found elsewhere.
func (b *Batch) idempotent(ctx context.Context, stream string, m *streamMeta, expected ExpectedVersion, events []EventData) (AppendResult, bool, error) {
	found := make([]Event, len(events))
	nfound := 0
	for i := range events {
		if events[i].ID.IsZero() {
			continue
		}
		v, ok, err := b.byID.get(ctx, idKey(stream, events[i].ID))
		if err != nil {
			return AppendResult{}, false, err
		}
		if !ok {
			continue
		}
		p, err := decodePos(v)
		if err != nil {
			return AppendResult{}, false, err
		}
		e, ok, err := b.eventAt(ctx, p)
		if err != nil {
			return AppendResult{}, false, err
		}
		if !ok {
			return AppendResult{}, false, fmt.Errorf("%w: event id %s points to missing position %d", ErrCorrupt, events[i].ID, p)
		}
		found[i] = e
		nfound++
	}
	if nfound == 0 {
		return AppendResult{}, false, nil
	}
	dup := func(i int) error {
		return fmt.Errorf("%w: %s is event %d of stream %q, not event %d of an append to %q at expected version %s",
			ErrDuplicateEventID, events[i].ID, found[i].Number, found[i].Stream, i, stream, expected)
	}
	var start EventNumber
	switch {
	case expected >= 0:
		start = EventNumber(expected) + 1
	case expected == NoStream:
		start = 0
		if m.SoftDeleted {
			start = m.Next
		}
	default:
		if found[0].Stream == "" {
			for i := range found {
				if found[i].Stream != "" {
					return AppendResult{}, false, dup(i)
				}
			}
		}
		start = found[0].Number
	}
	res := AppendResult{Positions: make([]Position, len(events)), NextExpected: ExpectedVersion(m.version())}
	for i := range events {
		if found[i].Stream != stream || found[i].Number != start+EventNumber(i) {
			return AppendResult{}, false, dup(i)
		}
		res.Positions[i] = found[i].Position
	}
	return res, true, nil
}

// StreamMetadata are a stream's retention rules. Zero fields are unset.
type StreamMetadata struct {
	// MaxCount keeps only the last MaxCount events.
	MaxCount uint64
	// MaxAge hides events older than this at once and removes them at
	// the next commit that touches the stream or sweeps (microseconds).
	MaxAge time.Duration
	// TruncateBefore removes the events numbered below it.
	TruncateBefore EventNumber
}

// SetStreamMetadata replaces the retention rules of stream (creating the
// stream's record if it has none). The events they remove leave the log
// in the Log this Batch makes.
func (b *Batch) SetStreamMetadata(ctx context.Context, stream string, md StreamMetadata) error {
	if err := checkName("stream", stream, false); err != nil {
		return err
	}
	if md.MaxAge < 0 || (md.MaxAge > 0 && md.MaxAge < time.Microsecond) {
		return fmt.Errorf("%w: max age %s", ErrBadMetadata, md.MaxAge)
	}
	m, _, err := b.meta(ctx, stream)
	if err != nil {
		return err
	}
	if m.HardDeleted {
		return fmt.Errorf("%w: %q", ErrStreamDeleted, stream)
	}
	m.MaxCount, m.MaxAge, m.TruncateBefore = md.MaxCount, md.MaxAge.Microseconds(), md.TruncateBefore
	b.metas[stream] = m
	b.touched[stream] = true
	return nil
}

// DeleteStream deletes stream if its version matches expected. A soft
// delete removes its events; a later append starts it again, its numbers
// continuing after the deleted ones. A hard delete removes its events and
// leaves a tombstone: the stream can never be written again.
func (b *Batch) DeleteStream(ctx context.Context, stream string, expected ExpectedVersion, hard bool) error {
	if err := checkName("stream", stream, false); err != nil {
		return err
	}
	m, ok, err := b.meta(ctx, stream)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrStreamNotFound, stream)
	}
	if m.HardDeleted {
		return fmt.Errorf("%w: %q", ErrStreamDeleted, stream)
	}
	if err := checkExpected(stream, m, expected); err != nil {
		return err
	}
	if hard {
		m.HardDeleted = true
		m.SoftDeleted = false
		m.MaxCount, m.MaxAge, m.TruncateBefore = 0, 0, 0
	} else {
		m.SoftDeleted = true
	}
	b.touched[stream] = true
	return nil
}

// Sweep marks every stream with a max age as touched, so that the Log
// this Batch makes holds none of their expired events.
func (b *Batch) Sweep(ctx context.Context) error {
	return b.base.eachStream(ctx, func(stream string, m *streamMeta) error {
		if m.MaxAge > 0 && m.First < m.Next {
			b.touched[stream] = true
		}
		return nil
	})
}

// Log applies retention to the streams the Batch touched and returns the
// new Log. The Batch must not be used afterwards.
func (b *Batch) Log(ctx context.Context) (Log, error) {
	for stream := range b.touched {
		if err := b.retain(ctx, stream); err != nil {
			return Log{}, err
		}
	}
	if b.next != b.base.next {
		b.streams.put(headKey, encodeHead(b.next))
	}
	l := b.base
	l.next = b.next
	l.ages = &ageCache{} // the stream records change
	// The seven maps are independent: write them concurrently.
	ovs := []interface {
		apply(context.Context) (prolly.Map, error)
	}{&b.log, &b.byStream, &b.byCat, &b.byType, &b.byID, &b.streams, &b.byPair}
	errs := make([]error, len(ovs))
	var wg sync.WaitGroup
	for i, m := range l.maps() {
		wg.Go(func() {
			nm, err := ovs[i].apply(ctx)
			if err != nil {
				errs[i] = fmt.Errorf("eventindex: write %s: %w", Names[i], err)
				return
			}
			*m = nm
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Log{}, err
	}
	if prolly.InvariantsEnabled {
		// -tags invariants: every log a batch makes is verified deeply
		// (each index entry against its event, every event indexed).
		if err := l.Check(ctx, true); err != nil {
			return Log{}, fmt.Errorf("eventindex: invariants: the log a batch made: %w", err)
		}
	}
	return l, nil
}

// retain removes the events of stream that its rules remove and writes
// its record.
func (b *Batch) retain(ctx context.Context, stream string) error {
	m, ok, err := b.meta(ctx, stream)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	cut := m.First
	if m.SoftDeleted || m.HardDeleted {
		cut = m.Next
	}
	if m.TruncateBefore > cut {
		cut = min(m.TruncateBefore, m.Next)
	}
	if m.MaxCount > 0 && uint64(m.Next) > m.MaxCount && m.Next-EventNumber(m.MaxCount) > cut {
		cut = m.Next - EventNumber(m.MaxCount)
	}
	if m.MaxAge > 0 {
		oldest := b.now.UnixMicro() - m.MaxAge
		for cut < m.Next {
			e, err := b.streamEvent(ctx, stream, cut)
			if err != nil {
				return err
			}
			if e.Created.UnixMicro() >= oldest {
				break
			}
			cut++
		}
	}
	for n := m.First; n < cut; n++ {
		e, err := b.streamEvent(ctx, stream, n)
		if err != nil {
			return err
		}
		b.remove(&e)
	}
	m.First = cut
	b.streams.put(nameKey(stream), encodeStreamMeta(nil, m))
	return nil
}

// streamEvent reads event n of stream through the Batch.
func (b *Batch) streamEvent(ctx context.Context, stream string, n EventNumber) (Event, error) {
	v, ok, err := b.byStream.get(ctx, streamKey(stream, n))
	if err != nil {
		return Event{}, err
	}
	if !ok {
		return Event{}, fmt.Errorf("%w: event %d of stream %q is not in the stream index", ErrCorrupt, n, stream)
	}
	p, err := decodePos(v)
	if err != nil {
		return Event{}, err
	}
	e, ok, err := b.eventAt(ctx, p)
	if err != nil {
		return Event{}, err
	}
	if !ok {
		return Event{}, fmt.Errorf("%w: event %d of stream %q points to missing position %d", ErrCorrupt, n, stream, p)
	}
	return e, nil
}
