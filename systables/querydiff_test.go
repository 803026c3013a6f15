package systables_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/systables"
)

// TestQueryDiffModel: two random queries' rows in key order, compared by
// QueryDiff and by a map of each side's rows by key: a key on one side
// only is deleted or added, on both with other values modified.
func TestQueryDiffModel(t *testing.T) {
	ctx := sql.NewEmptyContext()
	sch := sql.Schema{
		{Name: "pk", Type: types.Int64, PrimaryKey: true, Source: "t"},
		{Name: "v", Type: types.Text, Nullable: true, Source: "t"},
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		side := func() (map[int64]any, []sql.Row) {
			m := map[int64]any{}
			for i := 0; i < rng.IntN(12); i++ {
				var v any = fmt.Sprintf("v%d", rng.IntN(3))
				if rng.IntN(4) == 0 {
					v = nil
				}
				m[int64(rng.IntN(15))] = v
			}
			var rows []sql.Row
			for k, v := range m {
				rows = append(rows, sql.Row{k, v})
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i][0].(int64) < rows[j][0].(int64) })
			return m, rows
		}
		fm, fr := side()
		tm, tr := side()
		var want []string
		for k, v := range fm {
			w, ok := tm[k]
			switch {
			case !ok:
				want = append(want, formatRow(sql.Row{k, v, nil, nil, "deleted"}))
			case v != w:
				want = append(want, formatRow(sql.Row{k, v, k, w, "modified"}))
			}
		}
		for k, w := range tm {
			if _, ok := fm[k]; !ok {
				want = append(want, formatRow(sql.Row{nil, nil, k, w, "added"}))
			}
		}
		got, err := systables.QueryDiff(ctx, sch, sch, fr, tr)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, fmt.Sprintf("seed %d", seed), sorted(formatRows(got)), sorted(want))
	}
	// Queries of other columns: every row of the first deleted, of the
	// second added.
	other := sql.Schema{{Name: "pk", Type: types.Int64, Source: "t"}}
	got, err := systables.QueryDiff(ctx, other, sch, []sql.Row{{int64(1)}}, []sql.Row{{int64(1), "a"}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "other columns", formatRows(got), []string{"1|NULL|NULL|deleted", "NULL|1|a|added"})
	names := systables.QueryDiffSchema(other, sch)
	if n := fmt.Sprint(names[0].Name, names[1].Name, names[2].Name, names[3].Name); n != "from_pkto_pkto_vdiff_type" {
		t.Fatalf("columns %s", n)
	}
}
