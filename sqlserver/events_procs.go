package sqlserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/systables"
)

// The event procedures:
//
//	CALL dolt_append_events(stream, expected_version, events_json_array)
//	CALL dolt_stream_metadata(stream, json)
//	CALL dolt_delete_stream(stream [, '--hard'])
//
// Each writes one Batch into the session transaction's log (events_write.go).

// eventProcedures are the procedures of the event log; dolt_delete_stream
// has two signatures (with and without its mode).
var eventProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_append_events", Function: appendEventsProc, Schema: appendEventsSchema},
	{Name: "dolt_stream_metadata", Function: streamMetadataProc, Schema: streamMetadataSchema},
	{Name: "dolt_delete_stream", Function: deleteStreamProc, Schema: deleteStreamSchema},
	{Name: "dolt_delete_stream", Function: deleteStreamModeProc, Schema: deleteStreamSchema},
}

var (
	appendEventsSchema = sql.Schema{
		{Name: "first_position", Type: types.Uint64, Nullable: true},
		{Name: "last_position", Type: types.Uint64, Nullable: true},
		{Name: "version", Type: types.Int64},
	}
	streamMetadataSchema = sql.Schema{
		{Name: "stream_id", Type: systables.EventNameType},
		{Name: "max_count", Type: types.Uint64, Nullable: true},
		{Name: "max_age", Type: types.Float64, Nullable: true},
		{Name: "truncate_before", Type: types.Uint64, Nullable: true},
	}
	deleteStreamSchema = sql.Schema{
		{Name: "stream_id", Type: systables.EventNameType},
		{Name: "deleted", Type: types.Text},
	}
)

// currentEventDB returns the session's current database, whose log the
// procedures write.
func currentEventDB(ctx *sql.Context) (*Database, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, fmt.Errorf("verso: session %T is not a verso session", ctx.Session)
	}
	name := ctx.GetCurrentDatabase()
	if name == "" {
		return nil, sql.ErrNoDatabaseSelected.New()
	}
	db, err := s.p.Database(ctx, name)
	if err != nil {
		return nil, err
	}
	vdb, ok := db.(*Database)
	if !ok || vdb.temp {
		return nil, fmt.Errorf("verso: database %q holds no event log", name)
	}
	return vdb, nil
}

// writeEvents runs fn on a Batch of the transaction's log and puts the
// Log it makes into the transaction's root. If fn fails, nothing changes.
func writeEvents(ctx *sql.Context, db *Database, fn func(*eventindex.Batch) error) error {
	tx, err := transaction(ctx)
	if err != nil {
		return err
	}
	if tx.readOnly {
		return systables.ErrEventsReadOnlyTx
	}
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	return d.WriteEvents(ctx, fn)
}

// parseExpectedVersion reads 'any', 'no_stream', 'stream_exists' or an
// event number.
func parseExpectedVersion(s string) (eventindex.ExpectedVersion, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "any":
		return eventindex.Any, nil
	case "no_stream":
		return eventindex.NoStream, nil
	case "stream_exists":
		return eventindex.StreamExists, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 63)
	if err != nil {
		return 0, fmt.Errorf("verso: expected version %q: use 'any', 'no_stream', 'stream_exists' or the number of the stream's last event (0 or more)", s)
	}
	return eventindex.Exact(eventindex.EventNumber(n)), nil
}

// appendedEvent is one element of dolt_append_events' array.
type appendedEvent struct {
	EventType *string         `json:"event_type"`
	Data      json.RawMessage `json:"data"`
	Metadata  json.RawMessage `json:"metadata"`
	EventID   *string         `json:"event_id"`
}

const appendHelp = `give a JSON array of objects {"event_type": "...", "data": {...}, "metadata": {...}, "event_id": "uuid"} (metadata and event_id optional)`

// parseAppendedEvents reads dolt_append_events' array.
func parseAppendedEvents(s string) ([]eventindex.EventData, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	var raw []appendedEvent
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("verso: dolt_append_events: events are not a JSON array of events (%v): %s", err, appendHelp)
	}
	if dec.More() {
		return nil, fmt.Errorf("verso: dolt_append_events: text after the events' JSON array: %s", appendHelp)
	}
	out := make([]eventindex.EventData, len(raw))
	for i, r := range raw {
		if r.EventType == nil {
			return nil, fmt.Errorf("verso: dolt_append_events: event %d has no \"event_type\": %s", i, appendHelp)
		}
		out[i].Type = *r.EventType
		out[i].Data = compactJSON(r.Data)
		out[i].Metadata = compactJSON(r.Metadata)
		if r.EventID != nil {
			id, err := eventindex.ParseEventID(*r.EventID)
			if err != nil {
				return nil, fmt.Errorf("verso: dolt_append_events: event %d: event_id %q is not a UUID (leave it out to have one generated)", i, *r.EventID)
			}
			out[i].ID = id
		}
	}
	return out, nil
}

