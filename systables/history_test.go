package systables_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// model computes the rows of dolt_diff, dolt_diff_t and dolt_history_t
// naively: a walk of parent pointers and full scans of each commit's
// table, compared row by row.
type model struct {
	tb   testing.TB
	g    *commitgraph.DB
	head *commitgraph.Commit
	cols []string // t's current columns (the working root's)
	// staged and working are the staged and working roots.
	staged, working commitgraph.RootValue
	commits         []*commitgraph.Commit // HEAD's history
}

func newModel(tb testing.TB, g *commitgraph.DB) *model {
	tb.Helper()
	ctx := context.Background()
	m := &model{tb: tb, g: g}
	head, err := g.HeadCommit(ctx, "main")
	if err != nil {
		tb.Fatal(err)
	}
	m.head = head
	ws, err := g.WorkingSet(ctx, "main")
	if err != nil {
		tb.Fatal(err)
	}
	if m.working, err = g.OpenRoot(ctx, ws.Working); err != nil {
		tb.Fatal(err)
	}
	if m.staged, err = g.OpenRoot(ctx, ws.Staged); err != nil {
		tb.Fatal(err)
	}
	t := m.table(m.working)
	if t == nil {
		tb.Fatal("the working root has no table t")
	}
	for _, c := range t.Schema().Columns {
		m.cols = append(m.cols, c.Name)
	}
	m.commits = reachable(tb, g, head.Addr)
	return m
}

func (m *model) root(c *commitgraph.Commit) commitgraph.RootValue {
	if c == nil {
		return commitgraph.EmptyRoot(m.g.NodeStore())
	}
	r, err := m.g.OpenRoot(context.Background(), c.Root)
	if err != nil {
		m.tb.Fatal(err)
	}
	return r
}

func (m *model) table(r commitgraph.RootValue) *tables.Table {
	ctx := context.Background()
	a, ok, err := r.Get(ctx, "tables/t")
	if err != nil {
		m.tb.Fatal(err)
	}
	if !ok {
		return nil
	}
	t, err := tables.Load(ctx, m.g.NodeStore(), a, nil)
	if err != nil {
		m.tb.Fatal(err)
	}
	return t
}

// engineValue is the engine's value of a stored value of t's columns.
func engineValue(v tables.Value) any {
	switch v.Kind() {
	case prolly.KindNull:
		return nil
	case prolly.KindInt:
		return v.AsInt()
	case prolly.KindFloat64:
		return v.AsFloat64()
	case prolly.KindString:
		return v.AsString()
	}
	panic(fmt.Sprintf("model: unexpected kind %v", v.Kind()))
}

// namedRow is a row by column name, and its stored values printed.
type namedRow struct {
	vals map[string]any
	raw  string
}

// rows returns t's rows in r by primary key.
func (m *model) rows(r commitgraph.RootValue) map[int64]namedRow {
	t := m.table(r)
	if t == nil {
		return nil
	}
	out := map[int64]namedRow{}
	ctx := context.Background()
	it := t.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		nr := namedRow{vals: map[string]any{}}
		var raw []string
		for i, c := range t.Schema().Columns {
			nr.vals[c.Name] = engineValue(it.Row()[i])
			raw = append(raw, fmt.Sprint(nr.vals[c.Name]))
		}
		nr.raw = strings.Join(raw, ",")
		out[it.Row()[0].AsInt()] = nr
	}
	if err := it.Err(); err != nil {
		m.tb.Fatal(err)
	}
	return out
}

// sameRow reports whether a row did not change from f to t: the same
// values by column name, columns added since NULL (a row rewritten only
// because a column was added is no change, as in Dolt).
func sameRow(f, t namedRow) bool {
	for c, v := range f.vals {
		if tv, ok := t.vals[c]; !ok || tv != v {
			return false
		}
	}
	for c, v := range t.vals {
		if _, ok := f.vals[c]; !ok && v != nil {
			return false
		}
	}
	return true
}

func (m *model) project(r *namedRow) []any {
	out := make([]any, len(m.cols))
	if r != nil {
		for i, c := range m.cols {
			out[i] = r.vals[c]
		}
	}
	return out
}

// sameNamed reports whether two rows hold the same values by column name,
// a column one lacks being NULL there: a table rewritten by ALTER TABLE
// ADD COLUMN changes no row whose new column is NULL.
func sameNamed(a, b namedRow) bool {
	for c, v := range a.vals {
		if b.vals[c] != v {
			return false
		}
	}
	for c, v := range b.vals {
		if a.vals[c] != v {
			return false
		}
	}
	return true
}

