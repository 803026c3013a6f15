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
