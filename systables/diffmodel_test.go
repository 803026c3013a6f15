package systables_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// The diff table functions against a model: random changes to keyed and
// keyless tables (rows inserted, updated and deleted, duplicate rows,
// columns added with and without defaults and dropped, indexes, tables
// created, dropped and renamed), committed now and then, and for pairs of
// revisions each function's answer checked against one computed the
// simple way from full scans of the two revisions (snapshots taken as the
// history was written). dolt_patch is checked by applying its statements
// to a branch at the from revision, which must then hold the to
// revision's tables. The seed is printed; -run TestDiffFunctionsModel/seedN
// replays one.

// snapshot is a revision's tables, as full scans see them.
type snapshot struct {
	rev    string // a commit hash, or WORKING
	tables map[string]*tableSnap
}

// tableSnap is one table: its columns, key columns, rows (printed, in key
// order; a keyless table's in value order) and definition.
type tableSnap struct {
	cols   []string
	key    []bool
	rows   [][]string
	create string // SHOW CREATE TABLE, the table's name left out
}

func (ts *tableSnap) keyless() bool { return !slices.Contains(ts.key, true) }

// keyOf returns the printed key of a row.
func (ts *tableSnap) keyOf(r []string) string {
	var k []string
	for i, v := range r {
		if ts.key[i] {
			k = append(k, v)
		}
	}
	return strings.Join(k, "|")
}

// named returns a row's values by column name.
func (ts *tableSnap) named(r []string) map[string]string {
	m := map[string]string{}
	for i, c := range ts.cols {
		m[c] = r[i]
	}
	return m
}

