package systables_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/verso-db/verso/commitgraph"
)

// TestCommitDiffAgainstWalk compares dolt_commit_diff_t with the naive
// comparison of whole tables, for random pairs of revisions of generated
// histories: commits of any branch (in HEAD's history or not), HEAD and
// its ancestors by steps, branch names, STAGED and WORKING, either way
// round; and checks its refusals.
func TestCommitDiffAgainstWalk(t *testing.T) {
	for _, seed := range []uint64{2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en, ctx, h, m := stagedEnv(t, seed)
			type rev struct {
				spec string
				c    *commitgraph.Commit // nil: STAGED or WORKING
				root func() commitgraph.RootValue
			}
			var revs []rev
			for _, c := range h.Commits {
				revs = append(revs, rev{c.Addr.String(), c, func() commitgraph.RootValue { return m.root(c) }})
			}
			parent := func(c *commitgraph.Commit) *commitgraph.Commit {
				p, err := en.graph.ReadCommit(ctx, c.Parents[0])
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			p1 := parent(m.head)
			p2 := parent(p1)
			revs = append(revs,
				rev{"HEAD", m.head, func() commitgraph.RootValue { return m.root(m.head) }},
				rev{"main", m.head, func() commitgraph.RootValue { return m.root(m.head) }},
				rev{"HEAD~2", p2, func() commitgraph.RootValue { return m.root(p2) }},
				rev{"STAGED", nil, func() commitgraph.RootValue { return m.staged }},
				rev{"WORKING", nil, func() commitgraph.RootValue { return m.working }},
				rev{"working", nil, func() commitgraph.RootValue { return m.working }})
			rng := rand.New(rand.NewPCG(seed, 7))
			rows := 0
			for range 60 {
				to, from := revs[rng.IntN(len(revs))], revs[rng.IntN(len(revs))]
				if rng.IntN(4) == 0 {
					to = revs[len(revs)-1-rng.IntN(6)]
				}
				date := func(r rev) any {
					if r.c == nil {
						return nil
					}
					return r.c.Meta.Time
				}
				want := m.diffRows(from.root(), to.root(), from.spec, date(from), to.spec, date(to))
				rows += len(want)
				q := fmt.Sprintf("SELECT * FROM dolt_commit_diff_t WHERE to_commit = '%s' AND from_commit = '%s'", to.spec, from.spec)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
			}
			t.Logf("60 pairs, %d rows", rows)
			if rows == 0 {
				t.Fatal("no rows")
			}
			for q, msg := range map[string]string{
				"SELECT * FROM dolt_commit_diff_t":                                                                              "error querying table dolt_commit_diff_t: dolt_commit_diff_* tables must be filtered to a single 'to_commit'",
				"SELECT * FROM dolt_commit_diff_t WHERE from_commit = 'HEAD'":                                                   "error querying table dolt_commit_diff_t: dolt_commit_diff_* tables must be filtered to a single 'to_commit'",
				"SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'HEAD'":                                                     "commit_diff_<table> requires one 'to_commit' and one 'from_commit'",
				"SELECT * FROM dolt_commit_diff_t WHERE to_commit IN ('HEAD', 'WORKING') AND from_commit = 'HEAD'":              "commit_diff_<table> requires one 'to_commit' and one 'from_commit'",
				"SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'HEAD' AND from_commit = 'nope'":                            "branch not found: nope",
				"SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'HEAD~1000' AND from_commit = 'HEAD'":                       "invalid ancestor spec",
				"SELECT * FROM dolt_commit_diff_t WHERE to_commit = '" + strings.Repeat("0", 32) + "' AND from_commit = 'HEAD'": "target commit not found",
			} {
				if _, err := en.query(ctx, q); err == nil || err.Error() != msg {
					t.Errorf("%s: %v, want %q", q, err, msg)
				}
			}
		})
	}
}
