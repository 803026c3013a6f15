package systables_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/sqlserver"
)

// stagedEnv builds a generated history (branches, merges, octopus merges
// with Random and Runs, a column added midway) on main and leaves
// uncommitted changes over it: two rows updated and staged, then a row
// deleted and one inserted, not staged.
func stagedEnv(t *testing.T, seed uint64) (*env, *sqlCtx, *histgen.History, *model) {
	t.Helper()
	en := newEnv(t)
	o := histgen.Options{Commits: 90, Rows: 8, Seed: seed, Random: true, AddColumnAt: 40}
	if seed%2 == 0 {
		o.Runs, o.Octopus = 6, true
	}
	h, err := histgen.Build(context.Background(), en.graph, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := en.session("d")
	en.exec(ctx, "UPDATE t SET v = -1 ORDER BY pk LIMIT 2")
	en.exec(ctx, "CALL dolt_add('t')")
	en.exec(ctx, "DELETE FROM t ORDER BY pk DESC LIMIT 1")
	en.exec(ctx, "INSERT INTO t (pk, v, s) VALUES (1000000, 5, 'new')")
	return en, ctx, h, newModel(t, en.graph)
}

// blame returns the dolt_blame_t rows: for each row of t at HEAD, the
// first commit in log order whose table differs in that row from one of
// its parents' (a root commit: from no table), found by comparing every
// commit's whole table with its parents'; a row whose first such change
// removes it is left out.
func (m *model) blame() []string {
	ctx := context.Background()
	head := m.rows(m.root(m.head))
	type named struct {
		c       *commitgraph.Commit
		removed bool
	}
	by := map[int64]named{}
	it := m.g.Log(ctx, m.head.Addr)
	for it.Next(ctx) && len(by) < len(head) {
		c := it.Commit()
		cur := m.rows(m.root(c))
		var parents []map[int64]namedRow
		for _, p := range c.Parents {
			pc, err := m.g.ReadCommit(ctx, p)
			if err != nil {
				m.tb.Fatal(err)
			}
			parents = append(parents, m.rows(m.root(pc)))
		}
		if len(parents) == 0 {
			parents = append(parents, nil)
		}
		for pk := range head {
			if _, ok := by[pk]; ok {
				continue
			}
			for _, pr := range parents {
				f, inF := pr[pk]
				r, inC := cur[pk]
				if inF != inC || inF && !sameRow(f, r) {
					by[pk] = named{c, !inC}
					break
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		m.tb.Fatal(err)
	}
	var pks []int64
	for pk := range head {
		pks = append(pks, pk)
	}
	slices.Sort(pks)
	var out []string
	for _, pk := range pks {
		n, ok := by[pk]
		if !ok || n.removed {
			continue
		}
		w := n.c.Meta.CommitterOrAuthor()
		out = append(out, formatRow([]any{pk, n.c.Addr.String(), n.c.Meta.Time, w.Name, w.Email, n.c.Meta.Message}))
	}
	return out
}

// TestBlameAgainstWalk compares dolt_blame_t with the naive walk on
// generated histories (merges, octopus merges, a column added midway,
// uncommitted changes that the blame does not show), in key order, and
// checks that a filter on the key gives that row's blame.
func TestBlameAgainstWalk(t *testing.T) {
	for _, seed := range []uint64{2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en, ctx, _, m := stagedEnv(t, seed)
			want := m.blame()
			if len(want) < 4 {
				t.Fatalf("only %d rows blamed", len(want))
			}
			msgs := map[string]bool{}
			for _, r := range want {
				msgs[field(r, 1)] = true
			}
			t.Logf("%d rows blamed on %d commits", len(want), len(msgs))
			if len(msgs) < 2 {
				t.Fatal("every row blamed on one commit: the history does not test the walk")
			}
			equal(t, "dolt_blame_t", formatRows(en.exec(ctx, "SELECT * FROM dolt_blame_t")), want)
			for _, r := range want[:3] {
				q := "SELECT * FROM dolt_blame_t WHERE pk = " + field(r, 0)
				equal(t, q, formatRows(en.exec(ctx, q)), []string{r})
			}
		})
	}
}

// TestBlameStopsEarly checks that the blame walks the history only as far
// as it must: when every row changed in the last commits it reads a few
// chunks; when a row last changed two hundred commits ago, the walk to
// that commit reads many more.
func TestBlameStopsEarly(t *testing.T) {
	en, cs := newCountingEnv(t)
	ctx := en.session("d")
	reads := func(q string, want ...string) int64 {
		t.Helper()
		before := cs.reads.Load()
		equal(t, q, formatRows(en.exec(ctx, q)), want)
		return cs.reads.Load() - before
	}
	en.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)")
	en.exec(ctx, "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'made')")
	for i := range 200 {
		en.exec(ctx, fmt.Sprintf("UPDATE t SET v = %d WHERE pk = 1", i+1))
		en.exec(ctx, fmt.Sprintf("CALL dolt_commit('-am', 'c%d')", i))
	}
	q := "SELECT pk, message FROM dolt_blame_t"
	full := reads(q, "1|c199", "2|made", "3|made")
	en.exec(ctx, "UPDATE t SET v = 9 WHERE pk IN (2, 3)")
	en.exec(ctx, "CALL dolt_commit('-am', 'last')")
	recent := reads(q, "1|c199", "2|last", "3|last")
	t.Logf("blame read %d chunks walking 201 commits, %d walking 2", full, recent)
	if recent*10 > full {
		t.Fatalf("blame of rows changed in the last two commits read %d chunks, of rows changed 200 commits ago %d", recent, full)
	}
}

// newCountingEnv is an engine over database d, whose store counts its
// reads, with no node cache: what a query reads shows.
func newCountingEnv(t *testing.T) (*env, *countingStore) {
	t.Helper()
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	db, err := verso.OpenStore("d", cs, verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.SetCacheBytes(0)
	t.Cleanup(func() { db.Close() })
	p := sqlserver.NewMemoryProvider()
	if err := p.AddDB(db); err != nil {
		t.Fatal(err)
	}
	en := &env{tb: t, p: p, e: sqle.NewDefault(p), graph: db.Graph()}
	t.Cleanup(func() { en.e.Close() })
	return en, cs
}
