package server

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/verso-db/verso/sqlserver"
)

// TestPrepareTakesNoSnapshot: under autocommit, preparing a statement over
// the wire (COM_STMT_PREPARE) does not begin the transaction its first
// execution reads: the execution sees the rows committed between the two,
// as each autocommit statement reads the latest committed data.
func TestPrepareTakesNoSnapshot(t *testing.T) {
	p := sqlserver.NewMemoryProvider()
	s, err := New(p, Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	defer s.Close()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "USE shop"); err != nil {
		t.Fatal(err)
	}
	stmt, err := c.PrepareContext(ctx, "SELECT COUNT(*) FROM t WHERE id > ?")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for i := 1; i <= 3; i++ {
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO shop.t VALUES (%d)", i)); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := stmt.QueryRowContext(ctx, 0).Scan(&n); err != nil || n != i {
			t.Fatalf("execution %d counts %d rows (%v); want %d, the rows committed before it", i, n, err, i)
		}
	}
}
