package sqlserver

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
)

// workingRoot returns the working root of db's branch main.
func workingRoot(t *testing.T, env *testEnv, db string) commitgraph.RootValue {
	t.Helper()
	g, ok := env.p.CommitGraph(db)
	if !ok {
		t.Fatalf("no database %s", db)
	}
	ctx := env.session(db)
	ws, err := g.WorkingSet(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	root, err := g.OpenRoot(ctx, ws.Working)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// workingLog returns the event log of db's working root.
func workingLog(t *testing.T, env *testEnv, db string) eventindex.Log {
	t.Helper()
	g, _ := env.p.CommitGraph(db)
	l, err := eventindex.LoadLog(t.Context(), g.NodeStore(), workingRoot(t, env, db))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// checkEventLog runs eventindex's Check on the working root of db's
// branch: every index entry matches the log.
func checkEventLog(t *testing.T, env *testEnv, db string) {
	t.Helper()
	if err := workingLog(t, env, db).Check(t.Context(), true); err != nil {
		t.Fatal(err)
	}
}

func TestEventsTransaction(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	s1, s2 := env.session("db"), env.session("db")
	env.exec(ctx, "CREATE TABLE orders (id INT PRIMARY KEY)")

	// Visible to itself before COMMIT, to nobody else.
	env.exec(s1, "START TRANSACTION")
	env.exec(s1, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'OrderCreated')`)
	env.exec(s1, "INSERT INTO orders VALUES (1)")
	env.exec(s1, `CALL dolt_append_events('Order-1', '0', '[{"event_type": "OrderPaid"}]')`)
	env.check(s1, "SELECT position, event_number FROM dolt_events", "[1 0] [2 1]")
	env.check(s1, "SELECT stream_id, version FROM dolt_streams", "[Order-1 1]")
	env.check(s1, "SELECT position FROM dolt_read_all('$idx-ce-Order')", "[1] [2]")
	env.check(s2, "SELECT count(*) FROM dolt_events", "[0]")

	// Rolled back on ROLLBACK, with the table row.
	env.exec(s1, "ROLLBACK")
	env.check(s1, "SELECT count(*) FROM dolt_events", "[0]")
	env.check(s1, "SELECT count(*) FROM orders", "[0]")
	env.check(s1, "SELECT count(*) FROM dolt_streams", "[0]")

	// Atomic at COMMIT: the events and the row together.
	env.exec(s1, "START TRANSACTION")
	env.exec(s1, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'OrderCreated'), ('User-1', 'UserCreated')`)
	env.exec(s1, "INSERT INTO orders VALUES (1)")
	env.exec(s2, "START TRANSACTION")
	env.check(s2, "SELECT count(*) FROM dolt_events", "[0]")
	env.exec(s1, "COMMIT")
	env.check(s2, "SELECT count(*) FROM dolt_events", "[0]") // its snapshot
	env.exec(s2, "COMMIT")
	env.check(s2, "SELECT position, stream_id FROM dolt_events", "[1 Order-1] [2 User-1]")
	env.check(s2, "SELECT id FROM orders", "[1]")

	// A savepoint rolls back the events appended after it.
	env.exec(s1, "START TRANSACTION")
	env.exec(s1, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A"}]')`)
	env.exec(s1, "SAVEPOINT sp")
	env.exec(s1, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "B"}]')`)
	env.exec(s1, "ROLLBACK TO SAVEPOINT sp")
	env.exec(s1, "COMMIT")
	env.check(s2, "SELECT event_type FROM dolt_events WHERE stream_id = 'Order-1'", "[OrderCreated] [A]")

	// A failed statement leaves no event: the second row's bad name fails
	// the whole INSERT.
	if _, err := env.query(s1, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'C'), ('$bad', 'C')`); err == nil {
		t.Fatal("INSERT with a reserved stream succeeded")
	}
	env.check(s1, "SELECT count(*) FROM dolt_events", "[3]")
	checkEventLog(t, env, "db")
}

func TestEventsConcurrentDifferentStreams(t *testing.T) {
	env := newMemoryEnv(t)
	setupDB(env)
	s1, s2 := env.session("db"), env.session("db")
	env.exec(s1, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCreated"}]')`)

	env.exec(s1, "START TRANSACTION")
	env.exec(s2, "START TRANSACTION")
	env.exec(s1, `CALL dolt_append_events('Order-2', 'no_stream', '[{"event_type": "OrderCreated"}, {"event_type": "OrderPaid"}]')`)
	env.exec(s2, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('User-1', 'UserCreated'), ('Order-3', 'OrderCreated')`)
	// Both see their own appends at positions 2, 3.
	env.check(s1, "SELECT position, stream_id FROM dolt_events WHERE position > 1", "[2 Order-2] [3 Order-2]")
	env.check(s2, "SELECT position, stream_id FROM dolt_events WHERE position > 1", "[2 User-1] [3 Order-3]")
	env.exec(s2, "COMMIT")
	env.exec(s1, "COMMIT") // merged: renumbered after s2's

	s3 := env.session("db")
	env.check(s3, "SELECT position, stream_id, event_number, event_type FROM dolt_events",
		"[1 Order-1 0 OrderCreated] [2 User-1 0 UserCreated] [3 Order-3 0 OrderCreated] [4 Order-2 0 OrderCreated] [5 Order-2 1 OrderPaid]")
	env.check(s3, "SELECT position FROM dolt_events WHERE category = 'Order' AND event_type = 'OrderCreated'", "[1] [3] [4]")
	env.check(s3, "SELECT stream_id, version FROM dolt_streams", "[Order-1 0] [Order-2 1] [Order-3 0] [User-1 0]")
	checkEventLog(t, env, "db")
	// The next append continues after the merged positions.
	env.check(s3, `CALL dolt_append_events('Order-1', '0', '[{"event_type": "OrderPaid"}]')`, "[6 6 1]")
}

func TestEventsConcurrentSameStream(t *testing.T) {
	for _, c := range []struct{ name, q1, q2 string }{
		{"appends", `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A"}]')`, `INSERT INTO dolt_events (stream_id, event_type) VALUES ('Order-1', 'B')`},
		{"append and metadata", `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "A"}]')`, `CALL dolt_stream_metadata('Order-1', '{"$maxCount": 1}')`},
		{"append and delete", `CALL dolt_delete_stream('Order-1')`, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "B"}]')`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newMemoryEnv(t)
			setupDB(env)
			s1, s2 := env.session("db"), env.session("db")
			env.exec(s1, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCreated"}]')`)
			env.exec(s1, "START TRANSACTION")
			env.exec(s2, "START TRANSACTION")
			env.exec(s1, c.q1)
			env.exec(s2, c.q2)
			env.exec(s1, "COMMIT")
			_, err := env.query(s2, "COMMIT")
			if !isSerializationFailure(err) {
				t.Fatalf("second commit: got %v, want a serialization failure (1213)", err)
			}
			if !strings.Contains(err.Error(), `stream "Order-1"`) {
				t.Errorf("the error does not name the stream: %v", err)
			}
			env.exec(s2, "ROLLBACK")
			// The first transaction's work stands.
			checkEventLog(t, env, "db")
			env.exec(s2, c.q2) // a retry succeeds
		})
	}
}

