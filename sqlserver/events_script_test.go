package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// eventScripts are the SQL surface of the event log as the engine's script
// tests: each runs on a fresh database (mydb), as plain and as prepared
// statements. Errors are tested in events_errors_test.go, where messages
// are matched in part.
var eventScripts = []queries.ScriptTest{
	{
		Name: "dolt_events: a multi-row INSERT appends one batch",
		SetUpScript: []string{
			`INSERT INTO dolt_events (stream_id, event_type, data) VALUES
				('Order-1', 'OrderCreated', '{"n": 1}'),
				('Order-2', 'OrderCreated', '{"n": 2}'),
				('Order-1', 'OrderPaid', '{"n": 3}'),
				('Payment-1', 'PaymentTaken', NULL)`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{
				Query: "SELECT position, stream_id, event_number, event_type, category, CAST(data AS CHAR), metadata FROM dolt_events",
				Expected: []sql.Row{
					{uint64(1), "Order-1", uint64(0), "OrderCreated", "Order", `{"n": 1}`, nil},
					{uint64(2), "Order-2", uint64(0), "OrderCreated", "Order", `{"n": 2}`, nil},
					{uint64(3), "Order-1", uint64(1), "OrderPaid", "Order", `{"n": 3}`, nil},
					{uint64(4), "Payment-1", uint64(0), "PaymentTaken", "Payment", nil, nil},
				},
			},
			{Query: "SELECT count(*) FROM dolt_events", Expected: []sql.Row{{4}}},
			{Query: "SELECT count(*) FROM dolt_events WHERE length(event_id) = 36 AND created IS NOT NULL", Expected: []sql.Row{{4}}},
			{Query: "SELECT position FROM dolt_events WHERE category = 'Order'", Expected: []sql.Row{{uint64(1)}, {uint64(2)}, {uint64(3)}}},
			{Query: "SELECT position FROM dolt_events WHERE event_type = 'OrderCreated'", Expected: []sql.Row{{uint64(1)}, {uint64(2)}}},
			{Query: "SELECT position FROM dolt_events WHERE category = 'Order' AND event_type = 'OrderPaid'", Expected: []sql.Row{{uint64(3)}}},
			{Query: "SELECT position FROM dolt_events WHERE category = 'Order' AND event_type = 'PaymentTaken'", Expected: []sql.Row{}},
			{Query: "SELECT position FROM dolt_events WHERE category IN ('Order', 'Payment') AND position >= 3", Expected: []sql.Row{{uint64(3)}, {uint64(4)}}},
			{Query: "SELECT position FROM dolt_events WHERE event_type = 'OrderCreated' AND position > 1 AND position < 10", Expected: []sql.Row{{uint64(2)}}},
			{Query: "SELECT event_number FROM dolt_events WHERE stream_id = 'Order-1'", Expected: []sql.Row{{uint64(0)}, {uint64(1)}}},
			{Query: "SELECT position FROM dolt_events WHERE stream_id = 'Order-1' AND event_number = 1", Expected: []sql.Row{{uint64(3)}}},
			{Query: "SELECT position FROM dolt_events WHERE stream_id = 'Order-1' AND event_number >= 1 AND category = 'Order'", Expected: []sql.Row{{uint64(3)}}},
			{Query: "SELECT position FROM dolt_events WHERE stream_id IN ('Order-2', 'Payment-1') ORDER BY position", Expected: []sql.Row{{uint64(2)}, {uint64(4)}}},
			{Query: "SELECT stream_id FROM dolt_events WHERE position = 2", Expected: []sql.Row{{"Order-2"}}},
			{Query: "SELECT position FROM dolt_events WHERE position BETWEEN 2 AND 3", Expected: []sql.Row{{uint64(2)}, {uint64(3)}}},
			{Query: "SELECT position FROM dolt_events WHERE position > 3.5", Expected: []sql.Row{{uint64(4)}}},
			{Query: "SELECT position FROM dolt_events WHERE position < 0", Expected: []sql.Row{}},
			{Query: "SELECT position FROM dolt_events WHERE stream_id = 'nope'", Expected: []sql.Row{}},
			{Query: "SELECT position FROM dolt_events WHERE category = 'order'", Expected: []sql.Row{}}, // names compare binary
			{Query: "SELECT CAST(JSON_EXTRACT(data, '$.n') AS CHAR) FROM dolt_events WHERE position = 3", Expected: []sql.Row{{"3"}}},
			{
				// A join on the stream index (a lookup per row of the other side).
				Query:    "SELECT e.position FROM (SELECT 'Order-2' AS s) x JOIN dolt_events e ON e.stream_id = x.s",
				Expected: []sql.Row{{uint64(2)}},
			},
		},
	},
	{
		Name: "dolt_events: INSERT with an event number and an event id",
		SetUpScript: []string{
			`INSERT INTO dolt_events (stream_id, event_type) VALUES ('Cart-1', 'Added')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{
				Query:    `INSERT INTO dolt_events (stream_id, event_number, event_type, event_id, metadata) VALUES ('Cart-1', 1, 'Removed', '11111111-2222-4333-8444-555555555555', '{"by": "me"}')`,
				Expected: []sql.Row{{types.NewOkResult(1)}},
			},
			{
				Query:    "SELECT event_number, event_id, CAST(metadata AS CHAR) FROM dolt_events WHERE stream_id = 'Cart-1' AND event_number = 1",
				Expected: []sql.Row{{uint64(1), "11111111-2222-4333-8444-555555555555", `{"by": "me"}`}},
			},
			{
				// The same id at the same place again: an idempotent no-op.
				Query:    `INSERT INTO dolt_events (stream_id, event_type, event_id) VALUES ('Cart-1', 'Removed', '11111111-2222-4333-8444-555555555555')`,
				Expected: []sql.Row{{types.NewOkResult(1)}},
			},
			{Query: "SELECT count(*) FROM dolt_events", Expected: []sql.Row{{2}}},
			{
				Query:    `INSERT INTO dolt_events (stream_id, event_number, event_type) VALUES ('Cart-2', 0, 'Added')`,
				Expected: []sql.Row{{types.NewOkResult(1)}},
			},
			{Query: "SELECT position, event_number FROM dolt_events WHERE stream_id = 'Cart-2'", Expected: []sql.Row{{uint64(3), uint64(0)}}},
		},
	},
	{
		Name: "dolt_append_events",
		Assertions: []queries.ScriptTestAssertion{
			{
				Query:    `CALL dolt_append_events('Order-7', 'no_stream', '[{"event_type": "OrderCreated", "data": {"total": 10}}, {"event_type": "OrderPaid", "data": {"total": 10}, "metadata": {"user": "ann"}}]')`,
				Expected: []sql.Row{{uint64(1), uint64(2), int64(1)}},
			},
			{
				Query:    `CALL dolt_append_events('Order-7', '1', '[{"event_type": "OrderShipped", "event_id": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"}]')`,
				Expected: []sql.Row{{uint64(3), uint64(3), int64(2)}},
			},
			{
				// Repeated with the same id and expected version: the same result, no new event.
				Query:    `CALL dolt_append_events('Order-7', '1', '[{"event_type": "OrderShipped", "event_id": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"}]')`,
				Expected: []sql.Row{{uint64(3), uint64(3), int64(2)}},
			},
			{
				Query:    `CALL dolt_append_events('Order-7', 'stream_exists', '[{"event_type": "OrderClosed"}]')`,
				Expected: []sql.Row{{uint64(4), uint64(4), int64(3)}},
			},
			{
				Query:    `CALL dolt_append_events('Order-8', 'ANY', '[{"event_type": "OrderCreated", "data": [1, 2]}]')`,
				Expected: []sql.Row{{uint64(5), uint64(5), int64(0)}},
			},
			{
				Query:    `CALL dolt_append_events('Order-8', 'any', '[]')`,
				Expected: []sql.Row{{nil, nil, int64(0)}},
			},
			{
				Query:    "SELECT position, event_number, event_type, CAST(data AS CHAR), CAST(metadata AS CHAR) FROM dolt_events WHERE stream_id = 'Order-7'",
				Expected: []sql.Row{{uint64(1), uint64(0), "OrderCreated", `{"total": 10}`, nil}, {uint64(2), uint64(1), "OrderPaid", `{"total": 10}`, `{"user": "ann"}`}, {uint64(3), uint64(2), "OrderShipped", nil, nil}, {uint64(4), uint64(3), "OrderClosed", nil, nil}},
			},
			{Query: "SELECT event_id FROM dolt_events WHERE position = 3", Expected: []sql.Row{{"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"}}},
		},
	},
	{
		Name: "dolt_stream_metadata and retention",
		SetUpScript: []string{
			`CALL dolt_append_events('Log-1', 'any', '[{"event_type": "A"}, {"event_type": "A"}, {"event_type": "B"}, {"event_type": "B"}, {"event_type": "C"}]')`,
			`CALL dolt_append_events('Log-2', 'any', '[{"event_type": "A"}, {"event_type": "A"}, {"event_type": "A"}]')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{
				Query:    `CALL dolt_stream_metadata('Log-1', '{"$maxCount": 2}')`,
				Expected: []sql.Row{{"Log-1", uint64(2), nil, nil}},
			},
			{Query: "SELECT event_number FROM dolt_events WHERE stream_id = 'Log-1'", Expected: []sql.Row{{uint64(3)}, {uint64(4)}}},
			{
				Query:    "SELECT stream_id, category, event_count, first_event_number, last_event_number, version, max_count, max_age, truncate_before, deleted FROM dolt_streams",
				Expected: []sql.Row{{"Log-1", "Log", uint64(2), uint64(3), uint64(4), int64(4), uint64(2), nil, nil, nil}, {"Log-2", "Log", uint64(3), uint64(0), uint64(2), int64(2), nil, nil, nil, nil}},
			},
			{
				// The type index lost the removed events too.
				Query:    "SELECT position FROM dolt_events WHERE event_type = 'A'",
				Expected: []sql.Row{{uint64(6)}, {uint64(7)}, {uint64(8)}},
			},
			{
				Query:    `CALL dolt_stream_metadata('Log-2', '{"$tb": 2, "$maxAge": 3600}')`,
				Expected: []sql.Row{{"Log-2", nil, float64(3600), uint64(2)}},
			},
			{Query: "SELECT position, event_number FROM dolt_events WHERE stream_id = 'Log-2'", Expected: []sql.Row{{uint64(8), uint64(2)}}},
			{Query: "SELECT max_count, max_age, truncate_before FROM dolt_streams WHERE stream_id = 'Log-2'", Expected: []sql.Row{{nil, float64(3600), uint64(2)}}},
			{
				// Metadata replaces the rules: null unsets one.
				Query:    `CALL dolt_stream_metadata('Log-2', '{"$maxAge": null}')`,
				Expected: []sql.Row{{"Log-2", nil, nil, nil}},
			},
			{
				// Metadata of a stream not yet written makes its record.
				Query:    `CALL dolt_stream_metadata('Fresh-1', '{"$maxCount": 1}')`,
				Expected: []sql.Row{{"Fresh-1", uint64(1), nil, nil}},
			},
			{Query: "SELECT event_count, first_event_number, version, max_count FROM dolt_streams WHERE stream_id = 'Fresh-1'", Expected: []sql.Row{{uint64(0), nil, int64(-1), uint64(1)}}},
		},
	},
	{
		Name: "dolt_delete_stream, soft and hard",
		SetUpScript: []string{
			`CALL dolt_append_events('Soft-1', 'any', '[{"event_type": "A"}, {"event_type": "B"}]')`,
			`CALL dolt_append_events('Hard-1', 'any', '[{"event_type": "A"}]')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_delete_stream('Soft-1')", Expected: []sql.Row{{"Soft-1", "soft"}}},
			{Query: "SELECT count(*) FROM dolt_events WHERE stream_id = 'Soft-1'", Expected: []sql.Row{{0}}},
			{Query: "SELECT event_count, version, deleted FROM dolt_streams WHERE stream_id = 'Soft-1'", Expected: []sql.Row{{uint64(0), int64(-1), "soft"}}},
			{
				// A soft-deleted stream starts again; its numbering continues.
				Query:    `CALL dolt_append_events('Soft-1', 'no_stream', '[{"event_type": "C"}]')`,
				Expected: []sql.Row{{uint64(4), uint64(4), int64(2)}},
			},
			{Query: "SELECT deleted, first_event_number FROM dolt_streams WHERE stream_id = 'Soft-1'", Expected: []sql.Row{{nil, uint64(2)}}},
			{Query: "CALL dolt_delete_stream('Hard-1', '--hard')", Expected: []sql.Row{{"Hard-1", "hard"}}},
			{Query: "SELECT event_count, deleted FROM dolt_streams WHERE stream_id = 'Hard-1'", Expected: []sql.Row{{uint64(0), "hard"}}},
			{Query: "SELECT count(*) FROM dolt_events WHERE event_type = 'A'", Expected: []sql.Row{{0}}},
		},
	},
	{
		Name: "dolt_read_all",
		SetUpScript: []string{
			`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCreated"}, {"event_type": "OrderPaid"}]')`,
			`CALL dolt_append_events('Payment-1', 'any', '[{"event_type": "PaymentTaken"}]')`,
			`CALL dolt_append_events('Order-2', 'any', '[{"event_type": "OrderCreated"}, {"event_type": "OrderCancelled"}]')`,
			`CALL dolt_append_events('Order-10', 'any', '[{"event_type": "OrderCreated"}]')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT position FROM dolt_read_all('$all')", Expected: []sql.Row{{uint64(1)}, {uint64(2)}, {uint64(3)}, {uint64(4)}, {uint64(5)}, {uint64(6)}}},
			{Query: "SELECT position FROM dolt_read_all('$all', 3, 2)", Expected: []sql.Row{{uint64(3)}, {uint64(4)}}},
			{Query: "SELECT position FROM dolt_read_all('$all', 5)", Expected: []sql.Row{{uint64(5)}, {uint64(6)}}},
			{Query: "SELECT position FROM dolt_read_all('$all', 0, 0)", Expected: []sql.Row{}},
			{Query: "SELECT position FROM dolt_read_all('$idx-ce-Order', NULL, NULL)", Expected: []sql.Row{{uint64(1)}, {uint64(2)}, {uint64(4)}, {uint64(5)}, {uint64(6)}}},
			{Query: "SELECT position FROM dolt_read_all('$ce-Payment')", Expected: []sql.Row{{uint64(3)}}},
			{Query: "SELECT position FROM dolt_read_all('$idx-et-OrderCreated', 2)", Expected: []sql.Row{{uint64(4)}, {uint64(6)}}},
			{Query: "SELECT position FROM dolt_read_all('$idx-ce-Order&$idx-et-OrderCreated', 0, 2)", Expected: []sql.Row{{uint64(1)}, {uint64(4)}}},
			{Query: "SELECT position FROM dolt_read_all('$idx-ce-Order&$idx-et-PaymentTaken')", Expected: []sql.Row{}},
			{Query: "SELECT position FROM dolt_read_all('Order-2')", Expected: []sql.Row{{uint64(4)}, {uint64(5)}}},
			{Query: "SELECT position FROM dolt_read_all('Order-2&$idx-et-OrderCancelled')", Expected: []sql.Row{{uint64(5)}}},
			{Query: `SELECT position FROM dolt_read_all('{"category": "Order", "event_type": "OrderCreated", "to_position": 6}')`, Expected: []sql.Row{{uint64(1)}, {uint64(4)}}},
			{Query: `SELECT position FROM dolt_read_all('{"stream_prefix": "Order-1"}')`, Expected: []sql.Row{{uint64(1)}, {uint64(2)}, {uint64(6)}}},
			{
				Query:    "SELECT stream_id, event_number, event_type, category FROM dolt_read_all('$idx-et-OrderCancelled')",
				Expected: []sql.Row{{"Order-2", uint64(1), "OrderCancelled", "Order"}},
			},
			{Query: "SELECT count(*) FROM dolt_read_all('$all') a JOIN dolt_events e ON a.position = e.position", Expected: []sql.Row{{6}}},
		},
	},
	{
		Name: "dolt_read_stream",
		SetUpScript: []string{
			`CALL dolt_append_events('S-1', 'any', '[{"event_type": "A"}, {"event_type": "B"}, {"event_type": "C"}, {"event_type": "D"}]')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT event_number, event_type FROM dolt_read_stream('S-1')", Expected: []sql.Row{{uint64(0), "A"}, {uint64(1), "B"}, {uint64(2), "C"}, {uint64(3), "D"}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', 1, 2)", Expected: []sql.Row{{uint64(1)}, {uint64(2)}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', 2, 10, 'forwards')", Expected: []sql.Row{{uint64(2)}, {uint64(3)}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', NULL, 10, 'backwards')", Expected: []sql.Row{{uint64(3)}, {uint64(2)}, {uint64(1)}, {uint64(0)}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', 2, 2, 'backwards')", Expected: []sql.Row{{uint64(2)}, {uint64(1)}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', 99, 1, 'backwards')", Expected: []sql.Row{{uint64(3)}}},
			{Query: "SELECT event_number FROM dolt_read_stream('S-1', 9)", Expected: []sql.Row{}},
		},
	},
	{
		Name: "dolt_event_stats",
		SetUpScript: []string{
			`CALL dolt_append_events('Order-1', 'any', '[{"event_type": "Created"}, {"event_type": "Paid"}]')`,
			`CALL dolt_append_events('User-1', 'any', '[{"event_type": "Created"}]')`,
		},
		Assertions: []queries.ScriptTestAssertion{
			{
				Query: "SELECT category, event_type, event_count, first_position, last_position, first_created <= last_created FROM dolt_event_stats",
				Expected: []sql.Row{
					{nil, nil, uint64(3), uint64(1), uint64(3), true},
					{"Order", nil, uint64(2), uint64(1), uint64(2), true},
					{"User", nil, uint64(1), uint64(3), uint64(3), true},
					{nil, "Created", uint64(2), uint64(1), uint64(3), true},
					{nil, "Paid", uint64(1), uint64(2), uint64(2), true},
					{"Order", "Created", uint64(1), uint64(1), uint64(1), true},
					{"Order", "Paid", uint64(1), uint64(2), uint64(2), true},
					{"User", "Created", uint64(1), uint64(3), uint64(3), true},
				},
			},
			{
				// The pair rows add up to the category's and the type's.
				Query:    "SELECT p.category, SUM(p.event_count) = MAX(c.event_count) FROM dolt_event_stats p JOIN dolt_event_stats c ON c.category = p.category AND c.event_type IS NULL WHERE p.event_type IS NOT NULL GROUP BY p.category ORDER BY 1",
				Expected: []sql.Row{{"Order", true}, {"User", true}},
			},
		},
	},
	{
		Name: "event tables of an empty log",
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT count(*) FROM dolt_events", Expected: []sql.Row{{0}}},
			{Query: "SELECT * FROM dolt_streams", Expected: []sql.Row{}},
			{Query: "SELECT category, event_type, event_count, first_position FROM dolt_event_stats", Expected: []sql.Row{{nil, nil, uint64(0), nil}}},
			{Query: "SELECT * FROM dolt_read_all('$all')", Expected: []sql.Row{}},
		},
	},
}

// eventsHarness returns the engine-suite harness on a mydb database. It
// runs with -short too: these are verso's own tests.
func eventsHarness() *harness {
	h := &harness{}
	h.Setup(setup.MydbData)
	return h
}

func TestEventScripts(t *testing.T) {
	for _, s := range eventScripts {
		enginetest.TestScript(t, eventsHarness(), s)
	}
}

func TestEventScriptsPrepared(t *testing.T) {
	for _, s := range eventScripts {
		enginetest.TestScriptPrepared(t, eventsHarness(), s)
	}
}