func cellText(v any) string {
	if v == nil {
		return "NULL"
	}
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// takeSnapshot scans every table of the session's working root.
func takeSnapshot(en *env, ctx *sql.Context, rev string) *snapshot {
	s := &snapshot{rev: rev, tables: map[string]*tableSnap{}}
	for _, r := range en.exec(ctx, "SHOW TABLES") {
		name := cellText(r[0])
		ts := &tableSnap{}
		for _, c := range en.exec(ctx, "SHOW COLUMNS FROM `"+name+"`") {
			ts.cols = append(ts.cols, cellText(c[0]))
			ts.key = append(ts.key, cellText(c[3]) == "PRI")
		}
		for _, row := range en.exec(ctx, "SELECT * FROM `"+name+"` ORDER BY 1, 2") {
			var vals []string
			for _, v := range row {
				vals = append(vals, cellText(v))
			}
			ts.rows = append(ts.rows, vals)
		}
		create := cellText(en.exec(ctx, "SHOW CREATE TABLE `"+name+"`")[0][1])
		ts.create = indexesSorted(strings.Replace(create, "`"+name+"`", "`?`", 1))
		s.tables[name] = ts
	}
	return s
}

// indexesSorted returns a CREATE TABLE statement with its secondary
// indexes in name order: the order of a table's indexes means nothing (a
// patch adds indexes after those the table has).
func indexesSorted(create string) string {
	lines := strings.Split(create, "\n")
	var keys []string
	var out []string
	for _, l := range lines {
		l2 := strings.TrimSuffix(l, ",")
		if strings.HasPrefix(l2, "  KEY ") || strings.HasPrefix(l2, "  UNIQUE KEY ") {
			keys = append(keys, l2)
			continue
		}
		out = append(out, l2)
	}
	sort.Strings(keys)
	return strings.Join(append(out, keys...), "\n")
}

// modelState is what the generator knows of the tables it writes.
type modelState struct {
	rng     *rand.Rand
	nextPK  int
	added   int // columns added to t
	extra   []string
	renamed bool
	hasN    bool
}

// step makes one random change.
func (m *modelState) step(en *env, ctx *sql.Context) {
	r := m.rng.IntN(100)
	t := "t"
	switch {
	case r < 25:
		m.nextPK++
		en.exec(ctx, fmt.Sprintf("INSERT INTO t (pk, a, b) VALUES (%d, %d, 's%d')", m.nextPK, m.rng.IntN(5), m.rng.IntN(5)))
	case r < 40:
		en.exec(ctx, fmt.Sprintf("UPDATE t SET a = %d WHERE pk %% 3 = %d", m.rng.IntN(5), m.rng.IntN(3)))
	case r < 45:
		if len(m.extra) > 0 {
			c := m.extra[m.rng.IntN(len(m.extra))]
			en.exec(ctx, fmt.Sprintf("UPDATE t SET %s = %d WHERE pk = %d", c, m.rng.IntN(9), 1+m.rng.IntN(m.nextPK+1)))
		}
	case r < 52:
		en.exec(ctx, fmt.Sprintf("DELETE FROM t WHERE pk = %d", 1+m.rng.IntN(m.nextPK+1)))
	case r < 65:
		// keyless, with duplicates
		en.exec(ctx, fmt.Sprintf("INSERT INTO k VALUES (%d, %d)", m.rng.IntN(3), m.rng.IntN(2)))
	case r < 72:
		en.exec(ctx, fmt.Sprintf("DELETE FROM k WHERE x = %d LIMIT 1", m.rng.IntN(3)))
	case r < 76:
		en.exec(ctx, fmt.Sprintf("UPDATE k SET y = %d WHERE x = %d", m.rng.IntN(2), m.rng.IntN(3)))
	case r < 80 && m.added < 4:
		m.added++
		c := fmt.Sprintf("c%d", m.added)
		def := ""
		if m.rng.IntN(2) == 0 {
			def = fmt.Sprintf(" NOT NULL DEFAULT %d", m.rng.IntN(9))
		}
		en.exec(ctx, "ALTER TABLE "+t+" ADD COLUMN "+c+" INT"+def)
		m.extra = append(m.extra, c)
	case r < 83 && len(m.extra) > 0:
		i := m.rng.IntN(len(m.extra))
		en.exec(ctx, "ALTER TABLE t DROP COLUMN "+m.extra[i])
		m.extra = slices.Delete(m.extra, i, i+1)
	case r < 86:
		name := fmt.Sprintf("ia%d", m.rng.IntN(2))
		if _, err := en.query(ctx, "CREATE INDEX "+name+" ON t (a)"); err != nil {
			en.exec(ctx, "DROP INDEX "+name+" ON t")
		}
	case r < 90:
		// u is renamed back and forth; it always holds rows
		if m.renamed {
			en.exec(ctx, "RENAME TABLE u2 TO u")
		} else {
			en.exec(ctx, "RENAME TABLE u TO u2")
		}
		m.renamed = !m.renamed
	case r < 94:
		u := "u"
		if m.renamed {
			u = "u2"
		}
		en.exec(ctx, fmt.Sprintf("UPDATE %s SET w = w + 1 WHERE id = %d", u, 1+m.rng.IntN(3)))
	default:
		if m.hasN {
			en.exec(ctx, "DROP TABLE n")
		} else {
			en.exec(ctx, fmt.Sprintf("CREATE TABLE n (id INT PRIMARY KEY, s VARCHAR(5), q%d INT)", m.rng.IntN(100)))
			en.exec(ctx, fmt.Sprintf("INSERT INTO n VALUES (1, 'x', %d)", m.rng.IntN(9)))
		}
		m.hasN = !m.hasN
	}
}

func TestDiffFunctionsModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Logf("seed %d", seed)
			testDiffFunctionsModel(t, seed)
		})
	}
}

