package sqlserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/internal/testseed"
)

// TestProjectedReads checks, over random tables (with or without a
// primary key, secondary indexes, stored and virtual generated columns,
// values stored out of line) and random column lists, that a query naming
// some columns (which the engine prunes, see project.go) returns exactly
// those columns of the same query with SELECT * (which it does not).
func TestProjectedReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 10))
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	colTypes := []struct{ typ, lit string }{
		{"INT", "%d"},
		{"BIGINT UNSIGNED", "%d"},
		{"VARCHAR(30)", "'v%d'"},
		{"TEXT", "REPEAT('t%d', %d)"},
		{"DOUBLE", "%d.25"},
		{"DECIMAL(10,2)", "%d.5"},
		{"DATETIME", "TIMESTAMPADD(SECOND, %d, '2020-01-01')"},
		{"BLOB", "REPEAT('b%d', %d)"},
	}
	for round := 0; round < 12; round++ {
		name := fmt.Sprintf("p%d", round)
		n := 2 + rng.IntN(5)
		types := make([]int, n)
		var defs, names []string
		for i := range types {
			types[i] = rng.IntN(len(colTypes))
			if i == 0 {
				types[i] = rng.IntN(3) // short: generated columns read it
			}
			names = append(names, fmt.Sprintf("c%d", i))
			defs = append(defs, fmt.Sprintf("c%d %s", i, colTypes[types[i]].typ))
		}
		keyed := rng.IntN(3) > 0 // c0 is the key
		if keyed {
			defs[0] += " PRIMARY KEY"
		}
		// Generated columns over c0 (an INT, BIGINT UNSIGNED or VARCHAR).
		// A table with a virtual column is not pruned (the engine wraps it).
		virtual := rng.IntN(3) == 0
		defs = append(defs, "g1 VARCHAR(80) AS (CONCAT('g', c0)) STORED")
		names = append(names, "g1")
		if virtual {
			defs = append(defs, "g2 VARCHAR(80) AS (CONCAT('v', c0)) VIRTUAL")
			names = append(names, "g2")
		}
		if rng.IntN(2) == 0 {
			c := 1 + rng.IntN(n-1)
			prefix := ""
			if strings.Contains(colTypes[types[c]].lit, "REPEAT") {
				prefix = "(10)"
			}
			defs = append(defs, fmt.Sprintf("INDEX ix (c%d%s)", c, prefix))
		}
		env.exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(defs, ", ")))
		for r := 0; r < 40; r++ {
			vals := make([]string, n)
			for i, ty := range types {
				switch {
				case i == 0 && keyed:
					vals[i] = fmt.Sprintf(colTypes[ty].lit, r)
				case rng.IntN(5) == 0:
					vals[i] = "NULL"
				case strings.Contains(colTypes[ty].lit, "REPEAT"):
					reps := 1 + rng.IntN(3)
					if rng.IntN(4) == 0 {
						reps = 3000 // out of line
					}
					vals[i] = fmt.Sprintf(colTypes[ty].lit, rng.IntN(100), reps)
				default:
					vals[i] = fmt.Sprintf(colTypes[ty].lit, rng.IntN(100))
				}
			}
			env.exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", name, strings.Join(names[:n], ", "), strings.Join(vals, ", ")))
		}
		wheres := []string{"", " WHERE c1 IS NOT NULL", " WHERE c0 BETWEEN 3 AND 17", " WHERE c0 = 5", " WHERE c1 > 10 OR c0 < 4"}
		for p := 0; p < 10; p++ {
			var cols []int
			for i := 0; i < 1+rng.IntN(3); i++ {
				cols = append(cols, rng.IntN(len(names)))
			}
			var sel []string
			for _, c := range cols {
				sel = append(sel, names[c])
			}
			where := wheres[rng.IntN(len(wheres))]
			q := fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(sel, ", "), name, where)
			got, err := env.query(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var want []sql.Row
			for _, row := range env.exec(ctx, fmt.Sprintf("SELECT * FROM %s%s", name, where)) {
				w := make(sql.Row, len(cols))
				for j, c := range cols {
					w[j] = row[c]
				}
				want = append(want, w)
			}
			// Row order is the plan's: compare as multisets.
			if g, w := sortedRows(got), sortedRows(want); g != w {
				t.Fatalf("%s:\ngot  %.300s\nwant %.300s", q, g, w)
			}
		}
		plan := formatRows(env.exec(ctx, fmt.Sprintf("EXPLAIN PLAN SELECT c1 FROM %s", name)))
		if !virtual && !strings.Contains(plan, "columns: [c1]") {
			t.Fatalf("round %d: the engine did not prune %s: %s", round, name, plan)
		}
		// Writes after projected reads still see whole rows.
		env.exec(ctx, fmt.Sprintf("UPDATE %s SET c1 = NULL WHERE c0 BETWEEN 3 AND 6", name))
		env.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE c0 = 7", name))
		got := formatRows(env.exec(ctx, fmt.Sprintf("SELECT COUNT(*), COUNT(c1), COUNT(g1) FROM %s", name)))
		want := formatRows(env.exec(ctx, fmt.Sprintf("SELECT COUNT(*), SUM(c1 IS NOT NULL), SUM(g1 IS NOT NULL) FROM (SELECT * FROM %s) x", name)))
		if got != want {
			t.Fatalf("round %d: counts %s after writes, SELECT * gives %s", round, got, want)
		}
	}
}

// sortedRows formats rows, one a line, in sorted order.
func sortedRows(rows []sql.Row) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = formatRows([]sql.Row{r})
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
