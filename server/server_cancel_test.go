package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	d, ok := processCPU()
	if !ok {
		t.Skip("no CPU time on this platform")
	}
	return d
}

// assertIdle checks that the server (this process) uses almost no CPU for
// a second: no statement runs on after it was stopped.
func assertIdle(t *testing.T, what string) {
	t.Helper()
	time.Sleep(200 * time.Millisecond)
	before := cpuTime(t)
	time.Sleep(time.Second)
	if used := cpuTime(t) - before; used > 300*time.Millisecond {
		t.Errorf("%s: the server used %v of CPU in the second after", what, used)
	}
}

// stopWithin is how long a test gives a statement to stop once it is
// asked to: d, or six times d under the race detector. Some loops of the
// engine check for a stopped statement only between rows (the join that
// builds sortForever's rows, before its sort, is one: interrupt.go), and
// race instrumentation on a loaded machine stretches them several times
// over.
func stopWithin(d time.Duration) time.Duration {
	if raceDetector {
		return 6 * d
	}
	return d
}

// pathological is a REGEXP that backtracks for ages: about 2^n steps.
func pathological(n int) string {
	return "SELECT '" + strings.Repeat("a", n) + "b' REGEXP '^(a+)+$'"
}

// sortForever is a sort that takes minutes: a million rows (a recursive
// CTE stops at 10,000 iterations, so two of them are joined) compared by
// hashes computed on each comparison.
const sortForever = "WITH RECURSIVE a(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM a WHERE i < 1000) " +
	"SELECT x.i * 1000 + y.i AS n FROM a x, a y ORDER BY MD5(CONCAT(x.i, '-', y.i)), SHA1(x.i + y.i)"

// slowStatements are statements that run for ages unless stopped: a
// pathological REGEXP (with ICU; Go's regexp, in gms_pure_go builds,
// matches it in linear time) and a long sort.
func slowStatements() []string {
	if icuRegexps {
		return []string{pathological(40), sortForever}
	}
	return []string{sortForever}
}

// noRegexpTimeLimit lifts MySQL's regexp_time_limit for the test, so that
// a pathological REGEXP runs until it is stopped.
func noRegexpTimeLimit(t *testing.T, db *sql.DB) {
	t.Helper()
	if _, err := db.Exec("SET GLOBAL regexp_time_limit = 0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("SET GLOBAL regexp_time_limit = DEFAULT") })
}

// runAsync runs q on c and sends its error.
func runAsync(ctx context.Context, c *sql.Conn, q string) <-chan error {
	done := make(chan error, 1)
	go func() {
		rows, err := c.QueryContext(ctx, q)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		done <- err
	}()
	return done
}

// conn returns a connection of db, closed when the test ends (after its
// context is cancelled, which ends a statement still running on it).
func conn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func connID(t *testing.T, ctx context.Context, c *sql.Conn) int {
	t.Helper()
	var id int
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// waitErr waits up to d for a statement's error.
func waitErr(t *testing.T, done <-chan error, d time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s: the statement still runs after %v", what, d)
		return nil
	}
}

// TestServerKillQuery: KILL QUERY stops a running REGEXP and a running
// sort within a bounded time with MySQL's error 1317; the connection
// stays usable and the server's CPU goes idle.
func TestServerKillQuery(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	noRegexpTimeLimit(t, db)
	ctx := t.Context()
	c1 := conn(t, db)
	id := connID(t, ctx, c1)
	for _, q := range slowStatements() {
		done := runAsync(ctx, c1, q)
		time.Sleep(500 * time.Millisecond)
		start := time.Now()
		if _, err := db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id)); err != nil {
			t.Fatal(err)
		}
		err := waitErr(t, done, stopWithin(5*time.Second), q[:40])
		if num, _ := mysqlErrNum(err); num != 1317 || !strings.Contains(err.Error(), "Query execution was interrupted") {
			t.Errorf("%.40s: killed: %v (%d), want 1317", q, err, num)
		}
		t.Logf("%.40s: stopped %v after KILL QUERY", q, time.Since(start))
		assertIdle(t, q[:40])
		var one int
		if err := c1.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("the killed statement's connection: %v", err)
		}
	}
}