func testDiffFunctionsModel(t *testing.T, seed uint64) {
	en := newEnv(t)
	ctx := en.session("d")
	en.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, a INT, b VARCHAR(8))")
	en.exec(ctx, "CREATE TABLE k (x INT, y INT)")
	en.exec(ctx, "CREATE TABLE u (id INT PRIMARY KEY, w INT)")
	en.exec(ctx, "INSERT INTO u VALUES (1, 1), (2, 2), (3, 3)")
	m := &modelState{rng: rand.New(rand.NewPCG(seed, 7))}
	var snaps []*snapshot
	commit := func(i int) {
		rows := en.exec(ctx, fmt.Sprintf("CALL dolt_commit('-Am', 'step %d', '--allow-empty')", i))
		snaps = append(snaps, takeSnapshot(en, ctx, cellText(rows[0][0])))
	}
	commit(0)
	for i := 1; i <= 80; i++ {
		m.step(en, ctx)
		if m.rng.IntN(4) == 0 {
			commit(i)
		}
	}
	m.step(en, ctx)
	m.step(en, ctx)
	snaps = append(snaps, takeSnapshot(en, ctx, "WORKING"))
	t.Logf("%d commits", len(snaps)-1)

	for pair := 0; pair < 16; pair++ {
		from := snaps[m.rng.IntN(len(snaps)-1)]
		to := snaps[m.rng.IntN(len(snaps))]
		if pair == 0 {
			from, to = snaps[0], snaps[len(snaps)-1]
		}
		checkStat(t, en, ctx, from, to)
		checkSummary(t, en, ctx, from, to)
		checkKeylessDiff(t, en, ctx, from, to)
		checkSchemaDiff(t, en, ctx, from, to)
		checkPatch(t, en, from, to, pair)
	}
}

// pairs returns the tables of two snapshots paired as the model wrote
// them: by name, and u renamed u2 (or back).
func pairs(from, to *snapshot) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for f := range from.tables {
		tn := f
		if _, ok := to.tables[f]; !ok {
			switch f {
			case "u":
				tn = "u2"
			case "u2":
				tn = "u"
			}
			if _, ok := to.tables[tn]; !ok {
				tn = ""
			}
		}
		seen[tn] = true
		out = append(out, [2]string{f, tn})
	}
	for tn := range to.tables {
		if !seen[tn] {
			out = append(out, [2]string{"", tn})
		}
	}
	return out
}

// checkStat compares dolt_diff_stat with counts from the two scans.
func checkStat(t *testing.T, en *env, ctx *sql.Context, from, to *snapshot) {
	t.Helper()
	var want []string
	for _, p := range pairs(from, to) {
		f, tt := from.tables[p[0]], to.tables[p[1]]
		name := p[1]
		if name == "" {
			name = p[0]
		}
		if row := refStat(name, f, tt); row != "" {
			want = append(want, row)
		}
	}
	q := fmt.Sprintf("SELECT * FROM dolt_diff_stat('%s', '%s')", from.rev, to.rev)
	equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
}

// refStat returns the dolt_diff_stat row of a table (nil where absent),
// counted as Dolt counts, or "" if nothing moved.
func refStat(name string, f, t *tableSnap) string {
	keyless := (f == nil || f.keyless()) && (t == nil || t.keyless())
	if keyless {
		adds, removes := multisetDiff(f, t)
		if adds+removes == 0 {
			return ""
		}
		return fmt.Sprintf("%s|NULL|%d|%d|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL", name, adds, removes)
	}
	var oldRows, newRows, oldCells, newCells, adds, removes, changes, cells, newCols int
	fr, tr := map[string][]string{}, map[string][]string{}
	if f != nil {
		oldRows, oldCells = len(f.rows), len(f.rows)*len(f.cols)
		for _, r := range f.rows {
			fr[f.keyOf(r)] = r
		}
	}
	if t != nil {
		newCols = len(t.cols)
		newRows, newCells = len(t.rows), len(t.rows)*len(t.cols)
		for _, r := range t.rows {
			tr[t.keyOf(r)] = r
		}
	}
	for k, r := range fr {
		o, ok := tr[k]
		if !ok {
			removes++
			continue
		}
		if !rowChanged(f, r, t, o) {
			continue
		}
		changes++
		fromVals, toVals := 0, 0
		for i, c := range f.cols {
			if f.key[i] {
				continue
			}
			fromVals++
			j := slices.Index(t.cols, c)
			if j < 0 || t.key[j] || o[j] != r[i] {
				cells++
			}
		}
		for i := range t.cols {
			if !t.key[i] {
				toVals++
			}
		}
		cells += max(0, toVals-fromVals)
	}
	for k := range tr {
		if _, ok := fr[k]; !ok {
			adds++
		}
	}
	if adds+removes+changes == 0 && oldCells == newCells {
		return ""
	}
	ins, del := adds*newCols, removes*newCols
	var added, deleted int
	switch d := newCells - oldCells; {
	case d > 0:
		added, deleted = d+del, del
	case d < 0:
		added, deleted = ins, -d+ins
	case ins != del:
		added, deleted = max(ins, del), max(ins, del)
	default:
		added, deleted = ins, del
	}
	return fmt.Sprintf("%s|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d", name, oldRows-changes-removes, adds, removes, changes,
		added, deleted, cells, oldRows, newRows, oldCells, newCells)
}

