package sqlserver

import (
	"errors"
	"testing"

	"github.com/verso-db/verso"
)

// Row locks in process; server/rowlocks_test.go has those over the wire.

// TestCommitRefusesSameValue: a transaction whose row another writer
// changed to the same value, past its locks (here: a transaction rolled
// back after the fact stands for a writer outside the server), does not
// commit: the check at COMMIT refuses any write-write conflict on a row,
// whatever the values.
func TestCommitRefusesSameValue(t *testing.T) {
	env := newEnv(t, NewMemoryProvider())
	a := env.session("db")
	env.exec(env.session(""), "CREATE DATABASE db")
	env.exec(a, "CREATE TABLE c (id INT PRIMARY KEY, n INT)")
	env.exec(a, "INSERT INTO c VALUES (0, 0)")
	env.exec(a, "START TRANSACTION")
	env.exec(a, "UPDATE c SET n = n + 1 WHERE id = 0")
	tx := a.GetTransaction().(*Transaction)
	var d *txDB
	for _, x := range tx.dbs {
		d = x
	}
	if err := d.flushAll(a); err != nil {
		t.Fatal(err)
	}
	root := d.Root()
	env.exec(a, "ROLLBACK")
	d.SetRoot(root) // d keeps its snapshot and writes
	b := env.session("db")
	env.exec(b, "UPDATE c SET n = n + 1 WHERE id = 0") // the same value, 1
	_, ws, _, err := d.st.db.Snapshot(b, d.Branch())
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.PendingWorking(b, ws) // its commit's merge
	if !errors.Is(err, verso.ErrSerialization) {
		t.Fatalf("two increments of a row to the same value merged: %v", err)
	}
}

// TestMayLock: the text test that spares statements without a locking
// clause the walk of their syntax tree never misses one.
func TestMayLock(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t WHERE id = 1 FOR UPDATE":            true,
		"select * from t for\n\tupdate nowait":               true,
		"SELECT * FROM t LOCK IN SHARE MODE":                 true,
		"SELECT * FROM t FOR SHARE SKIP LOCKED":              true,
		"UPDATE t SET v = 1 WHERE id = 1":                    false,
		"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE v": false,
		"SELECT 1": false,
	} {
		if got := mayLock(q); got != want {
			t.Errorf("mayLock(%q) = %v, want %v", q, got, want)
		}
	}
}
