package systables_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verso-db/verso/commitgraph"
)

// columnChanges returns the dolt_column_diff rows of table t for the
// change from root from to root to, under hash with meta (as rootDiff
// takes it): every column of a table made (added) or dropped (removed),
// the columns added to or dropped from t, and the columns whose values
// differ in a row that differs, found by comparing the two versions'
// rows one by one.
func (m *model) columnChanges(from, to commitgraph.RootValue, hash string, meta []any) []string {
	ft, tt := m.table(from), m.table(to)
	if ft == nil && tt == nil {
		return nil
	}
	type change struct{ col, typ string }
	var chs []change
	switch {
	case ft == nil:
		for _, c := range tt.Schema().Columns {
			chs = append(chs, change{c.Name, "added"})
		}
	case tt == nil:
		for _, c := range ft.Schema().Columns {
			chs = append(chs, change{c.Name, "removed"})
		}
	default:
		fs, ts := ft.Schema(), tt.Schema()
		for _, c := range ts.Columns {
			if fs.ColumnIndex(c.Name) < 0 {
				chs = append(chs, change{c.Name, "added"})
			}
		}
		for _, c := range fs.Columns {
			if ts.ColumnIndex(c.Name) < 0 {
				chs = append(chs, change{c.Name, "removed"})
			}
		}
		fr, tr := m.rows(from), m.rows(to)
		for _, c := range ts.Columns {
			if fs.ColumnIndex(c.Name) < 0 {
				continue
			}
			changed := false
			for pk, r := range tr {
				f, ok := fr[pk]
				if !ok && r.vals[c.Name] != nil || ok && !sameRow(f, r) && f.vals[c.Name] != r.vals[c.Name] {
					changed = true
				}
			}
			for pk, f := range fr {
				if _, ok := tr[pk]; !ok && f.vals[c.Name] != nil {
					changed = true
				}
			}
			if changed {
				chs = append(chs, change{c.Name, "modified"})
			}
		}
	}
	var out []string
	for _, ch := range chs {
		out = append(out, formatRow(append(append(append([]any{hash, "t", ch.col}, meta[:4]...), ch.typ), meta[4:]...)))
	}
	return out
}

// columnDiff returns the dolt_column_diff rows: STAGED, WORKING, then each
// commit of HEAD's history against its first parent (a root commit:
// against the empty root), as diff does.
func (m *model) columnDiff() []string {
	none := []any{nil, nil, nil, nil, nil, nil, nil}
	out := append(m.columnChanges(m.root(m.head), m.staged, "STAGED", none), m.columnChanges(m.staged, m.working, "WORKING", none)...)
	for _, c := range m.commits {
		var p *commitgraph.Commit
		if len(c.Parents) > 0 {
			var err error
			if p, err = m.g.ReadCommit(context.Background(), c.Parents[0]); err != nil {
				m.tb.Fatal(err)
			}
		}
		w := c.Meta.CommitterOrAuthor()
		out = append(out, m.columnChanges(m.root(p), m.root(c), c.Addr.String(), []any{w.Name, w.Email, c.Meta.Time, c.Meta.Message, c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.Time})...)
	}
	return out
}

