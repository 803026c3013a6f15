package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Real clients, one session each.
//
// Each of four clients (go-sql-driver/mysql here, PyMySQL in
// testdata/clients/session.py, Node's mysql2 in
// testdata/clients/node/session.js and the mysql command-line client with
// testdata/clients/session.sql) logs in over TLS, verifying the server's
// certificate against the authority AutoTLS made, as an account of
// caching_sha2_password (full authentication), then runs the same steps:
// a table of DECIMAL, DATETIME(6), JSON, BLOB, BIGINT UNSIGNED, ENUM and
// VARCHAR columns; rows written through prepared statements (server-side
// for the Go driver and mysql2, PREPARE/EXECUTE for the others) and read
// back; a transaction undone with rollback(); errors by number (1062,
// 1146, 1064, 3140, 1264, 1406, 1265); dolt_commit, a branch, a commit on
// it and a merge; and a last login without TLS, on caching_sha2's fast
// path. The three programs print the same transcript, compared with
// testdata/clients/session.golden; the mysql client's output is compared
// with session-mysql.expected (-update-clients rewrites both from the
// Go driver's and the mysql client's runs).
//
// PyMySQL, Node and the mysql client are skipped when missing, or fail
// when VERSO_REQUIRE_PYMYSQL, VERSO_REQUIRE_NODE or
// VERSO_REQUIRE_MYSQL_CLIENT is 1 (as in CI, whose .ci/run installs them,
// mysql2 with npm ci from the lock file).

// mysqlTimings and hashCells match what differs from run to run in the
// mysql client's output: statement timings, and commit hashes in result
// tables.
var (
	mysqlTimings = regexp.MustCompile(` \(\d+(\.\d+)? (sec|min|hours?)[^)]*\)`)
	hashCells    = regexp.MustCompile(`\| [0-9a-v]{32} \|`)
)

var updateClients = flag.Bool("update-clients", false, "rewrite testdata/clients/session.golden and session-mysql.expected")

// clientServer starts a server with TLS and the account app (password
// pw, caching_sha2_password, every privilege), and returns its host,
// port and the path of the authority of its certificate.
func clientServer(t *testing.T) (host, port, ca string) {
	t.Helper()
	dir := t.TempDir()
	tc, _, err := AutoTLS(filepath.Join(dir, "tls"), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := startTestServer(t, dir, Config{TLS: tc})
	root := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE USER 'app'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'",
		"GRANT ALL ON *.* TO 'app'@'%'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	host, port, _ = net.SplitHostPort(s.Addr())
	return host, port, filepath.Join(dir, "tls", TLSCAFile)
}

// compareTranscript compares a client's transcript with the file name of
// testdata/clients.
func compareTranscript(t *testing.T, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", "clients", name)
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the transcript differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// requireTool returns the path of a client program, or skips the test
// (fails it when the environment variable env is 1).
func requireTool(t *testing.T, env, install string, find func() (string, error)) string {
	t.Helper()
	path, err := find()
	if err != nil {
		if os.Getenv(env) == "1" {
			t.Fatalf("%s is needed and %s=1: %v", install, env, err)
		}
		t.Skipf("%s is not available (%v); set %s=1 to fail instead", install, err, env)
	}
	return path
}

// requireNode returns the path of node and the folder of the mysql2
// scripts (testdata/clients/node, with mysql2 installed), or skips the
// test (fails it with VERSO_REQUIRE_NODE=1).
func requireNode(t *testing.T) (node, dir string) {
	t.Helper()
	dir = filepath.Join("testdata", "clients", "node")
	node = requireTool(t, "VERSO_REQUIRE_NODE", "node with mysql2 (apt-get install nodejs npm; npm ci --prefix server/testdata/clients/node)", func() (string, error) {
		node, err := exec.LookPath("node")
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "mysql2")); err != nil {
			return "", fmt.Errorf("mysql2 is not installed: %w", err)
		}
		return node, nil
	})
	return node, dir
}

// runClient runs a client program and returns its output (stdout and
// stderr).
func runClient(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", name, err)
	}
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", name, err, out.String())
	}
	return out.String()
}

func TestClientGoSQLDriver(t *testing.T) {
	host, port, ca := clientServer(t)
	pem, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	if err := mysql.RegisterTLSConfig("verso-clients", &tls.Config{RootCAs: pool, ServerName: host}); err != nil {
		t.Fatal(err)
	}
	defer mysql.DeregisterTLSConfig("verso-clients")
	got, err := goClientSession(t.Context(), fmt.Sprintf("app:pw@tcp(%s)/?tls=verso-clients", net.JoinHostPort(host, port)),
		fmt.Sprintf("app:pw@tcp(%s)/shop", net.JoinHostPort(host, port)))
	if err != nil {
		t.Fatal(err)
	}
	compareTranscript(t, "session.golden", got, *updateClients)
}

