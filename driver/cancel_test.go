package driver

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestCancel: cancelling a statement's context stops it: a SLEEP, a
// large cross join being read, and a sort. The error is 1317 and wraps
// the context's error.
func TestCancel(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE n (i INT PRIMARY KEY)")
	var vals string
	for i := range 200 {
		if i > 0 {
			vals += ","
		}
		vals += fmt.Sprintf("(%d)", i)
	}
	mustExec(t, db, "INSERT INTO n VALUES "+vals)

	for _, q := range []string{
		"SELECT SLEEP(10)",
		"SELECT COUNT(*) FROM n a, n b, n c, n d",                     // 1.6e9 rows
		"SELECT a.i FROM n a, n b, n c ORDER BY a.i + b.i * c.i DESC", // sorting 8e6 rows
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		rows, err := db.QueryContext(ctx, q)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		took := time.Since(start)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", q, err)
		}
		if n := errNumber(err); n != 0 && n != 1317 {
			t.Errorf("%s: error number %d, want 1317", q, n)
		}
		if took > 3*time.Second {
			t.Errorf("%s: stopped after %v", q, took)
		}
	}

	// A deadline stops Exec as well, and the connection runs the next
	// statement.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := db.ExecContext(ctx, "SELECT SLEEP(10)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ExecContext past its deadline: %v", err)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM n"); n != 200 {
		t.Fatalf("after the cancelled statements: %d", n)
	}
}

// TestKillQuery: KILL QUERY from another connection stops a running
// statement with 1317; its connection stays usable.
func TestKillQuery(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	ctx := context.Background()
	victim, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	id := queryInt(t, victim, "SELECT CONNECTION_ID()")
	done := make(chan error, 1)
	go func() {
		_, err := victim.ExecContext(ctx, "SELECT SLEEP(10)")
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for queryInt(t, db, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE 'SELECT SLEEP%'", id) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the statement never showed in the process list")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	select {
	case err := <-done:
		wantNumber(t, "the killed statement", err, 1317)
	case <-time.After(3 * time.Second):
		t.Fatal("KILL QUERY did not stop the statement")
	}
	if n := queryInt(t, victim, "SELECT 1"); n != 1 {
		t.Fatal("the connection does not work after KILL QUERY")
	}

	// KILL (CONNECTION) ends the connection: database/sql makes a new one.
	mustExec(t, db, fmt.Sprintf("KILL %d", id))
	if err := victim.PingContext(ctx); err == nil {
		t.Fatal("a killed connection answers")
	}
	if n := queryInt(t, db, "SELECT 1"); n != 1 {
		t.Fatal("the pool does not work after KILL")
	}
}
