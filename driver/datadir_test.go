package driver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verso-db/verso/sqlserver"
)

// TestReopenDurable: what was committed through one sql.DB (autocommit
// writes, a transaction, dolt_commit) is there when the data directory
// is opened again after the last DB closed, and closing it released the
// stores: another provider can open the directory.
func TestReopenDurable(t *testing.T) {
	db, dir := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'one')")
	mustExec(t, db, "CALL dolt_commit('-Am', 'first')")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO t VALUES (2, 'two')")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO t VALUES (3, 'never')")
	if err := db.Close(); err != nil { // the open transaction's connection is busy:
		t.Fatal(err) // Close waits for nothing, the connection closes on release
	}
	tx.Rollback()

	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		t.Fatalf("the data directory is still held after the last DB closed: %v", err)
	}
	p.Close()

	again := openDB(t, dsnOf(dir, Config{Database: "shop"}))
	if got := queryString(t, again, "SELECT GROUP_CONCAT(v ORDER BY id) FROM t"); got != "one,two" {
		t.Fatalf("after reopening: %q", got)
	}
	if got := queryString(t, again, "SELECT message FROM dolt_log LIMIT 1"); got != "first" {
		t.Fatalf("dolt_log after reopening: %q", got)
	}
	if n := queryInt(t, again, "SELECT COUNT(*) FROM dolt_status"); n != 1 {
		t.Fatalf("dolt_status after reopening: %d tables, want t's uncommitted change", n)
	}
}

// TestSameDirTwice: sql.DBs over one data directory (the same DSN, or
// another naming the same folder through a symbolic link) share its databases: the second open
// does not fail on the stores' lock, each sees the other's writes, and
// closing one leaves the others working.
func TestSameDirTwice(t *testing.T) {
	db1, dir := withDatabase(t, Config{})
	dsn := dsnOf(dir, Config{Database: "shop", CommitName: "B", CommitEmail: "b@example.com"})
	db2 := openDB(t, dsn)
	db3 := openDB(t, dsn)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	db4 := openDB(t, dsnOf(link, Config{Database: "shop"}))
	mustExec(t, db1, "CREATE TABLE t (id INT PRIMARY KEY)")
	mustExec(t, db2, "INSERT INTO t VALUES (1)")
	mustExec(t, db4, "INSERT INTO t VALUES (2)")
	if n := queryInt(t, db3, "SELECT COUNT(*) FROM t"); n != 2 {
		t.Fatalf("db3 sees %d rows", n)
	}
	db1.Close()
	db2.Close()
	mustExec(t, db3, "INSERT INTO t VALUES (3)")
	if n := queryInt(t, db4, "SELECT COUNT(*) FROM t"); n != 3 {
		t.Fatalf("db4 sees %d rows after db1 and db2 closed", n)
	}
	// Each DSN's identity is its own.
	mustExec(t, db3, "CALL dolt_commit('-Am', 'by b')")
	if got := queryString(t, db4, "SELECT committer FROM dolt_log LIMIT 1"); got != "B" {
		t.Fatalf("committer %q", got)
	}

	// Opening and closing from many goroutines at once.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				db := openDB(t, dsn)
				var n int
				if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 3 {
					t.Errorf("count %d, %v", n, err)
				}
				db.Close()
			}
		}()
	}
	wg.Wait()
}

// TestClosedConnector: a connector closed makes no more connections.
func TestClosedConnector(t *testing.T) {
	c, err := OpenConnector(dsnOf(t.TempDir(), Config{}))
	if err != nil {
		t.Fatal(err)
	}
	cn, err := c.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Connect(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Connect after Close: %v", err)
	}
	// The connection made before holds the directory open.
	if _, err := cn.(*conn).ExecContext(context.Background(), "CREATE DATABASE d", nil); err != nil {
		t.Fatal(err)
	}
	cn.Close()

	// driver.Driver's Open: a connection that holds the directory itself.
	dir := t.TempDir()
	cn, err = theDriver.Open(dsnOf(dir, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cn.(*conn).ExecContext(context.Background(), "CREATE DATABASE d", nil); err != nil {
		t.Fatal(err)
	}
	if p, err := sqlserver.NewProvider(dir); err == nil {
		p.Close()
		t.Fatal("a connection of Open does not hold its data directory")
	}
	cn.Close()
	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		t.Fatalf("closing the connection of Open did not release the directory: %v", err)
	}
	p.Close()
}

// TestCommitter: the DSN's identity is the committer of commits, merges
// and tags; without one, they fail with ErrNoCommitter and say what to
// give, until the connection sets one.
func TestCommitter(t *testing.T) {
	db, dir := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	mustExec(t, db, "CALL dolt_commit('-Am', 'by jane')")
	mustExec(t, db, "CALL dolt_tag('v1')")
	var name, email string
	if err := db.QueryRow("SELECT committer, email FROM dolt_log LIMIT 1").Scan(&name, &email); err != nil {
		t.Fatal(err)
	}
	if name != "Jane Doe" || email != "jane@example.com" {
		t.Fatalf("committer %q <%s>", name, email)
	}
	if got := queryString(t, db, "SELECT tagger FROM dolt_tags WHERE tag_name = 'v1'"); got != "Jane Doe" {
		t.Fatalf("tagger %q", got)
	}

	anon := openDB(t, dsnOf(dir, Config{Database: "shop"}))
	mustExec(t, anon, "INSERT INTO t VALUES (1)")
	for _, q := range []string{"CALL dolt_commit('-Am', 'anonymous')", "CALL dolt_tag('v2')"} {
		_, err := anon.Exec(q)
		if !errors.Is(err, ErrNoCommitter) || !strings.Contains(err.Error(), "commitname and commitemail") {
			t.Fatalf("%s without an identity: %v", q, err)
		}
	}
	mustExec(t, anon, "CALL dolt_commit('-Am', 'given', '--author', 'Ann <ann@example.com>')")
	ctx := context.Background()
	c, err := anon.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExec(t, c, "SET @@dolt_committer_name = 'Al', @@dolt_committer_email = 'al@example.com'")
	mustExec(t, c, "CALL dolt_commit('--allow-empty', '-m', 'by al')")
	if got := queryString(t, c, "SELECT committer FROM dolt_log LIMIT 1"); got != "Al" {
		t.Fatalf("committer %q", got)
	}
}
