package sqlserver

import (
	"strings"
	"testing"
)

// TestPointLookup: filters that fix an integer primary key are answered
// by the table's own lookup (EXPLAIN shows it), with the same rows as the
// engine's costed plans, including for the cases the lookup declines
// (aliases, outer references, non-integer literals, partial keys).
func TestPointLookup(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(10), KEY kk (k))")
	env.exec(ctx, "CREATE TABLE u (a BIGINT, b TINYINT UNSIGNED, v INT, PRIMARY KEY (a, b))")
	env.exec(ctx, "CREATE TABLE s (name VARCHAR(10) PRIMARY KEY, id INT)")
	env.exec(ctx, "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 10, 'three')")
	env.exec(ctx, "INSERT INTO u VALUES (1, 1, 11), (1, 2, 12), (2, 1, 21)")
	env.exec(ctx, "INSERT INTO s VALUES ('x', 2), ('y', 3)")

	plan := func(q string) string {
		var b strings.Builder
		for _, r := range env.exec(ctx, "EXPLAIN PLAN "+q) {
			b.WriteString(r[0].(string) + "\n")
		}
		return b.String()
	}
	if p := plan("SELECT v FROM t WHERE id = 2"); !strings.Contains(p, "IndexedTableAccess(t)") || !strings.Contains(p, "[2, 2]") {
		t.Fatalf("point lookup plan:\n%s", p)
	}
	if p := plan("SELECT v FROM u WHERE b = 2 AND a = 1"); !strings.Contains(p, "IndexedTableAccess(u)") {
		t.Fatalf("two-column key plan:\n%s", p)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT v FROM t WHERE id = 2", "[two]"},
		{"SELECT v FROM t WHERE 3 = id", "[three]"},
		{"SELECT v FROM t WHERE id = 2 AND k = 20", "[two]"},
		{"SELECT v FROM t WHERE id = 2 AND k = 10", ""},
		{"SELECT v FROM t WHERE id = 4", ""},
		{"SELECT v FROM t WHERE id = 99999999999999999999", ""},
		{"SELECT v FROM t WHERE id = -1", ""},
		{"SELECT v FROM t WHERE id = 2.0", "[two]"},
		{"SELECT v FROM t WHERE id = 2.5", ""},
		{"SELECT v FROM t WHERE id = '3'", "[three]"},
		{"SELECT v FROM t WHERE id = 1 OR id = 3 ORDER BY id", "[one] [three]"},
		{"SELECT x.v FROM t AS x WHERE x.id = 1", "[one]"},
		{"SELECT v FROM u WHERE a = 1 AND b = 2", "[12]"},
		{"SELECT v FROM u WHERE a = 1 ORDER BY b", "[11] [12]"},
		{"SELECT v FROM u WHERE a = 1 AND b = 300", ""},
		{"SELECT v FROM u WHERE a = 2 AND b = 1 AND v > 20", "[21]"},
		// An outer reference compared with a literal is no key of the
		// inner table.
		{"SELECT s.name FROM s WHERE EXISTS (SELECT 1 FROM t AS i WHERE i.id = s.id AND s.id = 2) ORDER BY s.name", "[x]"},
		{"SELECT t.v FROM t WHERE EXISTS (SELECT 1 FROM t AS i WHERE t.id = 2 AND i.id = 3)", "[two]"},
		{"SELECT t.v FROM t JOIN s ON t.id = s.id WHERE t.id = 3", "[three]"},
	} {
		env.check(ctx, c.q, c.want)
	}
}
