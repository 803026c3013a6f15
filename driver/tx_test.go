package driver

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestIsolationLevels: BeginTx takes verso's level (REPEATABLE READ, the
// default) and refuses the others with ErrIsolationLevel.
func TestIsolationLevels(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	ctx := context.Background()
	for _, level := range []sql.IsolationLevel{sql.LevelDefault, sql.LevelRepeatableRead} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
		if err != nil {
			t.Fatalf("%v: %v", level, err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	for _, level := range []sql.IsolationLevel{
		sql.LevelReadUncommitted, sql.LevelReadCommitted, sql.LevelWriteCommitted,
		sql.LevelSnapshot, sql.LevelSerializable, sql.LevelLinearizable,
	} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
		if err == nil {
			tx.Rollback()
			t.Fatalf("%v: no error", level)
		}
		if !errors.Is(err, ErrIsolationLevel) {
			t.Fatalf("%v: %v, want ErrIsolationLevel", level, err)
		}
	}
}

// TestReadOnlyTransaction: a read-only transaction reads, and refuses
// writes with MySQL's 1792; the connection then works as before.
func TestReadOnlyTransaction(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO t VALUES (1)")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, tx, "SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("read in a read-only transaction: %d", n)
	}
	for _, q := range []string{"INSERT INTO t VALUES (2)", "UPDATE t SET id = 3", "DELETE FROM t", "REPLACE INTO t VALUES (1)"} {
		_, err := tx.Exec(q)
		wantNumber(t, q+" in a read-only transaction", err, 1792)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (2)")
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 2 {
		t.Fatalf("after the read-only transaction: %d rows", n)
	}
}

// TestTransactions: Commit makes the writes visible to other
// connections, Rollback drops them, and a transaction reads its snapshot
// (REPEATABLE READ) while another connection commits.
func TestTransactions(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	ctx := context.Background()

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO t VALUES (1, 10)")
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 0 {
		t.Fatalf("another connection sees an uncommitted row")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("after Commit: %d rows", n)
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO t VALUES (2, 20)")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("after Rollback: %d rows", n)
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := queryInt(t, tx, "SELECT v FROM t WHERE id = 1"); v != 10 {
		t.Fatalf("v = %d", v)
	}
	mustExec(t, db, "UPDATE t SET v = 11 WHERE id = 1")
	if v := queryInt(t, tx, "SELECT v FROM t WHERE id = 1"); v != 10 {
		t.Fatalf("the transaction's snapshot moved: v = %d", v)
	}
	// A locking read sees the latest committed version, as InnoDB's.
	if v := queryInt(t, tx, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); v != 11 {
		t.Fatalf("SELECT ... FOR UPDATE: v = %d", v)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// A connection closed with its transaction open rolls it back.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "UPDATE t SET v = 99 WHERE id = 1")
	c.Raw(func(dc any) error { return dc.(*conn).Close() })
	c.Close()
	if v := queryInt(t, db, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); v != 11 {
		t.Fatalf("after closing a connection in a transaction: v = %d", v)
	}
}

// TestBranchPerConnection: each connection has its own current branch:
// dolt_checkout on one moves it alone, and its writes stay on its branch.
func TestBranchPerConnection(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	mustExec(t, db, "CALL dolt_commit('-Am', 'table t')")
	ctx := context.Background()
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustExec(t, a, "CALL dolt_checkout('-b', 'feature')")
	if got := queryString(t, a, "SELECT active_branch()"); got != "feature" {
		t.Fatalf("a is on %q", got)
	}
	if got := queryString(t, b, "SELECT active_branch()"); got != "main" {
		t.Fatalf("b moved to %q with a's checkout", got)
	}
	mustExec(t, a, "INSERT INTO t VALUES (1)")
	mustExec(t, a, "CALL dolt_commit('-am', 'one on feature')")
	mustExec(t, b, "INSERT INTO t VALUES (2)")
	if n := queryInt(t, a, "SELECT COUNT(*) FROM t WHERE id = 1"); n != 1 {
		t.Fatal("a does not see its row")
	}
	if n := queryInt(t, b, "SELECT COUNT(*) FROM t WHERE id = 1"); n != 0 {
		t.Fatal("b sees a's row of feature on main")
	}
	if n := queryInt(t, a, "SELECT COUNT(*) FROM t WHERE id = 2"); n != 0 {
		t.Fatal("a sees b's row of main on feature")
	}
	if got := queryString(t, b, "SELECT message FROM dolt_log LIMIT 1"); got != "table t" {
		t.Fatalf("main's head: %q", got)
	}
	if got := queryString(t, b, "SELECT message FROM `shop/feature`.dolt_log LIMIT 1"); got != "one on feature" {
		t.Fatalf("feature's head, from b: %q", got)
	}
}

// TestConcurrentIncrements: goroutines increment one counter row, each
// increment in a transaction of its own connection; a transaction whose
// commit fails (1213) is retried. The counter ends at the number of
// acknowledged commits.
func TestConcurrentIncrements(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE c (id INT PRIMARY KEY, n BIGINT NOT NULL)")
	mustExec(t, db, "INSERT INTO c VALUES (1, 0)")
	const workers, each = 8, 25
	db.SetMaxOpenConns(workers)
	var acked, retried atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for done := 0; done < each; {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					errs <- err
					return
				}
				if _, err = tx.Exec("UPDATE c SET n = n + 1 WHERE id = ?", 1); err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
				switch errNumber(err) {
				case 0:
					if err != nil {
						errs <- err
						return
					}
					acked.Add(1)
					done++
				case 1213, 1205:
					retried.Add(1)
				default:
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT n FROM c WHERE id = 1"); n != acked.Load() || n != workers*each {
		t.Fatalf("the counter is %d; %d increments were acknowledged (%d retried), %d made", n, acked.Load(), retried.Load(), workers*each)
	}
}
