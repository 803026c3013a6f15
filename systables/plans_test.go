package systables_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/histgen"
)

type sqlCtx = sql.Context

func explain(t *testing.T, en *env, q string) string {
	t.Helper()
	var plan []string
	for _, r := range en.exec(en.session("d"), "EXPLAIN PLAN "+q) {
		plan = append(plan, fmt.Sprint(r...))
	}
	return strings.Join(plan, "\n")
}

// TestExplainHistoryIndexes checks that filters on commit_hash (dolt_log,
// with its two keys on it, dolt_commits, ...), to_commit and from_commit,
// = and IN (dolt_diff_dolt_events' too), and the join of dolt_diff_t with
// dolt_log are index lookups.
func TestExplainHistoryIndexes(t *testing.T) {
	en := newEnv(t)
	if _, err := histgen.Build(context.Background(), en.graph, histgen.Options{Commits: 30, Rows: 5, Seed: 1, BranchEvery: 5, BranchLen: 2}); err != nil {
		t.Fatal(err)
	}
	main, _ := en.graph.Head(context.Background(), "main")
	h := main.String()
	for _, tc := range []struct{ table, col string }{
		{"dolt_log", "commit_hash"}, {"dolt_commits", "commit_hash"},
		{"dolt_diff", "commit_hash"}, {"dolt_history_t", "commit_hash"},
		{"dolt_diff_t", "to_commit"}, {"dolt_diff_t", "from_commit"},
		{"dolt_diff_dolt_events", "to_commit"}, {"dolt_diff_dolt_events", "from_commit"},
	} {
		for _, cond := range []string{
			fmt.Sprintf("%s = '%s'", tc.col, h),
			fmt.Sprintf("%s IN ('%s', 'abc')", tc.col, h),
		} {
			q := fmt.Sprintf("SELECT * FROM %s WHERE %s", tc.table, cond)
			if p := explain(t, en, q); !strings.Contains(p, "IndexedTableAccess("+tc.table+")") || !strings.Contains(p, "index: ["+tc.table+"."+tc.col+"]") {
				t.Fatalf("%s:\n%s", q, p)
			}
		}
	}
	for _, q := range []string{
		"SELECT * FROM dolt_diff_t JOIN dolt_log ON commit_hash = to_commit LIMIT 10",
		"SELECT * FROM dolt_log JOIN dolt_diff_t ON to_commit = commit_hash LIMIT 10",
		"SELECT * FROM dolt_diff_t d JOIN dolt_commits c ON c.commit_hash = d.from_commit",
	} {
		if p := explain(t, en, q); !strings.Contains(p, "IndexedTableAccess(") {
			t.Fatalf("%s:\n%s", q, p)
		}
	}
	t.Log(explain(t, en, "SELECT * FROM dolt_diff_t JOIN dolt_log ON commit_hash = to_commit LIMIT 10"))
}

