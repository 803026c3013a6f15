package server

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/verso-db/verso/sqlserver"
)

// TestScheduledEvents: a scheduled event runs on the server, on the
// database's default branch, and writes its working set; a dropped event
// no longer runs.
func TestScheduledEvents(t *testing.T) {
	dir := t.TempDir()
	start := func() *Server {
		p, err := sqlserver.NewProvider(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(p, Config{Address: "127.0.0.1:0", EventsPeriod: 1})
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(func() { s.Close(); p.Close() })
		return s
	}
	s := start()
	c, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"CREATE DATABASE ev",
		"CREATE TABLE ev.ticks (id INT PRIMARY KEY AUTO_INCREMENT, at DATETIME)",
		"CREATE EVENT ev.tick ON SCHEDULE EVERY 1 SECOND DO INSERT INTO ev.ticks (at) VALUES (NOW())",
	} {
		if _, err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func() int {
		t.Helper()
		var n int
		if err := c.QueryRow("SELECT COUNT(*) FROM ev.ticks").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not in 15s", what)
			}
		}
	}
	waitFor("the event's first run", func() bool { return count() > 0 })
	var status string
	if err := c.QueryRow("SELECT status FROM ev.dolt_status WHERE table_name = 'ticks'").Scan(&status); err != nil || status != "new table" {
		t.Fatalf("dolt_status of ticks: %q, %v", status, err)
	}
	if _, err := c.Exec("DROP EVENT ev.tick"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // a run already started may end
	n := count()
	time.Sleep(2500 * time.Millisecond)
	if m := count(); m != n {
		t.Fatalf("a dropped event ran: %d rows, then %d", n, m)
	}
}
