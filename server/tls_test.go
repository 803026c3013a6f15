package server

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/sqlserver"
)

// tlsTestConfig makes an AutoTLS folder in dir and returns the server's
// TLS settings and a client's, which trusts the folder's authority, under
// the driver's name name.
func tlsTestConfig(t *testing.T, dir, name string) (server *tls.Config, client string) {
	t.Helper()
	cfg, made, err := AutoTLS(filepath.Join(dir, "tls"), "127.0.0.1")
	if err != nil || !made {
		t.Fatalf("AutoTLS: made %v, %v", made, err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "tls", TLSCAFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.pem holds no certificate")
	}
	// The certificate must verify for the address the client dials.
	if err := mysql.RegisterTLSConfig(name, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mysql.DeregisterTLSConfig(name) })
	return cfg, name
}

// open opens a pool with the driver's DSN dsn and checks that it logs in
// (Ping), returning the login's error.
func open(t *testing.T, dsn string) (*sql.DB, error) {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxIdleConns(0)
	return db, db.Ping()
}

// sslCipher returns what SHOW STATUS says of the session's TLS: its
// cipher, "" without TLS.
func sslCipher(t *testing.T, db *sql.DB) string {
	t.Helper()
	var name, v string
	if err := db.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestServerTLS: a client that asks for TLS gets it, with a certificate
// that verifies against the authority AutoTLS made; accounts that REQUIRE
// SSL log in only with it; prepared statements work over it (the
// connection layer that rewrites their syntax errors passes TLS through).
func TestServerTLS(t *testing.T) {
	dir := t.TempDir()
	tc, name := tlsTestConfig(t, dir, "verso-test-tls")
	s, _ := startTestServer(t, dir, Config{TLS: tc})
	root, err := open(t, fmt.Sprintf("root@tcp(%s)/?tls=%s", s.Addr(), name))
	if err != nil {
		t.Fatalf("root over TLS: %v", err)
	}
	if c := sslCipher(t, root); c == "" {
		t.Error("Ssl_cipher is empty over TLS")
	}
	plain, err := open(t, fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatalf("root without TLS: %v", err)
	}
	if c := sslCipher(t, plain); c != "" {
		t.Errorf("Ssl_cipher is %q without TLS", c)
	}
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(10))",
		"CREATE USER 'secure'@'%' IDENTIFIED BY 'pw' REQUIRE SSL",
		"GRANT ALL ON shop.* TO 'secure'@'%'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := open(t, fmt.Sprintf("secure:pw@tcp(%s)/shop", s.Addr())); err == nil {
		t.Error("an account that REQUIRES SSL logged in without TLS")
	} else if n, _ := mysqlErrNum(err); n != 1045 {
		t.Errorf("REQUIRE SSL without TLS: %v, want 1045", err)
	}
	sec, err := open(t, fmt.Sprintf("secure:pw@tcp(%s)/shop?tls=%s", s.Addr(), name))
	if err != nil {
		t.Fatalf("REQUIRE SSL over TLS: %v", err)
	}
	// Server-side prepared statements (the driver prepares each
	// statement with arguments) over TLS, many of them, so that the
	// bytes cross several TLS records.
	for i := range 200 {
		if _, err := sec.Exec("INSERT INTO t VALUES (?, ?)", i, strings.Repeat("x", i%10)); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	var n int
	if err := sec.QueryRow("SELECT COUNT(*) FROM t WHERE id >= ?", 100).Scan(&n); err != nil || n != 100 {
		t.Fatalf("count: %d, %v", n, err)
	}
	// A syntax error in a prepared statement over TLS is an error, and
	// the connection goes on.
	conn, err := sec.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.PrepareContext(t.Context(), "SELEC ?"); err == nil {
		t.Error("a prepared syntax error succeeded")
	}
	if err := conn.QueryRowContext(t.Context(), "SELECT ?", 7).Scan(&n); err != nil || n != 7 {
		t.Fatalf("after a syntax error: %d, %v", n, err)
	}
}

