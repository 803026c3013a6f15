package driver_test

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/driver"
)

// TestNewConnector: a program that opened a database with the engine's
// API serves it through SQL too, without a lock conflict: rows written
// through one are read through the other, a commit made over SQL is in
// the engine's log, and closing the sql.DB leaves the program's DB open.
func TestNewConnector(t *testing.T) {
	ctx := context.Background()
	db, err := verso.Init(t.TempDir(), verso.Options{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	txn, _ := db.Begin(ctx, "")
	if err := txn.CreateTable(ctx, "item", &verso.Schema{
		Columns:    []verso.Column{{Name: "id", Type: "int", Kind: verso.KindInt}, {Name: "name", Type: "varchar(20)", Kind: verso.KindString, Nullable: true}},
		PrimaryKey: []int{0},
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Insert(ctx, "item", verso.Int(1), verso.String("kettle")); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	c, err := driver.NewConnector(db, driver.Config{CommitName: "Jane", CommitEmail: "jane@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	sdb := sql.OpenDB(c)
	var name string
	if err := sdb.QueryRow("SELECT name FROM item WHERE id = 1").Scan(&name); err != nil || name != "kettle" {
		t.Fatalf("read through SQL: %q %v", name, err)
	}
	if _, err := sdb.Exec("INSERT INTO item VALUES (2, 'teapot')"); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec("CALL dolt_commit('-Am', 'two items')"); err != nil {
		t.Fatal(err)
	}
	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}

	check, err := db.Begin(ctx, "")
	if err != nil {
		t.Fatalf("the program's DB after the sql.DB closed: %v", err)
	}
	row, ok, err := check.Get(ctx, "item", verso.Int(2))
	if err != nil || !ok || row[1].AsString() != "teapot" {
		t.Fatalf("the row written through SQL, read by the engine: %v %v %v", row, ok, err)
	}
	log, err := db.Log(ctx, "", 1)
	if err != nil || len(log) != 1 || log[0].Meta.Message != "two items" || log[0].Meta.Author.Name != "Jane" {
		t.Fatalf("the engine's log: %v %v", log, err)
	}
}

// TestNewConnectorLocksShared: SQL sessions (UPDATE c SET n = n + 1) and
// the program's typed transactions (GetForUpdate, Put) increment one
// counter at once; they wait for each other's row locks, so the counter
// ends equal to every acknowledged increment.
func TestNewConnectorLocksShared(t *testing.T) {
	ctx := context.Background()
	db, err := verso.OpenMemory("c", verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := driver.NewConnector(db, driver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sdb := sql.OpenDB(c)
	defer sdb.Close()
	if _, err := sdb.Exec("CREATE TABLE c (id INT PRIMARY KEY, n INT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec("INSERT INTO c VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	const each = 30
	var wg sync.WaitGroup
	var acked atomic.Int64
	for range 3 {
		wg.Add(2)
		go func() { // over SQL
			defer wg.Done()
			for range each {
				if _, err := sdb.Exec("UPDATE c SET n = n + 1 WHERE id = 1"); err != nil {
					t.Error(err)
					return
				}
				acked.Add(1)
			}
		}()
		go func() { // through the engine
			defer wg.Done()
			for range each {
				txn, err := db.Begin(ctx, "")
				if err != nil {
					t.Error(err)
					return
				}
				row, _, err := txn.GetForUpdate(ctx, "c", verso.Int(1))
				if err == nil {
					err = txn.Put(ctx, "c", row[0], verso.Int(row[1].AsInt()+1))
				}
				if err == nil {
					err = txn.Commit(ctx)
				}
				if err != nil {
					txn.Rollback()
					t.Error(err)
					return
				}
				acked.Add(1)
			}
		}()
	}
	wg.Wait()
	var n int64
	if err := sdb.QueryRow("SELECT n FROM c WHERE id = 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != acked.Load() {
		t.Fatalf("the counter is %d after %d acknowledged increments", n, acked.Load())
	}
}
