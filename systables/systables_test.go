package systables_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %d rows, want %d\n got %.2000q\nwant %.2000q", what, len(got), len(want), got, want)
	}
}

// TestTablesAgainstWalk compares each table, scanned and through its
// index, with a naive walk of parent pointers over generated histories.
func TestTablesAgainstWalk(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en := newEnv(t)
			if seed == 4 {
				en = newFileEnv(t)
			}
			h := build(t, en.graph, seed, 150)
			ctx := en.session("d")
			bg := context.Background()
			main, err := en.graph.Head(bg, "main")
			if err != nil {
				t.Fatal(err)
			}
			wantLog := modelLog(t, en.graph, main)
			wantCommits := modelCommits(t, en.graph)
			wantAnc := modelAncestors(t, en.graph)
			if len(wantCommits) <= len(wantLog) {
				t.Fatalf("seed %d: no commits outside main's history (%d, %d)", seed, len(wantCommits), len(wantLog))
			}

			equal(t, "dolt_log scan", formatRows(en.exec(ctx, "SELECT * FROM dolt_log")), wantLog)
			equal(t, "dolt_commits scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_commits"))), wantCommits)
			equal(t, "dolt_commit_ancestors scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_commit_ancestors"))), wantAnc)
			equal(t, "dolt_log limit", formatRows(en.exec(ctx, "SELECT * FROM dolt_log LIMIT 10")), wantLog[:10])
			if got := en.exec(ctx, "SELECT COUNT(*) FROM dolt_log"); formatRow(got[0]) != fmt.Sprint(len(wantLog)) {
				t.Fatalf("count: got %v, want %d", got, len(wantLog))
			}

			// Every commit written, plus malformed, unknown and non-commit
			// hashes.
			var keys []string
			for _, a := range h.all {
				keys = append(keys, a.String())
			}
			c, err := en.graph.ReadCommit(bg, main)
			if err != nil {
				t.Fatal(err)
			}
			// A commit that no ref reaches is in no table.
			dangling, err := en.graph.WriteCommit(bg, c.Root, []chunks.Address{main}, commitgraph.Meta{Message: "dangling"})
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, dangling.Addr.String(), "", "xyz", strings.Repeat("z", 32), strings.Repeat("0", 32),
				chunks.Address{1, 2, 3}.String(), c.Closure.String(), c.Root.String(),
				strings.ToUpper(main.String()))
			for _, k := range keys {
				for _, tc := range []struct {
					table string
					want  []string
				}{{"dolt_log", wantLog}, {"dolt_commits", wantCommits}, {"dolt_commit_ancestors", wantAnc}} {
					q := fmt.Sprintf("SELECT * FROM %s WHERE commit_hash = '%s'", tc.table, k)
					equal(t, q, sorted(formatRows(en.exec(ctx, q))), filter(tc.want, k))
				}
			}
			// IN lists.
			for i := 0; i+5 < len(keys); i += 5 {
				in := "'" + strings.Join(keys[i:i+5], "','") + "'"
				for _, tc := range []struct {
					table string
					want  []string
				}{{"dolt_log", wantLog}, {"dolt_commits", wantCommits}, {"dolt_commit_ancestors", wantAnc}} {
					var want []string
					for _, k := range keys[i : i+5] {
						want = append(want, filter(tc.want, k)...)
					}
					q := fmt.Sprintf("SELECT * FROM %s WHERE commit_hash IN (%s)", tc.table, in)
					equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
				}
			}
		})
	}
}

