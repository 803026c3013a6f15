package systables

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
)

// The event log of a database (package eventindex) as tables: dolt_events
// (this file, events_index.go, events_write.go), dolt_streams and
// dolt_event_stats (events_info.go, events_streams_index.go), and the
// reads of the table functions dolt_read_all and dolt_read_stream
// (events_read.go; package sqlserver registers them, and the procedures
// that write the log).
//
// Every read loads the log from the session transaction's root (its own
// appends included; a revision database's transaction reads its commit).
// Every write is a Batch on the transaction's log whose new Log replaces
// the events/ entries of the transaction's root: appends commit, roll back
// and merge with the transaction.

// eventPage is the number of events a read takes from the log at once, as
// KurrentDB pages its reads; it is also the default max_count of the
// table functions.
const eventPage = 2000

var (
	// ErrEventsImmutable refuses UPDATE, DELETE and TRUNCATE of dolt_events.
	ErrEventsImmutable = errors.New("verso: events cannot be updated or deleted: remove them with the retention procedures: " +
		`CALL dolt_stream_metadata('stream', '{"$maxCount": n}') (or "$maxAge" seconds, or "$tb" event number) ` +
		`or CALL dolt_delete_stream('stream' [, '--hard'])`)
	// ErrEventsReadOnlyTx refuses event writes in a READ ONLY transaction.
	ErrEventsReadOnlyTx = errors.New("verso: cannot write events in a READ ONLY transaction")
)

// OpenEventsAt returns the event table named name (dolt_events,
// dolt_streams or dolt_event_stats, any case) reading the log of root
// instead of the session transaction's: read-only. ok is false if name is
// none of them.
func OpenEventsAt(name string, v *View, root commitgraph.RootValue) (sql.Table, bool) {
	return eventTable(name, eventSource{v: v, root: &root})
}

func eventTable(name string, src eventSource) (sql.Table, bool) {
	switch strings.ToLower(name) {
	case EventsTable:
		return &eventsTable{src: src}, true
	case StreamsName:
		return newStreamsTable(src), true
	case EventStatsName:
		return newEventStatsTable(src), true
	}
	return nil, false
}

// eventSource is where an event table reads its log: a fixed root value, or
// the session transaction's root at the time of the read.
type eventSource struct {
	v    *View
	root *commitgraph.RootValue
}

func (s eventSource) log(ctx *sql.Context) (eventindex.Log, error) {
	if s.root != nil {
		return eventindex.LoadLog(ctx, s.v.Graph.NodeStore(), *s.root)
	}
	tx, err := s.v.Session.Txn(ctx)
	if err != nil {
		return eventindex.Log{}, err
	}
	return tx.Events(ctx)
}

// Column types of the event tables. Names compare binary, as the index
// keys do.
var (
	// EventNameType is the type of stream ids and event types.
	EventNameType = types.MustCreateString(sqltypes.VarChar, eventindex.MaxNameLen, sql.Collation_utf8mb4_0900_bin)
	eventIDType   = types.MustCreateString(sqltypes.Char, 36, sql.Collation_utf8mb4_0900_bin)
	eventTimeType = types.DatetimeMaxPrecision

	// EventTimeType is the type of the created column.
	EventTimeType = eventTimeType
)

// EventSchema is the schema of dolt_events and of the table functions'
// results. The columns the log assigns (position, category, created) and
// those an INSERT may leave out are nullable so that the engine passes
// NULL for them; stored events never hold NULL in position, stream_id,
// event_number, event_id, event_type, category or created.
func EventSchema(source string) sql.Schema {
	return sql.Schema{
		{Name: "position", Type: types.Uint64, PrimaryKey: true, Nullable: true, Source: source},
		{Name: "stream_id", Type: EventNameType, Source: source},
		{Name: "event_number", Type: types.Uint64, Nullable: true, Source: source},
		{Name: "event_id", Type: eventIDType, Nullable: true, Source: source},
		{Name: "event_type", Type: EventNameType, Source: source},
		{Name: "category", Type: EventNameType, Nullable: true, Source: source},
		{Name: "created", Type: eventTimeType, Nullable: true, Source: source},
		{Name: "data", Type: types.JSON, Nullable: true, Source: source},
		{Name: "metadata", Type: types.JSON, Nullable: true, Source: source},
	}
}

