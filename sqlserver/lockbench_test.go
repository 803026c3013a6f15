package sqlserver

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSQLUpdate measures single-row autocommit UPDATEs by primary key
// in process, in memory (no fsync: the statement's own cost, row locks
// included), of a column without an index and of an indexed one, on a
// table of 10,000 rows.
func BenchmarkSQLUpdate(b *testing.B) {
	for _, c := range []struct{ name, set string }{
		{"non_index", "c = c + 1"},
		{"index", "k = k + 1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := newEnv(b, NewMemoryProvider())
			ctx := setupDB(env)
			loadUpdateTable(env, ctx)
			q := "UPDATE t SET " + c.set + " WHERE id = %d"
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := env.query(ctx, fmt.Sprintf(q, i%10000)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSQLUpdateConcurrent runs autocommit UPDATEs of distinct rows
// from four sessions at once into a file-backed database (every commit
// synced) and reports the working-set writes (one fsync each) per update:
// group commit lets waiting writers of different rows share one.
func BenchmarkSQLUpdateConcurrent(b *testing.B) {
	env, ctx := newFileEnv(b)
	loadUpdateTable(env, ctx)
	benchConcurrent(b, env, func(n int64) string { return fmt.Sprintf("UPDATE t SET c = c + 1 WHERE id = %d", n%10000) })
}

// loadUpdateTable makes the table t of BenchmarkSQLUpdate in database db.
func loadUpdateTable(env *testEnv, _ any) {
	s := env.session("db")
	env.exec(s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c INT NOT NULL, KEY (k))")
	for i := 0; i < 10000; i += 1000 {
		var vals []string
		for j := i; j < i+1000; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 0)", j, j))
		}
		env.exec(s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
}
