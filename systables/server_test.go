package systables_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
)

// TestOverTheWire queries the system tables through the MySQL protocol:
// a lookup with a literal and with a prepared-statement parameter, and
// EXPLAIN PLAN of a unique point lookup.
func TestOverTheWire(t *testing.T) {
	p := sqlserver.NewMemoryProvider()
	s, err := server.New(p, server.Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(func() { s.Close() })
	c, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec("CREATE DATABASE d"); err != nil {
		t.Fatal(err)
	}
	g, _ := p.CommitGraph("d")
	build(t, g, 3, 50)
	main, err := g.Head(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(modelLog(t, g, main)[0], "|")[4]
	for _, q := range []string{
		"SELECT message FROM d.dolt_log WHERE commit_hash = '" + main.String() + "'",
		"SELECT message FROM d.dolt_log WHERE commit_hash = ?",
	} {
		var args []any
		if strings.Contains(q, "?") {
			args = append(args, main.String())
		}
		var msg string
		if err := c.QueryRow(q, args...).Scan(&msg); err != nil || msg != want {
			t.Fatalf("%s: %q, %v; want %q", q, msg, err, want)
		}
	}
	rows, err := c.Query("EXPLAIN PLAN SELECT * FROM d.dolt_log WHERE commit_hash = '" + main.String() + "'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "IndexedTableAccess(dolt_log)") {
		t.Fatalf("plan:\n%s", p)
	}
}