// TestExplainShowsIndex checks that a filter on commit_hash is an index
// lookup, for = and IN, on every table.
func TestExplainShowsIndex(t *testing.T) {
	en := newEnv(t)
	build(t, en.graph, 7, 20)
	ctx := en.session("d")
	main, _ := en.graph.Head(context.Background(), "main")
	for _, table := range []string{"dolt_log", "dolt_commits", "dolt_commit_ancestors"} {
		for _, cond := range []string{
			fmt.Sprintf("commit_hash = '%s'", main),
			fmt.Sprintf("commit_hash IN ('%s', 'abc')", main),
		} {
			q := fmt.Sprintf("EXPLAIN PLAN SELECT * FROM %s WHERE %s", table, cond)
			var plan []string
			for _, r := range en.exec(ctx, q) {
				plan = append(plan, fmt.Sprint(r...))
			}
			p := strings.Join(plan, "\n")
			if !strings.Contains(p, "IndexedTableAccess("+table+")") {
				t.Fatalf("%s:\n%s", q, p)
			}
		}
	}
	// COUNT(*) of dolt_log is the table's exact row count (the closure's).
	var plan []string
	for _, r := range en.exec(ctx, "EXPLAIN PLAN SELECT COUNT(*) FROM dolt_log") {
		plan = append(plan, fmt.Sprint(r...))
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "table_count(dolt_log)") {
		t.Fatalf("count plan:\n%s", p)
	}
}

// TestRevisionDatabase checks that dolt_log follows the session's branch.
func TestRevisionDatabase(t *testing.T) {
	en := newEnv(t)
	build(t, en.graph, 4, 60)
	bg := context.Background()
	for _, b := range branchNames(t, en) {
		head, err := en.graph.Head(bg, b)
		if err != nil {
			t.Fatal(err)
		}
		ctx := en.session("d/" + b)
		equal(t, "dolt_log of "+b, formatRows(en.exec(ctx, "SELECT * FROM dolt_log")), modelLog(t, en.graph, head))
	}
}

func branchNames(t *testing.T, en *env) []string {
	bs, err := en.graph.Branches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// TestQueries checks counts, joins through the index, NULL and range
// filters on commit_hash against the model.
func TestQueries(t *testing.T) {
	en := newEnv(t)
	build(t, en.graph, 9, 120)
	ctx := en.session("d")
	main, _ := en.graph.Head(context.Background(), "main")
	wantLog := modelLog(t, en.graph, main)
	wantCommits := modelCommits(t, en.graph)
	wantAnc := modelAncestors(t, en.graph)
	parents := 0
	for _, r := range wantAnc {
		if !strings.Contains(r, "|NULL|") {
			parents++
		}
	}
	// A hash in the middle of the sorted log, for range filters.
	mid := strings.Split(sorted(wantLog)[len(wantLog)/2], "|")[0]
	above := 0
	for _, r := range wantLog {
		if strings.Split(r, "|")[0] > mid {
			above++
		}
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT COUNT(*) FROM dolt_log", fmt.Sprint(len(wantLog))},
		{"SELECT COUNT(*) FROM dolt_commits", fmt.Sprint(len(wantCommits))},
		{"SELECT COUNT(*) FROM dolt_commit_ancestors", fmt.Sprint(len(wantAnc))},
		{"SELECT COUNT(*) FROM dolt_commit_ancestors a JOIN dolt_commits c ON a.parent_hash = c.commit_hash", fmt.Sprint(parents)},
		{"SELECT COUNT(*) FROM dolt_commits c JOIN dolt_log l ON l.commit_hash = c.commit_hash", fmt.Sprint(len(wantLog))},
		{"SELECT COUNT(*) FROM dolt_log WHERE commit_hash IS NULL", "0"},
		{fmt.Sprintf("SELECT COUNT(*) FROM dolt_log WHERE commit_hash > '%s'", mid), fmt.Sprint(above)},
		{fmt.Sprintf("SELECT COUNT(*) FROM dolt_log WHERE commit_hash = '%s' AND message = 'nothing'", main), "0"},
		{fmt.Sprintf("SELECT commit_order FROM dolt_log WHERE commit_hash = '%s' AND message LIKE 'commit%%'", main), strings.Split(wantLog[0], "|")[5]},
	} {
		rows := en.exec(ctx, tc.q)
		if len(rows) != 1 || formatRow(rows[0]) != tc.want {
			t.Errorf("%s: got %v, want %s", tc.q, formatRows(rows), tc.want)
		}
	}
}
