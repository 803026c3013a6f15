package systables_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/systables"
)

// TestProjections reads random subsets of the columns of system tables,
// in random orders, alone and with a key lookup, and checks the rows are
// the columns of SELECT * (the tables prune columns: project.go). It also
// checks that the analyzer did hand dolt_log its projection.
func TestProjections(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), w INT)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'create t')")
	en.exec(ctx, "CALL dolt_checkout('-b', 'side')")
	for i := range 6 {
		en.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, 'v%d', %d)", i, i, i*i))
		if i%2 == 1 {
			en.exec(ctx, fmt.Sprintf("UPDATE t SET w = w + 1 WHERE id = %d", i-1))
		}
		en.exec(ctx, fmt.Sprintf("CALL dolt_commit('-am', 'c%d', '--author', 'Someone Else <else%d@example.com>')", i, i))
		if i == 3 {
			en.exec(ctx, "CALL dolt_checkout('main')")
			en.exec(ctx, "INSERT INTO t VALUES (100, 'main', 0)")
			en.exec(ctx, "CALL dolt_commit('-am', 'on main')")
			en.exec(ctx, "CALL dolt_merge('side', '-m', 'merge side')")
			en.exec(ctx, "CALL dolt_checkout('side')")
		}
	}
	en.exec(ctx, "CALL dolt_checkout('main')")
	checkProjections(t, en, ctx, "dolt_log", "dolt_commits", "dolt_commit_ancestors", "dolt_diff", "dolt_diff_t", "dolt_history_t", "dolt_column_diff", "dolt_blame_t")

	// A history with committers apart from authors, and merges.
	en = newEnv(t)
	build(t, en.graph, 42, 60)
	ctx = en.session("d")
	checkProjections(t, en, ctx, "dolt_log", "dolt_commits", "dolt_commit_ancestors")

	plan := fmt.Sprint(en.exec(ctx, "EXPLAIN PLAN SELECT COUNT(*) FROM dolt_log WHERE message LIKE 'c%'"))
	if !strings.Contains(plan, "columns: [message]") {
		t.Errorf("dolt_log got no projection:\n%s", plan)
	}
}

// checkProjections checks random projections of each of tables against
// SELECT *, alone and with a lookup of the head commit.
func checkProjections(t *testing.T, en *env, ctx *sql.Context, tables ...string) {
	t.Helper()
	head := fmt.Sprint(en.exec(ctx, "SELECT commit_hash FROM dolt_log LIMIT 1")[0][0])
	rng := rand.New(rand.NewPCG(7, 7))
	for _, table := range tables {
		var names []string
		for _, r := range en.exec(ctx, "DESCRIBE "+table) {
			names = append(names, fmt.Sprint(r[0]))
		}
		star := readTable(t, en, ctx, table)
		if len(star) == 0 {
			t.Fatalf("%s: no rows", table)
		}
		var lookup string
		for _, n := range names {
			if n == "to_commit" || (n == "commit_hash" && lookup == "") {
				lookup = n
			}
		}
		for range 12 {
			k := 1 + rng.IntN(len(names))
			cols := rng.Perm(len(names))[:k]
			sel := make([]string, k)
			for i, c := range cols {
				sel[i] = "`" + names[c] + "`"
			}
			want := make([]sql.Row, len(star))
			for i, r := range star {
				want[i] = make(sql.Row, k)
				for j, c := range cols {
					want[i][j] = r[c]
				}
			}
			q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(sel, ", "), table)
			if got := formatRows(en.exec(ctx, q)); strings.Join(got, "\n") != strings.Join(formatRows(want), "\n") {
				t.Fatalf("%s:\n got %q\nwant %q", q, got, formatRows(want))
			}
			if lookup == "" {
				continue
			}
			at := -1
			for i, n := range names {
				if n == lookup {
					at = i
				}
			}
			var keyed []sql.Row
			for i, r := range star {
				if fmt.Sprint(r[at]) == head {
					keyed = append(keyed, want[i])
				}
			}
			q = fmt.Sprintf("SELECT %s FROM %s WHERE %s = '%s'", strings.Join(sel, ", "), table, lookup, head)
			if got := formatRows(en.exec(ctx, q)); strings.Join(got, "\n") != strings.Join(formatRows(keyed), "\n") {
				t.Fatalf("%s:\n got %q\nwant %q", q, got, formatRows(keyed))
			}
		}
	}
}

// readTable returns the rows of the system table name of database d,
// read from the table itself: whole rows, no projection.
func readTable(t *testing.T, en *env, ctx *sql.Context, name string) []sql.Row {
	t.Helper()
	v, err := en.p.SystemView(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok, err := systables.Open(ctx, name, v)
	if err != nil || !ok {
		t.Fatalf("open %s: %v, %v", name, ok, err)
	}
	return tableRows(t, ctx, tbl)
}
