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
		wheres := []string{"", " WHERE c1 IS NOT NULL", " WHERE c1 IS NULL", " WHERE c0 BETWEEN 3 AND 17", " WHERE c0 = 5", " WHERE c0 IN (2, 9, 30)", " WHERE c0 >= 30", " WHERE c0 <= 4 OR c0 > 35", " WHERE c1 > 10 OR c0 < 4", " WHERE c1 BETWEEN 10 AND 50", " WHERE c1 >= 60", " WHERE c1 = 7.5"}
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
			all, allErr := env.query(ctx, fmt.Sprintf("SELECT * FROM %s%s", name, where))
			if err != nil || allErr != nil {
				if err == nil || allErr == nil {
					t.Fatalf("%s: %v, SELECT *: %v", q, err, allErr)
				}
				continue // a WHERE that does not fit the column's type
			}
			var want []sql.Row
			for _, row := range all {
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

// TestExactRanges checks lookups whose key spans skip the row check
// (exactRange) and those that keep it, against the same conditions
// evaluated on every row (IF(cond, 1, 0) = 1 uses no index).
func TestExactRanges(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE e (id INT PRIMARY KEY, a TINYINT, b INT UNSIGNED, s VARCHAR(10), INDEX ia (a), INDEX iab (a, b), INDEX isp (s(2)))")
	var vals []string
	for i := 0; i < 120; i++ {
		a, b := fmt.Sprint(i%13-6), fmt.Sprint(i%7)
		if i%11 == 0 {
			a = "NULL"
		}
		if i%9 == 0 {
			b = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, 'x%d')", i, a, b, i%17))
	}
	env.exec(ctx, "INSERT INTO e VALUES "+strings.Join(vals, ", "))
	for _, cond := range []string{
		"id = 5", "id BETWEEN 10 AND 20", "id > 10 AND id < 20", "id >= 100", "id <= 3", "id < 3", "id > 117",
		"id IN (1, 5, 9)", "id = 5.5", "id BETWEEN 9.5 AND 12.5", "id > 9.5", "id = '7'", "id BETWEEN -5 AND 4",
		"a = 3", "a = -6", "a IS NULL", "a IS NOT NULL", "a BETWEEN -2 AND 2", "a > 2", "a < -3", "a >= 5", "a <= -5",
		"a = 300", "a < 300", "a > -300", "a BETWEEN 1.5 AND 3", "a IN (1, 3, NULL)", "a = 2 AND b = 3", "a = 2 AND b > 3",
		"a = 2 AND b BETWEEN 1 AND 4", "a = 2 AND b IS NULL", "a IS NULL AND b >= 2", "a = 2 AND b = -1", "a = 2 AND b < 1",
		"b = 3", "a > 0 AND b = 2", "s = 'x1'", "s BETWEEN 'x1' AND 'x2'", "s > 'x15'", "a = 1 OR a = 4", "a < 0 OR a > 4",
	} {
		q := "SELECT id FROM e WHERE " + cond
		got, err := env.query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want := env.exec(ctx, "SELECT id FROM e WHERE IF("+cond+", 1, 0) = 1")
		if g, w := sortedRows(got), sortedRows(want); g != w {
			t.Errorf("%s:\ngot  %s\nwant %s", q, strings.ReplaceAll(g, "\n", " "), strings.ReplaceAll(w, "\n", " "))
		}
	}
}