// TestExplainCommitIndexedTables checks that the lookups by commit of the
// tables added after the first ones are index lookups: dolt_column_diff
// by commit_hash, dolt_commit_diff_t by (to_commit, from_commit) from
// literals and from user variables, and a keyless table's dolt_diff_<t>
// by to_commit and from_commit, which Dolt declares no key for (the table
// does not declare them either, and still looks literals up); and that
// dolt_diff_t declares to_pks, used for filters on to_pk.
func TestExplainCommitIndexedTables(t *testing.T) {
	en := newEnv(t)
	if _, err := histgen.Build(context.Background(), en.graph, histgen.Options{Commits: 30, Rows: 5, Seed: 1, BranchEvery: 5, BranchLen: 2}); err != nil {
		t.Fatal(err)
	}
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE k (a INT, b INT)")
	en.exec(ctx, "INSERT INTO k VALUES (1, 2), (1, 2)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'keyless')")
	main, _ := en.graph.Head(context.Background(), "main")
	h := main.String()
	indexed := func(q, table, index string) {
		t.Helper()
		if p := explain(t, en, q); !strings.Contains(p, "IndexedTableAccess("+table+")") || !strings.Contains(p, "index: ["+index+"]") {
			t.Fatalf("%s:\n%s", q, p)
		}
	}
	for _, cond := range []string{"= '" + h + "'", "IN ('" + h + "', 'WORKING')", "= 'STAGED'"} {
		indexed("SELECT * FROM dolt_column_diff WHERE commit_hash "+cond, "dolt_column_diff", "dolt_column_diff.commit_hash")
		indexed("SELECT * FROM dolt_diff_k WHERE to_commit "+cond, "dolt_diff_k", "dolt_diff_k.to_commit")
		indexed("SELECT * FROM dolt_diff_k WHERE from_commit "+cond, "dolt_diff_k", "dolt_diff_k.from_commit")
	}
	pair := "dolt_commit_diff_t.to_commit,dolt_commit_diff_t.from_commit"
	indexed("SELECT * FROM dolt_commit_diff_t WHERE to_commit = '"+h+"' AND from_commit = 'HEAD~3'", "dolt_commit_diff_t", pair)
	indexed("SELECT * FROM dolt_commit_diff_t WHERE from_commit = 'WORKING' AND to_commit = 'main' AND to_pk > 2", "dolt_commit_diff_t", pair)
	en.exec(ctx, "SET @a = 'HEAD', @b = 'HEAD~1'")
	indexed("SELECT * FROM dolt_commit_diff_t WHERE to_commit = @a AND from_commit = @b", "dolt_commit_diff_t", pair)
	indexed("SELECT * FROM dolt_diff_t WHERE to_pk = 3", "dolt_diff_t", "dolt_diff_t.to_pk")
	en.exec(ctx, "CREATE VIEW v AS SELECT 1")
	indexed("SELECT * FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'WORKING' AND from_commit = 'HEAD'", "dolt_commit_diff_dolt_schemas",
		"dolt_commit_diff_dolt_schemas.to_commit,dolt_commit_diff_dolt_schemas.from_commit")
	if rows := en.exec(ctx, "SELECT to_name, diff_type FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'WORKING' AND from_commit = 'HEAD'"); len(rows) != 1 || rows[0][0] != "v" || rows[0][1] != "added" {
		t.Fatalf("dolt_commit_diff_dolt_schemas: %v", rows)
	}
	for _, q := range []string{"SHOW INDEXES FROM dolt_diff_k", "SHOW INDEXES FROM dolt_blame_t"} {
		if rows := en.exec(ctx, q); len(rows) != 0 {
			t.Fatalf("%s: %v", q, rows)
		}
	}
}

// TestCommitLookupReads checks that a lookup by commit in the tables that
// read one change (dolt_column_diff, dolt_commit_diff_t, dolt_diff's
// STAGED rows) reads a few chunks of a 300-commit history, not the
// history: the commit, HEAD's closure path, and the change.
func TestCommitLookupReads(t *testing.T) {
	en, cs := newCountingEnv(t)
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)")
	en.exec(ctx, "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
	for i := range 300 {
		en.exec(ctx, fmt.Sprintf("UPDATE t SET v = %d WHERE pk = %d", i, i%3+1))
		en.exec(ctx, fmt.Sprintf("CALL dolt_commit('-Am', 'c%d')", i))
	}
	en.exec(ctx, "UPDATE t SET v = -1 WHERE pk = 1")
	en.exec(ctx, "CALL dolt_add('t')")
	mid := fmt.Sprint(en.exec(ctx, "SELECT commit_hash FROM dolt_log WHERE message = 'c150'")[0][0])
	old := fmt.Sprint(en.exec(ctx, "SELECT commit_hash FROM dolt_log WHERE message = 'c40'")[0][0])
	for _, tc := range []struct {
		q    string
		rows int
	}{
		{"SELECT * FROM dolt_column_diff WHERE commit_hash = '" + mid + "'", 1},
		{"SELECT * FROM dolt_column_diff WHERE commit_hash = 'STAGED'", 1},
		{"SELECT * FROM dolt_diff WHERE commit_hash = 'STAGED'", 1},
		{"SELECT * FROM dolt_commit_diff_t WHERE to_commit = '" + mid + "' AND from_commit = '" + old + "'", 3},
		{"SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'STAGED' AND from_commit = 'HEAD~2'", 3},
	} {
		before := cs.reads.Load()
		if rows := en.exec(ctx, tc.q); len(rows) != tc.rows {
			t.Fatalf("%s: %d rows, want %d", tc.q, len(rows), tc.rows)
		}
		n := cs.reads.Load() - before
		t.Logf("%s: %d chunks", tc.q, n)
		if n > 80 {
			t.Fatalf("%s read %d chunks", tc.q, n)
		}
	}
}