// TestServerKillConnection: KILL closes the connection and stops its
// statement.
func TestServerKillConnection(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	noRegexpTimeLimit(t, db)
	ctx := t.Context()
	c1 := conn(t, db)
	id := connID(t, ctx, c1)
	done := runAsync(ctx, c1, slowStatements()[0])
	time.Sleep(500 * time.Millisecond)
	if _, err := db.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, done, stopWithin(5*time.Second), "KILL"); err == nil {
		t.Error("the killed connection's statement succeeded")
	}
	assertIdle(t, "KILL")
}

// TestServerMaxExecutionTime: @@max_execution_time and the
// MAX_EXECUTION_TIME hint stop a SELECT with MySQL's error 3024.
func TestServerMaxExecutionTime(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	noRegexpTimeLimit(t, db)
	ctx := t.Context()
	c := conn(t, db)
	run := func(q string, want time.Duration) {
		t.Helper()
		start := time.Now()
		err := waitErr(t, runAsync(ctx, c, q), want+stopWithin(5*time.Second), q[:40])
		took := time.Since(start)
		if num, _ := mysqlErrNum(err); num != 3024 || !strings.Contains(err.Error(), "maximum statement execution time exceeded") {
			t.Errorf("%.60s: %v (%d), want 3024", q, err, num)
		}
		if took < want || took > want+stopWithin(3*time.Second) {
			t.Errorf("%.60s: stopped after %v, want about %v", q, took, want)
		}
		assertIdle(t, q[:40])
	}
	if _, err := c.ExecContext(ctx, "SET SESSION max_execution_time = 500"); err != nil {
		t.Fatal(err)
	}
	for _, q := range slowStatements() {
		run(q, 500*time.Millisecond)
	}
	if !icuRegexps {
		return
	}
	// The hint wins over the variable.
	run(strings.Replace(pathological(40), "SELECT", "SELECT /*+ MAX_EXECUTION_TIME(1500) */", 1), 1500*time.Millisecond)
	if _, err := c.ExecContext(ctx, "SET SESSION max_execution_time = 0"); err != nil {
		t.Fatal(err)
	}
	run(strings.Replace(pathological(40), "SELECT", "SELECT /*+ MAX_EXECUTION_TIME(300) */", 1), 300*time.Millisecond)
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

// TestServerRegexpTimeLimit: with MySQL's default regexp_time_limit, a
// pathological REGEXP fails at once with MySQL's error 3699.
func TestServerRegexpTimeLimit(t *testing.T) {
	if !icuRegexps {
		t.Skip("Go's regexp (gms_pure_go) has no time limit: it matches in linear time")
	}
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	start := time.Now()
	var v any
	err := db.QueryRow(pathological(40)).Scan(&v)
	if num, _ := mysqlErrNum(err); num != 3699 {
		t.Errorf("pathological REGEXP: %v (%d), want 3699", err, num)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("it took %v", took)
	}
	for q, want := range map[string]int{
		"SELECT 'abc' REGEXP '^a.c$'": 1,
		"SELECT 'abc' NOT REGEXP 'b'": 0,
		"SELECT 'abc' RLIKE 'b'":      1,
		"SELECT COUNT(*) FROM (SELECT 'abc' AS x UNION ALL SELECT 'xyz') t WHERE x REGEXP '^a' OR x NOT REGEXP 'y'": 1,
		"SELECT REGEXP_LIKE('ABC', 'abc', 'i')":                   1,
		"SELECT REGEXP_LIKE('ABC', 'abc', 'c')":                   0,
		"SELECT REGEXP_INSTR('dog cat dog', 'dog', 2)":            9,
		"SELECT LENGTH(REGEXP_SUBSTR('abc def', '[a-z]+', 1, 2))": 3,
		"SELECT LENGTH(REGEXP_REPLACE('a b c', ' ', '--'))":       7,
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d, %v; want %d", q, n, err, want)
		}
	}
}

// TestServerDisconnectStopsQuery: a client that goes away stops its
// running statement.
func TestServerDisconnectStopsQuery(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	noRegexpTimeLimit(t, db)
	for _, q := range slowStatements() {
		c, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// The driver closes the connection when the context ends.
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		waitErr(t, runAsync(ctx, c, q), stopWithin(5*time.Second), "disconnect")
		cancel()
		c.Close()
		deadline := time.Now().Add(stopWithin(5 * time.Second))
		for {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%REGEXP%' OR info LIKE '%SHA1%'").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n <= 1 { // this query
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%.40s: still running %v after its client went away", q, stopWithin(5*time.Second))
			}
			time.Sleep(100 * time.Millisecond)
		}
		assertIdle(t, q[:40])
	}
}
