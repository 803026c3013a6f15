package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/sqlserver"
)

// TestDiff writes a table, commits it, changes it in the working set and
// checks verso diff's rows for HEAD against the working set, between two
// commits, for one table, and its errors.
func TestDiff(t *testing.T) {
	dir, p, exec, done := diffRepo(t)
	// Writes go through the SQL engine into the working set, commits
	// through the commit graph.
	g, _ := p.CommitGraph(filepath.Base(dir))
	commit := func(msg string) {
		t.Helper()
		bg := context.Background()
		head, err := g.Head(bg, "main")
		if err != nil {
			t.Fatal(err)
		}
		ws, err := g.WorkingSet(bg, "main")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.CommitRoot(bg, commitgraph.CommitOptions{Branch: "main", Root: ws.Working, ExpectedHead: head,
			Meta:       commitgraph.Meta{Author: commitgraph.Signature{Name: "a", Email: "a@x"}, Message: msg},
			WorkingSet: &commitgraph.WorkingSet{Working: ws.Working, Staged: ws.Working}}); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TABLE people (id int PRIMARY KEY, name varchar(20), age int)")
	exec("CREATE TABLE other (id int PRIMARY KEY)")
	exec("INSERT INTO people VALUES (1, 'ann', 30), (2, 'bob', 40), (3, 'cy', NULL)")
	commit("add people")
	exec("UPDATE people SET age = 41 WHERE id = 2")
	exec("DELETE FROM people WHERE id = 3")
	exec("INSERT INTO people VALUES (4, 'dee', 22)")
	commit("change people")
	exec("UPDATE people SET name = 'anna' WHERE id = 1")
	exec("INSERT INTO other VALUES (7)")
	done()

	diff := func(args ...string) string { return diffOutput(t, dir, args...) }
	has := func(what, got string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("%s: no %q in\n%s", what, w, got)
			}
		}
	}
	hasNot := func(what, got string, bad ...string) {
		t.Helper()
		for _, b := range bad {
			if strings.Contains(got, b) {
				t.Fatalf("%s: %q in\n%s", what, b, got)
			}
		}
	}
	got := diff()
	has("diff", got, "diff --verso a/people b/people", "| < | 1  | ann  | 30  |", "| > | 1  | anna | 30  |",
		"diff --verso a/other b/other", "| + | 7  |")
	hasNot("diff", got, "bob", "dee")
	got = diff("HEAD~1", "HEAD")
	has("diff HEAD~1 HEAD", got, "| < | 2  | bob  | 40   |", "| > | 2  | bob  | 41   |", "| - | 3  | cy   | NULL |", "| + | 4  | dee  | 22   |")
	hasNot("diff HEAD~1 HEAD", got, "other", "anna")
	got = diff("HEAD~1", "other")
	has("diff HEAD~1 other", got, "a/other", "| + | 7  |")
	hasNot("diff HEAD~1 other", got, "people")
	got = diff("people")
	has("diff people", got, "anna")
	hasNot("diff people", got, "a/other")

	var out, errOut bytes.Buffer
	if code := run([]string{"-C", dir, "diff", "nosuch", "HEAD", "people"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "nosuch") {
		t.Fatalf("a bad revision: exit %d, %q", code, errOut.String())
	}
	if code := run([]string{"-C", t.TempDir(), "diff"}, &out, &errOut); code != 1 {
		t.Fatalf("no database: exit %d", code)
	}
}

