package verso_test

import (
	"context"
	"testing"

	"github.com/verso-db/verso"
)

// The helpers of the engine's black-box tests (package verso_test): a
// database in memory and short ways to write to it.

var jane = verso.Signature{Name: "Jane", Email: "jane@example.com"}

// kvSchema is a table of an int key and an int value.
func kvSchema() *verso.Schema {
	return &verso.Schema{
		Columns: []verso.Column{
			{Name: "k", Type: "int", Kind: verso.KindInt},
			{Name: "v", Type: "int", Kind: verso.KindInt, Nullable: true},
		},
		PrimaryKey: []int{0},
	}
}

// memDB returns a database in memory, closed when the test ends.
func memDB(t *testing.T) *verso.DB {
	t.Helper()
	db, err := verso.OpenMemory("test", verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ok fails the test on err.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// write runs fn in a transaction on branch and commits it to the working
// set.
func write(t *testing.T, db *verso.DB, branch string, fn func(ctx context.Context, txn *verso.Txn) error) {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, branch)
	ok(t, err)
	ok(t, fn(ctx, txn))
	ok(t, txn.Commit(ctx))
}

// commitAll stages every change of branch and commits it with msg.
func commitAll(t *testing.T, db *verso.DB, branch, msg string) *verso.Commit {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, branch)
	ok(t, err)
	c, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: msg, Author: jane, StageAll: true})
	ok(t, err)
	return c
}

// put writes the row (k, v) of table on branch's working set.
func put(t *testing.T, db *verso.DB, branch, table string, k, v int64) {
	t.Helper()
	write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
		return txn.Put(ctx, table, verso.Int(k), verso.Int(v))
	})
}

// createKV creates the table name of kvSchema on branch's working set.
func createKV(t *testing.T, db *verso.DB, branch, name string) {
	t.Helper()
	write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
		return txn.CreateTable(ctx, name, kvSchema())
	})
}

// value returns v of the row k of table on branch's working set, or -1.
func value(t *testing.T, db *verso.DB, branch, table string, k int64) int64 {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, branch)
	ok(t, err)
	row, found, err := txn.Get(ctx, table, verso.Int(k))
	ok(t, err)
	if !found {
		return -1
	}
	return row[1].AsInt()
}

// status returns the branch's dolt_status entries as "table staged status"
// lines.
func status(t *testing.T, db *verso.DB, branch string) []string {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, branch)
	ok(t, err)
	es, err := txn.Status(ctx)
	ok(t, err)
	var out []string
	for _, e := range es {
		s := e.Name() + " "
		if e.Staged {
			s += "staged "
		}
		out = append(out, s+e.Status.String())
	}
	return out
}
