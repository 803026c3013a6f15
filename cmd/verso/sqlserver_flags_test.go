package main

import (
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestSQLServerDoltFlags: Dolt's short flags and settings, end to end:
// -H, -P, -r (read-only: writes get 1290, @@read_only is 1),
// --no-auto-commit, -t in seconds, -l, --socket, and the TLS certificate
// the server makes on its first start, which a client verifies with the
// authority it wrote.
func TestSQLServerDoltFlags(t *testing.T) {
	data := t.TempDir()
	sockDir, err := os.MkdirTemp("", "vs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "s.sock")

	// A database to read, made by a server that writes (and stops at the
	// subtest's end).
	t.Run("setup", func(t *testing.T) {
		addr := startServerIn(t, "", "--data-dir", data, "-P", "0")
		db := dialDB(t, "root@tcp("+addr+")/")
		for _, q := range []string{"CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY)", "INSERT INTO shop.t VALUES (1)"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	})

	addr := startServerIn(t, "", "--data-dir", data, "-H", "127.0.0.1", "-P", "0", "-r", "--no-auto-commit", "-t", "60", "-l", "warn", "--socket", sock)
	ca, err := os.ReadFile(filepath.Join(data, tlsDirName, "ca.pem"))
	if err != nil {
		t.Fatalf("the TLS authority the server made: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.pem holds no certificate")
	}
	if err := mysql.RegisterTLSConfig("verso-cmd-test", &tls.Config{RootCAs: pool, ServerName: "localhost"}); err != nil {
		t.Fatal(err)
	}
	defer mysql.DeregisterTLSConfig("verso-cmd-test")

	secure := dialDB(t, "root@tcp("+addr+")/shop?tls=verso-cmd-test")
	var name, cipher string
	if err := secure.QueryRow("SHOW STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("TLS with the server's certificate: %q, %v", cipher, err)
	}
	var readOnly, autocommit, n int
	if err := secure.QueryRow("SELECT @@read_only, @@autocommit, COUNT(*) FROM t").Scan(&readOnly, &autocommit, &n); err != nil {
		t.Fatal(err)
	}
	if readOnly != 1 || autocommit != 0 || n != 1 {
		t.Errorf("@@read_only %d, @@autocommit %d, rows %d; want 1, 0, 1", readOnly, autocommit, n)
	}
	_, err = secure.Exec("INSERT INTO t VALUES (2)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1290 {
		t.Errorf("a write to a read-only server: %v, want 1290", err)
	}

	local := dialDB(t, "root@unix("+sock+")/shop")
	if err := local.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("on the socket: %d, %v", n, err)
	}
}

// dialDB opens a database/sql pool closed when the test ends.
func dialDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
