package sqlserver

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

func TestPrefixIndexes(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, data BLOB, "+
		"UNIQUE KEY uname (name(3)), KEY kdata (data(2), id))")
	env.exec(ctx, "INSERT INTO p VALUES (1, 'apple', 'xa1'), (2, 'banana', 'xa2'), (3, 'apricot', 'xb1'), (4, NULL, NULL), (5, NULL, 'y')")

	// Uniqueness holds on the prefix, in the column's collation; NULLs
	// never collide. A failed statement leaves no trace.
	for _, q := range []string{
		"INSERT INTO p VALUES (6, 'applesauce', NULL)",
		"INSERT INTO p VALUES (6, 'APPlause', NULL)",
		"INSERT INTO p VALUES (6, 'cherry', NULL), (7, 'bAn', NULL)",
		"UPDATE p SET name = 'aprons' WHERE id = 1",
	} {
		_, err := env.query(ctx, q)
		if err == nil || !sql.ErrUniqueKeyViolation.Is(err) && !strings.Contains(err.Error(), "uplicate") {
			t.Fatalf("%s: got %v, want a duplicate key error", q, err)
		}
	}
	env.check(ctx, "SELECT id FROM p ORDER BY id", "[1] [2] [3] [4] [5]")
	env.exec(ctx, "INSERT INTO p VALUES (6, 'ap', NULL), (7, NULL, 'xa1')")
	env.exec(ctx, "UPDATE p SET name = 'appendix' WHERE id = 1") // its own prefix: no conflict

	// Lookups through the prefix indexes return exactly the matching rows.
	for _, c := range []struct{ q, want string }{
		{"SELECT id FROM p WHERE name = 'appendix'", "[1]"},
		{"SELECT id FROM p WHERE name = 'APPENDIX'", "[1]"},
		{"SELECT id FROM p WHERE name = 'appx'", ""},
		{"SELECT id FROM p WHERE name = 'ap'", "[6]"},
		{"SELECT id FROM p WHERE name > 'apr' ORDER BY id", "[2] [3]"},
		{"SELECT id FROM p WHERE name >= 'ap' AND name < 'apricot' ORDER BY id", "[1] [6]"},
		{"SELECT id FROM p WHERE name <= 'apricot' ORDER BY id", "[1] [3] [6]"},
		{"SELECT id FROM p WHERE name IN ('apricot', 'apricots', 'banana') ORDER BY id", "[2] [3]"},
		{"SELECT id FROM p WHERE name LIKE 'apr%'", "[3]"},
		{"SELECT id FROM p WHERE name IS NULL ORDER BY id", "[4] [5] [7]"},
		{"SELECT id FROM p WHERE data = 'xa1' ORDER BY id", "[1] [7]"},
		{"SELECT id FROM p WHERE data = 'xa' ORDER BY id", ""},
		{"SELECT id FROM p WHERE data > 'xa1' ORDER BY id", "[2] [3] [5]"},
		{"SELECT id FROM p WHERE data = 'xa1' AND id > 1", "[7]"},
	} {
		env.check(ctx, c.q, c.want)
	}
	for _, c := range []struct{ q, index string }{
		{"SELECT * FROM p WHERE name = 'appendix'", "index: [p.name]"},
		{"SELECT * FROM p WHERE name > 'apr'", "index: [p.name]"},
		{"SELECT * FROM p WHERE data = 'xa1'", "index: [p.data,p.id]"},
	} {
		plan := formatRows(env.exec(ctx, "EXPLAIN PLAN "+c.q))
		if !strings.Contains(plan, "IndexedTableAccess") || !strings.Contains(plan, c.index) {
			t.Errorf("%s: no access through %s in plan:\n%s", c.q, c.index, plan)
		}
		// The engine keeps its filter above a prefix index lookup.
		if !strings.Contains(plan, "Filter") {
			t.Errorf("%s: no filter above the prefix lookup:\n%s", c.q, plan)
		}
	}

	// The prefix lengths are kept: SHOW CREATE TABLE, and a table rewrite
	// (ADD COLUMN) carries them over with the uniqueness they give.
	show := formatRows(env.exec(ctx, "SHOW CREATE TABLE p"))
	for _, want := range []string{"UNIQUE KEY `uname` (`name`(3))", "KEY `kdata` (`data`(2),`id`)"} {
		if !strings.Contains(show, want) {
			t.Errorf("SHOW CREATE TABLE lacks %s:\n%s", want, show)
		}
	}
	env.exec(ctx, "ALTER TABLE p ADD COLUMN extra INT")
	if _, err := env.query(ctx, "INSERT INTO p VALUES (8, 'bananas', NULL, 1)"); err == nil {
		t.Error("a duplicate prefix was accepted after ALTER TABLE")
	}
	env.check(ctx, "SELECT id FROM p WHERE name = 'banana'", "[2]")

	// A primary key is keyed by whole values: prefix lengths are refused,
	// as the engine's own backend does.
	for _, q := range []string{
		"CREATE TABLE pkp (v VARCHAR(20), PRIMARY KEY (v(3)))",
		"ALTER TABLE long_text_none ADD PRIMARY KEY (v(3))",
	} {
		if strings.HasPrefix(q, "ALTER") {
			env.exec(ctx, "CREATE TABLE long_text_none (v VARCHAR(20))")
		}
		if _, err := env.query(ctx, q); !sql.ErrUnsupportedIndexPrefix.Is(err) {
			t.Errorf("%s: got %v, want ErrUnsupportedIndexPrefix", q, err)
		}
	}

	// A long TEXT value is indexed on its prefix only.
	env.exec(ctx, "CREATE TABLE long_text (id INT PRIMARY KEY, body TEXT, KEY kb (body(10)))")
	env.exec(ctx, "INSERT INTO long_text VALUES (1, REPEAT('x', 60000)), (2, 'short')")
	env.check(ctx, "SELECT id FROM long_text WHERE body = 'short'", "[2]")
	env.check(ctx, "SELECT length(body) FROM long_text WHERE body > 'xxxxx'", "[60000]")
}

func TestNoAutoValueOnZero(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE a (i INT AUTO_INCREMENT PRIMARY KEY, v INT)")
	env.exec(ctx, "INSERT INTO a VALUES (0, 1)") // takes the counter's value
	env.exec(ctx, "SET @@sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
	env.exec(ctx, "INSERT INTO a VALUES (0, 2)")
	env.exec(ctx, "INSERT INTO a (v) VALUES (3)")
	env.exec(ctx, "INSERT INTO a VALUES (NULL, 4)")
	env.check(ctx, "SELECT * FROM a ORDER BY i", "[0 2] [1 1] [2 3] [3 4]")
	if _, err := env.query(ctx, "INSERT INTO a VALUES (0, 5)"); err == nil {
		t.Error("a second 0 was accepted in a primary key")
	}
	// A rebuild keeps the 0 in this mode, as MySQL does.
	env.exec(ctx, "ALTER TABLE a ADD COLUMN w INT")
	env.exec(ctx, "CREATE INDEX kv ON a (v)")
	env.check(ctx, "SELECT i, v FROM a ORDER BY i", "[0 2] [1 1] [2 3] [3 4]")

	// Without the mode, 0 takes the next value again.
	env.exec(ctx, "SET @@sql_mode = REPLACE(@@sql_mode, 'NO_AUTO_VALUE_ON_ZERO', '')")
	env.exec(ctx, "INSERT INTO a VALUES (0, 6, NULL)")
	env.check(ctx, "SELECT i FROM a WHERE v = 6", "[4]")
}
