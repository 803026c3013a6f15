package driver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestMain checks, once every test has closed its DBs, that no data
// directory is left open: each connector and connection released what it
// acquired.
func TestMain(m *testing.M) {
	code := m.Run()
	theDriver.dirs.mu.Lock()
	for dir, b := range theDriver.dirs.open {
		fmt.Fprintf(os.Stderr, "driver: data directory %s left open with %d references\n", dir, b.refs)
		code = 1
	}
	theDriver.dirs.mu.Unlock()
	os.Exit(code)
}

// dsnOf returns the DSN of cfg with the data directory dir.
func dsnOf(dir string, cfg Config) string {
	cfg.Dir = dir
	return cfg.FormatDSN()
}

// openDB opens dsn, closed when the test ends.
func openDB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("verso", dsn)
	if err != nil {
		t.Fatalf("sql.Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// withDatabase makes the database shop in a new data directory and opens
// it with cfg (database=shop, and Jane Doe's identity unless cfg has
// one).
func withDatabase(t testing.TB, cfg Config) (*sql.DB, string) {
	t.Helper()
	dir := t.TempDir()
	admin := openDB(t, dsnOf(dir, Config{}))
	mustExec(t, admin, "CREATE DATABASE shop")
	admin.Close()
	cfg.Database = "shop"
	if cfg.CommitName == "" {
		cfg.CommitName, cfg.CommitEmail = "Jane Doe", "jane@example.com"
	}
	return openDB(t, dsnOf(dir, cfg)), dir
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func mustExec(t testing.TB, db execer, q string, args ...any) sql.Result {
	t.Helper()
	res, err := db.ExecContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryInt returns the integer q selects.
func queryInt(t testing.TB, db queryer, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// queryString returns the string q selects.
func queryString(t testing.TB, db queryer, q string, args ...any) string {
	t.Helper()
	var s string
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// errNumber returns the MySQL error number of err, or 0.
func errNumber(err error) uint16 {
	var me *MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// wantNumber fails the test unless err is a *MySQLError numbered n.
func wantNumber(t testing.TB, what string, err error, n uint16) {
	t.Helper()
	if got := errNumber(err); got != n {
		t.Fatalf("%s: got error %v (number %d), want number %d", what, err, got, n)
	}
}