// Column ordinals of EventSchema.
const (
	colPosition = iota
	colStream
	colNumber
	colID
	colType
	colCategory
	colCreated
	colData
	colMetadata
)

// EventSchema's column ordinals, for callers that format events
// themselves (ReadEventPages).
const (
	EventColPosition = colPosition
	EventColStream   = colStream
	EventColNumber   = colNumber
	EventColID       = colID
	EventColType     = colType
	EventColCategory = colCategory
	EventColCreated  = colCreated
	EventColData     = colData
	EventColMetadata = colMetadata
)

// eventRows makes the rows of events (EventSchema) with few allocations:
// the rows' values and JSON documents are cut from arrays allocated per
// slab of rows, and the stream, category and type of an event that repeat
// the previous event's share their boxed values (a read of a category
// returns the events of a stream in runs, a read of a type one type). Each
// row is its own slice (capacity included), so a consumer that keeps or
// extends one touches no other. JSON columns pass their stored bytes
// through unparsed (JSON); empty ones are NULL.
type eventRows struct {
	vals          []any
	jsons         []rawJSON
	stream, typ   string
	streamV, catV any
	typV          any
}

// eventRowsSlab is the number of rows whose values eventRows allocates
// at once.
const eventRowsSlab = 128

// row returns the row of e.
func (r *eventRows) row(e *eventindex.Event) sql.Row {
	const n = colMetadata + 1
	if len(r.vals) < n {
		r.vals = make([]any, n*eventRowsSlab)
	}
	row := r.vals[:n:n]
	r.vals = r.vals[n:]
	r.fill(row, e)
	return row
}

// fill sets the columns of e in row (of at least EventSchema's length).
func (r *eventRows) fill(row sql.Row, e *eventindex.Event) {
	if r.streamV == nil || e.Stream != r.stream {
		r.stream, r.streamV, r.catV = e.Stream, e.Stream, eventindex.Category(e.Stream)
	}
	if r.typV == nil || e.Type != r.typ {
		r.typ, r.typV = e.Type, e.Type
	}
	row[colPosition] = uint64(e.Position)
	row[colStream] = r.streamV
	row[colNumber] = uint64(e.Number)
	row[colID] = e.ID.String()
	row[colType] = r.typV
	row[colCategory] = r.catV
	row[colCreated] = e.Created
	row[colData] = r.json(e.Data)
	row[colMetadata] = r.json(e.Metadata)
}

// json returns stored JSON b as the engine's value, cut from a slab; nil
// (NULL) when b is empty.
func (r *eventRows) json(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	if len(r.jsons) == 0 {
		r.jsons = make([]rawJSON, 2*eventRowsSlab)
	}
	j := &r.jsons[0]
	r.jsons = r.jsons[1:]
	j.b = b
	return j
}

// eventQuery is what an event read asks of the log: the conditions of
// a Filter, plus, on a stream, a range of event numbers. none marks a
// query that matches nothing (an empty range).
type eventQuery struct {
	f              eventindex.Filter
	numFrom, numTo uint64 // numFrom <= event number < numTo; numTo 0: no bound
	none           bool
}

// eventIter streams the events of queries, one after another, reading the
// log a page at a time.
type eventIter struct {
	log     eventindex.Log
	queries []eventQuery
	limit   int64 // rows still wanted; < 0: no limit
	// backwards reads each query from its highest position (or, on a
	// stream, event number) down.
	backwards bool

	// grow is the size of the next page when there is no limit: it starts
	// small, so that a LIMIT the engine applies above reads little, and
	// doubles up to eventPage.
	grow int

	buf  []eventindex.Event
	rows eventRows
	cur  int  // query being read
	next any  // where the current query continues: Position or EventNumber
	done bool // the current query has no more pages
}