// TestServerRequireSecureTransport: with RequireSecureTransport a client
// on TCP without TLS gets MySQL's 3159; with TLS, or on the Unix socket,
// it logs in.
func TestServerRequireSecureTransport(t *testing.T) {
	dir := t.TempDir()
	tc, name := tlsTestConfig(t, dir, "verso-test-rst")
	sock := shortSocketPath(t)
	s, _ := startTestServer(t, dir, Config{TLS: tc, RequireSecureTransport: true, Socket: sock})
	_, err := open(t, fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if n, _ := mysqlErrNum(err); n != ERSecureTransportRequired || !strings.Contains(err.Error(), "require_secure_transport") {
		t.Errorf("without TLS: %v, want 3159", err)
	}
	if _, err := open(t, fmt.Sprintf("root@tcp(%s)/?tls=%s", s.Addr(), name)); err != nil {
		t.Errorf("with TLS: %v", err)
	}
	if _, err := open(t, fmt.Sprintf("root@unix(%s)/", sock)); err != nil {
		t.Errorf("on the Unix socket: %v", err)
	}
	if _, err := New(nil, Config{Address: "127.0.0.1:0", RequireSecureTransport: true}); err == nil {
		t.Error("require_secure_transport without TLS or a socket was accepted")
	}
}

// shortSocketPath returns a path for a Unix socket, short enough for the
// system's limit (about 100 bytes; test folders can be longer).
func shortSocketPath(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "vs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "s.sock")
}

// TestServerSocket: clients on the Unix socket log in from localhost (so
// the loopback superuser root@localhost works there), a socket file left
// by a dead server is replaced, a live one is not (ErrSocketInUse, or no
// socket with SocketIfFree), and Close removes the file.
func TestServerSocket(t *testing.T) {
	dir := t.TempDir()
	sock := shortSocketPath(t)
	// A socket file nobody answers on, as a killed server leaves.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatal("the stale socket file is gone:", err)
	}
	s, stop := startTestServer(t, dir, Config{Socket: sock})
	db, err := open(t, fmt.Sprintf("root@unix(%s)/", sock))
	if err != nil {
		t.Fatalf("root on the socket: %v", err)
	}
	var user string
	if err := db.QueryRow("SELECT CURRENT_USER()").Scan(&user); err != nil || user != "root@localhost" {
		t.Errorf("CURRENT_USER() on the socket: %q, %v", user, err)
	}
	if _, err := open(t, fmt.Sprintf("root@tcp(%s)/", s.Addr())); err != nil {
		t.Errorf("TCP beside the socket: %v", err)
	}

	// A second server on the same socket.
	p2 := t.TempDir()
	if _, err := startTestServerErr(t, p2, Config{Socket: sock}); !errors.Is(err, ErrSocketInUse) {
		t.Errorf("a second server on a live socket: %v, want ErrSocketInUse", err)
	}
	s2, err := startTestServerErr(t, p2, Config{Socket: sock, SocketIfFree: true})
	if err != nil {
		t.Fatalf("SocketIfFree: %v", err)
	}
	s2.Close()
	if _, err := open(t, fmt.Sprintf("root@unix(%s)/", sock)); err != nil {
		t.Errorf("the first server's socket after the second stopped: %v", err)
	}
	stop()
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket file after Close: %v", err)
	}
}

