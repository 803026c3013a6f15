package sqlserver

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// callSets runs q with the session keeping its CALL's result sets, and
// returns them printed, one per line, each as its column names then its
// rows (formatRows), with the engine's own answer last after "=>".
func callSets(t *testing.T, env *testEnv, ctx *sql.Context, q string) string {
	t.Helper()
	s := ctx.Session.(*Session)
	s.CaptureCallResults()
	rows, err := env.query(ctx, q)
	sets := s.TakeCallResults()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var b strings.Builder
	for _, set := range sets {
		names := make([]string, len(set.Schema))
		for i, c := range set.Schema {
			names[i] = c.Name
		}
		b.WriteString(strings.Join(names, ",") + ": " + formatRows(set.Rows) + "\n")
	}
	b.WriteString("=> " + formatRows(rows))
	return b.String()
}

func TestCallResultSets(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
	env.exec(ctx, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	for _, q := range []string{
		// Two SELECTs, a write between them that the second sees, and
		// a SELECT ... INTO and an IF whose queries are no result sets.
		`CREATE PROCEDURE two() BEGIN
			DECLARE n INT;
			SELECT id FROM t ORDER BY id;
			SELECT COUNT(*) INTO n FROM t;
			IF n > 1 THEN INSERT INTO t VALUES (3, 'c'); END IF;
			SELECT v, n AS n FROM t ORDER BY id DESC;
		END`,
		// A SHOW and a nested CALL, whose result sets come in between.
		`CREATE PROCEDURE outer_() BEGIN
			SELECT 'first' AS x;
			CALL two();
			SHOW TABLES;
		END`,
		`CREATE PROCEDURE none_() BEGIN UPDATE t SET v = 'z' WHERE id = 9; END`,
		// An empty result set is one too.
		`CREATE PROCEDURE empty_() BEGIN SELECT id FROM t WHERE id < 0; SELECT 1 AS one; END`,
		// A loop makes one result set a turn.
		`CREATE PROCEDURE loop_() BEGIN
			DECLARE i INT DEFAULT 0;
			WHILE i < 3 DO SELECT i AS i; SET i = i + 1; END WHILE;
		END`,
	} {
		env.exec(ctx, q)
	}

	for _, c := range []struct{ q, want string }{
		{"CALL two()", "id: [1] [2]\nv,n: [c 2] [b 2] [a 2]\n=> [c 2] [b 2] [a 2]"},
		{"CALL outer_()", "x: [first]\nid: [1] [2]\nv,n: [c 2] [b 2] [a 2]\nTables_in_db: [t]\n=> [first]"},
		{"CALL none_()", "=> [ok:0]"},
		{"CALL empty_()", "id: \none: [1]\n=> [1]"},
		{"CALL loop_()", "i: [0]\ni: [1]\ni: [2]\n=> [2]"},
		// verso's procedures are one statement: their own answer only.
		{"CALL dolt_branch('b1')", "=> [0]"},
	} {
		if c.q == "CALL outer_()" {
			env.exec(ctx, "DELETE FROM t WHERE id = 3")
		}
		if got := callSets(t, env, ctx, c.q); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.q, got, c.want)
		}
	}

	// Without CaptureCallResults nothing is kept.
	if got := formatRows(env.exec(ctx, "CALL empty_()")); got != "[1]" {
		t.Fatalf("CALL empty_() without CaptureCallResults: %s", got)
	}
	if sets := ctx.Session.(*Session).TakeCallResults(); sets != nil {
		t.Fatalf("a session that did not ask kept result sets: %v", sets)
	}
}
