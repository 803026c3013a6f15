package systables

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/eventindex"
)

// Inserter implements sql.InsertableTable: each row appends one event to
// its stream with any expected version, or, when it gives event_number n,
// only if the event gets number n (the stream's version is n-1, or it has
// no event for n = 0). The statement's rows are one Batch: they land in
// the transaction's log together when the statement completes, or not at
// all.
func (t *eventsTable) Inserter(ctx *sql.Context) sql.RowInserter {
	return &eventInserter{t: t}
}

type eventInserter struct {
	t *eventsTable
	d *verso.Txn
	b *eventindex.Batch
}

func (ins *eventInserter) StatementBegin(*sql.Context) { ins.b = nil }

func (ins *eventInserter) DiscardChanges(*sql.Context, error) error {
	ins.b = nil
	return nil
}

func (ins *eventInserter) StatementComplete(ctx *sql.Context) error {
	if ins.b == nil {
		return nil
	}
	b := ins.b
	ins.b = nil
	return ins.d.StoreEvents(ctx, b)
}

func (ins *eventInserter) Close(ctx *sql.Context) error { return ins.StatementComplete(ctx) }

// Insert appends the event of row to the statement's Batch.
func (ins *eventInserter) Insert(ctx *sql.Context, row sql.Row) error {
	if ins.b == nil {
		d, err := ins.t.src.writable(ctx)
		if err != nil {
			return err
		}
		l, err := d.Events(ctx)
		if err != nil {
			return err
		}
		ins.d, ins.b = d, l.Batch()
	}
	stream, ev, number, err := insertedEvent(ctx, row)
	if err != nil {
		return err
	}
	if number != nil {
		if err := checkEventNumber(ctx, ins.b, stream, *number); err != nil {
			return err
		}
	}
	_, err = ins.b.Append(ctx, stream, eventindex.Any, []eventindex.EventData{ev})
	return EventsError(err)
}

// checkEventNumber fails unless the next event of stream gets number n.
func checkEventNumber(ctx *sql.Context, b *eventindex.Batch, stream string, n uint64) error {
	expected := eventindex.NoStream
	if n > 0 {
		expected = eventindex.Exact(eventindex.EventNumber(n - 1))
	}
	next, version := uint64(0), int64(-1)
	switch info, err := b.Stream(ctx, stream); {
	case err == nil:
		next, version = uint64(info.Next), info.Version
		if info.HardDeleted {
			return nil // Append says so
		}
	case !isNotFound(err):
		return err
	}
	if next != n {
		return EventsError(&eventindex.WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: version})
	}
	return nil
}

// insertedEvent reads the event of an INSERT row, refusing values for the
// columns the log assigns.
func insertedEvent(ctx *sql.Context, row sql.Row) (string, eventindex.EventData, *uint64, error) {
	var ev eventindex.EventData
	if row[colPosition] != nil {
		return "", ev, nil, fmt.Errorf("verso: dolt_events: position is assigned by the log: leave it out of the INSERT")
	}
	if row[colCreated] != nil {
		return "", ev, nil, fmt.Errorf("verso: dolt_events: created is set by the log: leave it out of the INSERT")
	}
	stream, ok := row[colStream].(string)
	if !ok {
		return "", ev, nil, fmt.Errorf("verso: dolt_events: stream_id is required")
	}
	if ev.Type, ok = row[colType].(string); !ok {
		return "", ev, nil, fmt.Errorf("verso: dolt_events: event_type is required")
	}
	if c := row[colCategory]; c != nil && c != eventindex.Category(stream) {
		return "", ev, nil, fmt.Errorf("verso: dolt_events: the category of stream %q is %q (its id before the first '-'): leave category out of the INSERT",
			stream, eventindex.Category(stream))
	}
	if id, ok := row[colID].(string); ok {
		var err error
		if ev.ID, err = eventindex.ParseEventID(id); err != nil {
			return "", ev, nil, fmt.Errorf("verso: dolt_events: event_id %q is not a UUID (give one like 0b8f1e2c-5d3a-4f6b-9c7d-1e2f3a4b5c6d, or leave it out to have one generated)", id)
		}
	}
	var err error
	if ev.Data, err = jsonBytes(ctx, row[colData]); err != nil {
		return "", ev, nil, err
	}
	if ev.Metadata, err = jsonBytes(ctx, row[colMetadata]); err != nil {
		return "", ev, nil, err
	}
	var number *uint64
	if n, ok := row[colNumber].(uint64); ok {
		number = &n
	}
	return stream, ev, number, nil
}