// columnsOf returns the names of t's columns in r, nil if r has no t.
func (m *model) columnsOf(r commitgraph.RootValue) []string {
	t := m.table(r)
	if t == nil {
		return nil
	}
	var out []string
	for _, c := range t.Schema().Columns {
		out = append(out, c.Name)
	}
	return out
}

// funcDiffRows returns the rows of dolt_diff(from, to, 't'): as diffRows,
// but the to_ columns are t's at to and the from_ columns t's at from.
func (m *model) funcDiffRows(from, to commitgraph.RootValue, fromName, fromDate, toName, toDate any) []string {
	fc, tc := m.columnsOf(from), m.columnsOf(to)
	if fc == nil {
		fc = tc
	}
	if tc == nil {
		tc = fc
	}
	fr, tr := m.rows(from), m.rows(to)
	var out []string
	pick := func(r *namedRow, cols []string) []any {
		vals := make([]any, len(cols))
		if r != nil {
			for i, c := range cols {
				vals[i] = r.vals[c]
			}
		}
		return vals
	}
	var pks []int64
	for pk := range fr {
		pks = append(pks, pk)
	}
	for pk := range tr {
		if _, ok := fr[pk]; !ok {
			pks = append(pks, pk)
		}
	}
	for _, pk := range pks {
		f, inF := fr[pk]
		t, inT := tr[pk]
		typ := "modified"
		var fp, tp *namedRow
		switch {
		case !inF:
			typ, tp = "added", &t
		case !inT:
			typ, fp = "removed", &f
		case sameNamed(f, t):
			continue
		default:
			fp, tp = &f, &t
		}
		row := append(pick(tp, tc), toName, toDate)
		row = append(append(row, pick(fp, fc)...), fromName, fromDate, typ)
		out = append(out, formatRow(row))
	}
	return out
}

// diffRows returns the dolt_diff_t rows from root from to root to.
func (m *model) diffRows(from, to commitgraph.RootValue, fromName, fromDate, toName, toDate any) []string {
	fr, tr := m.rows(from), m.rows(to)
	var pks []int64
	for pk := range fr {
		pks = append(pks, pk)
	}
	for pk := range tr {
		if _, ok := fr[pk]; !ok {
			pks = append(pks, pk)
		}
	}
	var out []string
	for _, pk := range pks {
		f, inF := fr[pk]
		t, inT := tr[pk]
		typ := "modified"
		switch {
		case !inF:
			typ = "added"
		case !inT:
			typ = "removed"
		case sameNamed(f, t):
			continue
		}
		var fp, tp *namedRow
		if inF {
			fp = &f
		}
		if inT {
			tp = &t
		}
		row := append(m.project(tp), toName, toDate)
		row = append(append(row, m.project(fp)...), fromName, fromDate, typ)
		out = append(out, formatRow(row))
	}
	return out
}

// tableDiff returns the dolt_diff_t rows: WORKING against HEAD, then each
// commit against each parent.
func (m *model) tableDiff() []string {
	out := m.diffRows(m.root(m.head), m.working, m.head.Addr.String(), m.head.Meta.Time, "WORKING", nil)
	for _, c := range m.commits {
		if len(c.Parents) == 0 {
			out = append(out, m.diffRows(m.root(nil), m.root(c), nil, nil, c.Addr.String(), c.Meta.Time)...)
		}
		for _, p := range c.Parents {
			pc, err := m.g.ReadCommit(context.Background(), p)
			if err != nil {
				m.tb.Fatal(err)
			}
			out = append(out, m.diffRows(m.root(pc), m.root(c), p.String(), pc.Meta.Time, c.Addr.String(), c.Meta.Time)...)
		}
	}
	return out
}

// rootDiff returns the dolt_diff rows of the change from one root to
// another, under hash with meta (the committer's name, email, time and
// message, then the author's name, email and time).
func (m *model) rootDiff(from, to commitgraph.RootValue, hash string, meta []any) []string {
	var out []string
	ctx := context.Background()
	ft, tt := m.table(from), m.table(to)
	if ft != nil || tt != nil {
		data, schema := true, true
		if ft != nil && tt != nil {
			fr, tr := m.rows(from), m.rows(to)
			data = len(fr) != len(tr)
			for pk, r := range fr {
				if tr[pk].raw != r.raw {
					data = true
				}
			}
			schema = !bytes.Equal(tables.EncodeSchema(ft.Schema()), tables.EncodeSchema(tt.Schema()))
		}
		if data || schema {
			out = append(out, formatRow(append(append(append(sql.Row{hash, "t"}, meta[:4]...), b8(data), b8(schema)), meta[4:]...)))
		}
	}
	fe, _, err := from.Get(ctx, "events/log")
	if err != nil {
		m.tb.Fatal(err)
	}
	te, _, err := to.Get(ctx, "events/log")
	if err != nil {
		m.tb.Fatal(err)
	}
	if fe != te {
		out = append(out, formatRow(append(append(append(sql.Row{hash, "dolt_events"}, meta[:4]...), int8(1), int8(0)), meta[4:]...)))
	}
	return out
}