// TestDiffRename: a renamed table is diffed across its rename, in each
// format: one change under both names, its rows against its old rows.
func TestDiffRename(t *testing.T) {
	dir, p, exec, done := diffRepo(t)
	g, _ := p.CommitGraph(filepath.Base(dir))
	bg := context.Background()
	head, err := g.Head(bg, "main")
	if err != nil {
		t.Fatal(err)
	}
	exec("CREATE TABLE t (id int PRIMARY KEY, v int)")
	exec("INSERT INTO t VALUES (1, 10), (2, 20)")
	ws, err := g.WorkingSet(bg, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.CommitRoot(bg, commitgraph.CommitOptions{Branch: "main", Root: ws.Working, ExpectedHead: head,
		Meta:       commitgraph.Meta{Author: commitgraph.Signature{Name: "a", Email: "a@x"}, Message: "t"},
		WorkingSet: &commitgraph.WorkingSet{Working: ws.Working, Staged: ws.Working}}); err != nil {
		t.Fatal(err)
	}
	exec("RENAME TABLE t TO t2")
	exec("UPDATE t2 SET v = 11 WHERE id = 1")
	done()
	got := diffOutput(t, dir)
	for _, w := range []string{"diff --verso a/t b/t2", "renamed from t", "| < | 1  | 10 |", "| > | 1  | 11 |"} {
		if !strings.Contains(got, w) {
			t.Fatalf("diff: no %q in\n%s", w, got)
		}
	}
	if strings.Contains(got, "| 2  |") || strings.Contains(got, "a/t2") {
		t.Fatalf("diff shows the rename as a drop and an add:\n%s", got)
	}
	if got := diffOutput(t, dir, "--stat"); !strings.Contains(got, " t -> t2 | 0 rows added, 0 removed, 1 modified (schema changed)") {
		t.Fatalf("diff --stat:\n%s", got)
	}
	if got := diffOutput(t, dir, "-r", "sql"); !strings.Contains(got, "RENAME TABLE `t` TO `t2`;\nUPDATE `t2` SET `v` = '11' WHERE `id` = '1';") {
		t.Fatalf("diff -r sql:\n%s", got)
	}
}

// TestDiffEvents checks verso diff's rows of the event log: events
// appended in the working set, and events that retention removed in a
// commit.
func TestDiffEvents(t *testing.T) {
	dir, _, exec, done := diffRepo(t)
	exec(`CALL dolt_append_events('Log-1', 'any', '[{"event_type": "A", "data": {"n": 1}}, {"event_type": "B"}, {"event_type": "C"}]')`)
	exec("CALL dolt_commit('-Am', 'three events', '--author', 'a <a@x>')")
	exec(`CALL dolt_stream_metadata('Log-1', '{"$maxCount": 1}')`)
	exec("CALL dolt_commit('-Am', 'max count', '--author', 'a <a@x>')")
	exec(`CALL dolt_append_events('Log-2', 'any', '[{"event_type": "D"}]')`)
	done()

	diff := func(args ...string) string { return diffOutput(t, dir, args...) }
	line := func(got string, prefix string) int {
		n := 0
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}
	got := diff()
	if !strings.Contains(got, "diff --verso a/dolt_events b/dolt_events") || line(got, "| + | 4 ") != 1 || !strings.Contains(got, "Log-2") {
		t.Fatalf("diff: want event 4 of Log-2 added, got\n%s", got)
	}
	got = diff("HEAD~1", "HEAD", "dolt_events")
	if line(got, "| - | 1 ") != 1 || line(got, "| - | 2 ") != 1 || line(got, "| + ") != 0 || strings.Contains(got, "| - | 3 ") {
		t.Fatalf("diff HEAD~1 HEAD dolt_events: want events 1 and 2 removed, got\n%s", got)
	}
	if !strings.Contains(got, "| position | stream_id | event_number |") || !strings.Contains(got, `{"n": 1}`) {
		t.Fatalf("diff HEAD~1 HEAD dolt_events: want dolt_events' columns, got\n%s", got)
	}
}

// diffRepo makes a database with verso init in a temporary folder and an
// engine on it: exec runs SQL there, failing the test on an error, and
// done closes the engine and p.
func diffRepo(t *testing.T) (dir string, p *sqlserver.Provider, exec func(q string), done func()) {
	t.Helper()
	dir = t.TempDir()
	var out, errOut bytes.Buffer
	if code := run([]string{"-C", dir, "init", "--name", "a", "--email", "a@x"}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d, %s", code, errOut.String())
	}
	name := filepath.Base(dir)
	p = sqlserver.NewMemoryProvider()
	if err := p.AddDatabaseDir(name, dir); err != nil {
		t.Fatal(err)
	}
	e := sqlserver.NewEngine(p)
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	ctx.SetCurrentDatabase(name)
	exec = func(q string) {
		t.Helper()
		_, it, _, err := e.Query(ctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(ctx, it)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dir, p, exec, func() { e.Close(); p.Close() }
}

// diffOutput runs verso diff with args in dir and returns its output.
func diffOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"-C", dir, "diff"}, args...), &out, &errOut); code != 0 {
		t.Fatalf("diff %v: exit %d, %s", args, code, errOut.String())
	}
	return out.String()
}

