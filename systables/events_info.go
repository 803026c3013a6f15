package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/eventindex"
)

// dolt_streams: one row per stream with a record (written, given
// metadata, or deleted), in stream order:
//
//	stream_id          the stream
//	category           its category
//	event_count        events stored (expired ones not yet swept count)
//	first_event_number lowest number stored, NULL if none
//	last_event_number  highest number stored, NULL if none
//	version            what an expected version is checked against: the
//	                   last number appended, -1 if none (or soft deleted
//	                   since)
//	max_count, max_age (seconds), truncate_before   retention, NULL if unset
//	deleted            'soft', 'hard' or NULL
//
// dolt_event_stats: what KurrentDB's stats page shows, as rows: one for
// the whole log (both NULL), one per category (event_type NULL), one per
// event type (category NULL), and one per (category, event type) pair
// with events (both set), each with the event count and the first and
// last position and created time. Its cost is O(log n) per category, type
// and pair (index counts, not scans; the pairs from events/by-pair: a log
// written before that index is read whole for them until rebuilt).

var streamsSchema = sql.Schema{
	{Name: "stream_id", Type: EventNameType, PrimaryKey: true, Source: StreamsName},
	{Name: "category", Type: EventNameType, Source: StreamsName},
	{Name: "event_count", Type: types.Uint64, Source: StreamsName},
	{Name: "first_event_number", Type: types.Uint64, Nullable: true, Source: StreamsName},
	{Name: "last_event_number", Type: types.Uint64, Nullable: true, Source: StreamsName},
	{Name: "version", Type: types.Int64, Source: StreamsName},
	{Name: "max_count", Type: types.Uint64, Nullable: true, Source: StreamsName},
	{Name: "max_age", Type: types.Float64, Nullable: true, Source: StreamsName},
	{Name: "truncate_before", Type: types.Uint64, Nullable: true, Source: StreamsName},
	{Name: "deleted", Type: types.Text, Nullable: true, Source: StreamsName},
}

var eventStatsSchema = sql.Schema{
	{Name: "category", Type: EventNameType, Nullable: true, Source: EventStatsName},
	{Name: "event_type", Type: EventNameType, Nullable: true, Source: EventStatsName},
	{Name: "event_count", Type: types.Uint64, Source: EventStatsName},
	{Name: "first_position", Type: types.Uint64, Nullable: true, Source: EventStatsName},
	{Name: "last_position", Type: types.Uint64, Nullable: true, Source: EventStatsName},
	{Name: "first_created", Type: eventTimeType, Nullable: true, Source: EventStatsName},
	{Name: "last_created", Type: eventTimeType, Nullable: true, Source: EventStatsName},
}

// infoTable is a read-only table whose rows are computed from the log in
// one go (dolt_streams, dolt_event_stats).
type infoTable struct {
	name string
	sch  sql.Schema
	src  eventSource
	rows func(*sql.Context, eventindex.Log) ([]sql.Row, error)
}

func newStreamsTable(src eventSource) *infoTable {
	return &infoTable{name: StreamsName, sch: streamsSchema, src: src, rows: streamRows}
}

func newEventStatsTable(src eventSource) *infoTable {
	return &infoTable{name: EventStatsName, sch: eventStatsSchema, src: src, rows: eventStatsRows}
}

var _ sql.Table = (*infoTable)(nil)

func (t *infoTable) Name() string                   { return t.name }
func (t *infoTable) String() string                 { return t.name }
func (t *infoTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *infoTable) IsTemporary() bool              { return false }
func (t *infoTable) Schema(*sql.Context) sql.Schema { return t.sch }

func (t *infoTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(eventPartition{}), nil
}

func (t *infoTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	l, err := t.src.log(ctx)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	if sl, ok := p.(streamsLookup); ok {
		rows, err = lookupStreamRows(ctx, l, sl.streams)
	} else {
		rows, err = t.rows(ctx, l)
	}
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

func streamRows(ctx *sql.Context, l eventindex.Log) ([]sql.Row, error) {
	var out []sql.Row
	err := l.Streams(ctx, func(s eventindex.StreamInfo) error {
		out = append(out, streamRow(s))
		return nil
	})
	return out, err
}

// streamRow returns the dolt_streams row of a stream.
func streamRow(s eventindex.StreamInfo) sql.Row {
	row := sql.Row{s.Stream, eventindex.Category(s.Stream), uint64(0), nil, nil, s.Version}
	if s.First < s.Next {
		row[2] = uint64(s.Next - s.First)
		row[3], row[4] = uint64(s.First), uint64(s.Next-1)
	}
	row = append(row, RetentionValues(s.Metadata)...)
	switch {
	case s.HardDeleted:
		row = append(row, "hard")
	case s.SoftDeleted:
		row = append(row, "soft")
	default:
		row = append(row, nil)
	}
	return row
}

func eventStatsRows(ctx *sql.Context, l eventindex.Log) ([]sql.Row, error) {
	st, err := l.Stats(ctx)
	if err != nil {
		return nil, err
	}
	total := sql.Row{nil, nil, st.Events, nil, nil, nil, nil}
	var out []sql.Row
	first := true
	for _, c := range st.Categories {
		out = append(out, sql.Row{c.Name, nil, c.Count, uint64(c.FirstPosition), uint64(c.LastPosition), c.FirstCreated, c.LastCreated})
		if first || uint64(c.FirstPosition) < total[3].(uint64) {
			total[3], total[5] = uint64(c.FirstPosition), c.FirstCreated
		}
		if first || uint64(c.LastPosition) > total[4].(uint64) {
			total[4], total[6] = uint64(c.LastPosition), c.LastCreated
		}
		first = false
	}
	for _, ty := range st.Types {
		out = append(out, sql.Row{nil, ty.Name, ty.Count, uint64(ty.FirstPosition), uint64(ty.LastPosition), ty.FirstCreated, ty.LastCreated})
	}
	pairs, err := l.PairStats(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		out = append(out, sql.Row{p.Category, p.Type, p.Count, uint64(p.FirstPosition), uint64(p.LastPosition), p.FirstCreated, p.LastCreated})
	}
	return append([]sql.Row{total}, out...), nil
}

// RetentionValues returns max_count, max_age (seconds) and
// truncate_before, NULL when unset: dolt_streams' columns, and those of
// the procedure dolt_stream_metadata's result.
func RetentionValues(md eventindex.StreamMetadata) sql.Row {
	row := sql.Row{nil, nil, nil}
	if md.MaxCount > 0 {
		row[0] = md.MaxCount
	}
	if md.MaxAge > 0 {
		row[1] = md.MaxAge.Seconds()
	}
	if md.TruncateBefore > 0 {
		row[2] = uint64(md.TruncateBefore)
	}
	return row
}
