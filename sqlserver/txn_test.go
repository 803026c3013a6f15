package sqlserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

func txSetup(t *testing.T) (*testEnv, *sql.Context, *sql.Context) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT, u INT, UNIQUE KEY (u), KEY (v))")
	env.exec(ctx, "INSERT INTO t VALUES (1, 10, 1), (2, 20, 2)")
	return env, env.session("db"), env.session("db")
}

func isSerializationFailure(err error) bool {
	return err != nil && sql.ErrLockDeadlock.Is(err) && sql.CastSQLError(err).Number() == mysql.ERLockDeadlock
}

func TestTransactionsIsolation(t *testing.T) {
	env, s1, s2 := txSetup(t)
	env.exec(s1, "START TRANSACTION")
	env.exec(s2, "START TRANSACTION")
	env.exec(s1, "INSERT INTO t VALUES (3, 30, 3)")
	env.check(s1, "SELECT count(*) FROM t", "[3]")
	env.check(s2, "SELECT count(*) FROM t", "[2]")
	env.exec(s1, "COMMIT")
	env.check(s2, "SELECT count(*) FROM t", "[2]") // its snapshot
	env.exec(s2, "COMMIT")
	env.check(s2, "SELECT count(*) FROM t", "[3]")

	env.exec(s1, "START TRANSACTION")
	env.exec(s1, "DELETE FROM t")
	env.check(s1, "SELECT count(*) FROM t", "[0]")
	env.exec(s1, "ROLLBACK")
	env.check(s1, "SELECT count(*) FROM t", "[3]")
	env.check(s2, "SELECT count(*) FROM t", "[3]")
}

func TestTransactionsMerge(t *testing.T) {
	env, s1, s2 := txSetup(t)
	env.exec(s1, "START TRANSACTION")
	env.exec(s2, "START TRANSACTION")
	env.exec(s1, "INSERT INTO t VALUES (3, 30, 3)")
	env.exec(s1, "UPDATE t SET v = 11 WHERE id = 1")
	env.exec(s2, "INSERT INTO t VALUES (4, 40, 4)")
	env.exec(s2, "UPDATE t SET v = 21 WHERE id = 2")
	env.exec(s2, "CREATE TABLE other (a INT PRIMARY KEY)")
	env.exec(s1, "COMMIT")
	env.exec(s2, "COMMIT")
	s3 := env.session("db")
	env.check(s3, "SELECT * FROM t ORDER BY id", "[1 11 1] [2 21 2] [3 30 3] [4 40 4]")
	env.check(s3, "SELECT id FROM t WHERE v = 21", "[2]") // the index was merged too
	env.check(s3, "SHOW TABLES", "[other] [t]")

}

func TestTransactionsConflict(t *testing.T) {
	for _, c := range []struct{ name, q1, q2 string }{
		{"schema", "CREATE INDEX ku ON t (u, v)", "INSERT INTO t VALUES (7, 1, 8)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, s1, s2 := txSetup(t)
			env.exec(s1, "START TRANSACTION")
			env.exec(s2, "START TRANSACTION")
			env.exec(s2, c.q2) // s2's snapshot is taken here
			env.exec(s1, c.q1)
			env.exec(s1, "COMMIT")
			_, err := env.query(s2, "COMMIT")
			if !isSerializationFailure(err) {
				t.Fatalf("second commit: got %v, want a serialization failure (1213)", err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
			// The first transaction's work stands; the second is gone and
			// can be retried.
			env.exec(s2, "ROLLBACK")
			env.check(s2, "SELECT count(*) FROM t WHERE id = 1", "[1]")
		})
	}
}

// TestTransactionsWait: a statement that writes a row another open
// transaction wrote waits for it (row locks), then works on what it
// committed: an update of an updated row applies on top, an update of a
// deleted row matches nothing, an insert of the same new key is a
// duplicate; after a rollback, the waiting statement sees the row as it
// was.
func TestTransactionsWait(t *testing.T) {
	for _, c := range []struct {
		name, first, second string
		commit              bool
		secondErr           bool
		want                string
	}{
		{"same row", "UPDATE t SET v = v + 100 WHERE id = 1", "UPDATE t SET v = v * 2 WHERE id = 1", true, false, "[1 220 1]"},
		{"update and delete", "DELETE FROM t WHERE id = 1", "UPDATE t SET v = 7 WHERE id = 1", true, false, ""},
		{"same new key", "INSERT INTO t VALUES (5, 2, 6)", "INSERT INTO t VALUES (5, 1, 5)", true, true, "[5 2 6]"},
		{"rolled back", "UPDATE t SET v = v + 100 WHERE id = 1", "UPDATE t SET v = v * 2 WHERE id = 1", false, false, "[1 20 1]"},
		{"rolled back insert", "INSERT INTO t VALUES (5, 2, 6)", "INSERT INTO t VALUES (5, 1, 5)", false, false, "[5 1 5]"},
		{"same unique value", "INSERT INTO t VALUES (5, 1, 7)", "INSERT INTO t VALUES (6, 2, 7)", true, true, "[5 1 7]"},
		{"unique value freed", "UPDATE t SET u = 9 WHERE id = 1", "INSERT INTO t VALUES (5, 2, 1)", true, false, "[5 2 1]"},
		{"unique value kept", "UPDATE t SET u = 9 WHERE id = 1", "INSERT INTO t VALUES (5, 2, 1)", false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, s1, s2 := txSetup(t)
			id := "1"
			if strings.HasPrefix(c.first, "INSERT") || strings.HasPrefix(c.second, "INSERT") {
				id = "5"
			}
			env.exec(s1, "START TRANSACTION")
			env.exec(s1, c.first)
			done := make(chan error, 1)
			go func() {
				_, err := env.query(s2, c.second)
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("the second writer did not wait: %v", err)
			case <-time.After(200 * time.Millisecond):
			}
			if c.commit {
				env.exec(s1, "COMMIT")
			} else {
				env.exec(s1, "ROLLBACK")
			}
			err := <-done
			if c.secondErr != (err != nil) {
				t.Fatalf("the second writer: %v", err)
			}
			got := ""
			rows, qerr := env.query(env.session("db"), "SELECT * FROM t WHERE id = "+id)
			if qerr != nil {
				t.Fatal(qerr)
			}
			for _, r := range rows {
				got += fmt.Sprint(r)
			}
			if got != c.want {
				t.Fatalf("row %s: %q, want %q", id, got, c.want)
			}
		})
	}
}

