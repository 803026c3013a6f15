package server

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// TestServerErrors sends bad statements over one connection and checks
// that each gets MySQL's error number, SQLSTATE and message form, and that
// the connection still works after each.
func TestServerErrors(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	ctx := t.Context()
	c := conn(t, db)
	for _, q := range []string{
		"CREATE DATABASE shop",
		"USE shop",
		"CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(5) UNIQUE, qty INT NOT NULL, t TINYINT)",
		"CREATE TABLE typed (id INT PRIMARY KEY, d DATE, dt DATETIME, j JSON)",
		"INSERT INTO items VALUES (1, 'apple', 3, 0)",
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var id int
	for _, tc := range []struct {
		query string
		args  []any
		num   uint16
		state string
		msg   string // a part of the message
	}{
		{query: "SELEC 1", num: 1064, state: "42000",
			msg: "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'SELEC 1' at line 1"},
		{query: "SELECT * FROM items WHERE", num: 1064, state: "42000", msg: "right syntax to use near"},
		{query: "SELEC ?", args: []any{1}, num: 1064, state: "42000",
			msg: "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'SELEC ?' at line 1"},
		{query: "SELECT * FROM items\nWHERE id = ? AND", args: []any{1}, num: 1064, state: "42000", msg: "right syntax to use near 'AND' at line 2"},
		{query: "SELECT * FROM no_such_table WHERE id = ?", args: []any{1}, num: 1146, state: "42S02", msg: "no_such_table"},
		{query: "SELECT nope FROM items WHERE id = ?", args: []any{1}, num: 1054, state: "42S22", msg: "nope"},
		{query: "SELECT 1;\nSELECT * FRM items", num: 1064, state: "42000", msg: "at line 2"},
		{query: "SELECT * FROM no_such_table", num: 1146, state: "42S02", msg: "no_such_table"},
		{query: "SELECT no_such_column FROM items", num: 1054, state: "42S22", msg: "no_such_column"},
		{query: "SELECT id FROM items WHERE nope = 1", num: 1054, state: "42S22", msg: "nope"},
		{query: "INSERT INTO items VALUES (1, 'pear', 1, 0)", num: 1062, state: "23000", msg: "duplicate"},
		{query: "INSERT INTO items VALUES (2, 'apple', 1, 0)", num: 1062, state: "23000", msg: "apple"},
		{query: "INSERT INTO items VALUES (?, ?, ?, ?)", args: []any{1, "x", 1, 0}, num: 1062, state: "23000", msg: "duplicate"},
		{query: "INSERT INTO items VALUES (3, 'fig', 'many', 0)", num: 1366, state: "HY000", msg: "many"},
		{query: "INSERT INTO items VALUES (3, 'fig', NULL, 0)", num: 1048, state: "23000", msg: "qty"},
		{query: "INSERT INTO items VALUES (3, 'toolongname', 1, 0)", num: 1406, state: "22001", msg: "name"},
		{query: "INSERT INTO items VALUES (3, 'fig', 1, 1000)", num: 1264, state: "22003", msg: "t"},
		{query: "INSERT INTO items VALUES (3, 'fig')", num: 1136, state: "21S01", msg: "number of values"},
		{query: "INSERT INTO typed (id, d) VALUES (1, '2020-13-45')", num: 1292, state: "22007", msg: "2020-13-45"},
		{query: "INSERT INTO typed (id, dt) VALUES (1, ?)", args: []any{"not a date"}, num: 1292, state: "22007", msg: "not a date"},
		{query: "INSERT INTO typed (id, j) VALUES (1, '{bad json')", num: 3140, state: "22032", msg: "Invalid JSON text"},
		{query: "SELECT ABS(1, 2)", num: 1582, state: "42000", msg: "abs"},
		{query: "SELECT SUBSTRING('a')", num: 1582, state: "42000", msg: "substring"},
		{query: "CREATE TABLE items (id INT PRIMARY KEY)", num: 1050, state: "42S01", msg: "items"},
		{query: "CALL no_such_procedure()", num: 1305, state: "42000", msg: "no_such_procedure"},
		{query: "USE no_such_db", num: 1049, state: "42000", msg: "no_such_db"},
	} {
		_, err := c.ExecContext(ctx, tc.query, tc.args...)
		num, state := mysqlErrNum(err)
		if num != tc.num || state != tc.state || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.msg)) {
			t.Errorf("%q: got %v (%d, %s), want error %d (%s) containing %q", tc.query, err, num, state, tc.num, tc.state, tc.msg)
		}
		if err := c.QueryRowContext(ctx, "SELECT id FROM items").Scan(&id); err != nil || id != 1 {
			t.Fatalf("after %q the connection does not work: %v", tc.query, err)
		}
	}
}

