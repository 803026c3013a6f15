package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadCommandsBesideServer: while a verso sql-server process holds a
// database, log, status, branch, diff and sql with a query read it (a
// snapshot, opened read-only), each run seeing the commits made through
// the server before it; verso sql sends its statements to the server.
func TestReadCommandsBesideServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	data := t.TempDir()
	shop := filepath.Join(data, "shop")
	runOK(t, "init", "--name", "T", "--email", "t@x", shop)
	_, db := openChild(t, data, "shop")
	mustExec(t, db,
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO t VALUES (1, 'one')",
		"CALL dolt_commit('-Am', 'add t')",
		"INSERT INTO t VALUES (2, 'two')")

	if out := runOK(t, "-C", shop, "log", "--oneline"); !strings.Contains(out, "add t") || !strings.Contains(out, "Initialize data repository") {
		t.Errorf("verso log beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "status"); !strings.Contains(out, "On branch main") || !strings.Contains(out, "modified:   t") {
		t.Errorf("verso status beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "reflog"); !strings.Contains(out, "add t") {
		t.Errorf("verso reflog beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "branch"); out != "* main\n" {
		t.Errorf("verso branch beside the server: %q", out)
	}
	if out := runOK(t, "-C", shop, "diff"); !strings.Contains(out, "two") {
		t.Errorf("verso diff beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "sql", "-r", "csv", "-q", "SELECT id, v FROM t ORDER BY id"); out != "id,v\n1,one\n2,two\n" {
		t.Errorf("verso sql SELECT beside the server: %q", out)
	}

	// The commands that are SQL underneath, reading.
	if out := runOK(t, "-C", shop, "ls", "-v"); !strings.Contains(out, "t ") || !strings.Contains(out, "2 rows") {
		t.Errorf("verso ls beside the server: %q", out)
	}
	if out := runOK(t, "-C", shop, "show"); !strings.Contains(out, "add t") || !strings.Contains(out, "| + |") {
		t.Errorf("verso show beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "schema", "show", "t"); !strings.Contains(out, "CREATE TABLE `t`") {
		t.Errorf("verso schema show beside the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "table", "export", "t", "-"); out != "id,v\n1,one\n2,two\n" {
		t.Errorf("verso table export beside the server: %q", out)
	}
	if msg := runFail(t, 1, "-C", shop, "rm", "t"); !strings.Contains(msg, "holds the database for writing") {
		t.Errorf("verso rm beside the server: %q", msg)
	}

	// Each run opens a new snapshot: a commit made through the server
	// since shows.
	mustExec(t, db, "CALL dolt_commit('-am', 'add two')")
	if out := runOK(t, "-C", shop, "log", "--oneline", "-n", "1"); !strings.Contains(out, "add two") {
		t.Errorf("verso log after a commit through the server: %q", out)
	}

	// verso sql and the versioning commands that write go through the
	// server (serverinfo.go, TestWriteCommandsThroughServer): the server
	// sees their writes at once.
	out := runOK(t, "-C", shop, "sql", "-q", "CREATE TABLE u (id INT PRIMARY KEY); INSERT INTO u VALUES (1), (2); SELECT COUNT(*) AS n FROM u")
	if want := "Query OK, 0 rows affected\nQuery OK, 2 rows affected\n+---+\n| n |\n+---+\n| 2 |\n+---+\n"; out != want {
		t.Errorf("verso sql beside the server:\n%s\nwant\n%s", out, want)
	}
	// Every result set of a CALL, through the server's connection.
	runOK(t, "-C", shop, "sql", "-q", "CREATE PROCEDURE two() BEGIN SELECT COUNT(*) AS n FROM u; SELECT MAX(id) AS m FROM u; END")
	if out := runOK(t, "-C", shop, "sql", "-r", "csv", "-q", "CALL two()"); out != "n\n2\nm\n2\n" {
		t.Errorf("a CALL through the server: %q", out)
	}
	if msg := runFail(t, 1, "-C", shop, "sql", "-q", "SELECT * FROM nosuch"); !strings.HasPrefix(msg, "ERROR 1146 (42S02) at line 1: ") {
		t.Errorf("an error through the server: %q", msg)
	}
	if out := runOK(t, "-C", shop, "commit", "--allow-empty", "-m", "x"); !strings.Contains(out, "hash") {
		t.Errorf("verso commit beside the server: %q", out)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM u").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows of u through the server: %d, %v", n, err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (3, 'three')", "CALL dolt_commit('-am', 'add three')")
	if out := runOK(t, "-C", shop, "log", "--oneline", "-n", "1"); !strings.Contains(out, "add three") {
		t.Errorf("verso log after more commits: %q", out)
	}
}

// TestWriteCommandsThroughServer: while a server holds the database, the
// commands that write run their procedure through it (found by the file
// it writes), recording the command line's author; checkout is refused;
// when the server stops, the file is gone and the commands write
// locally again.
func TestWriteCommandsThroughServer(t *testing.T) {
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	data := t.TempDir()
	shop := filepath.Join(data, "shop")
	runOK(t, "init", "--name", "T", "--email", "t@x", shop)
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	var sout, serr syncBuffer
	go func() {
		exited <- serveSQL("", []string{"--data-dir", data, "--port", "0", "--socket", ""}, &sout, &serr, stop)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(sout.String(), "listening on") && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	info := filepath.Join(data, dataDirServerInfo)
	if fi, err := os.Stat(info); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the server's file: %v, %v", fi, err)
	}
	runOK(t, "-C", shop, "sql", "-q", "SELECT 1") // reads beside it, read-only
	out := runOK(t, "-C", shop, "commit", "--allow-empty", "-m", "through the server")
	if !strings.Contains(out, "hash") {
		t.Errorf("commit through the server printed %q", out)
	}
	runOK(t, "-C", shop, "branch", "feature")
	runOK(t, "-C", shop, "tag", "v1")
	if msg := runFail(t, 1, "-C", shop, "checkout", "feature"); !strings.Contains(msg, "a verso sql-server holds the database") {
		t.Errorf("checkout beside the server: %q", msg)
	}
	if msg := runFail(t, 1, "-C", shop, "merge", "nosuch"); !strings.Contains(msg, "nosuch") {
		t.Errorf("a failing merge through the server: %q", msg)
	}
	if out := runOK(t, "-C", shop, "log", "-n", "1"); !strings.Contains(out, "through the server") || !strings.Contains(out, "Ada <ada@example.com>") || !strings.Contains(out, "tag: v1") {
		t.Errorf("log after the commit through the server:\n%s", out)
	}
	if out := runOK(t, "-C", shop, "branch"); !strings.Contains(out, "feature") {
		t.Errorf("branches: %q", out)
	}
	// A stash through the server (dolt_stash in the list dolt-cli).
	runOK(t, "-C", shop, "sql", "-q", "CREATE TABLE s (i INT PRIMARY KEY); CALL dolt_commit('-Am', 's'); INSERT INTO s VALUES (1)")
	runOK(t, "-C", shop, "stash")
	if out := runOK(t, "-C", shop, "sql", "-r", "csv", "-q", "SELECT COUNT(*) AS n FROM s"); out != "n\n0\n" {
		t.Errorf("after a stash through the server: %q", out)
	}
	if out := runOK(t, "-C", shop, "stash", "list"); !strings.HasPrefix(out, "stash@{0}: WIP on main") {
		t.Errorf("stash list beside the server: %q", out)
	}
	runOK(t, "-C", shop, "stash", "pop")
	if out := runOK(t, "-C", shop, "sql", "-r", "csv", "-q", "SELECT COUNT(*) AS n FROM s"); out != "n\n1\n" {
		t.Errorf("after a pop through the server: %q", out)
	}
	stop <- os.Interrupt
	if code := <-exited; code != 0 {
		t.Fatalf("server exit %d: %s", code, serr.String())
	}
	if _, err := os.Stat(info); !os.IsNotExist(err) {
		t.Errorf("the server's file after it stopped: %v", err)
	}
	runOK(t, "-C", shop, "checkout", "feature") // locally again
}
