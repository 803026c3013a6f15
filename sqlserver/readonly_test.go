package sqlserver

import (
	"path/filepath"
	"testing"
)

// TestReadOnlyProvider: a read-only provider over a data dir whose
// provider for writing is open reads the committed data and the working
// set, system tables included, and refuses every write as read-only.
func TestReadOnlyProvider(t *testing.T) {
	dir := t.TempDir()
	wp, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer wp.Close()
	w := newEnv(t, wp)
	ctx := setupDB(w)
	w.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
	w.exec(ctx, "INSERT INTO t VALUES (1, 'one')")
	w.exec(ctx, "CALL dolt_commit('-Am', 'add t')")
	w.exec(ctx, "INSERT INTO t VALUES (2, 'two')")

	p, err := NewReadOnlyProvider(dir)
	if err != nil {
		t.Fatalf("a read-only provider beside the writer: %v", err)
	}
	defer p.Close()
	r := newEnv(t, p)
	rctx := r.session("db")
	r.check(rctx, "SELECT id, v FROM t ORDER BY id", "[1 one] [2 two]")
	r.check(rctx, "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", "[add t]")
	r.check(rctx, "SELECT table_name, status FROM dolt_status", "[t modified]")
	for _, q := range []string{
		"INSERT INTO t VALUES (3, 'three')",
		"UPDATE t SET v = 'uno' WHERE id = 1",
		"CREATE TABLE u (id INT PRIMARY KEY)",
		"CALL dolt_commit('--allow-empty', '-m', 'x')",
		"CALL dolt_branch('feature')",
		"CREATE DATABASE other",
		"DROP DATABASE db",
	} {
		if _, err := r.query(rctx, q); err == nil || !IsReadOnlyError(err) {
			t.Errorf("%s on a read-only database: %v, want a read-only error", q, err)
		}
	}
	r.check(rctx, "SELECT COUNT(*) FROM t", "[2]")
	w.check(ctx, "SELECT COUNT(*) FROM t", "[2]")
	if _, err := NewReadOnlyProvider(filepath.Join(dir, "missing")); err == nil {
		t.Error("a read-only provider over no folder opened")
	}
}
