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

// cut keeps the first n fields of each formatted row, then the fields
// extra (indexes into the full row).
func cut(rows []string, n int, extra ...int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		f := strings.Split(r, "|")
		g := append([]string(nil), f[:n]...)
		for _, e := range extra {
			g = append(g, f[e])
		}
		out[i] = strings.Join(g, "|")
	}
	return out
}

// TestLogFunction compares dolt_log('...') with the model log of main
// filtered naively: --not, ^, a..b, a...b, several revisions, --parents,
// --decorate, --merges and -n.
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
	inMain, inOther := reach(main), reach(h.Branches[other])
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
	all := modelLog(t, en.graph, both.Addr)[1:]
	keep := func(f func(h string) bool) []string {
		var out []string
		for _, r := range all {
			if f(field(r, 0)) {
				out = append(out, r)
			}
		}
		return out
	}
	onlyMain := keep(func(h string) bool { return inMain[h] && !inOther[h] })
	sym := keep(func(h string) bool { return inMain[h] != inOther[h] })
	for _, tc := range []struct {
		args string
		want []string
	}{
		{"", cut(modelLog(t, en.graph, main), 6)},
		{"'main'", cut(modelLog(t, en.graph, main), 6)},
		{"'HEAD'", cut(modelLog(t, en.graph, main), 6)},
		{fmt.Sprintf("'%s'", other), cut(modelLog(t, en.graph, h.Branches[other]), 6)},
		{fmt.Sprintf("'main', '%s'", other), cut(all, 6)},
		{fmt.Sprintf("'main', '--not', '%s'", other), cut(onlyMain, 6)},
		{fmt.Sprintf("'^%s', 'main'", other), cut(onlyMain, 6)},
		{fmt.Sprintf("'%s..main'", other), cut(onlyMain, 6)},
		{fmt.Sprintf("'%s...main'", other), cut(sym, 6)},
		{"'main', '--parents'", cut(modelLog(t, en.graph, main), 6, 6)},
		{"'main', '--parents', '--decorate'", cut(modelLog(t, en.graph, main), 6, 6, 7)},
		{"'--decorate=short'", cut(modelLog(t, en.graph, main), 6, 7)},
		{"'-n', '7'", cut(modelLog(t, en.graph, main), 6)[:7]},
		{"'--merges', '--parents'", cut(keep(func(h string) bool {
			return inMain[h] && strings.Contains(field(modelLogRowOf(t, en.graph, h), 6), ",")
		}), 6, 6)},
	} {
		q := "SELECT * FROM dolt_log(" + tc.args + ")"
		equal(t, q, formatRows(en.exec(ctx, q)), tc.want)
	}
	for _, bad := range []string{"'--bogus'", "'nosuchbranch'", "'-n'", "'main', 3"} {
		if _, err := en.query(ctx, "SELECT * FROM dolt_log("+bad+")"); err == nil {
			t.Fatalf("dolt_log(%s): no error", bad)
		}
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
