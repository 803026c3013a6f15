package sqlserver

import (
	"fmt"
	"math/rand/v2"
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
		defs = append(defs, "g1 VARCHAR(80) AS (CONCAT('g', c0)) STORED", "g2 VARCHAR(80) AS (CONCAT('v', c0)) VIRTUAL")
		names = append(names, "g1", "g2")
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
			order := " ORDER BY " + strings.Join(names, ", ")
			q := fmt.Sprintf("SELECT %s FROM %s%s%s", strings.Join(sel, ", "), name, where, order)
			got, err := env.query(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			all := env.exec(ctx, fmt.Sprintf("SELECT * FROM %s%s%s", name, where, order))
			if len(got) != len(all) {
				t.Fatalf("%s: %d rows, SELECT * %d", q, len(got), len(all))
			}
			for i, row := range all {
				want := make([]any, len(cols))
				for j, c := range cols {
					want[j] = row[c]
				}
				if g, w := formatRows(got[i:i+1]), formatRows([]sql.Row{want}); g != w {
					t.Fatalf("%s: row %d is %.200s, want %.200s", q, i, g, w)
				}
			}
		}
		// Writes after projected reads still see whole rows.
		env.exec(ctx, fmt.Sprintf("UPDATE %s SET c1 = NULL WHERE c0 BETWEEN 3 AND 6", name))
		env.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE c0 = 7", name))
		got := formatRows(env.exec(ctx, fmt.Sprintf("SELECT COUNT(*), COUNT(c1), COUNT(g1), COUNT(g2) FROM %s", name)))
		want := formatRows(env.exec(ctx, fmt.Sprintf("SELECT COUNT(*), SUM(c1 IS NOT NULL), SUM(g1 IS NOT NULL), SUM(g2 IS NOT NULL) FROM (SELECT * FROM %s) x", name)))
		if got != want {
			t.Fatalf("round %d: counts %s after writes, SELECT * gives %s", round, got, want)
		}
	}
}