// TestServerRetryAfterConflict: after a COMMIT fails with a serialization
// failure, the transaction is rolled back, so the client's retry on the
// same connection (BEGIN, which would commit an open transaction) works
// and sees the other transaction's row.
func TestServerRetryAfterConflict(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	ctx := t.Context()
	for _, q := range []string{"CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY, v INT, u INT UNIQUE)", "INSERT INTO shop.t VALUES (1, 0, 0)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	c1, c2 := conn(t, db), conn(t, db)
	exec := func(c interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}, q string) error {
		_, err := c.ExecContext(ctx, q)
		return err
	}
	// A new row, and a new index on the table: no row lock between them,
	// so the check at COMMIT refuses the second.
	for _, q := range []string{"BEGIN", "INSERT INTO shop.t VALUES (2, 0, 5)"} {
		if err := exec(c2, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := exec(c1, "CREATE INDEX iv ON shop.t (v)"); err != nil {
		t.Fatal(err)
	}
	if n, _ := mysqlErrNum(exec(c2, "COMMIT")); n != 1213 {
		t.Fatalf("conflicting COMMIT: want error 1213, got %d", n)
	}
	// The failed COMMIT ended the transaction, as MySQL's does: the next
	// statement autocommits.
	if err := exec(c2, "UPDATE shop.t SET u = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var u int
	if err := c1.QueryRowContext(ctx, "SELECT u FROM shop.t WHERE id = 1").Scan(&u); err != nil || u != 1 {
		t.Fatalf("after a failed COMMIT, an UPDATE did not commit by itself: u = %d, %v", u, err)
	}
	// The retry: BEGIN, read, write, COMMIT on the same connection.
	for _, q := range []string{"BEGIN", "UPDATE shop.t SET v = v + 10 WHERE id = 1", "COMMIT"} {
		if err := exec(c2, q); err != nil {
			t.Fatalf("retry %s: %v", q, err)
		}
	}
	var v int
	if err := c1.QueryRowContext(ctx, "SELECT v FROM shop.t WHERE id = 1").Scan(&v); err != nil || v != 10 {
		t.Fatalf("after the retry v = %d, %v; want 10", v, err)
	}
}

// TestServerIdentity: the handshake announces the MySQL version that
// @@version answers, and @@version_comment names verso and its version
// (the mysql client prints "Server version: 8.0.33 verso v...").
func TestServerIdentity(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	var version, comment string
	if err := db.QueryRow("SELECT @@version, @@version_comment").Scan(&version, &comment); err != nil {
		t.Fatal(err)
	}
	if version != sqlserver.MySQLVersion || comment != "verso "+verso.Version() {
		t.Fatalf("@@version %q, @@version_comment %q", version, comment)
	}
	nc, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	head := make([]byte, 4)
	if _, err := io.ReadFull(nc, head); err != nil {
		t.Fatal(err)
	}
	hs := make([]byte, int(head[0])|int(head[1])<<8|int(head[2])<<16)
	if _, err := io.ReadFull(nc, hs); err != nil {
		t.Fatal(err)
	}
	if end := bytes.IndexByte(hs[1:], 0); end < 0 || string(hs[1:1+end]) != version {
		t.Fatalf("the handshake announces %q, @@version is %q", hs[1:], version)
	}
}
