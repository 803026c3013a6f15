package sqlserver

import (
	"strings"
	"testing"
)

// TestEventErrors runs each bad input against a database holding a few
// events and checks that it fails with a message that says what is wrong
// and what to do, and that it changed nothing.
func TestEventErrors(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCreated"}, {"event_type": "OrderPaid"}]')`)
	env.exec(ctx, `CALL dolt_append_events('Gone-1', 'any', '[{"event_type": "A"}]')`)
	env.exec(ctx, `CALL dolt_delete_stream('Gone-1', '--hard')`)
	for _, c := range []struct {
		q    string
		want []string // substrings of the message, all of them
	}{
		// Reserved names.
		{`CALL dolt_append_events('$system', 'any', '[{"event_type": "A"}]')`, []string{`"$system" begins with '$'`, "reserved for the system, choose another"}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "$A"}]')`, []string{`event type "$A"`, "reserved"}},
		{`INSERT INTO dolt_events (stream_id, event_type) VALUES ('$x', 'A')`, []string{`"$x" begins with '$'`, "reserved"}},
		{`INSERT INTO dolt_events (stream_id, event_type) VALUES ('x', '$A')`, []string{`"$A" begins with '$'`}},
		{`CALL dolt_stream_metadata('$all', '{"$maxCount": 1}')`, []string{"reserved"}},
		{`CALL dolt_delete_stream('$x')`, []string{"reserved"}},
		// Bad names.
		{`CALL dolt_append_events('', 'any', '[{"event_type": "A"}]')`, []string{"bad name", "1 to 512 bytes"}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": ""}]')`, []string{"bad name", "event type"}},
		// Bad JSON.
		{`CALL dolt_append_events('Order-1', 'any', 'not json')`, []string{"not a JSON array of events", `"event_type"`}},
		{`CALL dolt_append_events('Order-1', 'any', '{"event_type": "A"}')`, []string{"not a JSON array of events"}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"type": "A"}]')`, []string{`unknown field "type"`, `{"event_type": "...", "data"`}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"data": {}}]')`, []string{`event 0 has no "event_type"`}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A", "data": {"x": }}]')`, []string{"not a JSON array of events"}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A"}] trailing')`, []string{"text after the events' JSON array"}},
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A", "event_id": "nope"}]')`, []string{`event_id "nope" is not a UUID`, "leave it out"}},
		{`INSERT INTO dolt_events (stream_id, event_type, data) VALUES ('x', 'A', '{bad')`, []string{"Invalid JSON"}},
		{`CALL dolt_stream_metadata('Order-1', 'nope')`, []string{"not a JSON object", "$maxCount"}},
		// Expected versions.
		{`CALL dolt_append_events('Order-1', 'sometimes', '[{"event_type": "A"}]')`, []string{`expected version "sometimes"`, "'any', 'no_stream', 'stream_exists'"}},
		{`CALL dolt_append_events('Order-1', '-3', '[{"event_type": "A"}]')`, []string{`expected version "-3"`}},
		{`CALL dolt_append_events('Order-1', '0', '[{"event_type": "A"}]')`, []string{`wrong expected version for stream "Order-1": expected 0, actual 1`, "dolt_streams"}},
		{`CALL dolt_append_events('Order-1', 'no_stream', '[{"event_type": "A"}]')`, []string{`stream "Order-1": expected no stream, actual 1`}},
		{`CALL dolt_append_events('New-1', 'stream_exists', '[{"event_type": "A"}]')`, []string{`stream "New-1": expected stream exists, actual -1`}},
		{`INSERT INTO dolt_events (stream_id, event_number, event_type) VALUES ('Order-1', 7, 'A')`, []string{`stream "Order-1": expected 6, actual 1`}},
		{`INSERT INTO dolt_events (stream_id, event_number, event_type) VALUES ('Order-1', 0, 'A')`, []string{`stream "Order-1": expected no stream, actual 1`}},
		// Hard-deleted streams.
		{`CALL dolt_append_events('Gone-1', 'any', '[{"event_type": "A"}]')`, []string{"stream is deleted", "can never be written again"}},
		{`INSERT INTO dolt_events (stream_id, event_type) VALUES ('Gone-1', 'A')`, []string{"stream is deleted"}},
		{`CALL dolt_stream_metadata('Gone-1', '{"$maxCount": 1}')`, []string{"stream is deleted"}},
		// Duplicate event ids.
		{`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A", "event_id": "11111111-2222-4333-8444-555555555555"}, {"event_type": "B", "event_id": "11111111-2222-4333-8444-555555555555"}]')`, []string{"duplicate event id", "twice in one append"}},
		// Columns the log assigns.
		{`INSERT INTO dolt_events (position, stream_id, event_type) VALUES (9, 'x', 'A')`, []string{"position is assigned by the log", "leave it out"}},
		{`INSERT INTO dolt_events (stream_id, event_type, created) VALUES ('x', 'A', NOW())`, []string{"created is set by the log"}},
		{`INSERT INTO dolt_events (stream_id, event_type, category) VALUES ('Order-9', 'A', 'User')`, []string{`the category of stream "Order-9" is "Order"`, "leave category out"}},
		{`INSERT INTO dolt_events (stream_id, event_type, event_id) VALUES ('x', 'A', 'zzz')`, []string{`event_id "zzz" is not a UUID`}},
		{`INSERT INTO dolt_events (event_type) VALUES ('A')`, []string{"Field 'stream_id' doesn't have a default value"}},
		{`INSERT INTO dolt_events (stream_id) VALUES ('x')`, []string{"Field 'event_type' doesn't have a default value"}},
		// Immutable events.
		{`UPDATE dolt_events SET event_type = 'X' WHERE position = 1`, []string{"events cannot be updated or deleted", "dolt_stream_metadata", "dolt_delete_stream"}},
		{`UPDATE dolt_events SET event_type = 'X' WHERE position = 999`, []string{"events cannot be updated or deleted"}},
		{`DELETE FROM dolt_events WHERE stream_id = 'Order-1'`, []string{"events cannot be updated or deleted", "retention procedures"}},
		{`DELETE FROM dolt_events`, []string{"events cannot be updated or deleted"}},
		{`TRUNCATE TABLE dolt_events`, []string{"events cannot be updated or deleted"}},
		{`INSERT INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'A') ON DUPLICATE KEY UPDATE event_type = 'B'`, []string{"events cannot be updated or deleted"}},
		{`REPLACE INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'A')`, []string{"doesn't support REPLACE INTO"}},
		// Stream metadata.
		{`CALL dolt_stream_metadata('Order-1', '{"$maxCount": -1}')`, []string{`"$maxCount" must be a whole number, 0 or more`}},
		{`CALL dolt_stream_metadata('Order-1', '{"$maxAge": "1h"}')`, []string{`"$maxAge" must be a number`}},
		{`CALL dolt_stream_metadata('Order-1', '{"$acl": 1}')`, []string{`unknown key "$acl"`, `"$maxCount" (events to keep), "$maxAge" (seconds) and "$tb"`}},
		{`CALL dolt_delete_stream('Order-1', '--force')`, []string{`unknown option "--force"`, "'--hard'"}},
		{`CALL dolt_delete_stream('Never-1')`, []string{"stream not found", "Never-1"}},
		// Read filters and counts.
		{`SELECT * FROM dolt_read_all('$idx-xx-Order')`, []string{`unknown filter "$idx-xx-Order"`, "'$idx-ce-<category>'"}},
		{`SELECT * FROM dolt_read_all('$bogus')`, []string{`unknown filter "$bogus"`}},
		{`SELECT * FROM dolt_read_all('$idx-ce-Order&$nope')`, []string{`unknown filter "$nope"`}},
		{`SELECT * FROM dolt_read_all('$idx-ce-Order&$idx-ce-User')`, []string{`two categories ("Order" and "User") cannot both hold`}},
		{`SELECT * FROM dolt_read_all('')`, []string{"empty filter", "'$all'"}},
		{`SELECT * FROM dolt_read_all('{"categori": "Order"}')`, []string{"bad JSON filter", `unknown field "categori"`}},
		{`SELECT * FROM dolt_read_all('{"to_position": -1}')`, []string{"to_position -1 is negative"}},
		{`SELECT * FROM dolt_read_all('$all', -1, 10)`, []string{"from -1 is negative", "give 0 or more"}},
		{`SELECT * FROM dolt_read_all('$all', 0, -5)`, []string{"max_count -5 is negative", "dolt_read_all(filter [, from_position [, max_count]])"}},
		{`SELECT * FROM dolt_read_all('$all', 'abc')`, []string{"not a number"}},
		{`SELECT * FROM dolt_read_all(NULL)`, []string{"the filter must be a string"}},
		{`SELECT * FROM dolt_read_all()`, []string{"dolt_read_all", "1 to 3"}},
		{`SELECT * FROM dolt_read_stream('Order-1', -1)`, []string{"from_event_number -1 is negative", "NULL for the start"}},
		{`SELECT * FROM dolt_read_stream('Order-1', 0, -1)`, []string{"max_count -1 is negative"}},
		{`SELECT * FROM dolt_read_stream('Order-1', 0, 10, 'sideways')`, []string{"direction sideways", "'backwards'"}},
		{`SELECT * FROM dolt_read_stream('Never-1')`, []string{"stream not found", "Never-1"}},
		{`SELECT * FROM dolt_read_stream('Order-1', 0, 1, 'backwards', 5)`, []string{"1 to 4"}},
	} {
		_, err := env.query(ctx, c.q)
		if err == nil {
			t.Errorf("%s: no error, want one saying %q", c.q, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s:\n got %v\nwant it to say %q", c.q, err, w)
			}
		}
		if testing.Verbose() {
			t.Logf("%s\n  -> %v", c.q, err)
		}
	}
	// Nothing changed.
	env.check(ctx, "SELECT stream_id, event_number, event_type FROM dolt_events", "[Order-1 0 OrderCreated] [Order-1 1 OrderPaid]")
	env.check(ctx, "SELECT stream_id, version, deleted FROM dolt_streams", "[Gone-1 0 hard] [Order-1 1 NULL]")
}

// TestEventsReadOnlyTransaction checks that event writes are refused in a
// READ ONLY transaction and that reads work there.
func TestEventsReadOnlyTransaction(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CALL dolt_append_events('A-1', 'any', '[{"event_type": "A"}]')`)
	env.exec(ctx, "START TRANSACTION READ ONLY")
	for _, q := range []string{
		`CALL dolt_append_events('A-1', 'any', '[{"event_type": "A"}]')`,
		`CALL dolt_stream_metadata('A-1', '{"$maxCount": 1}')`,
		`CALL dolt_delete_stream('A-1')`,
	} {
		if _, err := env.query(ctx, q); err == nil || !strings.Contains(err.Error(), "READ ONLY") {
			t.Errorf("%s in a READ ONLY transaction: %v", q, err)
		}
	}
	if _, err := env.query(ctx, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('A-1', 'A')`); err == nil {
		t.Errorf("INSERT in a READ ONLY transaction succeeded")
	}
	env.check(ctx, "SELECT count(*) FROM dolt_events", "[1]")
	env.exec(ctx, "COMMIT")
}
