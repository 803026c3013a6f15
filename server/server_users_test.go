package server

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/verso-db/verso/sqlserver"
)

// startTestServer runs a server over the data dir dir with cfg (its
// address defaults to a free loopback port) until the test ends or stop is
// called.
func startTestServer(t *testing.T, dir string, cfg Config) (s *Server, stop func()) {
	t.Helper()
	return startTestServerWith(t, dir, cfg, nil)
}

// startTestServerWith is startTestServer, with setup run on the server
// before it starts.
func startTestServerWith(t *testing.T, dir string, cfg Config, setup func(*Server)) (s *Server, stop func()) {
	t.Helper()
	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Address == "" {
		cfg.Address = "127.0.0.1:0"
	}
	s, err = New(p, cfg)
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	if setup != nil {
		setup(s)
	}
	go s.Start()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		s.Shutdown(5 * time.Second)
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(stop)
	return s, stop
}

// connect opens a database/sql pool for user:password on s.
func connect(t *testing.T, s *Server, user, password, db string) *sql.DB {
	t.Helper()
	c, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", user, password, s.Addr(), db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// mysqlErrNum returns the MySQL error number and SQLSTATE of err, or 0.
func mysqlErrNum(err error) (uint16, string) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number, string(me.SQLState[:])
	}
	return 0, ""
}

// TestServerUsers: the superuser of the configuration, accounts made with
// CREATE USER and GRANT that survive a restart, REVOKE and DROP USER, and
// MySQL's 1045 for a wrong password or an unknown user.
func TestServerUsers(t *testing.T) {
	dir := t.TempDir()
	usersFile := filepath.Join(dir, ".verso-users")
	cfg := Config{User: "admin", Password: "s3cret", UsersFile: usersFile}
	s, stop := startTestServer(t, dir, cfg)
	admin := connect(t, s, "admin", "s3cret", "")
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))",
		"INSERT INTO shop.items VALUES (1, 'apple')",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'pw1'",
		"GRANT SELECT ON shop.* TO 'reader'@'%'",
		"CREATE USER 'writer'@'%' IDENTIFIED BY 'pw2'",
		"GRANT SELECT, INSERT ON shop.* TO 'writer'@'%'",
		"CREATE USER 'temp'@'%' IDENTIFIED BY 'pw3'",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ user, pw string }{{"admin", "wrong"}, {"nobody", "x"}, {"root", ""}} {
		err := connect(t, s, c.user, c.pw, "").Ping()
		if n, state := mysqlErrNum(err); n != 1045 || state != "28000" {
			t.Fatalf("login as %s/%s: %v, want error 1045 (28000)", c.user, c.pw, err)
		}
	}
	stop()

	// After a restart, the accounts and grants are back; the superuser
	// comes from the configuration again.
	s, stop = startTestServer(t, dir, cfg)
	reader := connect(t, s, "reader", "pw1", "shop")
	var name string
	if err := reader.QueryRow("SELECT name FROM items WHERE id = 1").Scan(&name); err != nil || name != "apple" {
		t.Fatalf("reader select: %q, %v", name, err)
	}
	_, err := reader.Exec("INSERT INTO items VALUES (2, 'pear')")
	if n, _ := mysqlErrNum(err); n != 1142 {
		t.Fatalf("reader insert: %v, want error 1142", err)
	}
	writer := connect(t, s, "writer", "pw2", "shop")
	if _, err := writer.Exec("INSERT INTO items VALUES (2, 'pear')"); err != nil {
		t.Fatalf("writer insert: %v", err)
	}
	if n, _ := mysqlErrNum(connect(t, s, "temp", "wrong", "").Ping()); n != 1045 {
		t.Fatal("temp accepted a wrong password")
	}
	if err := connect(t, s, "temp", "pw3", "").Ping(); err != nil {
		t.Fatalf("temp: %v", err)
	}
	admin = connect(t, s, "admin", "s3cret", "")
	for _, q := range []string{
		"REVOKE INSERT ON shop.* FROM 'writer'@'%'",
		"DROP USER 'temp'@'%'",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	stop()

	s, _ = startTestServer(t, dir, cfg)
	_, err = connect(t, s, "writer", "pw2", "shop").Exec("INSERT INTO items VALUES (3, 'plum')")
	if n, _ := mysqlErrNum(err); n != 1142 {
		t.Fatalf("writer insert after REVOKE and restart: %v, want error 1142", err)
	}
	if n, _ := mysqlErrNum(connect(t, s, "temp", "pw3", "").Ping()); n != 1045 {
		t.Fatal("dropped user temp can still log in after a restart")
	}
	rows, err := connect(t, s, "admin", "s3cret", "").Query("SHOW GRANTS FOR 'reader'@'%'")
	if err != nil {
		t.Fatal(err)
	}
	var grants []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		grants = append(grants, g)
	}
	if want := "GRANT SELECT ON `shop`.* TO `reader`@`%`"; !slices.Contains(grants, want) {
		t.Fatalf("SHOW GRANTS: %q, want %q among them", grants, want)
	}
}

// TestServerRefusesOpenRoot: without a password the server listens only
// on loopback, and says what to do otherwise.
func TestServerRefusesOpenRoot(t *testing.T) {
	p := sqlserver.NewMemoryProvider()
	defer p.Close()
	_, err := New(p, Config{Address: "0.0.0.0:0"})
	if !errors.Is(err, ErrNoPassword) || !strings.Contains(err.Error(), "--password") || !strings.Contains(err.Error(), "--host 127.0.0.1") {
		t.Fatalf("New on 0.0.0.0 without a password: %v", err)
	}
	s, err := New(p, Config{Address: "0.0.0.0:0", Password: "pw"})
	if err != nil {
		t.Fatalf("with a password: %v", err)
	}
	s.Close()
	s, err = New(p, Config{Address: "localhost:0"})
	if err != nil {
		t.Fatalf("localhost without a password: %v", err)
	}
	s.Close()
}

// TestServerMaxConnections: the client beyond the limit gets MySQL's error
// 1040, and one more fits once a client leaves.
func TestServerMaxConnections(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{MaxConnections: 2})
	var dbs []*sql.DB
	for i := 0; i < 2; i++ {
		db := connect(t, s, "root", "", "")
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	err := connect(t, s, "root", "", "").Ping()
	if n, _ := mysqlErrNum(err); n != 1040 || !strings.Contains(err.Error(), "--max-connections") {
		t.Fatalf("third client: %v, want error 1040", err)
	}
	dbs[0].Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := connect(t, s, "root", "", "").Ping()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a client left: %v", err)
		}
	}
}
