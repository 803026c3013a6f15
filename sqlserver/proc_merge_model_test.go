package sqlserver

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/internal/mergemodel"
	"github.com/verso-db/verso/internal/testseed"
)

// A model test of dolt_merge over SQL: random INSERT, UPDATE and DELETE
// statements on main and on a branch from a common commit, merged with
// dolt_merge, and compared with a reference merge of Go maps: the merged
// rows, the rows in conflict (dolt_conflicts_t), and, after
// dolt_conflicts_resolve('--theirs'), their rows.

// sqlRow is a model row of t (pk INT, a INT, b INT): a and b.
type sqlRow [2]int

type sqlModel map[int]sqlRow

func (m sqlModel) clone() sqlModel {
	c := sqlModel{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m sqlModel) String() string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("[%d %d %d]", k, m[k][0], m[k][1]))
	}
	return strings.Join(parts, " ")
}

// randomDML runs n random statements on the session's branch and applies
// them to m.
func randomDML(env *testEnv, ctx *sql.Context, rng *rand.Rand, m sqlModel, n int) {
	for range n {
		keys := make([]int, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		switch op := rng.Intn(3); {
		case op == 0 || len(keys) == 0:
			k := rng.Intn(30)
			if _, ok := m[k]; ok {
				continue
			}
			r := sqlRow{rng.Intn(4), rng.Intn(4)}
			m[k] = r
			env.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", k, r[0], r[1]))
		case op == 1:
			k := keys[rng.Intn(len(keys))]
			col, v := rng.Intn(2), rng.Intn(4)
			r := m[k]
			r[col] = v
			m[k] = r
			env.exec(ctx, fmt.Sprintf("UPDATE t SET %s = %d WHERE pk = %d", []string{"a", "b"}[col], v, k))
		default:
			k := keys[rng.Intn(len(keys))]
			delete(m, k)
			env.exec(ctx, fmt.Sprintf("DELETE FROM t WHERE pk = %d", k))
		}
	}
}

func TestMergeProceduresModel(t *testing.T) {
	rng := rand.New(rand.NewSource(int64(testseed.Seed(t))))
	rounds := 25
	if testing.Short() {
		rounds = 5
	}
	var merges, withConflicts int
	for round := range rounds {
		env := newMemoryEnv(t)
		ctx := setupDB(env)
		env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, a INT NOT NULL, b INT NOT NULL, KEY ka (a), KEY kba (b, a))")
		base := sqlModel{}
		randomDML(env, ctx, rng, base, rng.Intn(30))
		env.exec(ctx, "CALL dolt_commit('-Am', 'base')")
		env.exec(ctx, "CALL dolt_branch('feature')")
		ours, theirs := base.clone(), base.clone()
		env.exec(ctx, "CALL dolt_checkout('feature')")
		randomDML(env, ctx, rng, theirs, rng.Intn(12))
		env.exec(ctx, "CALL dolt_commit('-Am', 'feature', '--allow-empty')")
		env.exec(ctx, "CALL dolt_checkout('main')")
		randomDML(env, ctx, rng, ours, rng.Intn(12))
		env.exec(ctx, "CALL dolt_commit('-Am', 'main', '--allow-empty')")

		merged, conflicts := mergemodel.Merge(base, ours, theirs)
		want := sqlModel(merged)
		env.exec(ctx, "SET @@dolt_allow_commit_conflicts = 1")
		res := env.exec(ctx, "CALL dolt_merge('feature')")
		merges++
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("round %d: %s\nbase   %s\nours   %s\ntheirs %s", round, fmt.Sprintf(format, args...), base, ours, theirs)
		}
		if got, wantC := res[0][2], int64(min(len(conflicts), 1)); got != wantC {
			fail("dolt_merge conflicts = %v, want %d (%v)", got, wantC, res)
		}
		if got := formatRows(env.exec(ctx, "SELECT * FROM t ORDER BY pk")); got != want.String() {
			fail("merged rows\n got %s\nwant %s", got, want)
		}
		// The indexes agree with the rows.
		if got := formatRows(env.exec(ctx, "SELECT pk, a, b FROM t USE INDEX (kba) WHERE b >= 0 ORDER BY pk")); got != want.String() {
			fail("rows through index kba\n got %s\nwant %s", got, want)
		}
		var keys []string
		for k := range conflicts {
			keys = append(keys, fmt.Sprint(k))
		}
		sort.Slice(keys, func(i, j int) bool {
			return len(keys[i]) < len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
		})
		wantKeys := ""
		if len(keys) > 0 {
			wantKeys = "[" + strings.Join(keys, "] [") + "]"
		}
		if got := formatRows(env.exec(ctx, "SELECT coalesce(base_pk, our_pk, their_pk) AS k FROM dolt_conflicts_t ORDER BY k")); got != wantKeys {
			fail("conflicts at\n got %s\nwant %s", got, wantKeys)
		}
		if len(conflicts) == 0 {
			continue
		}
		withConflicts++
		env.exec(ctx, "CALL dolt_conflicts_resolve('--theirs', 't')")
		for k := range conflicts {
			if r, ok := theirs[k]; ok {
				want[k] = r
			} else {
				delete(want, k)
			}
		}
		if got := formatRows(env.exec(ctx, "SELECT * FROM t ORDER BY pk")); got != want.String() {
			fail("rows after resolving with theirs\n got %s\nwant %s", got, want)
		}
		env.exec(ctx, "CALL dolt_commit('-Am', 'merged')")
		env.check(ctx, "SELECT count(*) FROM dolt_commit_ancestors WHERE commit_hash = hashof('main')", "[2]")
	}
	t.Logf("%d merges, %d with conflicts", merges, withConflicts)
	if withConflicts == 0 || withConflicts == merges {
		t.Fatal("the random changes always or never conflicted: the test checks too little")
	}
}
