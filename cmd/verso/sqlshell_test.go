package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/sqlserver"
)

// fakeLines is a lineSource of given lines that records the prompts and
// the history.
type fakeLines struct {
	lines   []string
	prompts []string
	history []string
}

func (f *fakeLines) Readline() (string, error) {
	if len(f.lines) == 0 {
		return "", io.EOF
	}
	l := f.lines[0]
	f.lines = f.lines[1:]
	return l, nil
}
func (f *fakeLines) SetPrompt(p string)         { f.prompts = append(f.prompts, p) }
func (f *fakeLines) SaveHistory(s string) error { f.history = append(f.history, s); return nil }

// testRunner returns a runner of verso sql over the database in dir.
func testRunner(t *testing.T, dir string) (*sqlRunner, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	p, _, err := openProvider(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	e := sqlserver.NewEngine(p)
	t.Cleanup(func() { e.Close() })
	base := sql.NewBaseSession()
	base.SetClient(sql.Client{User: sqlserver.DefaultUser, Address: "localhost"})
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(base)))
	ctx.SetCurrentDatabase(p.AllDatabases(ctx)[0].Name())
	var out, errOut bytes.Buffer
	return &sqlRunner{ctx: ctx, e: e, format: "table", out: bufio.NewWriter(&out), stderr: &errOut, delim: ";"}, &out, &errOut
}

// TestShell: statements over several lines, the prompt with the database
// and branch (and its continuation), \G, DELIMITER for a procedure body,
// an error that does not end the shell, history by statement, exit.
func TestShell(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	r, out, errOut := testRunner(t, dir)
	src := &fakeLines{lines: []string{
		"CREATE TABLE t (id INT PRIMARY KEY,",
		"  name VARCHAR(10));",
		"INSERT INTO t VALUES (1, 'one'), (2, NULL);",
		"SELECT * FROM t WHERE id = 1\\G",
		"SELEC 1;",
		"DELIMITER //",
		"CREATE PROCEDURE two() BEGIN",
		"  SELECT COUNT(*) AS n FROM t;",
		"  SELECT name FROM t ORDER BY id;",
		"END //",
		"DELIMITER ;",
		"CALL two();",
		"exit",
		"SELECT 'not reached';",
	}}
	if code := shellLoop(r, src, out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	r.out.Flush()
	got := out.String()
	for _, want := range []string{
		"Query OK, 0 rows affected\n",
		"Query OK, 2 rows affected\n",
		"*************************** 1. row ***************************\n  id: 1\nname: one\n",
		// Both result sets of the CALL.
		"+---+\n| n |\n+---+\n| 2 |\n+---+\n",
		"+------+\n| name |\n+------+\n| one  |\n| NULL |\n+------+\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "not reached") {
		t.Error("a statement after exit ran")
	}
	if e := errOut.String(); !strings.HasPrefix(e, "ERROR 1064 (42000): You have an error") {
		t.Errorf("the error: %q", e)
	}
	if len(src.prompts) < 3 || !strings.HasSuffix(src.prompts[0], "/main> ") || !strings.HasSuffix(src.prompts[1], "-> ") {
		t.Errorf("prompts %q", src.prompts)
	}
	wantHistory := []string{"CREATE TABLE t (id INT PRIMARY KEY,\n  name VARCHAR(10));", "INSERT INTO t VALUES (1, 'one'), (2, NULL);"}
	if len(src.history) < 2 || src.history[0] != wantHistory[0] || src.history[1] != wantHistory[1] {
		t.Errorf("history %q", src.history)
	}
}

// TestSQLScriptDelimiter: a script (as mysqldump writes triggers and
// procedures) with DELIMITER ;; and a body holding ';', \G in a script,
// and the line of an error after a DELIMITER block.
func TestSQLScriptDelimiter(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	script := "CREATE TABLE t (i INT PRIMARY KEY, n INT);\n" +
		"DELIMITER ;;\n" +
		"/*!50003 CREATE*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET new.n = new.i * 10; SET new.n = new.n + 1; END */;;\n" +
		"DELIMITER ;\n" +
		"INSERT INTO t (i) VALUES (1), (2);\n" +
		"SELECT i, n FROM t ORDER BY i\\G\n" +
		"SELECT nope FROM t;\n"
	code, out, errOut := runSQLTest(dir, script)
	want := "Query OK, 0 rows affected\nQuery OK, 0 rows affected\nQuery OK, 2 rows affected\n" +
		"*************************** 1. row ***************************\ni: 1\nn: 11\n" +
		"*************************** 2. row ***************************\ni: 2\nn: 21\n"
	if code != 1 || out != want || !strings.HasPrefix(errOut, "ERROR 1054 (42S22) at line 7: ") {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr %q", code, out, want, errOut)
	}
}

// TestSQLStreaming: a table longer than the rows that set its widths
// prints every row, the later ones with the same widths.
func TestSQLStreaming(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	code, out, errOut := runSQLTest(dir, "", "-q", "CREATE TABLE t (i INT PRIMARY KEY); INSERT INTO t SELECT * FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2500) SELECT i FROM s) x; SELECT i FROM t ORDER BY i")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Query OK twice, then the table: three rules, the header, 2,500 rows.
	if n := len(lines); n != 2+4+2500 {
		t.Fatalf("%d lines", n)
	}
	if lines[len(lines)-2] != "| 2500 |" || lines[5] != "|    1 |" {
		t.Errorf("rows: %q ... %q", lines[5], lines[len(lines)-2])
	}
}
