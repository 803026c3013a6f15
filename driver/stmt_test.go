package driver

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestPreparedReuse: statements prepared once run many times with
// different arguments: inserts, a primary-key select (the fast path's
// shape) and a range select, on a connection and in a transaction.
func TestPreparedReuse(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(20), n BIGINT)")
	ins, err := db.Prepare("INSERT INTO kv VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	const n = 300
	for i := range n {
		res, err := ins.Exec(i, fmt.Sprintf("v%d", i), i*i)
		if err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
		if a, _ := res.RowsAffected(); a != 1 {
			t.Fatalf("insert %d: %d rows affected", i, a)
		}
	}
	get, err := db.Prepare("SELECT v, n FROM kv WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Close()
	for round := range 3 {
		for i := range n {
			var v string
			var sq int64
			if err := get.QueryRow(i).Scan(&v, &sq); err != nil {
				t.Fatalf("round %d, select %d: %v", round, i, err)
			}
			if v != fmt.Sprintf("v%d", i) || sq != int64(i*i) {
				t.Fatalf("select %d: got %q %d", i, v, sq)
			}
		}
	}
	between, err := db.Prepare("SELECT SUM(n) FROM kv WHERE k BETWEEN ? AND ?")
	if err != nil {
		t.Fatal(err)
	}
	defer between.Close()
	for lo := 0; lo < n; lo += 37 {
		var sum int64
		if err := between.QueryRow(lo, lo+9).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		for i := lo; i <= lo+9 && i < n; i++ {
			want += int64(i * i)
		}
		if sum != want {
			t.Fatalf("SUM over [%d, %d]: %d, want %d", lo, lo+9, sum, want)
		}
	}

	// A statement of the DB used in a transaction, and one prepared in it.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	upd, err := tx.Prepare("UPDATE kv SET n = n + ? WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := upd.Exec(1, i); err != nil {
			t.Fatal(err)
		}
	}
	var v string
	var sq int64
	if err := tx.Stmt(get).QueryRow(7).Scan(&v, &sq); err != nil || sq != 50 {
		t.Fatalf("in the transaction: %d, %v", sq, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, db, "SELECT n FROM kv WHERE k = 7"); got != 50 {
		t.Fatalf("after commit: %d", got)
	}
}

// TestPreparedErrors: preparing checks the statement (a missing table,
// a syntax error); database/sql checks the argument count against
// NumInput; a closed statement is refused.
func TestPreparedErrors(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	_, err := db.Prepare("SELECT * FROM missing WHERE id = ?")
	wantNumber(t, "prepare over a missing table", err, 1146)
	_, err = db.Prepare("SELEC id FROM t")
	wantNumber(t, "prepare a syntax error", err, 1064)

	s, err := db.Prepare("SELECT id FROM t WHERE id = ? OR id = ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(1); err == nil || !strings.Contains(err.Error(), "expected 2 arguments, got 1") {
		t.Fatalf("one argument for two placeholders: %v", err)
	}
	s.Close()
	if _, err := s.Exec(1, 2); err == nil {
		t.Fatal("a closed statement ran")
	}

	// Placeholders are counted wherever they are.
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for q, n := range map[string]int{
		"SELECT 1":                 0,
		"INSERT INTO t VALUES (?)": 1,
		"SELECT id FROM t WHERE id IN (?, ?, ?) LIMIT ?": 4,
		"SELECT (SELECT ? FROM t WHERE id = ?) + ?":      3,
		"SELECT ':v1', id FROM t WHERE id = ?":           1,
	} {
		var got int
		if err := c.Raw(func(dc any) error {
			st, err := dc.(*conn).Prepare(q)
			if err != nil {
				return err
			}
			defer st.Close()
			got = st.NumInput()
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != n {
			t.Errorf("%s: NumInput %d, want %d", q, got, n)
		}
	}
}

// TestPrepareTakesNoSnapshot: preparing a statement does not begin the
// transaction its first execution reads: that one sees the rows
// committed in between.
func TestPrepareTakesNoSnapshot(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.PrepareContext(ctx, "SELECT COUNT(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mustExec(t, other, "INSERT INTO t VALUES (1)")
	var n int
	if err := s.QueryRow().Scan(&n); err != nil || n != 1 {
		t.Fatalf("the first execution counts %d, %v; want the row committed after the prepare", n, err)
	}
}