// rowChanged reports whether a row present on both sides changed, as
// Dolt tells: its stored value (the non-key values, in column order)
// differs, and so do its values by column name (a column one side lacks
// being NULL there). A row an ALTER stored again with a column added as
// NULL did not change; nor did one whose values, in order, stayed the same
// across a column dropped and another added.
func rowChanged(f *tableSnap, r []string, t *tableSnap, o []string) bool {
	var fv, tv []string
	for i, v := range r {
		if !f.key[i] {
			fv = append(fv, v)
		}
	}
	for i, v := range o {
		if !t.key[i] {
			tv = append(tv, v)
		}
	}
	if slices.Equal(fv, tv) {
		return false
	}
	fn, tn := f.named(r), t.named(o)
	for c, v := range fn {
		if w, ok := tn[c]; ok && w != v || !ok && v != "NULL" {
			return true
		}
	}
	for c, v := range tn {
		if _, ok := fn[c]; !ok && v != "NULL" {
			return true
		}
	}
	return false
}

// multisetDiff counts the rows of a keyless table added and removed.
func multisetDiff(f, t *tableSnap) (adds, removes int) {
	count := map[string]int{}
	if f != nil {
		for _, r := range f.rows {
			count[strings.Join(r, "|")]--
		}
	}
	if t != nil {
		for _, r := range t.rows {
			count[strings.Join(r, "|")]++
		}
	}
	for _, n := range count {
		if n > 0 {
			adds += n
		} else {
			removes -= n
		}
	}
	return adds, removes
}

// checkSummary compares dolt_diff_summary with the two scans.
func checkSummary(t *testing.T, en *env, ctx *sql.Context, from, to *snapshot) {
	t.Helper()
	var want []string
	for _, p := range pairs(from, to) {
		f, tt := from.tables[p[0]], to.tables[p[1]]
		typ, data, schema := "modified", false, true
		switch {
		case f == nil:
			typ, data = "added", len(tt.rows) > 0
		case tt == nil:
			typ, data = "dropped", len(f.rows) > 0
		default:
			if p[0] != p[1] {
				typ = "renamed"
			} else {
				schema = f.create != tt.create
			}
			if f.keyless() {
				a, r := multisetDiff(projectNamed(f, tt), projectNamed(tt, f))
				data = a+r > 0
			} else {
				data = keyedDataChanged(f, tt)
			}
		}
		if typ == "modified" && !data && !schema {
			continue
		}
		want = append(want, fmt.Sprintf("%s|%s|%s|%d|%d", p[0], p[1], typ, b8(data), b8(schema)))
	}
	q := fmt.Sprintf("SELECT * FROM dolt_diff_summary('%s', '%s')", from.rev, to.rev)
	equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
}

// keyedDataChanged reports whether a keyed table's rows changed: a row
// added, removed, or changed (rowChanged).
func keyedDataChanged(f, t *tableSnap) bool {
	tr := map[string][]string{}
	for _, r := range t.rows {
		tr[t.keyOf(r)] = r
	}
	if len(f.rows) != len(t.rows) {
		return true
	}
	for _, r := range f.rows {
		o, ok := tr[f.keyOf(r)]
		if !ok || rowChanged(f, r, t, o) {
			return true
		}
	}
	return false
}