// TestEventsConcurrentAutocommit appends from several sessions at once,
// each to its own stream, in autocommit statements: every event is kept,
// positions stay dense, and the indexes match the log.
func TestEventsConcurrentAutocommit(t *testing.T) {
	env := newMemoryEnv(t)
	setupDB(env)
	const sessions, each = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, sessions*each)
	for s := 0; s < sessions; s++ {
		ctx := env.session("db")
		wg.Go(func() {
			for i := 0; i < each; i++ {
				q := fmt.Sprintf(`CALL dolt_append_events('S%d-1', '%d', '[{"event_type": "E"}]')`, s, i-1)
				if i == 0 {
					q = fmt.Sprintf(`CALL dolt_append_events('S%d-1', 'no_stream', '[{"event_type": "E"}]')`, s)
				}
				if _, err := env.query(ctx, q); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ctx := env.session("db")
	env.check(ctx, "SELECT count(*), min(position), max(position) FROM dolt_events", fmt.Sprintf("[%d 1 %d]", sessions*each, sessions*each))
	env.check(ctx, "SELECT count(*) FROM dolt_streams WHERE version = 19", "[4]")
	checkEventLog(t, env, "db")
}

// TestEventsExplain checks that filters on each indexed column, and their
// combinations, are index lookups.
func TestEventsExplain(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'any', '[{"event_type": "OrderCreated"}]')`)
	for _, c := range []struct {
		where string
		index string // the index's columns as EXPLAIN prints them
		rest  string // a filter left above the lookup, "" for none
	}{
		{"position = 5", "[dolt_events.position]", ""},
		{"position > 5 AND position <= 10", "[dolt_events.position]", ""},
		{"stream_id = 'Order-1'", "[dolt_events.stream_id,dolt_events.event_number]", ""},
		{"stream_id = 'Order-1' AND event_number >= 3", "[dolt_events.stream_id,dolt_events.event_number]", ""},
		{"stream_id IN ('Order-1', 'Order-2')", "[dolt_events.stream_id,dolt_events.event_number]", ""},
		{"category = 'Order'", "[dolt_events.category,dolt_events.position]", ""},
		{"category = 'Order' AND position > 100", "[dolt_events.category,dolt_events.position]", ""},
		{"event_type = 'OrderCreated'", "[dolt_events.event_type,dolt_events.position]", ""},
		{"event_type IN ('A', 'B') AND position < 50", "[dolt_events.event_type,dolt_events.position]", ""},
		{"category = 'Order' AND event_type = 'OrderCreated'", "[dolt_events.category,dolt_events.event_type,dolt_events.position]", ""},
		{"event_type = 'OrderCreated' AND category = 'Order' AND position >= 7", "[dolt_events.category,dolt_events.event_type,dolt_events.position]", ""},
		{"stream_id = 'Order-1' AND event_type = 'OrderCreated'", "[dolt_events.stream_id,dolt_events.event_number]", "event_type"},
		{"category = 'Order' AND data IS NOT NULL", "[dolt_events.category,dolt_events.position]", "data"},
	} {
		q := "EXPLAIN PLAN SELECT position FROM dolt_events WHERE " + c.where
		plan := formatRows(env.exec(ctx, q))
		if !strings.Contains(plan, "IndexedTableAccess(dolt_events)") || !strings.Contains(plan, "index: "+c.index) {
			t.Errorf("%s: no lookup on %s:\n%s", c.where, c.index, plan)
		}
		hasFilter := strings.Contains(plan, "Filter")
		if (c.rest != "") != hasFilter || (c.rest != "" && !strings.Contains(plan, c.rest)) {
			t.Errorf("%s: filter above the lookup should be %q:\n%s", c.where, c.rest, plan)
		}
	}
	// dolt_streams by stream_id.
	env.exec(ctx, `CALL dolt_append_events('Order-2', 'any', '[{"event_type": "A"}]')`)
	plan := formatRows(env.exec(ctx, "EXPLAIN PLAN SELECT version FROM dolt_streams WHERE stream_id = 'Order-2'"))
	if !strings.Contains(plan, "IndexedTableAccess(dolt_streams)") || strings.Contains(plan, "Filter") {
		t.Errorf("dolt_streams by stream_id is no lookup:\n%s", plan)
	}
	env.check(ctx, "SELECT stream_id, version FROM dolt_streams WHERE stream_id = 'Order-2'", "[Order-2 0]")
	env.check(ctx, "SELECT stream_id FROM dolt_streams WHERE stream_id IN ('Order-2', 'nope', 'Order-1') ORDER BY stream_id", "[Order-1] [Order-2]")
	env.check(ctx, "SELECT count(*) FROM dolt_streams WHERE stream_id = 'nope'", "[0]")
	env.check(ctx, "SELECT e.position FROM dolt_events e JOIN dolt_streams s ON s.stream_id = e.stream_id WHERE s.version = 0 ORDER BY e.position", "[1] [2]")

	// Filters no index takes scan.
	plan = formatRows(env.exec(ctx, "EXPLAIN PLAN SELECT position FROM dolt_events WHERE event_number = 0"))
	if strings.Contains(plan, "IndexedTableAccess") {
		t.Errorf("event_number alone is no index lookup:\n%s", plan)
	}
}

// TestEventsRevisionDatabase checks that a revision database (db/branch)
// reads and writes the log of its own branch.
func TestEventsRevisionDatabase(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	g, _ := env.p.CommitGraph("db")
	head, err := g.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CreateBranch(ctx, "feature", head); err != nil {
		t.Fatal(err)
	}
	env.exec(ctx, `CALL dolt_append_events('Main-1', 'any', '[{"event_type": "A"}]')`)
	feature := env.session("db/feature")
	env.check(feature, "SELECT count(*) FROM dolt_events", "[0]")
	env.check(feature, `CALL dolt_append_events('Feature-1', 'any', '[{"event_type": "B"}, {"event_type": "C"}]')`, "[1 2 1]")
	env.check(feature, "SELECT position, stream_id FROM dolt_events", "[1 Feature-1] [2 Feature-1]")
	env.check(ctx, "SELECT position, stream_id FROM dolt_events", "[1 Main-1]")
	env.check(ctx, "SELECT stream_id FROM `db/feature`.dolt_streams", "[Feature-1]")
	env.check(ctx, "SELECT count(*) FROM dolt_read_all('$all')", "[1]")
	env.check(feature, "SELECT count(*) FROM dolt_read_all('$all')", "[2]")
}

// TestEventsOrderByPosition checks that ORDER BY position, either way,
// reads the log in order through PRIMARY (no sort), with LIMIT and with
// position ranges.
func TestEventsOrderByPosition(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	var evs []string
	for i := 0; i < 30; i++ {
		evs = append(evs, fmt.Sprintf(`{"event_type": "T%d"}`, i%3))
	}
	env.exec(ctx, `CALL dolt_append_events('A-1', 'any', '[`+strings.Join(evs, ",")+`]')`)
	env.exec(ctx, `CALL dolt_stream_metadata('A-1', '{"$tb": 5}')`) // positions 1..5 gone
	env.check(ctx, "SELECT position FROM dolt_events ORDER BY position DESC LIMIT 3", "[30] [29] [28]")
	env.check(ctx, "SELECT position FROM dolt_events ORDER BY position LIMIT 2", "[6] [7]")
	env.check(ctx, "SELECT position FROM dolt_events WHERE position < 9 ORDER BY position DESC", "[8] [7] [6]")
	env.check(ctx, "SELECT position FROM dolt_events WHERE position > 20 AND event_type = 'T0' ORDER BY position DESC LIMIT 2", "[28] [25]")
	env.check(ctx, "SELECT position FROM dolt_events WHERE position < 8 OR position > 28 ORDER BY position DESC", "[30] [29] [7] [6]")
	env.check(ctx, "SELECT count(*) FROM (SELECT position FROM dolt_events ORDER BY position DESC) x", "[25]")
	for _, q := range []string{
		"EXPLAIN PLAN SELECT position FROM dolt_events ORDER BY position DESC LIMIT 3",
		"EXPLAIN PLAN SELECT position FROM dolt_events WHERE position < 9 ORDER BY position DESC",
	} {
		plan := formatRows(env.exec(ctx, q))
		if strings.Contains(plan, "Sort") || strings.Contains(plan, "TopN") || !strings.Contains(plan, "IndexedTableAccess(dolt_events)") {
			t.Errorf("%s: the log is sorted, not read in order:\n%s", q, plan)
		}
	}
}

// TestEventsPages reads logs of several pages (scans start with small
// pages and grow) every way: forwards, backwards, by index, by stream.
func TestEventsPages(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	for i := 0; i < 5; i++ {
		var evs []string
		for j := 0; j < 500; j++ {
			evs = append(evs, fmt.Sprintf(`{"event_type": "T%d"}`, j%2))
		}
		env.exec(ctx, fmt.Sprintf(`CALL dolt_append_events('S%d-1', 'any', '[%s]')`, i%2, strings.Join(evs, ",")))
	}
	// 2500 events: positions 1..2500; S0-1 holds 1..500, 1001..1500, 2001..2500.
	env.check(ctx, "SELECT count(*), CAST(sum(position) AS SIGNED) FROM dolt_events", "[2500 3126250]")
	env.check(ctx, "SELECT count(*), CAST(sum(position) AS SIGNED) FROM (SELECT position FROM dolt_events ORDER BY position DESC) x", "[2500 3126250]")
	env.check(ctx, "SELECT position FROM dolt_events ORDER BY position DESC LIMIT 1 OFFSET 2200", "[300]")
	env.check(ctx, "SELECT count(*), min(event_number), max(event_number) FROM dolt_events WHERE stream_id = 'S0-1'", "[1500 0 1499]")
	env.check(ctx, "SELECT count(*) FROM dolt_events WHERE category = 'S1' AND event_type = 'T1'", "[500]")
	env.check(ctx, "SELECT count(*) FROM dolt_read_all('$idx-et-T0', 0, 5000)", "[1250]")
	env.check(ctx, "SELECT count(*), min(event_number) FROM dolt_read_stream('S0-1', NULL, 3000, 'backwards')", "[1500 0]")
	env.check(ctx, "SELECT count(*), min(event_number) FROM dolt_read_stream('S0-1', 1000, 3000, 'backwards')", "[1001 0]")
}
