package sqlserver

import "testing"

// TestWriteTemplates: the statements the direct write path takes make a
// template whose placeholders are numbered in the order they are written
// (the SET's before the WHERE's), and the others make none.
func TestWriteTemplates(t *testing.T) {
	for _, c := range []struct {
		q     string
		nargs int // -1: no template
	}{
		{"INSERT INTO t VALUES (?, ?, ?)", 3},
		{"INSERT INTO db.t (a, b) VALUES (?, 'x')", 1},
		{"insert into `t` (`a`) values (-1)", 0},
		{"UPDATE t SET k = k + 1 WHERE id = ?", 1},
		{"UPDATE t SET c = ? WHERE id = ?", 2},
		{"UPDATE t SET c = ?, k = k - ? WHERE id = ?", 3},
		{"UPDATE sbtest1 SET c=? WHERE id=?", 2},
		{"DELETE FROM t WHERE id = ?", 1},
		{"DELETE FROM db.t WHERE id = 7", 0},
		{"INSERT INTO t VALUES (?), (?)", -1},
		{"INSERT IGNORE INTO t VALUES (?)", -1},
		{"INSERT INTO t VALUES (?) ON DUPLICATE KEY UPDATE a = 1", -1},
		{"REPLACE INTO t VALUES (?)", -1},
		{"INSERT INTO t SELECT * FROM u", -1},
		{"UPDATE t SET c = ? WHERE id = ? LIMIT 1", -1},
		{"UPDATE t SET c = ? WHERE id > ?", -1},
		{"UPDATE t SET c = ? WHERE id = ? AND k = ?", -1},
		{"UPDATE t AS x SET c = ? WHERE id = ?", -1},
		{"UPDATE t, u SET t.c = ? WHERE t.id = ?", -1},
		{"UPDATE t SET c = k * ? WHERE id = ?", -1},
		{"UPDATE t SET c = ? WHERE id = ? ORDER BY id", -1},
		{"DELETE FROM t WHERE id = ? LIMIT 1", -1},
		{"DELETE FROM t", -1},
		{"DELETE t FROM t WHERE id = ?", -1},
	} {
		var w writeTemplates
		tpl := w.template(c.q)
		switch {
		case c.nargs < 0 && tpl != nil:
			t.Errorf("%s: a template", c.q)
		case c.nargs >= 0 && tpl == nil:
			t.Errorf("%s: no template", c.q)
		case tpl != nil && tpl.nargs != c.nargs:
			t.Errorf("%s: %d placeholders, want %d", c.q, tpl.nargs, c.nargs)
		}
	}
}

// TestTextShape: a text statement's constants become placeholders in the
// order they are written, and what the shape cannot hold exactly declines.
func TestTextShape(t *testing.T) {
	for _, c := range []struct {
		q, shape string
		vals     []any
	}{
		{"UPDATE sbtest1 SET c='a-b' WHERE id=5", "UPDATE sbtest1 SET c = ? WHERE id = ?", []any{"a-b", int64(5)}},
		{"INSERT INTO t VALUES (-1, 'x', 18446744073709551615);", "INSERT INTO t VALUES ( ? , ? , ? )", []any{int64(-1), "x", uint64(18446744073709551615)}},
		{"DELETE FROM `t` WHERE id = 3", "DELETE FROM `t` WHERE id = ?", []any{int64(3)}},
		{"UPDATE t SET k = k-1 WHERE id = 2", "UPDATE t SET k = k - ? WHERE id = ?", []any{int64(1), int64(2)}},
		{"UPDATE t SET c = 'it''s' WHERE id = 1", "", nil},
		{"UPDATE t SET c = 'a\\'b' WHERE id = 1", "", nil},
		{"UPDATE t SET c = 1.5 WHERE id = 1", "", nil},
		{"UPDATE t SET c = 1e3 WHERE id = 1", "", nil},
		{"UPDATE t SET c = 0x10 WHERE id = 1", "", nil},
		{"DELETE FROM t WHERE id = 1 -- x", "", nil},
		{"SELECT 1", "", nil},
	} {
		shape, vals, ok := textShape(c.q)
		if ok != (c.shape != "") || shape != c.shape || len(vals) != len(c.vals) {
			t.Errorf("%s: %q %v %v, want %q %v", c.q, shape, vals, ok, c.shape, c.vals)
			continue
		}
		for i := range vals {
			if vals[i] != c.vals[i] {
				t.Errorf("%s: value %d is %#v, want %#v", c.q, i, vals[i], c.vals[i])
			}
		}
	}
}