// TestSnapshot checks that the system tables read the commit graph as of
// the transaction's snapshot: a transaction that began before another
// writer committed sees neither the commit nor the moved branch, until it
// ends; its own uncommitted writes are its WORKING rows.
func TestSnapshot(t *testing.T) {
	en := newEnv(t)
	bg := context.Background()
	if _, err := histgen.Build(bg, en.graph, histgen.Options{Commits: 12, Rows: 4, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	a, b := en.session("d"), en.session("d")
	count := func(ctx *sqlCtx, q string) string { return formatRow(en.exec(ctx, q)[0]) }
	before := count(a, "SELECT COUNT(*) FROM dolt_log")
	en.exec(a, "START TRANSACTION")
	if got := count(a, "SELECT COUNT(*) FROM dolt_log"); got != before {
		t.Fatalf("count in the transaction: %s, want %s", got, before)
	}
	en.exec(a, "UPDATE t SET v = 77 ORDER BY pk LIMIT 1")

	// Another writer commits to main.
	head, err := en.graph.HeadCommit(bg, "main")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := en.graph.CommitRoot(bg, commitgraph.CommitOptions{Branch: "main", Root: head.Root, ExpectedHead: head.Addr,
		Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "other", Email: "o@x"}, Message: "concurrent"}})
	if err != nil {
		t.Fatal(err)
	}
	h := nc.Addr.String()
	for _, q := range []string{
		"SELECT COUNT(*) FROM dolt_log WHERE commit_hash = '" + h + "'",
		"SELECT COUNT(*) FROM dolt_commits WHERE commit_hash = '" + h + "'",
		"SELECT COUNT(*) FROM dolt_commit_ancestors WHERE commit_hash = '" + h + "'",
		"SELECT COUNT(*) FROM dolt_diff_t WHERE to_commit = '" + h + "'",
		"SELECT COUNT(*) FROM dolt_history_t WHERE commit_hash = '" + h + "'",
		"SELECT COUNT(*) FROM dolt_log() WHERE commit_hash = '" + h + "'",
	} {
		if got := count(a, q); got != "0" {
			t.Fatalf("in the old transaction, %s: %s", q, got)
		}
	}
	if got := count(a, "SELECT COUNT(*) FROM dolt_log"); got != before {
		t.Fatalf("scan in the old transaction: %s rows, want %s", got, before)
	}
	if got := formatRow(en.exec(a, "SELECT commit_hash FROM dolt_log LIMIT 1")[0]); got != head.Addr.String() {
		t.Fatalf("first row in the old transaction: %s, want the old head %s", got, head.Addr)
	}
	// Its own write is its WORKING row; the other session does not see it.
	if got := count(a, "SELECT COUNT(*) FROM dolt_diff WHERE commit_hash = 'WORKING' AND table_name = 't'"); got != "1" {
		t.Fatalf("own WORKING row: %s", got)
	}
	if got := count(a, "SELECT COUNT(*) FROM dolt_diff_t WHERE to_commit = 'WORKING' AND to_v = 77"); got != "1" {
		t.Fatalf("own WORKING diff row: %s", got)
	}
	if got := count(b, "SELECT COUNT(*) FROM dolt_diff_t WHERE to_commit = 'WORKING'"); got != "0" {
		t.Fatalf("another session sees uncommitted rows: %s", got)
	}
	if got := count(b, "SELECT COUNT(*) FROM dolt_log WHERE commit_hash = '"+h+"'"); got != "1" {
		t.Fatalf("a new transaction does not see the commit: %s", got)
	}
	en.exec(a, "COMMIT")
	if got := count(a, "SELECT COUNT(*) FROM dolt_log WHERE commit_hash = '"+h+"'"); got != "1" {
		t.Fatalf("after COMMIT: %s", got)
	}
}

// TestBranchesByName: dolt_branches' index on name (Dolt's
// dolt_branches_name_idx) answers a lookup with the one branch.
func TestBranchesByName(t *testing.T) {
	en := newEnv(t)
	if _, err := histgen.Build(context.Background(), en.graph, histgen.Options{Commits: 10, Rows: 2, Seed: 1, BranchEvery: 3, BranchLen: 2}); err != nil {
		t.Fatal(err)
	}
	q := "SELECT name FROM dolt_branches WHERE name = 'main'"
	if p := explain(t, en, q); !strings.Contains(p, "IndexedTableAccess(dolt_branches)") {
		t.Fatalf("%s:\n%s", q, p)
	}
	rows := en.exec(en.session("d"), q)
	if len(rows) != 1 || rows[0][0] != "main" {
		t.Fatalf("%s: %v", q, rows)
	}
	if rows := en.exec(en.session("d"), "SELECT name FROM dolt_branches WHERE name = 'nosuch'"); len(rows) != 0 {
		t.Fatalf("a lookup of no branch: %v", rows)
	}
}
