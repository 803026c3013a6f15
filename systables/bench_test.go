package systables_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkLookupByHash looks up one commit by hash through the engine:
// in dolt_log and dolt_commits (a chunk read and a closure lookup), and in
// a materialized copy of dolt_log, an ordinary table whose primary key is
// commit_hash (a prolly tree lookup), in the same run. The multiple is
// systable ns/op over materialized ns/op. Stores are in memory.
func BenchmarkLookupByHash(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		en := newEnv(b)
		build(b, en.graph, 42, n)
		ctx := en.session("d")
		en.exec(ctx, "CREATE TABLE log_copy (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(3), message text, commit_order bigint unsigned, parents text, refs text, signature text, author text, author_email text, author_date datetime(3))")
		en.exec(ctx, "INSERT INTO log_copy SELECT * FROM dolt_log")
		main, err := en.graph.Head(context.Background(), "main")
		if err != nil {
			b.Fatal(err)
		}
		var hashes []string
		for _, r := range en.exec(ctx, "SELECT commit_hash FROM dolt_log") {
			hashes = append(hashes, r[0].(string))
		}
		_ = main
		for _, table := range []string{"dolt_log", "dolt_commits", "log_copy"} {
			b.Run(fmt.Sprintf("commits=%d/%s", n, table), func(b *testing.B) {
				qs := make([]string, len(hashes))
				for i, h := range hashes {
					qs[i] = fmt.Sprintf("SELECT * FROM %s WHERE commit_hash = '%s'", table, h)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rows := en.exec(ctx, qs[i%len(qs)])
					if len(rows) != 1 {
						b.Fatalf("%s: %d rows", qs[i%len(qs)], len(rows))
					}
				}
			})
		}
	}
}

// BenchmarkLookupByHashDirect is BenchmarkLookupByHash below the parser
// and the analyzer: each op opens the table from the database, as the
// engine does for every statement, builds the point lookup on its
// commit_hash index and reads the row through the sql.IndexAddressable
// interfaces. It isolates the storage cost the SQL path hides.
func BenchmarkLookupByHashDirect(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		en := newEnv(b)
		build(b, en.graph, 42, n)
		ctx := en.session("d")
		en.exec(ctx, "CREATE TABLE log_copy (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(3), message text, commit_order bigint unsigned, parents text, refs text, signature text, author text, author_email text, author_date datetime(3))")
		en.exec(ctx, "INSERT INTO log_copy SELECT * FROM dolt_log")
		var hashes []string
		for _, r := range en.exec(ctx, "SELECT commit_hash FROM dolt_log") {
			hashes = append(hashes, r[0].(string))
		}
		db, err := en.p.Database(ctx, "d")
		if err != nil {
			b.Fatal(err)
		}
		for _, table := range []string{"dolt_log", "dolt_commits", "log_copy"} {
			b.Run(fmt.Sprintf("commits=%d/%s", n, table), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					h := hashes[i%len(hashes)]
					tb, ok, err := db.GetTableInsensitive(ctx, table)
					if err != nil || !ok {
						b.Fatal(table, ok, err)
					}
					it := tb.(sql.IndexAddressableTable)
					idxs, err := it.GetIndexes(ctx)
					if err != nil {
						b.Fatal(err)
					}
					var idx sql.Index
					for _, x := range idxs {
						if x.ID() == "PRIMARY" {
							idx = x
						}
					}
					typ := tb.Schema(ctx)[0].Type
					lookup := sql.NewIndexLookup(idx, sql.MySQLRangeCollection{{sql.ClosedRangeColumnExpr(h, h, typ)}}, true, false, false, false)
					ps, err := it.IndexedAccess(ctx, lookup).LookupPartitions(ctx, lookup)
					if err != nil {
						b.Fatal(err)
					}
					p, err := ps.Next(ctx)
					if err != nil {
						b.Fatal(err)
					}
					rows, err := sql.RowIterToRows(ctx, must(tb.PartitionRows(ctx, p)))
					if err != nil || len(rows) != 1 {
						b.Fatalf("%s %s: %d rows, %v", table, h, len(rows), err)
					}
				}
			})
		}
	}
}

// BenchmarkLogScan reads the whole of dolt_log through the server's engine with a
// filter on the message (the history benchmark's full scan), in memory,
// and reports the time per commit.
func BenchmarkLogScan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		en := newEnv(b)
		build(b, en.graph, 42, n)
		ctx := en.session("d")
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				en.exec(ctx, "SELECT COUNT(*) FROM dolt_log WHERE message LIKE 'c%'")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/commit")
		})
	}
}
