package verso

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/eventindex"
)

// The event log: every branch's root value holds one (package eventindex),
// with its stream, category and event-type indexes, changed by the same
// transactions as the tables and committed with them. A transaction reads
// and writes the log of its root; a subscription follows a branch's working
// set, history first, then each commit's events once it is durable.

// The event log's types (package eventindex's), named here.
type (
	// Event is one event of the log.
	Event = eventindex.Event
	// EventData is an event to append: type, data, metadata, id.
	EventData = eventindex.EventData
	// ExpectedVersion is what an append expects of its stream (Any,
	// NoStream, StreamExists, or the number of its last event).
	ExpectedVersion = eventindex.ExpectedVersion
	// AppendResult is where an append put its events.
	AppendResult = eventindex.AppendResult
	// Filter chooses events: a stream, a category ($ce), an event type
	// ($et), positions.
	Filter = eventindex.Filter
	// StreamMetadata is a stream's retention: max count, max age,
	// truncate-before.
	StreamMetadata = eventindex.StreamMetadata
	// EventLog is an immutable event log: the value one root holds.
	EventLog = eventindex.Log
	// Subscription is a catch-up subscription (Subscribe).
	Subscription = eventindex.Subscription
)

// The expected versions of an append that names no event number.
const (
	AnyVersion   = eventindex.Any
	NoStream     = eventindex.NoStream
	StreamExists = eventindex.StreamExists
)

// Events returns the event log of the transaction's root (its own writes
// included): reads by stream, category and type, stream information and
// statistics.
func (t *Txn) Events(ctx context.Context) (EventLog, error) {
	return eventindex.LoadLog(ctx, t.db.graph.NodeStore(), t.root)
}

// WriteEvents runs fn on a batch of the transaction's log and puts the log
// it makes into the transaction's root; if fn fails, nothing changes.
// Commit makes it durable.
func (t *Txn) WriteEvents(ctx context.Context, fn func(*eventindex.Batch) error) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot write events at a commit", ErrReadOnly)
	}
	l, err := t.Events(ctx)
	if err != nil {
		return err
	}
	b := l.Batch()
	if err := fn(b); err != nil {
		return err
	}
	return t.StoreEvents(ctx, b)
}

// StoreEvents puts the log the batch b (of the transaction's log) makes
// into the transaction's root.
func (t *Txn) StoreEvents(ctx context.Context, b *eventindex.Batch) error {
	nl, err := b.Log(ctx)
	if err != nil {
		return err
	}
	root, err := nl.Store(ctx, t.root)
	if err != nil {
		return err
	}
	t.root = root
	return nil
}

// AppendEvents appends events to stream if its version is what expected
// says (a *eventindex.WrongExpectedVersionError otherwise); an event whose
// id the stream holds already is not appended again.
func (t *Txn) AppendEvents(ctx context.Context, stream string, expected ExpectedVersion, events ...EventData) (AppendResult, error) {
	var res AppendResult
	err := t.WriteEvents(ctx, func(b *eventindex.Batch) error {
		var err error
		res, err = b.Append(ctx, stream, expected, events)
		return err
	})
	return res, err
}

// SetStreamMetadata sets a stream's retention; the events it removes go
// with it, index entries included.
func (t *Txn) SetStreamMetadata(ctx context.Context, stream string, md StreamMetadata) error {
	return t.WriteEvents(ctx, func(b *eventindex.Batch) error { return b.SetStreamMetadata(ctx, stream, md) })
}

// DeleteStream deletes a stream: soft (its events go; appending starts it
// again after its last number) or hard (for good).
func (t *Txn) DeleteStream(ctx context.Context, stream string, expected ExpectedVersion, hard bool) error {
	return t.WriteEvents(ctx, func(b *eventindex.Batch) error { return b.DeleteStream(ctx, stream, expected, hard) })
}

// Subscribe starts a catch-up subscription to the events of branch's
// working set ("" for the default branch) that pass f, from position
// f.From: the history first, then the events of each transaction commit
// (or branch operation) once it is durable, in a channel of buffer events.
// It ends with ctx, Close, or the database's Close.
func (db *DB) Subscribe(ctx context.Context, branch string, f Filter, buffer int) *Subscription {
	if branch == "" {
		branch = db.DefaultBranch()
	}
	return eventindex.Subscribe(ctx, branchFeed{db: db, branch: branch}, f, buffer)
}

// branchFeed is a branch's working set as a subscription's source.
type branchFeed struct {
	db     *DB
	branch string
}

func (f branchFeed) Current(ctx context.Context) (EventLog, <-chan struct{}, error) {
	ch, err := f.db.changes(f.branch) // before the log: no commit unseen
	if err != nil {
		return EventLog{}, nil, err
	}
	_, _, root, err := f.db.Snapshot(ctx, f.branch)
	if err != nil {
		return EventLog{}, nil, err
	}
	l, err := eventindex.LoadLog(ctx, f.db.graph.NodeStore(), root)
	return l, ch, err
}

// changes returns the channel closed at branch's next durable working-set
// update, or eventindex.ErrClosed once the database is closed.
func (db *DB) changes(branch string) (<-chan struct{}, error) {
	db.feedMu.Lock()
	defer db.feedMu.Unlock()
	if db.closed {
		return nil, eventindex.ErrClosed
	}
	if db.feeds == nil {
		db.feeds = map[string]chan struct{}{}
	}
	ch, ok := db.feeds[branch]
	if !ok {
		ch = make(chan struct{})
		db.feeds[branch] = ch
	}
	return ch, nil
}

// changed wakes the subscribers of branch: its working set moved, durably.
func (db *DB) changed(branch string) {
	db.feedMu.Lock()
	defer db.feedMu.Unlock()
	if ch, ok := db.feeds[branch]; ok {
		close(ch)
		delete(db.feeds, branch)
	}
}
