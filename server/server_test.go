package server

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/verso-db/verso/sqlserver"
)

// TestServer runs a server over a file-backed provider and talks to it
// with the MySQL driver: two connections, a transaction conflict with its
// error number, and the data after a restart.
func TestServer(t *testing.T) {
	dir := t.TempDir()
	start := func() (*Server, *sqlserver.Provider) {
		p, err := sqlserver.NewProvider(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(p, Config{Address: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		return s, p
	}
	s, p := start()
	open := func(db string) *sql.DB {
		c, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s", s.Addr(), db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	c := open("")
	mustExec := func(c interface {
		Exec(string, ...any) (sql.Result, error)
	}, q string, args ...any) {
		t.Helper()
		if _, err := c.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec(c, "CREATE DATABASE shop")
	c1, c2 := open("shop"), open("shop")
	mustExec(c1, "CREATE TABLE items (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) UNIQUE, qty INT)")
	mustExec(c1, "INSERT INTO items (name, qty) VALUES (?, ?), (?, ?)", "apple", 3, "pear", 5)

	var qty int
	if err := c2.QueryRow("SELECT qty FROM items WHERE name = ?", "pear").Scan(&qty); err != nil || qty != 5 {
		t.Fatalf("select: %d, %v", qty, err)
	}

	// Conflicting transactions: a new row, and a new index on the table
	// (no row lock between them): the second commit fails with 1213.
	tx1, err := c1.Begin()
	if err != nil {
		t.Fatal(err)
	}
	tx2, err := c2.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(tx2, "INSERT INTO items (id, name, qty) VALUES (10, 'plum', 0)")
	mustExec(tx1, "CREATE INDEX iq ON items (qty)")
	mustExec(tx1, "UPDATE items SET qty = 9 WHERE id = 1")
	if err := tx1.Commit(); err != nil {
		t.Fatal(err)
	}
	err = tx2.Commit()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1213 {
		t.Fatalf("second commit: %v, want error 1213", err)
	}

	s.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s, p = start()
	defer p.Close()
	defer s.Close()
	c3 := open("shop")
	if err := c3.QueryRow("SELECT qty FROM items WHERE id = 1").Scan(&qty); err != nil || qty != 9 {
		t.Fatalf("after restart: %d, %v", qty, err)
	}
}
