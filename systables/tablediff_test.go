package systables_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeylessDiffAgainstCounts checks dolt_diff_k of a keyless table on a
// random history of inserts (duplicates too), deletes of one copy and
// updates, against each version's rows counted (read AS OF each commit):
// a change of a row's count is that many rows added or removed, a changed
// row a removal and an addition, never a modification; WORKING against
// HEAD too, and dolt_commit_diff_k and dolt_diff() between any two
// commits.
func TestKeylessDiffAgainstCounts(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en := newEnv(t)
			ctx := en.session("d")
			rng := rand.New(rand.NewPCG(seed, 3))
			en.exec(ctx, "CREATE TABLE k (a INT, b INT)")
			val := func() int { return rng.IntN(3) }
			for i := range 25 {
				for range 1 + rng.IntN(3) {
					switch r := rng.IntN(10); {
					case r < 5:
						n := 1 + rng.IntN(3)
						a, b := val(), val()
						for range n {
							en.exec(ctx, fmt.Sprintf("INSERT INTO k VALUES (%d, %d)", a, b))
						}
					case r < 8:
						en.exec(ctx, fmt.Sprintf("DELETE FROM k WHERE a = %d LIMIT 1", val()))
					default:
						en.exec(ctx, fmt.Sprintf("UPDATE k SET b = %d WHERE a = %d", val(), val()))
					}
				}
				if i < 24 {
					en.exec(ctx, fmt.Sprintf("CALL dolt_commit('-Am', 'c%d', '--allow-empty')", i))
				}
			}
			counts := func(rev string) map[[2]string]int {
				q := "SELECT a, b FROM k"
				if rev != "WORKING" {
					q += " AS OF '" + rev + "'"
				}
				out := map[[2]string]int{}
				rows, err := en.query(ctx, q)
				if err != nil {
					return out // the table does not exist there
				}
				for _, r := range rows {
					out[[2]string{fmt.Sprint(r[0]), fmt.Sprint(r[1])}]++
				}
				return out
			}
			// want returns the rows of the diff from rev from to rev to:
			// to_a|to_b|from_a|from_b|diff_type.
			want := func(from, to string) []string {
				fc, tc := counts(from), counts(to)
				var out []string
				for r, n := range tc {
					for range n - fc[r] {
						out = append(out, fmt.Sprintf("%s|%s|NULL|NULL|added", r[0], r[1]))
					}
				}
				for r, n := range fc {
					for range n - tc[r] {
						out = append(out, fmt.Sprintf("NULL|NULL|%s|%s|removed", r[0], r[1]))
					}
				}
				return sorted(out)
			}
			cols := "to_a, to_b, from_a, from_b, diff_type"
			var hashes []string
			for _, r := range en.exec(ctx, "SELECT commit_hash FROM dolt_log ORDER BY commit_order") {
				hashes = append(hashes, fmt.Sprint(r[0]))
			}
			total := 0
			for i := 1; i < len(hashes); i++ {
				w := want(hashes[i-1], hashes[i])
				total += len(w)
				q := fmt.Sprintf("SELECT %s FROM dolt_diff_k WHERE to_commit = '%s'", cols, hashes[i])
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), w)
			}
			head := hashes[len(hashes)-1]
			q := fmt.Sprintf("SELECT %s FROM dolt_diff_k WHERE to_commit = 'WORKING'", cols)
			equal(t, q, sorted(formatRows(en.exec(ctx, q))), want(head, "WORKING"))
			for range 20 {
				a, b := hashes[1+rng.IntN(len(hashes)-1)], hashes[1+rng.IntN(len(hashes)-1)]
				q := fmt.Sprintf("SELECT %s FROM dolt_commit_diff_k WHERE to_commit = '%s' AND from_commit = '%s'", cols, b, a)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), want(a, b))
				q = fmt.Sprintf("SELECT %s FROM dolt_diff('%s', '%s', 'k')", cols, a, b)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), want(a, b))
			}
			if modified := en.exec(ctx, "SELECT COUNT(*) FROM dolt_diff_k WHERE diff_type = 'modified'"); fmt.Sprint(modified[0][0]) != "0" {
				t.Fatalf("keyless rows modified: %v", modified)
			}
			t.Logf("%d commits, %d rows diffed", len(hashes), total)
		})
	}
}

// TestDiffAddedColumn checks that rows rewritten only because a column
// was added (NULL in them) are no change in dolt_diff_<t>, dolt_diff()
// and dolt_commit_diff_<t>, as in Dolt, where adding a column leaves the
// rows as they are; a dropped column, a changed type or a value set in
// the new column are changes.
func TestDiffAddedColumn(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)")
	en.exec(ctx, "INSERT INTO t VALUES (1, 1), (2, 2)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'first')")
	diffs := func() []string {
		var out []string
		for _, q := range []string{
			"SELECT to_pk, diff_type FROM dolt_diff_t WHERE to_commit = 'WORKING'",
			"SELECT to_pk, diff_type FROM dolt_diff('HEAD', 'WORKING', 't')",
			"SELECT to_pk, diff_type FROM dolt_commit_diff_t WHERE to_commit = 'WORKING' AND from_commit = 'HEAD'",
		} {
			rows := formatRows(en.exec(ctx, q))
			slices.Sort(rows)
			out = append(out, fmt.Sprint(rows))
		}
		if out[1] != out[0] || out[2] != out[0] {
			t.Fatalf("the diffs disagree: %q", out)
		}
		return out[:1]
	}
	en.exec(ctx, "ALTER TABLE t ADD COLUMN w INT")
	equal(t, "column added", diffs(), []string{"[]"})
	en.exec(ctx, "UPDATE t SET w = 5 WHERE pk = 2")
	equal(t, "value set in it", diffs(), []string{"[2|modified]"})
	en.exec(ctx, "CALL dolt_commit('-am', 'second')")
	en.exec(ctx, "ALTER TABLE t DROP COLUMN v")
	equal(t, "column dropped", diffs(), []string{"[1|modified 2|modified]"})
}
