package main

import (
	"bytes"
	"strings"
	"testing"
)

// runSQLTest runs verso sql in dir with stdin and returns its exit code,
// stdout and stderr.
func runSQLTest(dir, stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := runSQL(dir, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSQLCommand(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	code, out, errOut := runSQLTest(dir, "", "-q", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n DECIMAL(5,2), j JSON); INSERT INTO t VALUES (1, 'one', 1.5, '{\"a\": [1]}'), (2, NULL, -2, NULL), (3, 'a,\"b\"', 0, '3')")
	if code != 0 || out != "Query OK, 0 rows affected\nQuery OK, 3 rows affected\n" || errOut != "" {
		t.Fatalf("create and insert: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, tc := range []struct{ format, want string }{
		{"table", `+----+-------+-------+-----------+
| id | v     | n     | j         |
+----+-------+-------+-----------+
|  1 | one   |  1.50 | {"a":[1]} |
|  2 | NULL  | -2.00 | NULL      |
|  3 | a,"b" |  0.00 | 3         |
+----+-------+-------+-----------+
`},
		{"csv", "id,v,n,j\n1,one,1.50,\"{\"\"a\"\":[1]}\"\n2,,-2.00,\n3,\"a,\"\"b\"\"\",0.00,3\n"},
		{"json", `{"rows": [{"id": 1, "v": "one", "n": 1.50, "j": {"a":[1]}}, {"id": 2, "v": null, "n": -2.00, "j": null}, {"id": 3, "v": "a,\"b\"", "n": 0.00, "j": 3}]}` + "\n"},
	} {
		code, out, errOut := runSQLTest(dir, "", "-r", tc.format, "-q", "SELECT * FROM t ORDER BY id")
		if code != 0 || out != tc.want {
			t.Errorf("-r %s: exit %d, stderr %q, stdout\n%s\nwant\n%s", tc.format, code, errOut, out, tc.want)
		}
	}

	// A script on stdin stops at its first error, which goes to stderr
	// with its line; the statements before it took effect.
	script := "-- a script\nINSERT INTO t (id) VALUES (4);\n\nSELECT COUNT(*) AS n FROM t;\nSELECT nope FROM t;\nINSERT INTO t (id) VALUES (5);\n"
	code, out, errOut = runSQLTest(dir, script, "-r", "csv")
	if code != 1 || out != "n\n4\n" || !strings.HasPrefix(errOut, "ERROR 1054 (42S22) at line 5: ") {
		t.Fatalf("script: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runSQLTest(dir, "", "-q", "SELEC 1")
	if code != 1 || out != "" || errOut != "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'SELEC 1' at line 1\n" {
		t.Fatalf("syntax error: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := runSQLTest(dir, "", "-r", "xml", "-q", "SELECT 1"); code != 2 || !strings.Contains(errOut, "-r csv") {
		t.Fatalf("-r xml: exit %d, stderr %q", code, errOut)
	}
	// --data-dir: no database is current until USE.
	code, out, errOut = runSQLTest(t.TempDir(), "CREATE DATABASE d; USE d; CREATE TABLE x (a INT); INSERT INTO x VALUES (7); SELECT a FROM x", "--data-dir", "data", "-r", "csv")
	if code != 0 || out != "a\n7\n" {
		t.Fatalf("--data-dir: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestSQLCommandBodies: statements with a body (a trigger, a procedure,
// an event) in the middle of a script run as written, and the engine's
// failure on one (an event made twice) is an error, not a crash.
func TestSQLCommandBodies(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	script := "CREATE TABLE t (i INT PRIMARY KEY);\n" +
		"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET new.i = new.i + 1;\n" +
		"CREATE PROCEDURE p() BEGIN SELECT COUNT(*) AS n FROM t; END;\n" +
		"INSERT INTO t VALUES (1);\nSELECT i FROM t;\nCALL p();\n" +
		"CREATE EVENT e ON SCHEDULE EVERY 1 HOUR STARTS '2030-01-01 00:00:00' DO INSERT INTO t VALUES (1);\n" +
		"CREATE EVENT e ON SCHEDULE EVERY 1 HOUR DO INSERT INTO t VALUES (2);\n"
	code, out, errOut := runSQLTest(dir, script, "-r", "csv")
	if code != 1 || out != "i\n2\nn\n1\n" || !strings.HasPrefix(errOut, "ERROR 1105 (HY000) at line 8: Event 'e' already exists") || strings.Contains(errOut, "goroutine") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