// TestDiffCellsAsSQL: verso diff prints each cell as dolt_diff() gives it
// over SQL (its Go value, printed), for columns of every kind, across a
// column added and one dropped: the grid the command printed when it ran
// dolt_diff, built here from dolt_diff's rows, is what it prints now.
func TestDiffCellsAsSQL(t *testing.T) {
	dir, p, exec, done := diffRepo(t)
	exec(`CREATE TABLE k (pk INT PRIMARY KEY, i TINYINT, u BIGINT UNSIGNED, d DECIMAL(8,3), f FLOAT, g DOUBLE,
		s VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, b VARBINARY(10), dt DATE, ts DATETIME(6), tm TIME(6), y YEAR,
		e ENUM('x', 'y'), st SET('a', 'b'), j JSON, gone INT)`)
	exec(`INSERT INTO k VALUES
		(1, -5, 18446744073709551615, 12.5, 1.25, 0.1, 'Ünï "q"', 0x41420A, '2024-02-29', '2024-01-02 03:04:05.123456', '-838:59:59', 2024, 'y', 'a,b',
		 '{"long key": [1, 2.5, -3e2, "a\\"b\\n\\u0001", true, null], "k": {"z": 1, "a": 1e20}}', 7),
		(2, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, '00:00:01.5', NULL, NULL, NULL, '[]', NULL)`)
	exec("CALL dolt_commit('-Am', 'k', '--author', 'a <a@x>')")
	exec("ALTER TABLE k ADD COLUMN n INT DEFAULT 3")
	exec("ALTER TABLE k DROP COLUMN gone")
	exec("UPDATE k SET d = -0.001, n = 4 WHERE pk = 1")
	exec("INSERT INTO k (pk, s) VALUES (3, 'three')")

	name := filepath.Base(dir)
	e := sqlserver.NewEngine(p)
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	ctx.SetCurrentDatabase(name)
	sch, it, _, err := e.Query(ctx, "SELECT * FROM dolt_diff('HEAD', 'WORKING', 'k')")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		t.Fatal(err)
	}
	done()
	// dolt_diff's columns: to_<c>..., to_commit, to_commit_date,
	// from_<c>..., from_commit, from_commit_date, diff_type.
	cell := func(v any) string {
		switch v := v.(type) {
		case nil:
			return "NULL"
		case time.Time:
			return v.UTC().Format("2006-01-02 15:04:05.999999")
		case []byte:
			return string(v)
		}
		return fmt.Sprint(v)
	}
	// The to_ columns are the table's at WORKING, the from_ ones its
	// columns at HEAD: the grid shows WORKING's, a from value by name
	// (NULL where HEAD lacks the column).
	n := 0
	for n < len(sch) && sch[n].Name != "to_commit" {
		n++
	}
	fromAt := map[string]int{}
	for i := n + 2; i < len(sch) && sch[i].Name != "from_commit"; i++ {
		fromAt[strings.TrimPrefix(sch[i].Name, "from_")] = i
	}
	grid := [][]string{{""}}
	for _, c := range sch[:n] {
		grid[0] = append(grid[0], strings.TrimPrefix(c.Name, "to_"))
	}
	fromRow := func(r sql.Row) sql.Row {
		out := make(sql.Row, n)
		for i, c := range grid[0][1:] {
			if j, ok := fromAt[c]; ok {
				out[i] = r[j]
			}
		}
		return out
	}
	line := func(mark string, vals sql.Row) {
		l := []string{mark}
		for _, v := range vals {
			l = append(l, cell(v))
		}
		grid = append(grid, l)
	}
	for _, r := range rows {
		to, from := r[:n], fromRow(r)
		switch r[len(r)-1] {
		case "added":
			line("+", to)
		case "removed":
			line("-", from)
		default:
			line("<", from)
			line(">", to)
		}
	}
	var want strings.Builder
	want.WriteString("diff --verso a/k b/k\nthe schema changed\n")
	printGrid(&want, grid)
	if got := diffOutput(t, dir, "k"); got != want.String() {
		t.Fatalf("verso diff k printed\n%s\nwhere dolt_diff gives\n%s", got, want.String())
	}
}
