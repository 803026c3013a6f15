package systables_test

import (
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	sqlparser "github.com/dolthub/vitess/go/vt/sqlparser"
)

// BenchmarkPreparedLookup is BenchmarkLookupByHash with the hash as a
// prepared statement's parameter, as a MySQL client sends it (the path
// cmd/versobench-history measures over the wire), in process.
func BenchmarkPreparedLookup(b *testing.B) {
	en := newEnv(b)
	build(b, en.graph, 42, 1000)
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE log_copy (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(3), message text, commit_order bigint unsigned, parents text, refs text, signature text, author text, author_email text, author_date datetime(3))")
	en.exec(ctx, "INSERT INTO log_copy SELECT * FROM dolt_log")
	var hashes []string
	for _, r := range en.exec(ctx, "SELECT commit_hash FROM dolt_log") {
		hashes = append(hashes, r[0].(string))
	}
	for _, table := range []string{"dolt_log", "dolt_commits", "dolt_commit_ancestors", "log_copy"} {
		b.Run(table, func(b *testing.B) {
			q := fmt.Sprintf("SELECT * FROM %s WHERE commit_hash = ?", table)
			parsed, err := sqlparser.Parse(q)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := en.e.PrepareParsedQuery(ctx, q, q, parsed); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				bind := map[string]sqlparser.Expr{"v1": sqlparser.NewStrVal([]byte(hashes[i%len(hashes)]))}
				_, it, _, err := en.e.QueryWithBindings(ctx, q, parsed, bind, nil)
				if err != nil {
					b.Fatal(err)
				}
				rows, err := sql.RowIterToRows(ctx, it)
				if err != nil || len(rows) == 0 {
					b.Fatal(len(rows), err)
				}
			}
		})
	}
}
