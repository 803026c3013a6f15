package systables_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/histgen"
)

// fnRows turns model dolt_log rows into dolt_log()'s: parents (field 6)
// NULL unless parents, signature (field 8) NULL.
func fnRows(rows []string, parents bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		f := strings.Split(r, "|")
		if !parents {
			f[6] = "NULL"
		}
		f[8] = "NULL"
		out[i] = strings.Join(f, "|")
	}
	return out
}

// setField sets field i of each row to v.
func setField(rows []string, i int, v func(string) string) []string {
	out := make([]string, len(rows))
	for j, r := range rows {
		f := strings.Split(r, "|")
		f[i] = v(f[i])
		out[j] = strings.Join(f, "|")
	}
	return out
}

// TestLogFunction compares dolt_log('...') with the model log of main
// filtered naively: --not, ^, a..b, a...b (without the merge base's
// history), several revisions, --parents, --decorate, --show-signature,
// --merges, --min-parents, --all and -n; "HEAD -> " goes on the one
// revision listed.
func TestLogFunction(t *testing.T) {
	en := newEnv(t)
	bg := context.Background()
	h, err := histgen.Build(bg, en.graph, histgen.Options{Commits: 120, Rows: 4, Seed: 5, Random: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := en.session("d")
	main := h.Branches["main"]
	var other string
	for b := range h.Branches {
		if b != "main" {
			if ok, _ := en.graph.IsAncestor(bg, h.Branches[b], main); !ok {
				other = b
				break
			}
		}
	}
	if other == "" {
		t.Fatal("no branch diverges from main")
	}
	reach := func(a chunks.Address) map[string]bool {
		m := map[string]bool{}
		for _, c := range reachable(t, en.graph, a) {
			m[c.Addr.String()] = true
		}
		return m
	}
	mb, err := en.graph.MergeBase(bg, main, h.Branches[other])
	if err != nil {
		t.Fatal(err)
	}
	inMain, inOther, inBase := reach(main), reach(h.Branches[other]), reach(mb.Addr)
	// The log of both heads, in log order: the model log of a merge of
	// both written as a dangling commit, without it.
	mc, err := en.graph.ReadCommit(bg, main)
	if err != nil {
		t.Fatal(err)
	}
	both, err := en.graph.WriteCommit(bg, mc.Root, []chunks.Address{main, h.Branches[other]}, commitgraph.Meta{Message: "both"})
	if err != nil {
		t.Fatal(err)
	}
	all := modelLogMarked(t, en.graph, both.Addr, chunks.Address{})[1:]
	var heads []chunks.Address
	for _, b := range h.Branches {
		heads = append(heads, b)
	}
	every, err := en.graph.WriteCommit(bg, mc.Root, heads, commitgraph.Meta{Message: "every"})
	if err != nil {
		t.Fatal(err)
	}
	allBranches := modelLogMarked(t, en.graph, every.Addr, main)[1:]
	allMain := modelLogMarked(t, en.graph, both.Addr, main)[1:]
	keep := func(rows []string, f func(h string) bool) []string {
		var out []string
		for _, r := range rows {
			if f(field(r, 0)) {
				out = append(out, r)
			}
		}
		return out
	}
	onlyMain := keep(allMain, func(h string) bool { return inMain[h] && !inOther[h] })
	sym := keep(all, func(h string) bool { return !inBase[h] })
	mainLog := modelLog(t, en.graph, main)
	merges := keep(mainLog, func(h string) bool { return strings.Contains(field(modelLogRowOf(t, en.graph, h), 6), ",") })
	nonRoot := keep(mainLog, func(h string) bool { return field(modelLogRowOf(t, en.graph, h), 6) != "" })
	full := setField(mainLog, 7, func(r string) string {
		if r == "" {
			return r
		}
		var out []string
		for _, n := range strings.Split(strings.TrimPrefix(r, "HEAD -> "), ", ") {
			if t, ok := strings.CutPrefix(n, "tag: "); ok {
				out = append(out, "tag: refs/tags/"+t)
			} else {
				out = append(out, "refs/heads/"+n)
			}
		}
		if strings.HasPrefix(r, "HEAD -> ") {
			return "HEAD -> " + strings.Join(out, ", ")
		}
		return strings.Join(out, ", ")
	})
	for _, tc := range []struct {
		args string
		want []string
	}{
		{"", fnRows(mainLog, false)},
		{"'main'", fnRows(mainLog, false)},
		{"'HEAD'", fnRows(mainLog, false)},
		{fmt.Sprintf("'%s'", other), fnRows(modelLog(t, en.graph, h.Branches[other]), false)},
		{fmt.Sprintf("'main', '%s'", other), fnRows(all, false)},
		{fmt.Sprintf("'main', '--not', '%s'", other), fnRows(onlyMain, false)},
		{fmt.Sprintf("'^%s', 'main'", other), fnRows(onlyMain, false)},
		{fmt.Sprintf("'%s..main'", other), fnRows(onlyMain, false)},
		{fmt.Sprintf("'%s...main'", other), fnRows(sym, false)},
		{"'main', '--parents'", fnRows(mainLog, true)},
		{"'--decorate', 'full'", fnRows(full, false)},
		{"'--decorate=no'", fnRows(setField(mainLog, 7, func(string) string { return "" }), false)},
		{"'--show-signature'", setField(fnRows(mainLog, false), 8, func(string) string { return "" })},
		{"'-n', '7'", fnRows(mainLog, false)[:7]},
		{"'-n7', '--number=-1'", nil}, // given twice
		{"'-n', '-1'", fnRows(mainLog, false)},
		{"'--merges', '--parents'", fnRows(merges, true)},
		{"'--min-parents', '1'", fnRows(nonRoot, false)},
		{"'--all', '--not', 'main'", fnRows(keep(allBranches, func(h string) bool { return !inMain[h] }), false)},
		{"'--all'", fnRows(allBranches, false)},
	} {
		q := "SELECT * FROM dolt_log(" + tc.args + ")"
		if tc.want == nil {
			if _, err := en.query(ctx, q); err == nil {
				t.Fatalf("%s: no error", q)
			}
			continue
		}
		equal(t, q, formatRows(en.exec(ctx, q)), tc.want)
	}
	for bad, want := range map[string]string{
		"'--bogus'":                        "Invalid argument to dolt_log: error: unknown option `bogus'",
		"'nosuchbranch'":                   "branch not found: nosuchbranch",
		"'-n'":                             "Invalid argument to dolt_log: error: no value for option `number'",
		"'main', 3":                        "Invalid argument to dolt_log: 3",
		"'main..main', 'main'":             "Invalid argument to dolt_log: revision cannot contain '..' or '...' if multiple revisions exist",
		"'^a..b'":                          "Invalid argument to dolt_log: revision cannot contain both '..' or '...' and '^'",
		"'--not', 'a..b'":                  "Invalid argument to dolt_log: --not revision cannot contain '..'",
		"'--decorate', 'Short'":            `Invalid argument to dolt_log: invalid --decorate option: "Short"`,
		"'--tables', 't', '--tables', 't'": "Invalid argument to dolt_log: error: multiple values provided for `tables'",
	} {
		_, err := en.query(ctx, "SELECT * FROM dolt_log("+bad+")")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("dolt_log(%s): error %v, want %q", bad, err, want)
		}
	}
}

// TestLogFunctionTables checks dolt_log('--tables', ...) against the model:
// the commits of main's history, but its root, whose root value holds
// another value of one of the tables than one of its first two parents'
// (or holds it where they do not, or the other way round).
func TestLogFunctionTables(t *testing.T) {
	en := newEnv(t)
	bg := context.Background()
	if _, err := histgen.Build(bg, en.graph, histgen.Options{Commits: 60, Rows: 4, Seed: 7, Random: true}); err != nil {
		t.Fatal(err)
	}
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE other (pk INT PRIMARY KEY)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'other')")
	main, err := en.graph.Head(bg, "main")
	if err != nil {
		t.Fatal(err)
	}
	tableAt := func(a chunks.Address, name string) (chunks.Address, bool) {
		c, err := en.graph.ReadCommit(bg, a)
		if err != nil {
			t.Fatal(err)
		}
		r, err := en.graph.OpenRoot(bg, c.Root)
		if err != nil {
			t.Fatal(err)
		}
		ta, ok, err := r.Get(bg, commitgraph.TablePrefix+name)
		if err != nil {
			t.Fatal(err)
		}
		return ta, ok
	}
	changed := func(h string, names ...string) bool {
		a, _ := chunks.ParseAddress(h)
		c, err := en.graph.ReadCommit(bg, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Parents) == 0 {
			return false
		}
		for _, n := range names {
			// Dolt's rule: the table is new or gone against both
			// parents, or a parent that has it has another value.
			mine, ok := tableAt(a, n)
			seen, differs := false, false
			for _, p := range c.Parents[:min(2, len(c.Parents))] {
				theirs, pok := tableAt(p, n)
				seen = seen || pok
				differs = differs || pok && theirs != mine
			}
			if ok != seen || ok && differs {
				return true
			}
		}
		return false
	}
	mainLog := fnRows(modelLog(t, en.graph, main), false)
	for _, tc := range []struct {
		args   string
		tables []string
	}{
		{"'--tables', 't'", []string{"t"}},
		{"'-t', 'other'", []string{"other"}},
		{"'--tables', 't,other'", []string{"t", "other"}},
		{"'--tables', 'other', 't'", []string{"other", "t"}},
		{"'--tables', 'T'", []string{"T"}},
		{"'--tables', 'nosuch'", []string{"nosuch"}},
	} {
		var want []string
		for _, r := range mainLog {
			if changed(field(r, 0), tc.tables...) {
				want = append(want, r)
			}
		}
		q := "SELECT * FROM dolt_log(" + tc.args + ")"
		equal(t, q, formatRows(en.exec(ctx, q)), want)
	}
}