func newEventIter(log eventindex.Log, queries []eventQuery, limit int64) *eventIter {
	return &eventIter{log: log, queries: queries, limit: limit, grow: 64}
}

// Next implements sql.RowIter.
func (it *eventIter) Next(ctx *sql.Context) (sql.Row, error) {
	if err := it.ready(ctx); err != nil {
		return nil, err
	}
	e := &it.buf[0]
	it.buf = it.buf[1:]
	if it.limit > 0 {
		it.limit--
	}
	return it.rows.row(e), nil
}

// page returns the rest of the page read last (reading the next when it
// is all returned), as many events as the limit leaves, or io.EOF.
func (it *eventIter) page(ctx *sql.Context) ([]eventindex.Event, error) {
	if err := it.ready(ctx); err != nil {
		return nil, err
	}
	evs := it.buf
	if it.limit >= 0 && int64(len(evs)) > it.limit {
		evs = evs[:it.limit]
	}
	it.buf = it.buf[len(evs):]
	if it.limit > 0 {
		it.limit -= int64(len(evs))
	}
	return evs, nil
}

// ready reads pages until one holds an event to return, or returns
// io.EOF.
func (it *eventIter) ready(ctx *sql.Context) error {
	for len(it.buf) == 0 {
		if it.limit == 0 || it.cur >= len(it.queries) {
			return io.EOF
		}
		if it.done {
			it.cur, it.next, it.done = it.cur+1, nil, false
			continue
		}
		if err := it.fill(ctx); err != nil {
			return err
		}
	}
	return nil
}

// fill reads the next page of the current query.
func (it *eventIter) fill(ctx *sql.Context) error {
	q := &it.queries[it.cur]
	if q.none {
		it.done = true
		return nil
	}
	page := eventPage
	if it.limit > 0 && it.limit < int64(page) {
		page = int(it.limit)
	}
	if it.limit < 0 {
		page = it.grow
		it.grow = min(2*it.grow, eventPage)
	}
	if q.f.Stream == "" && it.backwards {
		f := q.f
		if p, ok := it.next.(eventindex.Position); ok {
			f.To = p
		}
		evs, next, err := it.log.ReadBackwards(ctx, f, page)
		if err != nil {
			return err
		}
		it.buf, it.next, it.done = evs, next, next == 0
		return nil
	}
	if q.f.Stream == "" {
		f := q.f
		if p, ok := it.next.(eventindex.Position); ok {
			f.From = p
		}
		evs, next, err := it.log.Read(ctx, f, page)
		if err != nil {
			return err
		}
		it.buf, it.next, it.done = evs, next, len(evs) < page
		return nil
	}
	// A stream: read its index from the wanted number, then check the
	// other conditions.
	from := eventindex.EventNumber(q.numFrom)
	if it.backwards {
		from = ^eventindex.EventNumber(0)
		if q.numTo != 0 {
			from = eventindex.EventNumber(q.numTo - 1)
		}
	}
	if n, ok := it.next.(eventindex.EventNumber); ok {
		from = n
	}
	evs, err := it.log.ReadStream(ctx, q.f.Stream, from, page, it.backwards)
	if errors.Is(err, eventindex.ErrStreamNotFound) {
		it.done = true
		return nil
	}
	if err != nil {
		return err
	}
	it.done = len(evs) < page
	if len(evs) > 0 {
		last := evs[len(evs)-1].Number
		if it.backwards {
			if last == 0 {
				it.done = true
			}
			it.next = last - 1
		} else {
			it.next = last + 1
		}
	}
	out := evs[:0]
	for i := range evs {
		e := &evs[i]
		n := uint64(e.Number)
		if (!it.backwards && q.numTo != 0 && n >= q.numTo) || (it.backwards && n < q.numFrom) {
			it.done = true
			break
		}
		if n < q.numFrom || (q.numTo != 0 && n >= q.numTo) || !q.f.Match(e) {
			continue
		}
		out = append(out, *e)
	}
	it.buf = out
	return nil
}

