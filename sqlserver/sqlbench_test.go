package sqlserver

import (
	"fmt"
	"testing"
)

// BenchmarkSQLPointSelect measures a primary-key SELECT through the engine,
// in process, on a table of 10,000 rows in memory.
func BenchmarkSQLPointSelect(b *testing.B) {
	env := newEnv(b, NewMemoryProvider())
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	for i := 0; i < 10000; i += 500 {
		q := "INSERT INTO t VALUES "
		for j := i; j < i+500; j++ {
			if j > i {
				q += ", "
			}
			q += fmt.Sprintf("(%d, 'v%d')", j, j)
		}
		env.exec(ctx, q)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := env.query(ctx, fmt.Sprintf("SELECT v FROM t WHERE id = %d", i%10000))
		if err != nil || len(rows) != 1 {
			b.Fatal(rows, err)
		}
	}
}

// BenchmarkSQLInsertAutocommit measures single-row autocommit inserts into
// a file-backed database: each is a transaction commit with one fsync.
func BenchmarkSQLInsertAutocommit(b *testing.B) {
	p, err := NewProvider(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	env := newEnv(b, p)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := env.query(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, 'x')", i)); err != nil {
			b.Fatal(err)
		}
	}
}