// modelLogRowOf returns the model dolt_log row of the commit named hash.
func modelLogRowOf(t *testing.T, g *commitgraph.DB, hash string) string {
	a, err := chunks.ParseAddress(hash)
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.ReadCommit(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return modelLogRow(c, "")
}

// TestDiffFunction compares dolt_diff('from', 'to', 't') with the model
// diff of the two roots, for commits, branches, steps, WORKING, STAGED and
// the two-dot and three-dot forms.
func TestDiffFunction(t *testing.T) {
	en := newEnv(t)
	bg := context.Background()
	h, err := histgen.Build(bg, en.graph, histgen.Options{Commits: 60, Rows: 6, Seed: 2, BranchEvery: 6, BranchLen: 3, AddColumnAt: 30})
	if err != nil {
		t.Fatal(err)
	}
	ctx := en.session("d")
	en.exec(ctx, "UPDATE t SET v = -5 ORDER BY pk LIMIT 3")
	m := newModel(t, en.graph)
	commit := func(spec string) *commitgraph.Commit {
		c, err := en.graph.Resolve(bg, spec, "main")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var side string
	for b := range h.Branches {
		if b != "main" {
			side = b
		}
	}
	for _, tc := range []struct{ from, to string }{
		{"HEAD~3", "HEAD"}, {"HEAD", "HEAD~3"}, {"main~20", "main"}, {side, "main"}, {"HEAD", "WORKING"},
		{commit("HEAD~1").Addr.String(), "STAGED"},
	} {
		from, to := m.root(nil), m.working
		var fromDate, toDate any
		if tc.from != "WORKING" {
			c := commit(tc.from)
			from, fromDate = m.root(c), c.Meta.Time
		}
		if tc.to != "WORKING" && tc.to != "STAGED" {
			c := commit(tc.to)
			to, toDate = m.root(c), c.Meta.Time
		}
		if tc.to == "STAGED" {
			ws, _ := en.graph.WorkingSet(bg, "main")
			r, err := en.graph.OpenRoot(bg, ws.Staged)
			if err != nil {
				t.Fatal(err)
			}
			to = r
		}
		// WORKING and STAGED show the time of the query, as Dolt's do.
		toNow := tc.to == "WORKING" || tc.to == "STAGED"
		if toNow {
			toDate = "NOW"
		}
		want := m.funcDiffRows(from, to, tc.from, fromDate, tc.to, toDate)
		q := fmt.Sprintf("SELECT * FROM dolt_diff('%s', '%s', 't')", tc.from, tc.to)
		rows := en.exec(ctx, q)
		if toNow {
			n := len(m.columnsOf(to)) + 1
			for _, r := range rows {
				if d, ok := r[n].(time.Time); !ok || time.Since(d).Abs() > time.Minute {
					t.Fatalf("%s: to_commit_date %v, want the time of the query", q, r[n])
				}
				r[n] = "NOW"
			}
		}
		equal(t, q, sorted(formatRows(rows)), sorted(want))
		if tc.to == "HEAD" {
			q2 := fmt.Sprintf("SELECT * FROM dolt_diff('%s..%s', 't')", tc.from, tc.to)
			equal(t, q2, sorted(formatRows(en.exec(ctx, q2))), sorted(want))
		}
	}
	// a...b is the diff from the merge base.
	mb, err := en.graph.MergeBase(bg, h.Branches["main"], h.Branches[side])
	if err != nil {
		t.Fatal(err)
	}
	sc := commit(side)
	want := m.funcDiffRows(m.root(mb), m.root(sc), mb.Addr.String(), mb.Meta.Time, side, sc.Meta.Time)
	q := fmt.Sprintf("SELECT * FROM dolt_diff('main...%s', 't')", side)
	equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
	for _, bad := range []string{"'HEAD', 't'", "'HEAD', 'HEAD', 'nosuch'", "'nosuch', 'HEAD', 't'", "'a', 'b', 'c', 'd'"} {
		if _, err := en.query(ctx, "SELECT * FROM dolt_diff("+bad+")"); err == nil {
			t.Fatalf("dolt_diff(%s): no error", bad)
		}
	}
}
