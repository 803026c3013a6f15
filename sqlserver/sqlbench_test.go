package sqlserver

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
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
	env, ctx := newFileEnv(b)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	done := storeMetrics(b, env)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := env.query(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, 'x')", i)); err != nil {
			b.Fatal(err)
		}
	}
	done()
}

// storeMetrics returns a function that reports, per operation of b since
// the call, the chunks and record bytes database db's file store appended
// (root records not counted) and its working-set writes (one fsync each).
func storeMetrics(b *testing.B, env *testEnv) func() {
	st, _ := env.p.state("db")
	fs := st.db.Store().(*chunks.FileStore)
	chunks0, bytes0 := fs.Appended()
	writes0 := st.db.CommitWrites()
	return func() {
		n := float64(b.N)
		c, by := fs.Appended()
		b.ReportMetric(float64(c-chunks0)/n, "chunks/op")
		b.ReportMetric(float64(by-bytes0)/n, "journalB/op")
		b.ReportMetric(float64(st.db.CommitWrites()-writes0)/n, "fsyncs/op")
	}
}

// BenchmarkSysbenchRead runs the read queries of sysbench's oltp_read_only
// in process on a 100,000-row table shaped like sysbench's sbtest1 (in
// memory), one sub-benchmark per query shape. Ranges are 100 rows, as
// sysbench's default range_size.
func BenchmarkSysbenchRead(b *testing.B) {
	const rows = 100000
	env := newEnv(b, NewMemoryProvider())
	ctx := setupDB(env)
	loadSysbenchTable(env, ctx, rows)
	queries := []struct {
		name string
		q    string
		rows int // rows each query returns
	}{
		{"point", "SELECT c FROM sbtest1 WHERE id=%d", 1},
		{"range", "SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d", 100},
		{"sum", "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN %d AND %d", 1},
		{"order", "SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", 100},
		{"distinct", "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", 100},
	}
	for _, bq := range queries {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				lo := 1 + (i*7477)%(rows-100)
				q := fmt.Sprintf(bq.q, lo)
				if strings.Count(bq.q, "%d") == 2 {
					q = fmt.Sprintf(bq.q, lo, lo+99)
				}
				got, err := env.query(ctx, q)
				if err != nil || len(got) != bq.rows {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}

// BenchmarkSysbenchWrite runs the writes of sysbench's oltp_insert,
// oltp_update_index, oltp_update_non_index and oltp_write_only in process
// on a file-backed database (every commit synced) with sysbench's table
// of 100,000 rows, one session, autocommit, and reports per operation the
// chunks and journal bytes written and the fsyncs. write_only is one
// transaction of sysbench's: an indexed update, an unindexed update, and
// a delete and insert of one row, then COMMIT.
func BenchmarkSysbenchWrite(b *testing.B) {
	const rows = 100000
	env, ctx := newFileEnv(b)
	// The load writes enough for an automatic collection, and so do
	// the timed writes: one collection runs here, before them, and none
	// during them, so that the figures are the writes' own.
	st, _ := env.p.state("db")
	st.db.SetAutoGC(verso.AutoGC{Off: true})
	loadSysbenchTable(env, ctx, rows)
	if _, err := st.db.GC(ctx, verso.GCOptions{}); err != nil {
		b.Fatal(err)
	}
	cval := func(i int) string {
		return fmt.Sprintf("%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d", i, i, i, i, i, i, i, i, i, i)
	}
	pad := func(i int) string { return fmt.Sprintf("%011d-%011d-%011d-%011d-%011d", i, i, i, i, i) }
	id := func(i int) int { return 1 + (i*7477)%rows }
	shapes := []struct {
		name string
		qs   func(i int) []string
	}{
		{"insert", func(i int) []string {
			return []string{fmt.Sprintf("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, %d, '%s', '%s')", id(i), cval(i), pad(i))}
		}},
		{"update_index", func(i int) []string { return []string{fmt.Sprintf("UPDATE sbtest1 SET k=k+1 WHERE id=%d", id(i))} }},
		{"update_non_index", func(i int) []string {
			return []string{fmt.Sprintf("UPDATE sbtest1 SET c='%s' WHERE id=%d", cval(i), id(i))}
		}},
		{"write_only", func(i int) []string {
			n := id(i)
			return []string{"BEGIN",
				fmt.Sprintf("UPDATE sbtest1 SET k=k+1 WHERE id=%d", n),
				fmt.Sprintf("UPDATE sbtest1 SET c='%s' WHERE id=%d", cval(i), id(i+1)),
				fmt.Sprintf("DELETE FROM sbtest1 WHERE id=%d", id(i+2)),
				fmt.Sprintf("INSERT INTO sbtest1 (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", id(i+2), n, cval(i), pad(i)),
				"COMMIT"}
		}},
	}
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			done := storeMetrics(b, env)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, q := range sh.qs(i) {
					if _, err := env.query(ctx, q); err != nil {
						b.Fatal(q, err)
					}
				}
			}
			done()
		})
	}
}

// loadSysbenchTable makes sysbench's table sbtest1 (id primary key, k
// indexed, c CHAR(120) and pad CHAR(60) filled as sysbench fills them)
// with ids 1..rows.
func loadSysbenchTable(env *testEnv, ctx *sql.Context, rows int) {
	env.exec(ctx, "CREATE TABLE sbtest1 (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', INDEX k_1(k))")
	for i := 1; i <= rows; i += 1000 {
		var q strings.Builder
		q.WriteString("INSERT INTO sbtest1 (id, k, c, pad) VALUES ")
		for j := i; j < i+1000 && j <= rows; j++ {
			if j > i {
				q.WriteString(", ")
			}
			// sysbench's c is 10 groups of 11 random digits joined by
			// '-', pad 5; c's first group here is in no order of id's,
			// so that ORDER BY c sorts.
			fmt.Fprintf(&q, "(%d, %d, '%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d', '%011d-%011d-%011d-%011d-%011d')",
				j, (j*7919)%rows, (j*2654435761)%99999999989, j*3, j*5, j*7, j*11, j*13, j*17, j*19, j*23, j*29, j, j*2, j*3, j*4, j*5)
		}
		env.exec(ctx, q.String())
	}
}

// BenchmarkSQLInsertConcurrent measures single-row autocommit inserts from
// concurrent sessions into a file-backed database (each commit synced;
// concurrent commits share fsyncs), and reports the store commits per
// insert.
func BenchmarkSQLInsertConcurrent(b *testing.B) {
	env, ctx := newFileEnv(b)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	benchConcurrent(b, env, func(n int64) string { return fmt.Sprintf("INSERT INTO t VALUES (%d, 'x')", n) })
}

// benchConcurrent runs the statement q(n), n = 1, 2, ..., from four
// sessions at once and reports the working-set writes (one fsync each on
// a file store) per statement.
func benchConcurrent(b *testing.B, env *testEnv, q func(n int64) string) {
	var next atomic.Int64
	st, _ := env.p.state("db")
	before := st.db.CommitWrites()
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := env.session("db")
		for pb.Next() {
			if _, err := env.query(s, q(next.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(st.db.CommitWrites()-before)/float64(b.N), "fsyncs/op")
}

// newFileEnv returns an engine over a provider of file-backed databases
// in a temporary folder, and a session on its new database db.
func newFileEnv(b *testing.B) (*testEnv, *sql.Context) {
	p, err := NewProvider(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	env := newEnv(b, p)
	return env, setupDB(env)
}
