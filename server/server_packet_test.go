package server

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// warnings returns SHOW WARNINGS on c as "code: message" lines.
func warnings(t *testing.T, ctx context.Context, c *sql.Conn) []string {
	t.Helper()
	rows, err := c.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d: %s", code, msg))
	}
	return out
}

// TestServerMaxAllowedPacket: functions that build strings return NULL
// with warning 1301 instead of a value larger than max_allowed_packet, as
// MySQL's do.
func TestServerMaxAllowedPacket(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	db := connect(t, s, "root", "", "")
	ctx := t.Context()
	c := conn(t, db)
	check := func(q, fn string, limit int) {
		t.Helper()
		var v sql.NullString
		if err := c.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if v.Valid {
			t.Errorf("%s: got a value of %d bytes, want NULL", q, len(v.String))
		}
		want := fmt.Sprintf("1301: Result of %s() was larger than max_allowed_packet (%d) - truncated", fn, limit)
		if w := warnings(t, ctx, c); len(w) != 1 || w[0] != want {
			t.Errorf("%s: warnings %q, want %q", q, w, want)
		}
	}
	// The default limit (1 GiB, the engine's), with the sizes.
	check("SELECT REPEAT('a', 4294967296)", "repeat", 1<<30)
	check("SELECT LPAD('x', 4294967296, 'ab')", "lpad", 1<<30)
	check("SELECT SPACE(4294967296)", "space", 1<<30)
	if _, err := c.ExecContext(ctx, "SET SESSION max_allowed_packet = 1048576"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, fn string }{
		{"SELECT REPEAT('ab', 600000)", "repeat"},
		{"SELECT LPAD('x', 2000000, 'ab')", "lpad"},
		{"SELECT RPAD('x', 2000000, 'ab')", "rpad"},
		{"SELECT SPACE(2000000)", "space"},
		{"SELECT REPLACE(REPEAT('a', 1000), 'a', REPEAT('b', 2000))", "replace"},
		{"SELECT CONCAT(REPEAT('a', 600000), REPEAT('b', 600000))", "concat"},
		{"SELECT CONCAT_WS(',', REPEAT('a', 600000), REPEAT('b', 600000))", "concat_ws"},
		{"SELECT INSERT(REPEAT('a', 600000), 2, 1, REPEAT('b', 600000))", "insert"},
		{"SELECT TO_BASE64(REPEAT('a', 900000))", "to_base64"},
	} {
		check(tc.q, tc.fn, 1<<20)
	}
	// Values within the limit are built as before.
	var v string
	for q, want := range map[string]string{
		"SELECT LENGTH(REPEAT('ab', 500000))":                         "1000000",
		"SELECT CONCAT(REPEAT('a', 3), SPACE(2), LPAD('x', 3, 'yz'))": "aaa  yzx",
		"SELECT REPLACE('banana', 'an', 'AN')":                        "bANANa",
		"SELECT INSERT('Quadratic', 3, 4, 'What')":                    "QuWhattic",
		"SELECT CONCAT_WS('-', 'a', NULL, 'b')":                       "a-b",
		"SELECT RPAD('abc', 5, '.')":                                  "abc..",
	} {
		if err := c.QueryRowContext(ctx, q).Scan(&v); err != nil || v != want {
			t.Errorf("%s: %q, %v; want %q", q, v, err, want)
		}
	}
}