func TestSavepoints(t *testing.T) {
	env, s1, _ := txSetup(t)
	env.exec(s1, "START TRANSACTION")
	env.exec(s1, "INSERT INTO t VALUES (3, 30, 3)")
	env.exec(s1, "SAVEPOINT a")
	env.exec(s1, "INSERT INTO t VALUES (4, 40, 4)")
	env.check(s1, "SELECT count(*) FROM t", "[4]")
	env.exec(s1, "ROLLBACK TO SAVEPOINT a")
	env.check(s1, "SELECT count(*) FROM t", "[3]")
	env.exec(s1, "RELEASE SAVEPOINT a")
	env.exec(s1, "COMMIT")
	env.check(env.session("db"), "SELECT id FROM t ORDER BY id", "[1] [2] [3]")
}

// TestConcurrentAutocommit runs sessions inserting and updating at once:
// every statement commits (merging with the others), none is lost.
func TestConcurrentAutocommit(t *testing.T) {
	env, _, _ := txSetup(t)
	const sessions, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := 0; s < sessions; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			ctx := env.session("db")
			for i := 0; i < each; i++ {
				id := 100 + s*each + i
				if _, err := env.query(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", id, s, id)); err != nil {
					errs <- err
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	env.check(env.session("db"), "SELECT count(*) FROM t", fmt.Sprintf("[%d]", 2+sessions*each))
	env.check(env.session("db"), "SELECT count(*) FROM t WHERE v = 1", fmt.Sprintf("[%d]", each))
}

func TestDurability(t *testing.T) {
	dir := t.TempDir()
	p, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, p)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(10), KEY (s))")
	env.exec(ctx, "INSERT INTO t (s) VALUES ('a'), ('b')")
	env.exec(ctx, "CREATE DATABASE gone")
	if _, err := os.Stat(filepath.Join(dir, "gone", ".verso", "chunks")); err != nil {
		t.Fatalf("CREATE DATABASE made no database folder: %v", err)
	}
	env.exec(ctx, "DROP DATABASE gone")
	if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Fatalf("DROP DATABASE left its folder: %v", err)
	}
	env.exec(ctx, "START TRANSACTION") // never committed
	env.exec(ctx, "INSERT INTO t (s) VALUES ('u')")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	p2, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	env2 := newEnv(t, p2)
	ctx2 := env2.session("db")
	env2.check(ctx2, "SHOW DATABASES", "[db] [information_schema]")
	env2.check(ctx2, "SELECT * FROM t ORDER BY id", "[1 a] [2 b]")
	env2.check(ctx2, "SELECT id FROM t WHERE s = 'b'", "[2]")
	env2.exec(ctx2, "INSERT INTO t (s) VALUES ('c')")
	env2.check(ctx2, "SELECT id FROM t WHERE s = 'c'", "[3]")
}

// TestRevisionDatabases reads and writes another branch's working set
// through the database name "db/branch".
func TestRevisionDatabases(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")
	env.exec(ctx, "INSERT INTO t VALUES (1)")
	st, _ := env.p.state("db")
	head, err := st.graph.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.graph.CreateBranch(ctx, "feature", head); err != nil {
		t.Fatal(err)
	}
	// The branch starts from main's head commit, whose root is empty (no
	// commit of the working set yet).
	env.check(ctx, "SHOW TABLES FROM `db/feature`", "")
	env.exec(ctx, "USE `db/feature`")
	env.exec(ctx, "CREATE TABLE f (a INT PRIMARY KEY AUTO_INCREMENT, b INT)")
	env.exec(ctx, "INSERT INTO f (b) VALUES (5), (6)")
	env.check(ctx, "SELECT * FROM f", "[1 5] [2 6]")
	env.exec(ctx, "USE db")
	env.check(ctx, "SHOW TABLES", "[t]")
	env.check(ctx, "SELECT * FROM `db/feature`.f WHERE a = 2", "[2 6]")
	if _, err := env.query(ctx, "USE `db/nope`"); err == nil {
		t.Fatal("a database on a missing branch was found")
	}
}