// Close implements sql.RowIter.
func (it *eventIter) Close(*sql.Context) error { return nil }

// eventsTable is dolt_events: one row per event of the log, in position
// order, with the indexes of events_index.go. INSERT appends
// (events_write.go); UPDATE, DELETE and TRUNCATE are refused.
type eventsTable struct {
	src     eventSource
	queries []eventQuery // set on a table returned by IndexedAccess
	lookup  *sql.IndexLookup
}

var (
	_ sql.Table                 = (*eventsTable)(nil)
	_ sql.TemporaryTable        = (*eventsTable)(nil)
	_ sql.PrimaryKeyTable       = (*eventsTable)(nil)
	_ sql.StatisticsTable       = (*eventsTable)(nil)
	_ sql.InsertableTable       = (*eventsTable)(nil)
	_ sql.UpdatableTable        = (*eventsTable)(nil)
	_ sql.DeletableTable        = (*eventsTable)(nil)
	_ sql.TruncateableTable     = (*eventsTable)(nil)
	_ sql.IndexAddressableTable = (*eventsTable)(nil)
	_ sql.IndexedTable          = (*eventsTable)(nil)
	_ sql.IndexSearchableTable  = (*eventsTable)(nil)
)

func (t *eventsTable) Name() string                   { return EventsTable }
func (t *eventsTable) String() string                 { return EventsTable }
func (t *eventsTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *eventsTable) IsTemporary() bool              { return false }
func (t *eventsTable) Schema(*sql.Context) sql.Schema { return eventsSchema }

var eventsSchema = EventSchema(EventsTable)

// PrimaryKeySchema implements sql.PrimaryKeyTable: position is the key.
func (t *eventsTable) PrimaryKeySchema(*sql.Context) sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(eventsSchema, 0)
}

// RowCount implements sql.StatisticsTable: the log's event count, O(1)
// (events past their max age and not yet swept count).
func (t *eventsTable) RowCount(ctx *sql.Context) (uint64, bool, error) {
	l, err := t.src.log(ctx)
	if err != nil {
		return 0, false, err
	}
	return l.Count(), false, nil
}

// DataLength implements sql.StatisticsTable (an estimate).
func (t *eventsTable) DataLength(ctx *sql.Context) (uint64, error) {
	n, _, err := t.RowCount(ctx)
	return n * 512, err
}

// eventPartition is the one partition of a read: the whole log, or the
// queries of an index lookup.
type eventPartition struct {
	queries []eventQuery
	reverse bool // descending positions (or event numbers)
}

func (eventPartition) Key() []byte { return []byte("events") }

// Partitions implements sql.Table.
func (t *eventsTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(eventPartition{queries: t.queries}), nil
}

// PartitionRows implements sql.Table.
func (t *eventsTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	l, err := t.src.log(ctx)
	if err != nil {
		return nil, err
	}
	qs := []eventQuery{{}}
	reverse := false
	if ep, ok := p.(eventPartition); ok && ep.queries != nil {
		qs, reverse = ep.queries, ep.reverse
	}
	it := newEventIter(l, qs, -1)
	it.backwards = reverse
	return it, nil
}

// writable returns the transaction the table's writes go to, or an error
// for a table read at a fixed root or in a READ ONLY transaction.
func (s eventSource) writable(ctx *sql.Context) (*verso.Txn, error) {
	if s.root != nil {
		return nil, fmt.Errorf("verso: the event log AS OF a commit is read-only")
	}
	if tx := ctx.GetTransaction(); tx != nil && tx.IsReadOnly() {
		return nil, ErrEventsReadOnlyTx
	}
	return s.v.Session.Txn(ctx)
}
