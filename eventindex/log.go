package eventindex

import (
	"context"
	"fmt"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// Names of the log's maps in a root value. A root value without them
// holds the empty log; an empty map is stored as an absent name.
const (
	NameLog        = "events/log"
	NameByStream   = "events/by-stream"
	NameByCategory = "events/by-category"
	NameByType     = "events/by-type"
	NameByID       = "events/by-id"
	NameStreams    = "events/streams"
	NameByPair     = "events/by-pair"
	// NamePrefix begins every name above.
	NamePrefix = commitgraph.EventsPrefix
)

// Names lists the root-value names of the log's maps.
var Names = []string{NameLog, NameByStream, NameByCategory, NameByType, NameByID, NameStreams, NameByPair}

// Log is an immutable event log with its indexes: the value a commit
// records. Reads see exactly the events of that commit; a Batch makes a
// new Log. A Log is safe for concurrent use.
type Log struct {
	ns                           *prolly.NodeStore
	log, byStream, byCat, byType prolly.Map
	byID, streams                prolly.Map
	// byPair indexes the events by (category, type): what the stats of
	// each pair count (stats.go). A log written before it has none while
	// it holds events; pairsIndexed tells.
	byPair prolly.Map
	next   Position
	clock  func() time.Time
	ages   *ageCache // max ages reads looked up (ages.go)
}

// NewLog returns the empty log over ns.
func NewLog(ns *prolly.NodeStore) Log {
	m := prolly.NewMap(ns)
	return Log{ns: ns, log: m, byStream: m, byCat: m, byType: m, byID: m, streams: m, byPair: m, next: 1, clock: time.Now, ages: &ageCache{}}
}

func (l *Log) maps() []*prolly.Map {
	return []*prolly.Map{&l.log, &l.byStream, &l.byCat, &l.byType, &l.byID, &l.streams, &l.byPair}
}

// pairsIndexed reports whether the log's pair index is whole: it holds an
// entry per event. A log written before the pair index holds none while it
// holds events; writes keep it so (they do not index a part of it), and
// Rebuild makes it whole.
func (l Log) pairsIndexed() bool { return l.byPair.Count() == l.log.Count() }

// pairPosKey is the pair index's key of the event at p.
func pairPosKey(cat, typ string, p Position) []byte {
	return prolly.EncodeKey(make([]byte, 0, len(cat)+len(typ)+15), prolly.String(cat), prolly.String(typ), prolly.Uint(uint64(p)))
}

// LoadLog reads the log stored in root (the empty log if root holds none).
func LoadLog(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue) (Log, error) {
	l := NewLog(ns)
	for i, m := range l.maps() {
		addr, ok, err := root.Get(ctx, Names[i])
		if err != nil {
			return Log{}, err
		}
		if !ok {
			continue
		}
		if *m, err = prolly.OpenMap(ctx, ns, addr); err != nil {
			return Log{}, fmt.Errorf("eventindex: open %s: %w", Names[i], err)
		}
	}
	v, ok, err := l.streams.Get(ctx, headKey)
	if err != nil {
		return Log{}, err
	}
	if ok {
		if l.next, err = decodeHead(v); err != nil {
			return Log{}, err
		}
	} else if l.log.Count() > 0 {
		return Log{}, corruptf("log holds events but no head record")
	}
	return l, nil
}

// Edits returns the root-value edits that store l.
func (l Log) Edits() []commitgraph.RootEdit {
	var out []commitgraph.RootEdit
	for i, m := range l.maps() {
		if m.Count() == 0 {
			out = append(out, commitgraph.RootEdit{Name: Names[i], Delete: true})
		} else {
			out = append(out, commitgraph.RootEdit{Name: Names[i], Addr: m.Address()})
		}
	}
	return out
}

// Store returns root with l in it.
func (l Log) Store(ctx context.Context, root commitgraph.RootValue) (commitgraph.RootValue, error) {
	return root.Edit(ctx, l.Edits()...)
}

// WithClock returns l reading the time from now: for max-age filtering of
// reads and for the created time of the events a Batch appends.
func (l Log) WithClock(now func() time.Time) Log {
	l.clock = now
	return l
}

// NodeStore returns the node store the log's maps live in.
func (l Log) NodeStore() *prolly.NodeStore { return l.ns }

// NextPosition returns the position the next appended event gets.
func (l Log) NextPosition() Position { return l.next }

// Count returns the number of events stored (removed ones excluded; events
// past their max age but not yet swept included).
func (l Log) Count() uint64 { return l.log.Count() }

// Addresses returns the root addresses of the log's maps, in the order of
// Names.
func (l Log) Addresses() []chunks.Address {
	var out []chunks.Address
	for _, m := range l.maps() {
		out = append(out, m.Address())
	}
	return out
}

// Equal reports whether two logs hold the same maps.
func (l Log) Equal(o Log) bool {
	a, b := l.Addresses(), o.Addresses()
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (l Log) getMeta(ctx context.Context, stream string) (streamMeta, bool, error) {
	v, ok, err := l.streams.Get(ctx, nameKey(stream))
	if err != nil || !ok {
		return streamMeta{}, false, err
	}
	m, err := decodeStreamMeta(v)
	if err != nil {
		return streamMeta{}, false, fmt.Errorf("stream %q: %w", stream, err)
	}
	return m, true, nil
}

// event reads the event at p.
func (l Log) event(ctx context.Context, p Position) (Event, bool, error) {
	v, ok, err := l.log.Get(ctx, logKey(p))
	if err != nil || !ok {
		return Event{}, false, err
	}
	e, err := decodeEvent(p, v)
	return e, err == nil, err
}