func b8(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// diff returns the dolt_diff rows: STAGED (HEAD to the staged root),
// WORKING (the staged root to the working root), then each commit against
// its first parent.
func (m *model) diff() []string {
	none := []any{nil, nil, nil, nil, nil, nil, nil}
	out := append(m.rootDiff(m.root(m.head), m.staged, "STAGED", none), m.rootDiff(m.staged, m.working, "WORKING", none)...)
	for _, c := range m.commits {
		var p *commitgraph.Commit
		if len(c.Parents) > 0 {
			var err error
			if p, err = m.g.ReadCommit(context.Background(), c.Parents[0]); err != nil {
				m.tb.Fatal(err)
			}
		}
		w := c.Meta.CommitterOrAuthor()
		out = append(out, m.rootDiff(m.root(p), m.root(c), c.Addr.String(), []any{w.Name, w.Email, c.Meta.Time, c.Meta.Message, c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.Time})...)
	}
	return out
}

// history returns the dolt_history_t rows.
func (m *model) history() []string {
	var out []string
	for _, c := range m.commits {
		w := c.Meta.CommitterOrAuthor()
		for _, r := range m.rows(m.root(c)) {
			out = append(out, formatRow(append(m.project(&r), c.Addr.String(), w.Name, c.Meta.Time)))
		}
	}
	return out
}

// field returns field i of a formatted row.
func field(r string, i int) string { return strings.Split(r, "|")[i] }

func where(rows []string, i int, keep func(string) bool) []string {
	var out []string
	for _, r := range rows {
		if keep(field(r, i)) {
			out = append(out, r)
		}
	}
	return out
}

// TestHistoryTablesAgainstWalk compares dolt_diff, dolt_diff_t and
// dolt_history_t, scanned and through each index, with the naive model,
// on generated histories with branches, merges, a column added midway,
// event-log changes and uncommitted changes. Seeds 4 and 5 grow branches
// in runs of up to 12 commits and make octopus merges, so many merges
// join parents of very different heights, both ways: from_commit must
// find those merges too.
func TestHistoryTablesAgainstWalk(t *testing.T) {
	for _, seed := range []uint64{2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en := newEnv(t)
			if seed == 3 {
				en = newFileEnv(t)
			}
			bg := context.Background()
			o := histgen.Options{Commits: 70, Rows: 6, Seed: seed, Random: true, EventsEvery: 5, AddColumnAt: 35}
			uneven := seed >= 4
			if uneven {
				o.Commits, o.Runs, o.Octopus = 160, 6, true
			}
			h, err := histgen.Build(bg, en.graph, o)
			if err != nil {
				t.Fatal(err)
			}
			ctx := en.session("d")
			if rows := en.exec(ctx, "SELECT COUNT(*) FROM t"); len(rows) != 1 {
				t.Fatal("no table t on main")
			}
			// Uncommitted changes: the WORKING rows.
			en.exec(ctx, "UPDATE t SET v = -1 ORDER BY pk LIMIT 2")
			en.exec(ctx, "DELETE FROM t ORDER BY pk DESC LIMIT 1")
			en.exec(ctx, "INSERT INTO t (pk, v, s) VALUES (1000000, 5, 'new')")
			m := newModel(t, en.graph)
			wantDiff, wantTD, wantHist := m.diff(), m.tableDiff(), m.history()
			if len(where(wantTD, 2*len(m.cols)+4, func(s string) bool { return s == "modified" })) == 0 {
				t.Fatal("no modified rows in the history")
			}
			merges, octopus := 0, 0
			for _, c := range m.commits {
				if len(c.Parents) > 1 {
					merges++
				}
				if len(c.Parents) > 2 {
					octopus++
				}
			}
			t.Logf("%d commits in HEAD's history, %d merges (%d octopus); rows: dolt_diff %d (%d schema changes), dolt_diff_t %d, dolt_history_t %d",
				len(m.commits), merges, octopus, len(wantDiff), len(where(wantDiff, 7, func(s string) bool { return s == "1" })), len(wantTD), len(wantHist))
			if merges == 0 || len(where(wantDiff, 1, func(s string) bool { return s == "dolt_events" })) == 0 {
				t.Fatal("the history has no merge or no event-log change")
			}
			equal(t, "dolt_diff scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_diff"))), sorted(wantDiff))
			equal(t, "dolt_diff_t scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_diff_t"))), sorted(wantTD))
			equal(t, "dolt_history_t scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_history_t"))), sorted(wantHist))

			n := len(m.cols)
			toCol, fromCol, histCol := n, 2*n+2, n
			height := map[string]int{}
			firstParent := map[string]string{}
			for _, c := range m.commits {
				height[c.Addr.String()] = int(c.Height)
				if len(c.Parents) > 0 {
					firstParent[c.Addr.String()] = c.Parents[0].String()
				}
			}
			height["WORKING"] = int(m.head.Height) + 1
			var keys []string
			for _, c := range h.Commits {
				keys = append(keys, c.Addr.String())
			}
			keys = append(keys, "WORKING", "STAGED", "", "xyz", strings.Repeat("z", 32), strings.Repeat("0", 32),
				chunks.Address{9}.String(), m.head.Root.String(), strings.ToUpper(m.head.Addr.String()))
			high := map[string]bool{} // (child, parent) pairs with the child above h+1
			for _, k := range keys {
				q := fmt.Sprintf("SELECT * FROM dolt_diff WHERE commit_hash = '%s'", k)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantDiff, 0, func(s string) bool { return s == k })))
				q = fmt.Sprintf("SELECT * FROM dolt_diff_t WHERE to_commit = '%s'", k)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantTD, toCol, func(s string) bool { return s == k })))
				// from_commit: the diffs to every child, merges above
				// h+1 included.
				q = fmt.Sprintf("SELECT * FROM dolt_diff_t WHERE from_commit = '%s'", k)
				want := where(wantTD, fromCol, func(s string) bool { return s == k })
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
				for _, r := range want {
					if to := field(r, toCol); to != "WORKING" && height[to] > height[k]+1 {
						high[to+" "+k] = true
					}
				}
				q = fmt.Sprintf("SELECT * FROM dolt_history_t WHERE commit_hash = '%s'", k)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantHist, histCol, func(s string) bool { return s == k })))
			}
			// Both ways: the low parent is the first (a long branch merged
			// into a short one) or a later one (a short branch merged into
			// a long one).
			lowFirst := 0
			for pair := range high {
				child, parent, _ := strings.Cut(pair, " ")
				if firstParent[child] == parent {
					lowFirst++
				}
			}
			t.Logf("%d from_commit lookups found a merge above h+1 (%d through its first parent)", len(high), lowFirst)
			if uneven && (lowFirst == 0 || lowFirst == len(high) || octopus == 0) {
				t.Fatalf("%d merges above h+1, %d through the first parent, %d octopus merges: the history does not test them all", len(high), lowFirst, octopus)
			}
			// IN lists.
			for i := 0; i+4 < len(keys); i += 4 {
				set := map[string]bool{}
				for _, k := range keys[i : i+4] {
					set[k] = true
				}
				in := "'" + strings.Join(keys[i:i+4], "','") + "'"
				q := fmt.Sprintf("SELECT * FROM dolt_diff_t WHERE to_commit IN (%s)", in)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantTD, toCol, func(s string) bool { return set[s] })))
				q = fmt.Sprintf("SELECT * FROM dolt_diff_t WHERE from_commit IN (%s)", in)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantTD, fromCol, func(s string) bool { return set[s] })))
				q = fmt.Sprintf("SELECT * FROM dolt_history_t WHERE commit_hash IN (%s)", in)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantHist, histCol, func(s string) bool { return set[s] })))
				q = fmt.Sprintf("SELECT * FROM dolt_diff WHERE commit_hash IN (%s)", in)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(wantDiff, 0, func(s string) bool { return set[s] })))
			}
			// A join through the index: every diff row of a commit meets
			// its dolt_log row.
			q := "SELECT COUNT(*) FROM dolt_diff_t JOIN dolt_log ON commit_hash = to_commit"
			committed := len(wantTD) - len(where(wantTD, toCol, func(s string) bool { return s == "WORKING" }))
			if got := formatRow(en.exec(ctx, q)[0]); got != fmt.Sprint(committed) {
				t.Fatalf("%s: %s, want %d", q, got, committed)
			}
		})
	}
}