// clientSQLStates are MySQL's SQLSTATEs of the session's errors.
var clientSQLStates = map[uint16]string{1062: "23000", 1146: "42S02", 1064: "42000", 3140: "22032", 1264: "22003", 1406: "22001", 1265: "01000"}

// goClientSession runs the session (above) with go-sql-driver/mysql
// over one connection of dsn (TLS), then logs in again with plainDSN.
func goClientSession(ctx context.Context, dsn, plainDSN string) (string, error) {
	var out strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&out, format+"\n", a...) }
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	exec := func(q string, args ...any) error {
		_, err := c.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	}
	var name, cipher, user string
	if err := c.QueryRowContext(ctx, "SHOW STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil {
		return "", err
	}
	if err := c.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		return "", err
	}
	p("tls %v", cipher != "")
	p("user %s", user)
	for _, q := range []string{
		"CREATE DATABASE shop",
		"USE shop",
		"CREATE TABLE items (id BIGINT UNSIGNED PRIMARY KEY, price DECIMAL(10,2), at DATETIME(6), doc JSON, data BLOB, kind ENUM('a','b','c'), name VARCHAR(5))",
	} {
		if err := exec(q); err != nil {
			return "", err
		}
	}
	// A server-side prepared statement, executed twice.
	ins, err := c.PrepareContext(ctx, "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return "", err
	}
	for _, row := range [][]any{
		{uint64(18446744073709551615), "12345678.90", "2026-01-02 03:04:05.123456", `{"a": [1, 2, {"b": null}]}`, []byte{0x00, 0xff, 0x10, 'x'}, "b", "hello"},
		{uint64(1), "-0.50", "1999-12-31 23:59:59.000001", `[]`, []byte("a"), "a", ""},
	} {
		r, err := ins.ExecContext(ctx, row...)
		if err != nil {
			return "", err
		}
		n, _ := r.RowsAffected()
		p("insert %d", n)
	}
	ins.Close()
	rows, err := c.QueryContext(ctx, "SELECT id, price, at, CAST(doc AS CHAR), data, kind, name FROM items WHERE id >= ? ORDER BY id DESC", 0)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var id, price, at, doc, kind, nm string
		var data []byte
		if err := rows.Scan(&id, &price, &at, &doc, &data, &kind, &nm); err != nil {
			return "", err
		}
		p("row %s %s %s %s %s %s %q", id, price, at, doc, hex.EncodeToString(data), kind, nm)
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	// A transaction undone.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO items (id, kind) VALUES (?, ?)", 2, "c"); err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE items SET price = 0"); err != nil {
		return "", err
	}
	if err := tx.Rollback(); err != nil {
		return "", err
	}
	var count int
	var sum string
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*), MIN(price) FROM items").Scan(&count, &sum); err != nil {
		return "", err
	}
	p("rollback %d %s", count, sum)
	// Errors by number.
	for _, q := range []string{
		"INSERT INTO items (id) VALUES (1)",
		"SELECT * FROM nosuch",
		"SELEC 1",
		"INSERT INTO items (id, doc) VALUES (3, '{bad')",
		"INSERT INTO items (id) VALUES (-1)",
		"INSERT INTO items (id, name) VALUES (4, 'toolong')",
		"INSERT INTO items (id, kind) VALUES (5, 'z')",
	} {
		_, err := c.ExecContext(ctx, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return "", fmt.Errorf("%s: %v, want a server error", q, err)
		}
		// The transcript has the number (PyMySQL keeps no SQLSTATE);
		// the SQLSTATE is checked here.
		if want := clientSQLStates[me.Number]; string(me.SQLState[:]) != want {
			return "", fmt.Errorf("%s: SQLSTATE %s, want %s", q, me.SQLState[:], want)
		}
		p("error %d", me.Number)
	}
	// Versioning.
	var hash string
	if err := c.QueryRowContext(ctx, "CALL dolt_commit('-Am', 'first')").Scan(&hash); err != nil {
		return "", err
	}
	p("commit %d", len(hash))
	var status int
	for _, q := range []string{"CALL dolt_checkout('-b', 'feature')"} {
		var msg string
		if err := c.QueryRowContext(ctx, q).Scan(&status, &msg); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := exec("INSERT INTO items (id, kind) VALUES (3, 'c')"); err != nil {
		return "", err
	}
	if err := c.QueryRowContext(ctx, "CALL dolt_commit('-am', 'feature row')").Scan(&hash); err != nil {
		return "", err
	}
	var msg string
	if err := c.QueryRowContext(ctx, "CALL dolt_checkout('main')").Scan(&status, &msg); err != nil {
		return "", err
	}
	var ff, conflicts int
	if err := c.QueryRowContext(ctx, "CALL dolt_merge('feature')").Scan(&hash, &ff, &conflicts, &msg); err != nil {
		return "", err
	}
	p("merge %d %d", ff, conflicts)
	var branch string
	if err := c.QueryRowContext(ctx, "SELECT active_branch(), COUNT(*) FROM items").Scan(&branch, &count); err != nil {
		return "", err
	}
	p("branch %s %d", branch, count)
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM dolt_log").Scan(&count); err != nil {
		return "", err
	}
	p("log %d", count)
	// A CALL answers with a result set for each of the procedure's
	// SELECTs.
	if err := exec("CREATE PROCEDURE two_sets() BEGIN SELECT COUNT(*) AS n FROM items; SELECT id FROM items ORDER BY id LIMIT 2; END"); err != nil {
		return "", err
	}
	rows, err = c.QueryContext(ctx, "CALL two_sets()")
	if err != nil {
		return "", err
	}
	var sets []string
	for {
		var vals []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return "", err
			}
			vals = append(vals, v)
		}
		sets = append(sets, strings.Join(vals, ","))
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	p("call %s", strings.Join(sets, " "))
	c.Close()
	db.Close()

	// The fast path: the same account without TLS.
	plain, err := sql.Open("mysql", plainDSN)
	if err != nil {
		return "", err
	}
	defer plain.Close()
	if err := plain.QueryRowContext(ctx, "SELECT COUNT(*) FROM items").Scan(&count); err != nil {
		return "", fmt.Errorf("the login without TLS: %w", err)
	}
	p("plain %d", count)
	return out.String(), nil
}

