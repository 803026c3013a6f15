package server

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/internal/testseed"
)

// Row locks over the wire, through go-sql-driver/mysql, on a server over a
// file store (every COMMIT synced): the invariants of the issue that lost
// acknowledged writes.

// lockServer starts a server over a fresh data dir with database db and
// returns a pool of root connections to it.
func lockServer(t *testing.T, maxConns int) *sql.DB {
	t.Helper()
	s, _ := startTestServer(t, t.TempDir(), Config{})
	root := connect(t, s, "root", "", "")
	if _, err := root.Exec("CREATE DATABASE db"); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, "root", "", "db")
	c.SetMaxOpenConns(maxConns)
	c.SetMaxIdleConns(maxConns)
	return c
}

// retryable reports whether err is a lock wait timeout (1205) or a
// deadlock or serialization failure (1213), after which a client retries.
func retryable(err error) bool {
	n, _ := mysqlErrNum(err)
	return n == 1205 || n == 1213
}

// TestLockCounter: eight connections increment counters for a bounded
// time, half with autocommit statements and half in explicit transactions
// (two increments each); every counter ends equal to the increments
// acknowledged to the clients, to the one.
func TestLockCounter(t *testing.T) {
	db := lockServer(t, 8)
	mustDBExec(t, db, "CREATE TABLE c (id INT PRIMARY KEY, n INT NOT NULL)")
	mustDBExec(t, db, "INSERT INTO c VALUES (0, 0), (1, 0)")
	const workers = 8
	deadline := time.Now().Add(3 * time.Second)
	var acked [2]atomic.Int64
	var retries atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for i := 0; time.Now().Before(deadline); i++ {
				id := i % 2
				if w%2 == 0 {
					_, err = conn.ExecContext(ctx, "UPDATE c SET n = n + 1 WHERE id = ?", id)
					if err == nil {
						acked[id].Add(1)
					}
				} else {
					err = counterTx(ctx, conn, id)
					if err == nil {
						acked[id].Add(2)
					}
				}
				if err != nil && !retryable(err) {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
				if err != nil {
					retries.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for id := range 2 {
		var n int64
		if err := db.QueryRow("SELECT n FROM c WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != acked[id].Load() {
			t.Errorf("counter %d is %d, but %d increments were acknowledged", id, n, acked[id].Load())
		}
		t.Logf("counter %d: %d increments acknowledged, %d present", id, acked[id].Load(), n)
	}
	t.Logf("%d retried statements or transactions", retries.Load())
}

// counterTx increments counter id twice in one transaction, reading it
// with SELECT ... FOR UPDATE first.
func counterTx(ctx context.Context, conn *sql.Conn, id int) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT n FROM c WHERE id = ? FOR UPDATE", id).Scan(&n); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE c SET n = ? WHERE id = ?", n+1, id); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE c SET n = n + 1 WHERE id = ?", id); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func mustDBExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestLockBank: sixteen connections move money between 100 accounts in
// transactions of two updates (retried on 1205 and 1213, the only errors
// allowed) while readers sum the balances and a committer records
// dolt_commits: every reader's sum, and the sum at every commit of the
// history, is the total; the final balances equal a replay of the
// acknowledged transfers.
func TestLockBank(t *testing.T) {
	const accounts, start = 100, 1000
	db := lockServer(t, 20)
	mustDBExec(t, db, "CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL)")
	var vals []string
	for i := range accounts {
		vals = append(vals, fmt.Sprintf("(%d, %d)", i, start))
	}
	mustDBExec(t, db, "INSERT INTO acct VALUES "+strings.Join(vals, ", "))
	mustDBExec(t, db, "CALL dolt_commit('-Am', 'open the accounts')")
	const total = accounts * start
	seed := testseed.Seed(t)

	deadline := time.Now().Add(4 * time.Second)
	var mu sync.Mutex
	expect := make([]int64, accounts)
	for i := range expect {
		expect[i] = start
	}
	var transfers, retries, reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer conn.Close()
			for time.Now().Before(deadline) {
				if w >= 12 { // readers
					var sum int64
					if err := conn.QueryRowContext(ctx, "SELECT SUM(bal) FROM acct").Scan(&sum); err != nil {
						fail(err)
						return
					}
					if sum != total {
						fail(fmt.Errorf("a reader saw a total of %d, want %d", sum, total))
						return
					}
					reads.Add(1)
					continue
				}
				a, b := rng.IntN(accounts), rng.IntN(accounts-1)
				if b >= a {
					b++
				}
				amt := int64(rng.IntN(50) + 1)
				err := transfer(ctx, conn, a, b, amt)
				switch {
				case err == nil:
					transfers.Add(1)
					mu.Lock()
					expect[a] -= amt
					expect[b] += amt
					mu.Unlock()
				case retryable(err):
					retries.Add(1)
				default:
					fail(fmt.Errorf("transfer %d -> %d: %w", a, b, err))
					return
				}
			}
		}()
	}
	var commits atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			time.Sleep(150 * time.Millisecond)
			_, err := db.Exec("CALL dolt_commit('-Am', 'balances')")
			switch {
			case err == nil:
				commits.Add(1)
			case retryable(err) || strings.Contains(err.Error(), "nothing to commit"):
			default:
				fail(fmt.Errorf("dolt_commit: %w", err))
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT id, bal FROM acct ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for rows.Next() {
		var id int
		var bal int64
		if err := rows.Scan(&id, &bal); err != nil {
			t.Fatal(err)
		}
		if bal != expect[id] {
			wrong++
			if wrong <= 5 {
				t.Errorf("account %d holds %d, a replay of the acknowledged transfers gives %d", id, bal, expect[id])
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if wrong > 0 {
		t.Fatalf("%d of %d accounts wrong", wrong, accounts)
	}
	// Every commit of the history holds the total.
	hashes, err := db.Query("SELECT commit_hash FROM dolt_log")
	if err != nil {
		t.Fatal(err)
	}
	var hs []string
	for hashes.Next() {
		var h string
		if err := hashes.Scan(&h); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	checked := 0
	for _, h := range hs {
		var sum sql.NullInt64
		if err := db.QueryRow(fmt.Sprintf("SELECT SUM(bal) FROM acct AS OF '%s'", h)).Scan(&sum); err != nil {
			continue // commits before the table
		}
		checked++
		if sum.Int64 != total {
			t.Errorf("commit %s holds a total of %d, want %d", h, sum.Int64, total)
		}
	}
	t.Logf("%d transfers acknowledged (%d retried), %d reads, %d commits checked; all %d accounts as replayed", transfers.Load(), retries.Load(), reads.Load(), checked, accounts)
	if transfers.Load() == 0 || reads.Load() == 0 || checked < 2 {
		t.Fatalf("the workload did too little to show anything: %d transfers, %d reads, %d commits", transfers.Load(), reads.Load(), checked)
	}
}

// transfer moves amt from account a to account b in one transaction.
func transfer(ctx context.Context, conn *sql.Conn, a, b int, amt int64) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE acct SET bal = bal - ? WHERE id = ?", amt, a); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE acct SET bal = bal + ? WHERE id = ?", amt, b); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// lockTable starts a server whose database db has the table t (id INT
// PRIMARY KEY, v INT NOT NULL) holding rows (VALUES syntax), and returns a
// pool and n connections of it, each its own session.
func lockTable(t *testing.T, rows string, n int) (*sql.DB, []*sql.Conn) {
	t.Helper()
	db := lockServer(t, n+2)
	mustDBExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
	mustDBExec(t, db, "INSERT INTO t VALUES "+rows)
	return db, lockConns(t, db, n)
}

// lockConns returns n connections of db, each its own session.
func lockConns(t *testing.T, db *sql.DB, n int) []*sql.Conn {
	t.Helper()
	out := make([]*sql.Conn, n)
	for i := range out {
		out[i] = conn(t, db)
	}
	return out
}

func cexec(t *testing.T, c *sql.Conn, q string, args ...any) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func cint(t *testing.T, c *sql.Conn, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// blocked reports whether done (of runAsync) stays empty for d.
func blocked(done <-chan error, d time.Duration) bool {
	select {
	case <-done:
		return false
	case <-time.After(d):
		return true
	}
}

func wantErrNum(t *testing.T, err error, num uint16) {
	t.Helper()
	if n, _ := mysqlErrNum(err); n != num {
		t.Fatalf("got error %v, want MySQL error %d", err, num)
	}
}

// TestLockForUpdate: SELECT ... FOR UPDATE blocks a second writer of the
// row until COMMIT, which then sees the first's value; the writer of
// another row does not wait; plain reads keep the snapshot.
func TestLockForUpdate(t *testing.T) {
	db, c := lockTable(t, "(1, 0), (2, 0)", 3)
	a, b, r := c[0], c[1], c[2]

	cexec(t, r, "BEGIN")
	if v := cint(t, r, "SELECT v FROM t WHERE id = 1"); v != 0 {
		t.Fatalf("v = %d", v)
	}
	cexec(t, a, "BEGIN")
	if v := cint(t, a, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); v != 0 {
		t.Fatalf("v = %d", v)
	}
	done := runAsync(t.Context(), b, "UPDATE t SET v = v + 1 WHERE id = 1")
	if !blocked(done, 300*time.Millisecond) {
		t.Fatalf("a second writer of a row locked FOR UPDATE did not wait: %v", <-done)
	}
	cexec(t, b2(t, db), "UPDATE t SET v = 5 WHERE id = 2") // another row: no wait
	cexec(t, a, "UPDATE t SET v = 10 WHERE id = 1")
	cexec(t, a, "COMMIT")
	if err := <-done; err != nil {
		t.Fatalf("the waiting writer: %v", err)
	}
	if v := cint(t, a, "SELECT v FROM t WHERE id = 1"); v != 11 {
		t.Fatalf("after both: v = %d, want 11 (the waiting update read the committed 10)", v)
	}
	// The reader's snapshot is unchanged; a locking read and its own
	// update see the latest.
	if v := cint(t, r, "SELECT v FROM t WHERE id = 1"); v != 0 {
		t.Fatalf("the snapshot read gives %d, want 0", v)
	}
	if v := cint(t, r, "SELECT v FROM t WHERE id = 1 FOR SHARE"); v != 11 {
		t.Fatalf("FOR SHARE gives %d, want the latest 11", v)
	}
	cexec(t, r, "UPDATE t SET v = v * 2 WHERE id = 2")
	if v := cint(t, r, "SELECT v FROM t WHERE id = 2"); v != 10 {
		t.Fatalf("the reader's own update of the latest 5 gives %d, want 10", v)
	}
	cexec(t, r, "COMMIT")
	if v := cint(t, a, "SELECT v FROM t WHERE id = 2"); v != 10 {
		t.Fatalf("v(2) = %d, want 10", v)
	}
}

// b2 returns one more connection of db.
func b2(t *testing.T, db *sql.DB) *sql.Conn { return lockConns(t, db, 1)[0] }

// TestLockNowaitSkipLocked: NOWAIT fails at once with 3572, SKIP LOCKED
// leaves out the locked rows, FOR SHARE readers share, and a writer waits
// for them.
func TestLockNowaitSkipLocked(t *testing.T) {
	db := lockServer(t, 4)
	mustDBExec(t, db, "CREATE TABLE q (id INT PRIMARY KEY, job VARCHAR(10))")
	mustDBExec(t, db, "INSERT INTO q VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	c := lockConns(t, db, 3)
	a, b, w := c[0], c[1], c[2]
	cexec(t, a, "BEGIN")
	cexec(t, a, "SELECT * FROM q WHERE id = 2 FOR UPDATE")

	cexec(t, b, "BEGIN")
	start := time.Now()
	_, err := b.ExecContext(context.Background(), "SELECT * FROM q WHERE id = 2 FOR UPDATE NOWAIT")
	wantErrNum(t, err, 3572)
	if time.Since(start) > 2*time.Second {
		t.Fatalf("NOWAIT waited %v", time.Since(start))
	}
	_, err = b.ExecContext(context.Background(), "SELECT * FROM q WHERE id = 2 FOR SHARE NOWAIT")
	wantErrNum(t, err, 3572)
	rows, err := b.QueryContext(context.Background(), "SELECT id FROM q ORDER BY id FOR UPDATE SKIP LOCKED")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for rows.Next() {
		var id int
		rows.Scan(&id)
		got = append(got, id)
	}
	rows.Close()
	if fmt.Sprint(got) != "[1 3]" {
		t.Fatalf("SKIP LOCKED returned %v, want [1 3]", got)
	}
	// b now holds 1 and 3: a's SKIP LOCKED finds only its own row 2.
	if n := cint(t, a, "SELECT COUNT(*) FROM (SELECT id FROM q FOR UPDATE SKIP LOCKED) x"); n != 1 {
		t.Fatalf("a derived table's SKIP LOCKED counted %d rows, want 1 (its own)", n)
	}
	cexec(t, a, "COMMIT")
	cexec(t, b, "COMMIT")

	// Shared locks share; a writer waits for both.
	cexec(t, a, "BEGIN")
	cexec(t, b, "BEGIN")
	cexec(t, a, "SELECT * FROM q WHERE id = 1 LOCK IN SHARE MODE")
	cexec(t, b, "SELECT * FROM q WHERE id = 1 FOR SHARE")
	done := runAsync(t.Context(), w, "UPDATE q SET job = 'x' WHERE id = 1")
	if !blocked(done, 300*time.Millisecond) {
		t.Fatalf("a writer of a row held FOR SHARE did not wait: %v", <-done)
	}
	cexec(t, a, "COMMIT")
	if !blocked(done, 200*time.Millisecond) {
		t.Fatalf("a writer of a row still held FOR SHARE by another did not wait: %v", <-done)
	}
	cexec(t, b, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestLockWaitTimeout: a wait longer than innodb_lock_wait_timeout fails
// the statement with 1205; the transaction and its earlier writes stay.
func TestLockWaitTimeout(t *testing.T) {
	_, c := lockTable(t, "(1, 0), (2, 0)", 2)
	a, b := c[0], c[1]
	if v := cint(t, b, "SELECT @@innodb_lock_wait_timeout"); v != 50 {
		t.Fatalf("innodb_lock_wait_timeout defaults to %d, want MySQL's 50", v)
	}
	cexec(t, a, "BEGIN")
	cexec(t, a, "UPDATE t SET v = 1 WHERE id = 1")
	cexec(t, b, "SET innodb_lock_wait_timeout = 1")
	cexec(t, b, "BEGIN")
	cexec(t, b, "UPDATE t SET v = 7 WHERE id = 2")
	start := time.Now()
	_, err := b.ExecContext(context.Background(), "UPDATE t SET v = 2 WHERE id = 1")
	wantErrNum(t, err, 1205)
	if d := time.Since(start); d < 900*time.Millisecond || d > 5*time.Second {
		t.Fatalf("the wait lasted %v, want about 1 s", d)
	}
	cexec(t, a, "COMMIT")
	cexec(t, b, "COMMIT")
	if v := cint(t, a, "SELECT v FROM t WHERE id = 2"); v != 7 {
		t.Fatalf("the timed-out transaction's earlier write: v = %d, want 7", v)
	}
	if v := cint(t, a, "SELECT v FROM t WHERE id = 1"); v != 1 {
		t.Fatalf("v = %d, want 1", v)
	}
}

// TestLockDeadlock: two transactions that lock two rows in opposite
// orders: the younger gets 1213 and is rolled back whole (its first write
// gone), the older goes on.
func TestLockDeadlock(t *testing.T) {
	_, c := lockTable(t, "(1, 0), (2, 0)", 2)
	old, young := c[0], c[1]
	cexec(t, old, "BEGIN")
	cexec(t, old, "UPDATE t SET v = 1 WHERE id = 1")
	cexec(t, young, "BEGIN")
	cexec(t, young, "UPDATE t SET v = 2 WHERE id = 2")
	done := runAsync(t.Context(), old, "UPDATE t SET v = 1 WHERE id = 2")
	if !blocked(done, 200*time.Millisecond) {
		t.Fatalf("no wait: %v", <-done)
	}
	_, err := young.ExecContext(context.Background(), "UPDATE t SET v = 2 WHERE id = 1")
	wantErrNum(t, err, 1213)
	if err := <-done; err != nil {
		t.Fatalf("the older transaction: %v", err)
	}
	cexec(t, old, "COMMIT")
	rows := cint(t, old, "SELECT COUNT(*) FROM t WHERE v = 1")
	if rows != 2 {
		t.Fatalf("%d rows hold the older transaction's writes, want 2 (the younger's write rolled back)", rows)
	}
	// The younger's transaction is over: its next statement autocommits.
	cexec(t, young, "UPDATE t SET v = 5 WHERE id = 1")
	if v := cint(t, old, "SELECT v FROM t WHERE id = 1"); v != 5 {
		t.Fatalf("after the deadlock, an UPDATE of the victim's session did not commit by itself: v = %d", v)
	}
}

// TestLockReleasedOnDisconnect: a client that goes away inside a
// transaction releases its row locks (its writes roll back), so a writer
// waiting for them goes on at once.
func TestLockReleasedOnDisconnect(t *testing.T) {
	_, c := lockTable(t, "(1, 0)", 2)
	a, b := c[0], c[1]
	cexec(t, a, "BEGIN")
	cexec(t, a, "UPDATE t SET v = 100 WHERE id = 1")
	done := runAsync(t.Context(), b, "UPDATE t SET v = v + 1 WHERE id = 1")
	if !blocked(done, 200*time.Millisecond) {
		t.Fatalf("no wait: %v", <-done)
	}
	// Close the connection under the transaction (database/sql would
	// return it to the pool otherwise).
	if err := a.Raw(func(dc any) error { return dc.(interface{ Close() error }).Close() }); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, done, 10*time.Second, "the writer waiting for a client that went away"); err != nil {
		t.Fatal(err)
	}
	if v := cint(t, b, "SELECT v FROM t WHERE id = 1"); v != 1 {
		t.Fatalf("v = %d, want 1 (the gone transaction rolled back)", v)
	}
}

// TestLockWaitKilled: KILL QUERY ends a statement waiting for a row lock
// at once, with MySQL's 1317; the transaction holding the lock goes on.
func TestLockWaitKilled(t *testing.T) {
	_, c := lockTable(t, "(1, 0)", 3)
	a, b, k := c[0], c[1], c[2]
	cexec(t, a, "BEGIN")
	cexec(t, a, "UPDATE t SET v = 1 WHERE id = 1")
	id := cint(t, b, "SELECT CONNECTION_ID()")
	done := runAsync(t.Context(), b, "UPDATE t SET v = 2 WHERE id = 1")
	if !blocked(done, 200*time.Millisecond) {
		t.Fatalf("no wait: %v", <-done)
	}
	start := time.Now()
	cexec(t, k, fmt.Sprintf("KILL QUERY %d", id))
	wantErrNum(t, waitErr(t, done, 5*time.Second, "a lock wait after KILL QUERY"), 1317)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the lock wait ended %v after KILL QUERY", d)
	}
	cexec(t, a, "COMMIT")
	if v := cint(t, k, "SELECT v FROM t WHERE id = 1"); v != 1 {
		t.Fatalf("v = %d, want 1", v)
	}
}
