package server

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestServerReadOnly: a read-only server answers reads and refuses every
// write, DDL and versioning procedure with 1290.
func TestServerReadOnly(t *testing.T) {
	dir := t.TempDir()
	s, stop := startTestServer(t, dir, Config{})
	db := connect(t, s, "root", "", "")
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO shop.t VALUES (1, 10)",
		"USE shop",
		"CALL dolt_commit('-Am', 'one')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	stop()

	s, _ = startTestServer(t, dir, Config{ReadOnly: true})
	db = connect(t, s, "root", "", "shop")
	var v int
	if err := db.QueryRow("SELECT v FROM t WHERE id = 1").Scan(&v); err != nil || v != 10 {
		t.Fatalf("a read: %d, %v", v, err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM dolt_log").Scan(&n); err != nil || n != 2 {
		t.Fatalf("dolt_log: %d, %v", n, err)
	}
	for _, q := range []string{
		"INSERT INTO t VALUES (2, 20)",
		"UPDATE t SET v = 11",
		"DELETE FROM t",
		"CREATE TABLE u (id INT PRIMARY KEY)",
		"DROP TABLE t",
		"CREATE DATABASE other",
		"CALL dolt_branch('b')",
		"CALL dolt_commit('--allow-empty', '-m', 'x')",
	} {
		_, err := db.Exec(q)
		if num, state := mysqlErrNum(err); num != 1290 || state != "HY000" {
			t.Errorf("%s: %v, want 1290 (HY000)", q, err)
		}
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("after the refused writes: %d rows, %v", n, err)
	}
}

// TestServerNoAutocommit: sessions start with autocommit off, so a write
// not committed is gone when its connection closes; a user's
// SessionVars are set at its login.
func TestServerNoAutocommit(t *testing.T) {
	dir := t.TempDir()
	s, _ := startTestServer(t, dir, Config{NoAutocommit: true,
		SessionVars: map[string]map[string]any{"root": {"sql_select_limit": 3}}})
	db := connect(t, s, "root", "", "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ac, limit int
	if err := conn.QueryRowContext(t.Context(), "SELECT @@autocommit, @@sql_select_limit").Scan(&ac, &limit); err != nil || ac != 0 || limit != 3 {
		t.Fatalf("@@autocommit, @@sql_select_limit: %d, %d, %v; want 0, 3", ac, limit, err)
	}
	for _, q := range []string{
		"CREATE DATABASE shop", // DDL commits, as in MySQL
		"CREATE TABLE shop.t (id INT PRIMARY KEY)",
		"INSERT INTO shop.t VALUES (1)",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	db.Close()
	db = connect(t, s, "root", "", "")
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM shop.t").Scan(&n); err != nil || n != 0 {
		t.Errorf("an insert never committed: %d rows, %v; want 0", n, err)
	}
}

// TestServerBackLog: with MaxConnections 1 and BackLog 1, a second client
// waits for the first to leave and then logs in; a third, beyond the back
// log, gets 1040 at once; a waiting client that gets no place within
// MaxConnectionsTimeout gets 1040, not before.
func TestServerBackLog(t *testing.T) {
	const wait = 2 * time.Second
	s, _ := startTestServer(t, t.TempDir(), Config{MaxConnections: 1, BackLog: 1, MaxConnectionsTimeout: wait})
	dsn := fmt.Sprintf("root@tcp(%s)/", s.Addr())
	first, err := open(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	first.SetMaxOpenConns(1)
	c1, err := first.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The second client waits; the first leaves after 200 ms.
	second := make(chan error, 1)
	go func() {
		_, err := open(t, dsn)
		second <- err
	}()
	// Once the second waits, a third is beyond the back log.
	waiting := func() int {
		s.ln.mu.Lock()
		defer s.ln.mu.Unlock()
		return len(s.ln.conns) - s.ln.active
	}
	for deadline := time.Now().Add(10 * time.Second); waiting() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second client never waited")
		}
	}
	_, err = open(t, dsn)
	if n, _ := mysqlErrNum(err); n != 1040 {
		t.Errorf("beyond the back log: %v, want 1040", err)
	}
	c1.Close()
	first.Close()
	if err := <-second; err != nil {
		t.Errorf("the waiting client after the first left: %v", err)
	}

	// Now one client holds the place for good: one that waits times
	// out with 1040.
	hold, err := open(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := hold.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	start := time.Now()
	_, err = open(t, dsn)
	if n, _ := mysqlErrNum(err); n != 1040 {
		t.Errorf("a waiting client past the timeout: %v, want 1040", err)
	}
	if d := time.Since(start); d < wait-100*time.Millisecond {
		t.Errorf("the waiting client was refused after %v, before the timeout", d)
	}
}

// TestServerDisableMultiStatements: a client that asks for
// multi-statements gets two statements in one query refused as one
// statement.
func TestServerDisableMultiStatements(t *testing.T) {
	for _, disable := range []bool{false, true} {
		s, _ := startTestServer(t, t.TempDir(), Config{DisableMultiStatements: disable})
		db, err := open(t, fmt.Sprintf("root@tcp(%s)/?multiStatements=true", s.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec("SET @a = 1; SET @b = 2")
		if disable && err == nil {
			t.Error("with multi-statements disabled, two statements ran")
		}
		if !disable && err != nil {
			t.Errorf("with multi-statements: %v", err)
		}
	}
}
