package sqlserver

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

func TestWrites(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10), v INT, UNIQUE KEY (u))")
	env.exec(ctx, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")

	// Duplicates: an error that leaves no trace of the statement.
	if _, err := env.query(ctx, "INSERT INTO t VALUES (3, 'c', 30), (1, 'x', 0)"); err == nil || !sql.ErrUniqueKeyViolation.Is(err) && !strings.Contains(err.Error(), "uplicate") {
		t.Fatalf("duplicate primary key: got %v", err)
	}
	env.check(ctx, "SELECT id FROM t ORDER BY id", "[1] [2]")
	if _, err := env.query(ctx, "INSERT INTO t VALUES (3, 'a', 30)"); err == nil {
		t.Fatal("duplicate unique key accepted")
	}

	env.check(ctx, "INSERT IGNORE INTO t VALUES (1, 'z', 0), (3, 'c', 30)", "[ok:1]")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[1 a 10] [2 b 20] [3 c 30]")

	env.exec(ctx, "INSERT INTO t VALUES (1, 'a', 5) ON DUPLICATE KEY UPDATE v = v + VALUES(v)")
	env.exec(ctx, "INSERT INTO t VALUES (9, 'b', 1) ON DUPLICATE KEY UPDATE v = 99")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[1 a 15] [2 b 99] [3 c 30]")

	env.exec(ctx, "REPLACE INTO t VALUES (3, 'cc', 33), (4, 'a', 44)")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[2 b 99] [3 cc 33] [4 a 44]")

	env.check(ctx, "UPDATE t SET v = v + 1 WHERE id >= 3", "[ok:2]")
	env.exec(ctx, "UPDATE t SET id = 10 WHERE id = 2")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[3 cc 34] [4 a 45] [10 b 99]")
	if _, err := env.query(ctx, "UPDATE t SET u = 'a' WHERE id = 3"); err == nil {
		t.Fatal("update to a duplicate unique key accepted")
	}
	env.check(ctx, "SELECT u FROM t WHERE u = 'a'", "[a]")

	env.check(ctx, "DELETE FROM t WHERE u = 'cc'", "[ok:1]")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[4 a 45] [10 b 99]")
	env.exec(ctx, "DELETE FROM t")
	env.check(ctx, "SELECT count(*) FROM t", "[0]")
}

func TestKeylessTable(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE k (a INT, b VARCHAR(5), KEY (a))")
	env.exec(ctx, "INSERT INTO k VALUES (1, 'x'), (1, 'x'), (2, 'y')")
	env.check(ctx, "SELECT * FROM k ORDER BY a", "[1 x] [1 x] [2 y]")
	env.check(ctx, "SELECT b FROM k WHERE a = 2", "[y]")
	env.exec(ctx, "UPDATE k SET b = 'z' WHERE a = 2")
	env.exec(ctx, "DELETE FROM k WHERE a = 1 LIMIT 1")
	env.check(ctx, "SELECT * FROM k ORDER BY a", "[1 x] [2 z]")
}

