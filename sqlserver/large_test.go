package sqlserver

import (
	"strings"
	"testing"
)

func TestLargeValuesAndSelfInsert(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, body MEDIUMTEXT, bin BLOB)")
	big := strings.Repeat("verso ", 20000) // 120 KB
	env.exec(ctx, "INSERT INTO t VALUES (1, '"+big+"', REPEAT('x', 50000))")
	env.check(ctx, "SELECT length(body), length(bin) FROM t", "[120000 50000]")
	env.exec(ctx, "INSERT INTO t SELECT id + 1, body, bin FROM t")
	env.exec(ctx, "INSERT INTO t SELECT id + 2, 'small', NULL FROM t")
	env.check(ctx, "SELECT id, length(body) FROM t ORDER BY id", "[1 120000] [2 120000] [3 5] [4 5]")
}
