package sqlserver

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// TestDiffFunctionErrors: the diff table functions refuse their arguments
// in Dolt's words, with error 1105 (Dolt's own functions' number for a
// wrong count of arguments too).
func TestDiffFunctionErrors(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'first')")
	for _, c := range []struct{ q, want string }{
		{"dolt_diff()", "function 'dolt_diff' expected 2 to 3 arguments, 0 received"},
		{"dolt_diff('HEAD', 't')", "function 'dolt_diff' expected 3 arguments, 2 received"},
		{"dolt_diff('HEAD..WORKING', 't', 'x')", "function 'dolt_diff with .. or ...' expected 2 arguments, 3 received"},
		{"dolt_diff(1, 2, 3)", "Invalid argument to dolt_diff: 3"},
		{"dolt_diff(NULL, 'WORKING', 't')", "Invalid argument to dolt_diff: NULL"},
		{"dolt_diff('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_diff('nope', 'WORKING', 't')", "branch not found: nope"},
		{"dolt_diff('working', 'HEAD', 't')", "branch not found: working"},
		{"dolt_diff('HEAD~3', 'HEAD', 't')", "invalid ancestor spec"},
		{"dolt_diff('0123456789abcdefghijklmnopqrstuv', 'HEAD', 't')", "target commit not found"},
		{"dolt_diff('HEAD...WORKING', 't')", "branch not found: WORKING"},
		{"dolt_diff('main..', 't')", "expected strings for from and to revisions, got: main, "},
		{"dolt_diff(concat('HE', 'AD'), 'WORKING', 't')", "Invalid argument to dolt_diff: concat('HE','AD') – only literal values supported"},
		{"dolt_diff_stat()", "function 'dolt_diff_stat' expected 1 to 3 arguments, 0 received"},
		{"dolt_diff_stat('HEAD')", "function 'dolt_diff_stat' expected 2 or 3 arguments, 1 received"},
		{"dolt_diff_stat('HEAD..WORKING', 't', 'x')", "function 'dolt_diff_stat' expected 1 or 2 arguments, 3 received"},
		{"dolt_diff_stat('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_diff_summary(1, 2)", "Invalid argument to dolt_diff_summary: 1"},
		{"dolt_diff_summary('HEAD', NULL)", "Invalid argument to dolt_diff_summary: NULL"},
		{"dolt_patch('HEAD', 'WORKING', 't', 'x')", "function 'dolt_patch' expected 2 or 3 arguments, 4 received"},
		{"dolt_patch('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_schema_diff('HEAD')", "Invalid argument to dolt_schema_diff: There are less than 2 arguments present, and the first does not contain '..'"},
		{"dolt_schema_diff('HEAD', 'WORKING', 't', 'x')", "function 'dolt_schema_diff' expected 1 to 3 arguments, 4 received"},
		{"dolt_query_diff('SELECT 1')", "function 'dolt_query_diff' expected 2 arguments, 1 received"},
		{"dolt_query_diff(NULL, 'SELECT 1')", "query must be a string, not <nil>"},
		{"dolt_query_diff('DELETE FROM t', 'SELECT 1')", "query must be a SELECT statement"},
		{"dolt_query_diff('SELECT * FROM nope', 'SELECT 1')", "table not found: nope"},
	} {
		q := "SELECT * FROM " + c.q
		_, err := env.query(ctx, q)
		if err == nil {
			t.Fatalf("%s: no error, want %q", q, c.want)
		}
		se := MySQLError(err, q)
		if se.Message != c.want {
			t.Errorf("%s: %q, want %q", q, se.Message, c.want)
		}
		if strings.HasPrefix(c.want, "table not found") {
			continue
		}
		if se.Num != mysql.ERUnknownError {
			t.Errorf("%s: error %d, want 1105", q, se.Num)
		}
	}
	// MySQL's functions keep MySQL's number for a wrong count.
	if se := MapError(sql.ErrInvalidArgumentNumber.New("abs", 1, 0), "SELECT abs()"); se.Num != 1582 {
		t.Errorf("abs(): %v, want MySQL's 1582", se)
	}
}