func TestLookupsAndExplain(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (a INT, b VARCHAR(10), c DOUBLE, PRIMARY KEY (a, b), KEY kc (c), UNIQUE KEY kb (b, a))")
	var vals []string
	for i := 0; i < 200; i++ {
		vals = append(vals, "("+itoa(i%20)+", 'k"+itoa(i)+"', "+itoa(i)+".5)")
	}
	env.exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	for _, c := range []struct{ q, want string }{
		{"SELECT b FROM t WHERE a = 3 AND b = 'k23'", "[k23]"},
		{"SELECT count(*) FROM t WHERE a = 3", "[10]"},
		{"SELECT count(*) FROM t WHERE a > 3 AND a <= 5", "[20]"},
		{"SELECT count(*) FROM t WHERE a < 2 OR a > 17", "[40]"},
		{"SELECT count(*) FROM t WHERE a IN (1, 5, 7)", "[30]"},
		{"SELECT a FROM t WHERE c = 42.5", "[2]"},
		{"SELECT count(*) FROM t WHERE c > 10 AND c < 20.5", "[10]"},
		{"SELECT count(*) FROM t WHERE c >= 199.5", "[1]"},
		{"SELECT count(*) FROM t WHERE a = 2.5", "[0]"},
		{"SELECT count(*) FROM t WHERE a > 18.5", "[10]"},
		{"SELECT count(*) FROM t WHERE a < 0.5", "[10]"},
		{"SELECT a FROM t WHERE b = 'k199'", "[19]"},
		{"SELECT count(*) FROM t WHERE b > 'k19' AND b < 'k2'", "[10]"},
		{"SELECT count(*) FROM t WHERE b LIKE 'k19%'", "[11]"},
		{"SELECT a FROM t WHERE a = 19 ORDER BY a DESC, b DESC LIMIT 1", "[19]"},
	} {
		env.check(ctx, c.q, c.want)
	}
	for _, q := range []string{
		"SELECT * FROM t WHERE a = 1",
		"SELECT * FROM t WHERE a = 1 AND b = 'k1'",
		"SELECT * FROM t WHERE c > 3 AND c < 5",
		"SELECT * FROM t WHERE b = 'k7'",
	} {
		plan := formatRows(env.exec(ctx, "EXPLAIN PLAN "+q))
		if !strings.Contains(plan, "IndexedTableAccess") {
			t.Errorf("%s: no index access in plan:\n%s", q, plan)
		}
	}
	// NULLs in an index.
	env.exec(ctx, "CREATE TABLE n (id INT PRIMARY KEY, v INT, KEY (v))")
	env.exec(ctx, "INSERT INTO n VALUES (1, NULL), (2, 5), (3, NULL), (4, 7)")
	env.check(ctx, "SELECT id FROM n WHERE v IS NULL ORDER BY id", "[1] [3]")
	env.check(ctx, "SELECT id FROM n WHERE v IS NOT NULL ORDER BY id", "[2] [4]")
	env.check(ctx, "SELECT id FROM n WHERE v > 5", "[4]")
	env.check(ctx, "SELECT id FROM n WHERE v < 6", "[2]")
	env.check(ctx, "SELECT id FROM n WHERE v <=> NULL ORDER BY id", "[1] [3]")
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestDDL(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT DEFAULT (1 + 1), CHECK (v > 0))")
	env.exec(ctx, "INSERT INTO t (id) VALUES (1)")
	env.check(ctx, "SELECT * FROM t", "[1 2]")
	if _, err := env.query(ctx, "INSERT INTO t VALUES (2, -1)"); err == nil {
		t.Fatal("check constraint not enforced")
	}
	env.exec(ctx, "CREATE INDEX kv ON t (v)")
	env.check(ctx, "SELECT id FROM t WHERE v = 2", "[1]")
	if _, err := env.query(ctx, "CREATE TABLE t (x INT)"); err == nil {
		t.Fatal("second table t created")
	}
	env.exec(ctx, "RENAME TABLE t TO u")
	env.check(ctx, "SHOW TABLES", "[u]")
	env.check(ctx, "SELECT * FROM u", "[1 2]")
	env.exec(ctx, "ALTER TABLE u RENAME TO w")
	env.exec(ctx, "DROP INDEX kv ON w")
	env.check(ctx, "SELECT * FROM w WHERE v = 2", "[1 2]")
	env.exec(ctx, "DROP TABLE w")
	env.check(ctx, "SHOW TABLES", "")
	if _, err := env.query(ctx, "SELECT * FROM w"); err == nil {
		t.Fatal("dropped table still readable")
	}

	env.exec(ctx, "CREATE DATABASE other")
	env.exec(ctx, "CREATE TABLE other.x (a INT PRIMARY KEY)")
	env.exec(ctx, "INSERT INTO other.x VALUES (1)")
	env.check(ctx, "SELECT * FROM other.x", "[1]")
	env.exec(ctx, "DROP DATABASE other")
	if _, err := env.query(ctx, "SELECT * FROM other.x"); err == nil {
		t.Fatal("dropped database still readable")
	}
}

func TestAlterTable(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), KEY ka (a)) COMMENT 'tc'")
	env.exec(ctx, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	env.exec(ctx, "CREATE UNIQUE INDEX ua ON t (a)")
	env.exec(ctx, "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 7")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[1 x 7] [2 y 7]")
	env.exec(ctx, "ALTER TABLE t RENAME COLUMN a TO c")
	env.check(ctx, "SELECT id FROM t WHERE c = 'y'", "[2]")
	env.exec(ctx, "ALTER TABLE t MODIFY COLUMN b BIGINT")
	env.exec(ctx, "ALTER TABLE t DROP COLUMN c")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[1 7] [2 7]")
	got := formatRows(env.exec(ctx, "SHOW CREATE TABLE t"))
	if !strings.Contains(got, "COMMENT='tc'") || strings.Contains(got, "KEY") && !strings.Contains(got, "PRIMARY KEY") {
		t.Fatalf("SHOW CREATE TABLE: %s", got)
	}
	if _, err := env.query(ctx, "INSERT INTO t VALUES (1, 1)"); err == nil {
		t.Fatal("duplicate key after rewrite accepted")
	}
}