// TestKeylessMerge commits concurrent changes to a keyless table: rows are
// a bag, so both sides' copies add up and deletes of copies apply.
func TestKeylessMerge(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE k (a INT, b VARCHAR(5), KEY (b))")
	env.exec(ctx, "INSERT INTO k VALUES (1, 'x'), (1, 'x'), (2, 'y')")
	s1, s2 := env.session("db"), env.session("db")
	env.exec(s1, "START TRANSACTION")
	env.exec(s2, "START TRANSACTION")
	env.exec(s1, "INSERT INTO k VALUES (1, 'x'), (3, 'z')")
	env.exec(s2, "INSERT INTO k VALUES (1, 'x')")
	env.exec(s2, "DELETE FROM k WHERE a = 2")
	env.exec(s1, "COMMIT")
	env.exec(s2, "COMMIT")
	s3 := env.session("db")
	env.check(s3, "SELECT a, b, count(*) FROM k GROUP BY a, b ORDER BY a", "[1 x 4] [3 z 1]")
	env.check(s3, "SELECT count(*) FROM k WHERE b = 'x'", "[4]")
}

// TestTransactionBackToItsSnapshot: a transaction that adopts rows another
// committed and changes them back to its snapshot's versions (two opposite
// transfers of one amount) ends with its snapshot's root, and must still
// commit: TestLockBank found such a transfer acknowledged and lost.
func TestTransactionBackToItsSnapshot(t *testing.T) {
	env, s1, s2 := txSetup(t)
	env.exec(s1, "START TRANSACTION")
	env.check(s1, "SELECT v FROM t WHERE id = 1", "[10]") // the snapshot
	env.exec(s2, "START TRANSACTION")
	env.exec(s2, "UPDATE t SET v = v - 5 WHERE id = 2")
	env.exec(s2, "UPDATE t SET v = v + 5 WHERE id = 1")
	env.exec(s2, "COMMIT")
	env.exec(s1, "UPDATE t SET v = v - 5 WHERE id = 1")
	env.exec(s1, "UPDATE t SET v = v + 5 WHERE id = 2")
	env.exec(s1, "COMMIT")
	env.check(env.session("db"), "SELECT id, v FROM t ORDER BY id", "[1 10] [2 20]")
}

// TestAutocommitEdits: an INSERT, UPDATE, DELETE or REPLACE run on its own
// under autocommit hands its rows to its commit as pending edits
// (endStatement, verso.Txn.CommitEdits); a statement in an explicit
// transaction, a write to a table without a primary key, a statement
// whose text does not begin with its verb, and any write in a database
// with a trigger go through the transaction's root. The rows are right
// either way.
func TestAutocommitEdits(t *testing.T) {
	env, s1, s2 := txSetup(t)
	st, _ := env.p.state("db")
	env.exec(s1, "CREATE TABLE bag (a INT)")
	for _, c := range []struct {
		q      string
		edited bool
	}{
		{"INSERT INTO t VALUES (3, 30, 3)", true},
		{"UPDATE t SET v = v + 1 WHERE id = 1", true},
		{"  replace INTO t VALUES (4, 40, 4)", true},
		{"DELETE FROM t WHERE id = 2", true},
		{"INSERT IGNORE INTO t VALUES (3, 0, 0), (5, 50, 5)", true},
		{"INSERT INTO bag VALUES (1)", false},
		{"/* note */ INSERT INTO t VALUES (6, 60, 6)", false},
		{"START TRANSACTION", false},
		{"INSERT INTO t VALUES (7, 70, 7)", false},
		{"COMMIT", false},
		{"CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO bag VALUES (new.id)", false},
		{"INSERT INTO t VALUES (8, 80, 8)", false},
	} {
		before := st.db.CommitsWithEdits()
		env.exec(s1, c.q)
		if got := st.db.CommitsWithEdits() > before; got != c.edited {
			t.Fatalf("%s: committed as pending edits %v, want %v", c.q, got, c.edited)
		}
	}
	env.check(s2, "SELECT * FROM t ORDER BY id", "[1 11 1] [3 30 3] [4 40 4] [5 50 5] [6 60 6] [7 70 7] [8 80 8]")
	env.check(s2, "SELECT a FROM bag ORDER BY a", "[1] [8]")
	// A failed statement's rows go nowhere.
	if _, err := env.query(s1, "INSERT INTO t VALUES (9, 90, 9), (10, 100, 1)"); err == nil {
		t.Fatal("a duplicate unique value was taken")
	}
	env.check(s2, "SELECT count(*) FROM t WHERE id >= 9", "[0]")
}
