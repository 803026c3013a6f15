package server

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDumpRoundTrip: a database made in MariaDB (testdata/dump/source.sql:
// DECIMAL, DATETIME(6), DATE, ENUM, unsigned and BIGINT UNSIGNED, TEXT,
// BLOB, JSON, TIMESTAMP, BIT, DOUBLE, utf8mb4 text, quotes and
// backslashes, NULLs, a unique and a composite index, a foreign key),
// dumped with mariadb-dump (its first line is MariaDB's
// /*M!999999\- enable the sandbox mode */, then the usual /*!40101 SET
// ... */ lines, LOCK TABLES and DISABLE KEYS), loads into verso with
// the mysql client; mysqldump of that verso database loads back into
// MariaDB; the rows, and in MariaDB the columns and indexes, of the three
// copies are the same.
//
// It runs a MariaDB server of its own (mariadb-server's mariadbd, on a
// Unix socket in a temporary folder). Without mariadbd, mariadb-dump or
// the mysql client the test is skipped, or fails when
// VERSO_REQUIRE_MARIADB=1 (as in CI, whose .ci/run installs
// mariadb-server).
func TestDumpRoundTrip(t *testing.T) {
	tools := map[string]string{}
	for _, name := range []string{"mariadbd", "mariadb-install-db", "mariadb-dump", "mysql"} {
		tools[name] = requireTool(t, "VERSO_REQUIRE_MARIADB", "MariaDB's server and client (apt-get install mariadb-server mariadb-client)", func() (string, error) {
			if p, err := exec.LookPath(name); err == nil {
				return p, nil
			}
			return exec.LookPath(filepath.Join("/usr/sbin", name))
		})
	}
	sock := startMariaDB(t, tools["mariadbd"], tools["mariadb-install-db"])
	maria := func(args ...string) []string {
		return append([]string{"--no-defaults", "-S", sock, "-u", "root"}, args...)
	}
	s, _ := startTestServer(t, t.TempDir(), Config{})
	host, port, _ := net.SplitHostPort(s.Addr())
	verso := func(args ...string) []string {
		return append([]string{"--no-defaults", "-h", host, "-P", port, "-u", "root"}, args...)
	}
	source, err := os.ReadFile(filepath.Join("testdata", "dump", "source.sql"))
	if err != nil {
		t.Fatal(err)
	}
	run(t, tools["mysql"], nil, maria("-e", "CREATE DATABASE src")...)
	run(t, tools["mysql"], source, maria("src")...)

	// MariaDB to verso: the dump as mariadb-dump writes it by default,
	// with its CREATE DATABASE and USE.
	mariaDump := run(t, tools["mariadb-dump"], nil, maria("--databases", "src")...)
	if !bytes.HasPrefix(mariaDump, []byte("/*M!999999\\- enable the sandbox mode */")) {
		t.Fatalf("mariadb-dump's first line is not the sandbox line:\n%s", firstLine(mariaDump))
	}
	run(t, tools["mysql"], mariaDump, verso()...)

	// verso to MariaDB, into another database.
	versoDump := run(t, tools["mariadb-dump"], nil, verso("src")...)
	run(t, tools["mysql"], nil, maria("-e", "CREATE DATABASE back")...)
	run(t, tools["mysql"], versoDump, maria("back")...)

	for _, table := range []string{"customers", "orders", "tags"} {
		q := "SELECT * FROM " + table + " ORDER BY 1"
		want := run(t, tools["mysql"], nil, maria("--batch", "src", "-e", q)...)
		if got := run(t, tools["mysql"], nil, verso("--batch", "src", "-e", q)...); !bytes.Equal(got, want) {
			t.Errorf("%s in verso:\n%s\nin MariaDB:\n%s", table, got, want)
		}
		if got := run(t, tools["mysql"], nil, maria("--batch", "back", "-e", q)...); !bytes.Equal(got, want) {
			t.Errorf("%s back in MariaDB:\n%s\nthe source:\n%s", table, got, want)
		}
	}
	for _, q := range []string{
		"SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '%s' ORDER BY 1, 3",
		"SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '%s' ORDER BY 1, 2, 3",
		"SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = '%s' AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY 1, 2",
	} {
		want := run(t, tools["mysql"], nil, maria("--batch", "-e", strings.ReplaceAll(q, "%s", "src"))...)
		if got := run(t, tools["mysql"], nil, maria("--batch", "-e", strings.ReplaceAll(q, "%s", "back"))...); !bytes.Equal(got, want) {
			t.Errorf("the schema back in MariaDB differs from the source's:\n%s\nsource:\n%s", got, want)
		}
	}
}

// run runs a program with stdin and returns its standard output; it fails
// the test if the program fails.
func run(t *testing.T, name string, stdin []byte, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// startMariaDB runs a MariaDB server on a fresh data dir until the test
// ends and returns the path of its Unix socket.
func startMariaDB(t *testing.T, mariadbd, installDB string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "vm") // short: a socket's path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "s")
	install := exec.Command(installDB, "--no-defaults", "--datadir="+data, "--auth-root-authentication-method=normal", "--skip-test-db", "--user="+u.Username)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	var log bytes.Buffer
	srv := exec.Command(mariadbd, "--no-defaults", "--datadir="+data, "--socket="+sock, "--skip-networking",
		"--user="+u.Username, "--pid-file="+filepath.Join(dir, "pid"), "--innodb-buffer-pool-size=32M")
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			<-exited
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return sock
		}
		select {
		case <-exited:
			t.Fatalf("mariadbd exited:\n%s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd did not start in 60 s:\n%s", log.String())
		}
	}
}