// TestServerCachingSha2: an account of caching_sha2_password logs in
// over TLS (full authentication), then without TLS by the fast path;
// a wrong password fails either way; a new password ends the fast path
// until the next login over TLS.
func TestServerCachingSha2(t *testing.T) {
	dir := t.TempDir()
	tc, name := tlsTestConfig(t, dir, "verso-test-sha2")
	s, _ := startTestServer(t, dir, Config{TLS: tc})
	root, err := open(t, fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'",
		"CREATE USER 'nopw'@'%' IDENTIFIED WITH caching_sha2_password",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plain := func(user, pw string) error {
		_, err := open(t, fmt.Sprintf("%s:%s@tcp(%s)/", user, pw, s.Addr()))
		return err
	}
	secure := func(user, pw string) error {
		_, err := open(t, fmt.Sprintf("%s:%s@tcp(%s)/?tls=%s", user, pw, s.Addr(), name))
		return err
	}
	denied := func(what string, err error, wantText string) {
		t.Helper()
		if n, _ := mysqlErrNum(err); n != 1045 || !strings.Contains(err.Error(), wantText) {
			t.Errorf("%s: %v, want 1045 with %q", what, err, wantText)
		}
	}
	denied("first login without TLS", plain("sha", "pw"), "connect once with TLS")
	denied("wrong password over TLS", secure("sha", "nope"), "Access denied")
	if err := secure("sha", "pw"); err != nil {
		t.Fatalf("over TLS: %v", err)
	}
	if err := plain("sha", "pw"); err != nil {
		t.Fatalf("the fast path without TLS: %v", err)
	}
	denied("wrong password on the fast path", plain("sha", "nope"), "Access denied")
	if err := plain("nopw", ""); err != nil {
		t.Errorf("an account without a password: %v", err)
	}
	denied("a password for an account without one", secure("nopw", "x"), "Access denied")

	if _, err := root.Exec("ALTER USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'new'"); err != nil {
		t.Fatal(err)
	}
	denied("the old password after ALTER USER", plain("sha", "pw"), "connect once with TLS")
	denied("the new password without TLS before a TLS login", plain("sha", "new"), "connect once with TLS")
	if err := secure("sha", "new"); err != nil {
		t.Fatalf("the new password over TLS: %v", err)
	}
	if err := plain("sha", "new"); err != nil {
		t.Fatalf("the new password on the fast path: %v", err)
	}
	if _, err := root.Exec("DROP USER 'sha'@'%'"); err != nil {
		t.Fatal(err)
	}
	denied("a dropped account", plain("sha", "new"), "Access denied")
}

// TestAutoTLS: AutoTLS makes the folder's files once and loads them
// after; a folder with half a pair is an error, not a silent remake.
func TestAutoTLS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	if _, made, err := AutoTLS(dir, "db.example"); err != nil || !made {
		t.Fatalf("first: made %v, %v", made, err)
	}
	cert, _ := os.ReadFile(filepath.Join(dir, TLSCertFile))
	if fi, err := os.Stat(filepath.Join(dir, TLSKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v, %v", fi.Mode(), err)
	}
	cfg, made, err := AutoTLS(dir, "db.example")
	if err != nil || made {
		t.Fatalf("second: made %v, %v", made, err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, TLSCertFile))
	if !bytes.Equal(cert, again) {
		t.Error("the second call changed the certificate")
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(filepath.Join(dir, TLSCAFile))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	for _, name := range []string{"localhost", "127.0.0.1", "db.example"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("the certificate for %s: %v", name, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, TLSKeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := AutoTLS(dir, ""); err == nil || !strings.Contains(err.Error(), "only one of") {
		t.Errorf("half a pair: %v", err)
	}
	if _, err := LoadTLS(filepath.Join(dir, TLSCertFile), "", "", false); err == nil {
		t.Error("LoadTLS without a key succeeded")
	}
}

// startTestServerErr is startTestServer returning New's error instead of
// failing the test.
func startTestServerErr(t *testing.T, dir string, cfg Config) (*Server, error) {
	t.Helper()
	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if cfg.Address == "" {
		cfg.Address = "127.0.0.1:0"
	}
	s, err := New(p, cfg)
	if err != nil {
		return nil, err
	}
	go s.Start()
	t.Cleanup(func() { s.Shutdown(5 * time.Second) })
	return s, nil
}