// jsonBytes returns the text of a JSON value (nil for NULL).
func jsonBytes(ctx *sql.Context, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	w, ok := v.(sql.JSONWrapper)
	if !ok {
		c, _, err := types.JSON.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		w = c.(sql.JSONWrapper)
	}
	return types.MarshallJson(ctx, w)
}

// Updater implements sql.UpdatableTable: refused.
func (t *eventsTable) Updater(*sql.Context) sql.RowUpdater { return &refusedEditor{src: t.src} }

// Deleter implements sql.DeletableTable: refused.
func (t *eventsTable) Deleter(*sql.Context) sql.RowDeleter { return &refusedEditor{src: t.src} }

// Truncate implements sql.TruncateableTable: refused.
func (t *eventsTable) Truncate(*sql.Context) (int, error) { return 0, ErrEventsImmutable }

// refusedEditor refuses every change to stored events, even a statement
// that matches no row. It also serves INSERT ... ON DUPLICATE KEY UPDATE,
// whose inserter completes before it: so that the refused statement leaves
// no event, it puts back the log the transaction held when the statement
// began.
type refusedEditor struct {
	src    eventSource
	d      *verso.Txn
	before *eventindex.Log
}

func (e *refusedEditor) StatementBegin(ctx *sql.Context) {
	e.before = nil
	if e.src.root != nil {
		return
	}
	d, err := e.src.v.Session.Txn(ctx)
	if err != nil {
		return
	}
	l, err := d.Events(ctx)
	if err != nil {
		return
	}
	e.d, e.before = d, &l
}

func (e *refusedEditor) DiscardChanges(ctx *sql.Context, _ error) error { return e.restore(ctx) }

func (e *refusedEditor) StatementComplete(ctx *sql.Context) error {
	if err := e.restore(ctx); err != nil {
		return err
	}
	return ErrEventsImmutable
}

// restore puts the log of the statement's start back into the
// transaction's root.
func (e *refusedEditor) restore(ctx *sql.Context) error {
	if e.before == nil {
		return nil
	}
	root, err := e.before.Store(ctx, e.d.Root())
	if err != nil {
		return err
	}
	e.d.SetRoot(root)
	e.before = nil
	return nil
}

func (e *refusedEditor) Update(*sql.Context, sql.Row, sql.Row) error { return ErrEventsImmutable }
func (e *refusedEditor) Delete(*sql.Context, sql.Row) error          { return ErrEventsImmutable }
func (e *refusedEditor) Close(*sql.Context) error                    { return nil }

// EventsError adds to an error of package eventindex what the user can do
// about it.
func EventsError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, eventindex.ErrReserved):
		return fmt.Errorf("%w: names beginning with '$' are reserved for the system, choose another", err)
	case errors.Is(err, eventindex.ErrBadJSON):
		return fmt.Errorf("%w: give data and metadata as JSON text, or leave them NULL", err)
	case errors.Is(err, eventindex.ErrBadName):
		return fmt.Errorf("%w: stream ids and event types are 1 to %d bytes of UTF-8", err, eventindex.MaxNameLen)
	case errors.Is(err, eventindex.ErrStreamDeleted):
		return fmt.Errorf("%w: it was hard deleted and can never be written again", err)
	case errors.Is(err, eventindex.ErrWrongExpectedVersion):
		return fmt.Errorf("%w (read the stream's version from dolt_streams and retry)", err)
	}
	return err
}

func isNotFound(err error) bool { return errors.Is(err, eventindex.ErrStreamNotFound) }