// checkSchemaDiff compares dolt_schema_diff with the two scans' CREATE
// TABLE statements: a row for each table added, dropped, renamed or of
// another definition, with SHOW CREATE TABLE's statement on each side.
func checkSchemaDiff(t *testing.T, en *env, ctx *sql.Context, from, to *snapshot) {
	t.Helper()
	norm := func(name, create string) string {
		if create == "" {
			return ""
		}
		return indexesSorted(strings.Replace(strings.TrimSuffix(create, ";"), "`"+name+"`", "`?`", 1))
	}
	var want []string
	for _, p := range pairs(from, to) {
		f, tt := from.tables[p[0]], to.tables[p[1]]
		fc, tc := "", ""
		if f != nil {
			fc = f.create
		}
		if tt != nil {
			tc = tt.create
		}
		if p[0] == p[1] && fc == tc {
			continue
		}
		want = append(want, strings.Join([]string{p[0], p[1], fc, tc}, "|"))
	}
	q := fmt.Sprintf("SELECT * FROM dolt_schema_diff('%s', '%s')", from.rev, to.rev)
	var got []string
	for _, r := range en.exec(ctx, q) {
		fn, tn := cellText(r[0]), cellText(r[1])
		got = append(got, strings.Join([]string{fn, tn, norm(fn, cellText(r[2])), norm(tn, cellText(r[3]))}, "|"))
	}
	equal(t, q, sorted(got), sorted(want))
}

// projectNamed returns a's rows over the union of a's and b's columns, by
// name, NULL where a lacks one.
func projectNamed(a, b *tableSnap) *tableSnap {
	cols := append([]string(nil), a.cols...)
	for _, c := range b.cols {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	sort.Strings(cols)
	out := &tableSnap{cols: cols}
	for _, r := range a.rows {
		n := a.named(r)
		var vals []string
		for _, c := range cols {
			v, ok := n[c]
			if !ok {
				v = "NULL"
			}
			vals = append(vals, v)
		}
		out.rows = append(out.rows, vals)
	}
	return out
}

// checkKeylessDiff compares dolt_diff() of the keyless table k with the
// multiset difference of its rows: a row per copy added or removed.
func checkKeylessDiff(t *testing.T, en *env, ctx *sql.Context, from, to *snapshot) {
	t.Helper()
	count := map[string]int{}
	for _, r := range from.tables["k"].rows {
		count[strings.Join(r, "|")]--
	}
	for _, r := range to.tables["k"].rows {
		count[strings.Join(r, "|")]++
	}
	var want []string
	for r, n := range count {
		for ; n > 0; n-- {
			want = append(want, r+"|NULL|NULL|added")
		}
		for ; n < 0; n++ {
			want = append(want, "NULL|NULL|"+r+"|removed")
		}
	}
	q := fmt.Sprintf("SELECT to_x, to_y, from_x, from_y, diff_type FROM dolt_diff('%s', '%s', 'k')", from.rev, to.rev)
	equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(want))
}

// checkPatch applies dolt_patch(from, to) to a new branch at from, which
// must then hold to's tables.
func checkPatch(t *testing.T, en *env, from, to *snapshot, n int) {
	t.Helper()
	if from.rev == "WORKING" {
		return
	}
	ctx := en.session("d")
	q := fmt.Sprintf("SELECT statement FROM dolt_patch('%s', '%s') ORDER BY statement_order", from.rev, to.rev)
	stmts := en.exec(ctx, q)
	pc := en.session("d")
	en.exec(pc, fmt.Sprintf("CALL dolt_checkout('-b', 'patch%d', '%s')", n, from.rev))
	for _, s := range stmts {
		if _, err := en.query(pc, cellText(s[0])); err != nil {
			t.Fatalf("%s: %s: %v", q, cellText(s[0]), err)
		}
	}
	t.Logf("%s..%s: %d statements applied", from.rev, to.rev, len(stmts))
	got := takeSnapshot(en, pc, "patched")
	for name, want := range to.tables {
		g, ok := got.tables[name]
		if !ok {
			t.Fatalf("%s: applied, the branch lacks table %s", q, name)
		}
		if g.create != want.create {
			t.Fatalf("%s: applied, table %s is\n%s\nwant\n%s", q, name, g.create, want.create)
		}
		if !slices.EqualFunc(g.rows, want.rows, slices.Equal) {
			t.Fatalf("%s: applied, table %s holds %q, want %q", q, name, g.rows, want.rows)
		}
	}
	for name := range got.tables {
		if _, ok := to.tables[name]; !ok {
			t.Fatalf("%s: applied, the branch has table %s, which %s lacks", q, name, to.rev)
		}
	}
}