// TestColumnDiffAgainstWalk compares dolt_column_diff, scanned and through
// its commit_hash lookups (= and IN, STAGED and WORKING too), with the
// naive comparison of whole tables, on generated histories with a column
// added midway and staged and unstaged changes; and dolt_diff's STAGED
// and WORKING rows on the same changes.
func TestColumnDiffAgainstWalk(t *testing.T) {
	for _, seed := range []uint64{2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			en, ctx, h, m := stagedEnv(t, seed)
			want := m.columnDiff()
			kinds := map[string]int{}
			for _, r := range want {
				kinds[field(r, 7)]++
				if h := field(r, 0); h == "STAGED" || h == "WORKING" {
					kinds[h]++
				}
			}
			t.Logf("%d rows: %v", len(want), kinds)
			if kinds["STAGED"] == 0 || kinds["WORKING"] == 0 || kinds["added"] == 0 {
				t.Fatal("no STAGED, WORKING or added rows")
			}
			equal(t, "dolt_column_diff scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_column_diff"))), sorted(want))
			// dolt_diff's STAGED and WORKING rows, on the same changes.
			wantDiff := m.diff()
			equal(t, "dolt_diff scan", sorted(formatRows(en.exec(ctx, "SELECT * FROM dolt_diff"))), sorted(wantDiff))
			for _, k := range []string{"STAGED", "WORKING"} {
				q := fmt.Sprintf("SELECT * FROM dolt_diff WHERE commit_hash = '%s'", k)
				w := where(wantDiff, 0, func(s string) bool { return s == k })
				if len(w) != 1 {
					t.Fatalf("%s: %d rows in the model", q, len(w))
				}
				equal(t, q, formatRows(en.exec(ctx, q)), w)
			}
			keys := []string{"STAGED", "WORKING", "", "xyz", strings.Repeat("0", 32), strings.ToUpper(m.head.Addr.String())}
			for _, c := range h.Commits {
				keys = append(keys, c.Addr.String())
			}
			for _, k := range keys {
				q := fmt.Sprintf("SELECT * FROM dolt_column_diff WHERE commit_hash = '%s'", k)
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(want, 0, func(s string) bool { return s == k })))
			}
			for i := 0; i+3 < len(keys); i += 3 {
				set := map[string]bool{}
				for _, k := range keys[i : i+3] {
					set[k] = true
				}
				q := fmt.Sprintf("SELECT * FROM dolt_column_diff WHERE commit_hash IN ('%s')", strings.Join(keys[i:i+3], "','"))
				equal(t, q, sorted(formatRows(en.exec(ctx, q))), sorted(where(want, 0, func(s string) bool { return set[s] })))
			}
		})
	}
}

// TestColumnDiffTables checks the columns of tables made, altered and
// dropped, and of the event log, against what each change did.
func TestColumnDiffTables(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	q := func(hash string) string {
		return fmt.Sprintf("SELECT table_name, column_name, diff_type FROM dolt_column_diff WHERE commit_hash = %s ORDER BY 1, 3, 2", hash)
	}
	en.exec(ctx, "CREATE TABLE a (id INT PRIMARY KEY, x INT, y INT)")
	en.exec(ctx, "INSERT INTO a VALUES (1, 1, NULL)")
	en.exec(ctx, "CALL dolt_commit('-Am', 'made')")
	equal(t, "made", formatRows(en.exec(ctx, q("hashof('HEAD')"))), []string{"a|id|added", "a|x|added", "a|y|added"})
	// A column added (its rows rewritten with NULL), one dropped, one
	// value changed: x is modified, id and y are not.
	en.exec(ctx, "ALTER TABLE a ADD COLUMN z INT")
	en.exec(ctx, "ALTER TABLE a DROP COLUMN y")
	en.exec(ctx, "UPDATE a SET x = 2")
	equal(t, "altered", formatRows(en.exec(ctx, q("'WORKING'"))), []string{"a|z|added", "a|x|modified", "a|y|removed"})
	en.exec(ctx, "CALL dolt_commit('-am', 'altered')")
	en.exec(ctx, "DROP TABLE a")
	equal(t, "dropped", formatRows(en.exec(ctx, q("'WORKING'"))), []string{"a|id|removed", "a|x|removed", "a|z|removed"})
	en.exec(ctx, "CALL dolt_add('a')")
	equal(t, "staged", formatRows(en.exec(ctx, q("'STAGED'"))), []string{"a|id|removed", "a|x|removed", "a|z|removed"})
	equal(t, "nothing unstaged", formatRows(en.exec(ctx, q("'WORKING'"))), nil)
	// Events appended: the columns they set.
	en.exec(ctx, `CALL dolt_append_events('A-1', 'any', '[{"event_type": "A", "data": {"n": 1}}]')`)
	got := formatRows(en.exec(ctx, q("'WORKING'")))
	for _, c := range []string{"position", "stream_id", "event_type", "data"} {
		if !strings.Contains(strings.Join(got, "\n"), "dolt_events|"+c+"|modified") {
			t.Fatalf("appended events: no %s in %q", c, got)
		}
	}
	if strings.Contains(strings.Join(got, "\n"), "metadata") {
		t.Fatalf("appended events without metadata: %q", got)
	}
}