// compactJSON returns raw JSON without insignificant spaces; JSON null is
// no value.
func compactJSON(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw // the decoder checked it; eventindex checks again
	}
	return b.Bytes()
}

func appendEventsProc(ctx *sql.Context, stream, expected, events string) (sql.RowIter, error) {
	db, err := currentEventDB(ctx)
	if err != nil {
		return nil, err
	}
	exp, err := parseExpectedVersion(expected)
	if err != nil {
		return nil, err
	}
	evs, err := parseAppendedEvents(events)
	if err != nil {
		return nil, err
	}
	var res eventindex.AppendResult
	err = writeEvents(ctx, db, func(b *eventindex.Batch) error {
		var err error
		res, err = b.Append(ctx, stream, exp, evs)
		return systables.EventsError(err)
	})
	if err != nil {
		return nil, err
	}
	row := sql.Row{nil, nil, int64(res.NextExpected)}
	if n := len(res.Positions); n > 0 {
		row[0], row[1] = uint64(res.Positions[0]), uint64(res.Positions[n-1])
	}
	return sql.RowsToRowIter(row), nil
}

const metadataHelp = `give a JSON object with any of "$maxCount" (events to keep), "$maxAge" (seconds) and "$tb" (the first event number to keep); null or absent unsets one`

// parseStreamMetadata reads dolt_stream_metadata's JSON object.
func parseStreamMetadata(s string) (eventindex.StreamMetadata, error) {
	var md eventindex.StreamMetadata
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return md, fmt.Errorf("verso: dolt_stream_metadata: metadata is not a JSON object: %s", metadataHelp)
	}
	for k, v := range obj {
		if v == nil {
			continue
		}
		num, ok := v.(json.Number)
		if !ok {
			return md, fmt.Errorf("verso: dolt_stream_metadata: %q must be a number: %s", k, metadataHelp)
		}
		switch k {
		case "$maxCount", "$tb":
			n, err := strconv.ParseUint(num.String(), 10, 63)
			if err != nil {
				return md, fmt.Errorf("verso: dolt_stream_metadata: %q must be a whole number, 0 or more (got %s)", k, num)
			}
			if k == "$maxCount" {
				md.MaxCount = n
			} else {
				md.TruncateBefore = eventindex.EventNumber(n)
			}
		case "$maxAge":
			f, err := num.Float64()
			if err != nil || f < 0 || f > math.MaxInt64/1e9 {
				return md, fmt.Errorf("verso: dolt_stream_metadata: \"$maxAge\" must be a number of seconds, 0 or more (got %s)", num)
			}
			md.MaxAge = time.Duration(f * float64(time.Second)).Truncate(time.Microsecond)
			if f > 0 && md.MaxAge == 0 {
				return md, fmt.Errorf("verso: dolt_stream_metadata: \"$maxAge\" %s is below a microsecond", num)
			}
		default:
			return md, fmt.Errorf("verso: dolt_stream_metadata: unknown key %q: %s", k, metadataHelp)
		}
	}
	return md, nil
}

func streamMetadataProc(ctx *sql.Context, stream, metadata string) (sql.RowIter, error) {
	db, err := currentEventDB(ctx)
	if err != nil {
		return nil, err
	}
	md, err := parseStreamMetadata(metadata)
	if err != nil {
		return nil, err
	}
	err = writeEvents(ctx, db, func(b *eventindex.Batch) error {
		return systables.EventsError(b.SetStreamMetadata(ctx, stream, md))
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(append(sql.Row{stream}, systables.RetentionValues(md)...)), nil
}

func deleteStreamProc(ctx *sql.Context, stream string) (sql.RowIter, error) {
	return deleteStream(ctx, stream, false)
}

func deleteStreamModeProc(ctx *sql.Context, stream, mode string) (sql.RowIter, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "--hard":
		return deleteStream(ctx, stream, true)
	case "--soft", "":
		return deleteStream(ctx, stream, false)
	}
	return nil, fmt.Errorf("verso: dolt_delete_stream: unknown option %q: use '--hard' to delete the stream for good, or leave it out for a soft delete", mode)
}

func deleteStream(ctx *sql.Context, stream string, hard bool) (sql.RowIter, error) {
	db, err := currentEventDB(ctx)
	if err != nil {
		return nil, err
	}
	err = writeEvents(ctx, db, func(b *eventindex.Batch) error {
		return systables.EventsError(b.DeleteStream(ctx, stream, eventindex.Any, hard))
	})
	if err != nil {
		return nil, err
	}
	kind := "soft"
	if hard {
		kind = "hard"
	}
	return sql.RowsToRowIter(sql.Row{stream, kind}), nil
}