func TestTemporaryTables(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")
	env.exec(ctx, "INSERT INTO t VALUES (1)")
	env.exec(ctx, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT, KEY (v))")
	env.exec(ctx, "INSERT INTO tmp VALUES (1, 10), (2, 20)")
	env.check(ctx, "SELECT id FROM tmp WHERE v = 20", "[2]")
	env.check(ctx, "SHOW TABLES", "[t]")
	other := env.session("db")
	if _, err := env.query(other, "SELECT * FROM tmp"); err == nil {
		t.Fatal("another session sees a temporary table")
	}
	env.exec(ctx, "CREATE TEMPORARY TABLE t (x INT)")
	env.check(ctx, "SELECT count(*) FROM t", "[0]") // hides the real t
	env.exec(ctx, "DROP TABLE t")
	env.check(ctx, "SELECT count(*) FROM t", "[1]")
	env.exec(ctx, "DROP TEMPORARY TABLE tmp")
	if _, err := env.query(ctx, "SELECT * FROM tmp"); err == nil {
		t.Fatal("dropped temporary table still there")
	}
}

func TestAlterTableOptions(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")
	env.exec(ctx, "ALTER TABLE t COMMENT 'hello'")
	if got := formatRows(env.exec(ctx, "SHOW CREATE TABLE t")); !strings.Contains(got, "COMMENT='hello'") {
		t.Fatalf("SHOW CREATE TABLE: %s", got)
	}
	env.exec(ctx, "ALTER TABLE t COLLATE utf8mb4_general_ci")
	got := formatRows(env.exec(ctx, "SHOW CREATE TABLE t"))
	if !strings.Contains(got, "COMMENT='hello'") || !strings.Contains(got, "utf8mb4_general_ci") {
		t.Fatalf("SHOW CREATE TABLE: %s", got)
	}
	env.exec(ctx, "CALL dolt_commit('-Am', 'options')")
	env.exec(ctx, "RENAME TABLE t TO u")
	got = formatRows(env.exec(ctx, "SHOW CREATE TABLE u"))
	if !strings.Contains(got, "COMMENT='hello'") || !strings.Contains(got, "utf8mb4_general_ci") {
		t.Fatalf("SHOW CREATE TABLE after rename: %s", got)
	}
	// A change of options keeps the identity the rename carries; renamed
	// back with its options, the table is as committed.
	env.exec(ctx, "ALTER TABLE u COMMENT 'bye'")
	env.check(ctx, "SELECT * FROM dolt_status", "[t -> u false renamed]")
	env.exec(ctx, "RENAME TABLE u TO t")
	env.check(ctx, "SELECT * FROM dolt_status", "[t false modified]")
	env.exec(ctx, "ALTER TABLE t COMMENT 'hello'")
	env.check(ctx, "SELECT COUNT(*) FROM dolt_status", "[0]")
}

// TestDeleteOtherDatabase: with another current database, DELETE FROM
// db.t runs db.t's ON DELETE trigger even when the current database has
// a table t without one, and without a current database it works (the
// engine's DELETE-to-TRUNCATE looked in the current database: it skipped
// the trigger, or failed with 1049).
func TestDeleteOtherDatabase(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")
	env.exec(ctx, "CREATE TABLE gone (id INT PRIMARY KEY)")
	env.exec(ctx, "CREATE TRIGGER keep BEFORE DELETE ON t FOR EACH ROW INSERT INTO db.gone VALUES (old.id)")
	env.exec(ctx, "INSERT INTO t VALUES (1), (2)")
	env.exec(ctx, "CREATE DATABASE other")
	env.exec(ctx, "CREATE TABLE other.t (id INT PRIMARY KEY)")

	ctx.SetCurrentDatabase("other")
	env.check(ctx, "DELETE FROM db.t", "[ok:2]")
	env.check(ctx, "SELECT id FROM db.gone ORDER BY id", "[1] [2]")

	// Without a current database. (The engine finds no triggers then,
	// which other.t has none of.)
	ctx.SetCurrentDatabase("")
	env.exec(ctx, "INSERT INTO other.t VALUES (3), (4)")
	env.check(ctx, "DELETE FROM other.t", "[ok:2]")
	env.check(ctx, "SELECT COUNT(*) FROM other.t", "[0]")
}

// TestCheckNames: an unnamed check is named as Dolt names it, from the
// table's name and its expression's hash, with a suffix when the name is
// taken; a named one keeps its name.
func TestCheckNames(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE n (id INT PRIMARY KEY, CHECK (id > 0), CONSTRAINT mine CHECK (id < 100))")
	env.exec(ctx, "ALTER TABLE n ADD CHECK (id > 0)")
	env.check(ctx, "SELECT constraint_name FROM information_schema.check_constraints ORDER BY 1",
		"[mine] [n_chk_kjrue01f] [n_chk_kjrue01f_0]")
}
