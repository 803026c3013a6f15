package sqlserver

import (
	"fmt"
	"strings"
	"testing"
)

// The event log travels with commits: AS OF and revision databases read
// the log of that commit, and dolt_merge merges two branches' logs.
func TestEventsVersioning(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'no_stream', '[{"event_type": "OrderCreated"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'one event')")
	env.exec(ctx, "CALL dolt_tag('v1')")
	env.exec(ctx, `CALL dolt_append_events('Order-1', '0', '[{"event_type": "OrderPaid"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'two events')")

	env.check(ctx, "SELECT position, event_type FROM dolt_events AS OF 'v1'", "[1 OrderCreated]")
	env.check(ctx, "SELECT position, event_type FROM dolt_events AS OF 'HEAD~1'", "[1 OrderCreated]")
	env.check(ctx, "SELECT position, event_type FROM `db/v1`.dolt_events", "[1 OrderCreated]")
	env.check(ctx, "SELECT position, event_type FROM dolt_events", "[1 OrderCreated] [2 OrderPaid]")
	env.check(ctx, "SELECT event_count FROM dolt_streams AS OF 'v1'", "[1]")
	if _, err := env.query(ctx, "INSERT INTO `db/v1`.dolt_events (stream_id, event_type) VALUES ('Order-2', 'OrderCreated')"); err == nil {
		t.Fatal("an append to a tag's revision database succeeded")
	}

	// Different streams on two branches: both logs survive the merge,
	// theirs after ours.
	env.exec(ctx, "CALL dolt_branch('feature')")
	env.exec(ctx, `CALL dolt_append_events('Order-2', 'no_stream', '[{"event_type": "OrderCreated"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'order 2 on main')")
	env.exec(ctx, "CALL dolt_checkout('feature')")
	env.exec(ctx, `CALL dolt_append_events('Order-3', 'no_stream', '[{"event_type": "OrderCreated"}, {"event_type": "OrderPaid"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'order 3 on feature')")
	env.check(ctx, "SELECT position, stream_id FROM dolt_events WHERE position > 2", "[3 Order-3] [4 Order-3]")
	env.exec(ctx, "CALL dolt_checkout('main')")
	rows := env.exec(ctx, "CALL dolt_merge('feature')")
	if len(rows) != 1 || fmt.Sprint(rows[0][2]) != "0" {
		t.Fatalf("dolt_merge returned %v, want one row with no conflicts", rows)
	}
	env.check(ctx, "SELECT position, stream_id, event_number FROM dolt_events ORDER BY position",
		"[1 Order-1 0] [2 Order-1 1] [3 Order-2 0] [4 Order-3 0] [5 Order-3 1]")
	env.check(ctx, "SELECT position FROM dolt_read_all('$idx-et-OrderPaid')", "[2] [5]")
	checkEventLog(t, env, "db")

	// One stream appended on both branches: the merge fails and changes
	// nothing.
	env.exec(ctx, "CALL dolt_branch('other')")
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderShipped"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'ship on main')")
	env.exec(ctx, "CALL dolt_checkout('other')")
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCancelled"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'cancel on other')")
	env.exec(ctx, "CALL dolt_checkout('main')")
	head := env.exec(ctx, "SELECT hashof('main')")[0][0]
	_, err := env.query(ctx, "CALL dolt_merge('other')")
	if err == nil || !strings.Contains(err.Error(), "Order-1") {
		t.Fatalf("merging appends to one stream from both branches: got %v, want an error naming the stream", err)
	}
	if now := env.exec(ctx, "SELECT hashof('main')")[0][0]; now != head {
		t.Fatalf("a failed merge moved main from %v to %v", head, now)
	}
	env.check(ctx, "SELECT count(*) FROM dolt_events", "[6]")
	env.check(ctx, "SELECT count(*) FROM dolt_status", "[0]")
}
