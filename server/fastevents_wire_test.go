package server

import (
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestEventReadsOverTheWire reads the event log with dolt_read_all and
// dolt_read_stream, as text queries of random filters, positions, counts
// and select lists, and requires the same answer from the server's own
// event reads (sqlserver/fastevents.go) and from the engine (the same
// query with a comment after its SELECT, which the server leaves to the
// engine): the
// columns, every value, the errors, the warnings, FOUND_ROWS() and
// ROW_COUNT() after it, and the statement counters; with character_set_results as clients
// leave it, utf8mb4, binary and latin1.
func TestEventReadsOverTheWire(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	root := connect(t, s, "root", "", "")
	root.SetMaxOpenConns(1)
	if _, err := root.Exec("CREATE DATABASE db"); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Exec("USE db"); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(5))
	cats := []string{"Order", "Cart", "Ünïcode", "plain"}
	types := []string{"Created", "Paid", "Shipped"}
	for i := 0; i < 60; i++ {
		var vals []string
		for j := 0; j < 1+rng.Intn(8); j++ {
			stream := fmt.Sprintf("%s-%d", cats[rng.Intn(len(cats))], rng.Intn(5))
			if cats[0] == stream[:5] && rng.Intn(4) == 0 {
				stream = "nocategory"
			}
			meta := "NULL"
			if rng.Intn(2) == 0 {
				meta = fmt.Sprintf(`'{"by": "u%d", "n": [1, 2.5, null]}'`, rng.Intn(9))
			}
			vals = append(vals, fmt.Sprintf(`('%s', '%s', '{"i": %d, "s": "x\\"y"}', %s)`, stream, types[rng.Intn(len(types))], i, meta))
		}
		if _, err := root.Exec("INSERT INTO dolt_events (stream_id, event_type, data, metadata) VALUES " + strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	filters := []string{"'$all'", "'$idx-ce-Order'", "'$ce-Cart'", "'$idx-et-Paid'", "'$idx-ce-Order&$idx-et-Paid'", "'Order-1'",
		`'{"category": "Ünïcode", "to_position": 90}'`, `'{"stream_prefix": "Cart-"}'`, "'$idx-ce-None'", "'$nope'", "''", "NULL", "7"}
	lists := []string{"*", "position, stream_id, event_number, event_id, event_type, category, created, data, metadata",
		"data, position", "POSITION, Event_Type", "category", "created, created", "nope", "position + 1"}
	from := []string{"", ", 1", ", 50", ", NULL", ", -1", ", 'x'"}
	count := []string{"", ", 7", ", 0", ", 2000", ", NULL"}
	var queries []string
	for i := 0; i < 300; i++ {
		list := lists[rng.Intn(len(lists))]
		args := filters[rng.Intn(len(filters))] + from[rng.Intn(len(from))]
		if strings.Contains(args, ",") {
			args += count[rng.Intn(len(count))]
		}
		fn := "dolt_read_all"
		if rng.Intn(4) == 0 {
			fn = "DOLT_READ_STREAM"
			args = fmt.Sprintf("'%s-%d'", cats[rng.Intn(len(cats))], rng.Intn(5)) + from[rng.Intn(4)]
			if rng.Intn(2) == 0 {
				args += ", 5, 'backwards'"
			}
		}
		queries = append(queries, fmt.Sprintf("SELECT %s FROM %s(%s)", list, fn, args))
	}
	queries = append(queries, "SELECT * FROM dolt_read_all('$all') WHERE position > 3", "SELECT * FROM dolt_read_all('$all') AS e",
		"SELECT * FROM dolt_read_all('$all') LIMIT 2", "select * from dolt_read_all('$all');")
	before := s.emb.DirectExecutions()
	for _, results := range []string{"", "utf8mb4", "binary", "latin1"} {
		if results != "" {
			if _, err := root.Exec(fmt.Sprintf("SET character_set_results = '%s'", results)); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range queries {
			got := eventWireResult(t, root, q)
			want := eventWireResult(t, root, q[:len("select")]+" /* the engine */"+q[len("select"):])
			if got != want {
				t.Fatalf("results=%s %s:\nserver: %s\nengine: %s", results, q, got, want)
			}
		}
	}
	direct := s.emb.DirectExecutions() - before
	if direct < 200 {
		t.Fatalf("the server read the log itself %d times", direct)
	}
	t.Logf("%d queries alike, %d of them read by the server itself", 4*len(queries), direct)
}

// eventWireResult runs q and prints its columns, rows or error, the
// session's warnings, FOUND_ROWS() and ROW_COUNT() after it and how it
// moved the statement counters.
func eventWireResult(t *testing.T, c *sql.DB, q string) string {
	t.Helper()
	counters := func() map[string]int {
		m := map[string]int{}
		rows, err := c.Query("SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Com_select')")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var v int
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		return m
	}
	// A statement clears the warnings of the one before.
	var b strings.Builder
	if _, err := c.Exec("SELECT CAST('x' AS SIGNED)"); err != nil {
		t.Fatal(err)
	}
	if rows, err := c.Query(q); err == nil {
		for rows.Next() {
		}
		rows.Close()
	}
	warnings := 0
	wr, err := c.Query("SHOW WARNINGS")
	if err != nil {
		t.Fatal(err)
	}
	for wr.Next() {
		warnings++
	}
	wr.Close()
	fmt.Fprintf(&b, "warnings %d\n", warnings)
	c0 := counters()
	rows, err := c.Query(q)
	if err != nil {
		n, state := mysqlErrNum(err)
		fmt.Fprintf(&b, "error %d %s %v\n", n, state, err)
	} else {
		printRows(&b, rows)
		rows.Close()
	}
	var found, rc int64
	if err := c.QueryRow("SELECT FOUND_ROWS(), ROW_COUNT()").Scan(&found, &rc); err != nil {
		t.Fatal(err)
	}
	c1 := counters()
	fmt.Fprintf(&b, "found %d row_count %d, Questions +%d, Com_select +%d", found, rc, c1["Questions"]-c0["Questions"], c1["Com_select"]-c0["Com_select"])
	return b.String()
}