func TestClientPyMySQL(t *testing.T) {
	py := requireTool(t, "VERSO_REQUIRE_PYMYSQL", "python3 with pymysql (apt-get install python3-pymysql)", pythonWithPyMySQL)
	host, port, ca := clientServer(t)
	got := runClient(t, filepath.Join("testdata", "clients"), py, "session.py", host, port, ca)
	compareTranscript(t, "session.golden", got, false)
}

func TestClientNodeMySQL2(t *testing.T) {
	node, dir := requireNode(t)
	host, port, ca := clientServer(t)
	abs, err := filepath.Abs(ca)
	if err != nil {
		t.Fatal(err)
	}
	got := runClient(t, dir, node, "session.js", host, port, abs)
	compareTranscript(t, "session.golden", got, false)
}

func TestClientMySQL(t *testing.T) {
	mysqlPath := requireTool(t, "VERSO_REQUIRE_MYSQL_CLIENT", "the mysql command-line client (apt-get install mariadb-client)", func() (string, error) {
		return exec.LookPath("mysql")
	})
	host, port, ca := clientServer(t)
	in, err := os.ReadFile(filepath.Join("testdata", "clients", "session.sql"))
	if err != nil {
		t.Fatal(err)
	}
	// stdbuf keeps the client's output and its errors in order.
	stdbuf := requireTool(t, "VERSO_REQUIRE_MYSQL_CLIENT", "stdbuf (GNU coreutils)", func() (string, error) { return exec.LookPath("stdbuf") })
	run := func(args ...string) string {
		cmd := exec.CommandContext(t.Context(), stdbuf, append([]string{"-o0", mysqlPath, "--no-defaults", "-h", host, "-P", port, "-u", "app", "-ppw"}, args...)...)
		cmd.Stdin = bytes.NewReader(in)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatal(err)
			}
		}
		return out.String()
	}
	// -vvv echoes each statement; --force goes on after an error.
	got := run("--ssl-ca="+ca, "--ssl-verify-server-cert", "--table", "--force", "-vvv")
	got = mysqlTimings.ReplaceAllString(got, "")
	got = hashCells.ReplaceAllString(got, "| <hash>                           |")
	compareTranscript(t, "session-mysql.expected", got, *updateClients)
	// The fast path without TLS.
	cmd := exec.CommandContext(t.Context(), mysqlPath, "--no-defaults", "-h", host, "-P", port, "-u", "app", "-ppw", "--skip-ssl", "-N", "-e", "SELECT COUNT(*) FROM shop.items")
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "3" {
		t.Errorf("the login without TLS: %v, %s", err, out)
	}
}
