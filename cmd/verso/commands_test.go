package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestRepo makes a database in a temporary folder with table t
// committed on main, and returns the folder.
func newTestRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	runOK(t, "-C", dir, "commit", "-Am", "add t")
	return dir
}

// headHash returns the hash of a revision, from verso log.
func headHash(t *testing.T, dir, rev string) string {
	t.Helper()
	out := runOK(t, "-C", dir, "log", "--oneline", "-n", "1", rev)
	h, _, _ := strings.Cut(out, " ")
	return h
}

// TestLsShowMergeBase: ls lists the tables (with -v their rows, and at a
// revision), show prints a commit and its rows, merge-base the common
// ancestor of two branches.
func TestLsShowMergeBase(t *testing.T) {
	dir := newTestRepo(t)
	base := headHash(t, dir, "main")
	runOK(t, "-C", dir, "checkout", "-b", "f")
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE u (id INT PRIMARY KEY); INSERT INTO t VALUES (3, 'three')")
	runOK(t, "-C", dir, "commit", "-Am", "on f")
	runOK(t, "-C", dir, "checkout", "main")

	if out := runOK(t, "-C", dir, "ls"); out != "t\n" {
		t.Errorf("ls: %q", out)
	}
	if out := runOK(t, "-C", dir, "ls", "-v", "f"); !strings.Contains(out, "t ") || !strings.Contains(out, "3 rows") || !strings.Contains(out, "u ") {
		t.Errorf("ls -v f: %q", out)
	}
	out := runOK(t, "-C", dir, "show", "f")
	for _, want := range []string{"on f", "| + | 3  | three |"} {
		if !strings.Contains(out, want) {
			t.Errorf("show f lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| + | 1 ") {
		t.Errorf("show f shows a row of its parent:\n%s", out)
	}
	if out := runOK(t, "-C", dir, "merge-base", "main", "f"); strings.TrimSpace(out) != base {
		t.Errorf("merge-base: %q, want %s", out, base)
	}
	if msg := runFail(t, 2, "-C", dir, "merge-base", "main"); !strings.Contains(msg, "give two revisions") {
		t.Errorf("merge-base with one revision: %q", msg)
	}
}

// TestCherryPickRevert: cherry-pick applies a commit of another branch,
// revert undoes it with a new commit.
func TestCherryPickRevert(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "checkout", "-b", "f")
	runOK(t, "-C", dir, "sql", "-q", "INSERT INTO t VALUES (3, 'three')")
	runOK(t, "-C", dir, "commit", "-am", "three")
	pick := headHash(t, dir, "f")
	runOK(t, "-C", dir, "checkout", "main")
	runOK(t, "-C", dir, "cherry-pick", pick)
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT v FROM t WHERE id = 3"); out != "v\nthree\n" {
		t.Fatalf("after cherry-pick: %q", out)
	}
	runOK(t, "-C", dir, "revert", "HEAD")
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT COUNT(*) AS n FROM t"); out != "n\n2\n" {
		t.Fatalf("after revert: %q", out)
	}
	if out := runOK(t, "-C", dir, "log", "--oneline", "-n", "1"); !strings.Contains(out, "Revert") {
		t.Errorf("revert's commit: %q", out)
	}
}

// TestConflictsCommand: conflicts cat shows a merge's rows in conflict,
// conflicts resolve --theirs takes their side.
func TestConflictsCommand(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "checkout", "-b", "f")
	runOK(t, "-C", dir, "sql", "-q", "UPDATE t SET v = 'theirs' WHERE id = 1")
	runOK(t, "-C", dir, "commit", "-am", "theirs")
	runOK(t, "-C", dir, "checkout", "main")
	runOK(t, "-C", dir, "sql", "-q", "UPDATE t SET v = 'ours' WHERE id = 1")
	runOK(t, "-C", dir, "commit", "-am", "ours")
	run([]string{"-C", dir, "merge", "f"}, new(strings.Builder), new(strings.Builder))
	out := runOK(t, "-C", dir, "conflicts", "cat", "t")
	if !strings.Contains(out, "ours") || !strings.Contains(out, "theirs") {
		t.Fatalf("conflicts cat:\n%s", out)
	}
	runOK(t, "-C", dir, "conflicts", "resolve", "--theirs", "t")
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT v FROM t WHERE id = 1"); out != "v\ntheirs\n" {
		t.Errorf("after resolve --theirs: %q", out)
	}
	if msg := runFail(t, 2, "-C", dir, "conflicts", "show"); !strings.Contains(msg, "is not cat or resolve") {
		t.Errorf("conflicts show: %q", msg)
	}
}

// TestSchemaCommand: schema show and schema export.
func TestSchemaCommand(t *testing.T) {
	dir := newTestRepo(t)
	out := runOK(t, "-C", dir, "schema", "show")
	if !strings.HasPrefix(out, "t @ working\nCREATE TABLE `t` (") {
		t.Errorf("schema show:\n%s", out)
	}
	runOK(t, "-C", dir, "schema", "export", "t", "s.sql")
	b, err := os.ReadFile(filepath.Join(dir, "s.sql"))
	if err != nil || !strings.HasPrefix(string(b), "CREATE TABLE `t` (") || !strings.HasSuffix(string(b), ";\n\n") {
		t.Errorf("schema export: %q, %v", b, err)
	}
}

// TestTableExportImport: a table's rows (NULLs, quotes, backslashes,
// unicode, binary, decimals) go out to CSV, JSON and SQL and back in
// with -c, -u and -r, unchanged.
func TestTableExportImport(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	runOK(t, "-C", dir, "sql", "-q", `CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(40), d DECIMAL(8,2), b BLOB);
		INSERT INTO t VALUES (1, 'it''s "q" \\ back', 1.50, X'00FF2C0A'), (2, NULL, NULL, NULL), (3, 'Zoë 漢字, comma', -0.01, 'x')`)
	want := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT id, s, d, HEX(b) FROM t ORDER BY id")
	for _, f := range []string{"t.csv", "t.json", "t.sql"} {
		runOK(t, "-C", dir, "table", "export", "t", f)
	}
	check := func(table, what string) {
		t.Helper()
		if got := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT id, s, d, HEX(b) FROM "+table+" ORDER BY id"); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", what, got, want)
		}
	}
	runOK(t, "-C", dir, "table", "import", "-r", "t", "t.json")
	check("t", "import -r of the JSON export")
	runOK(t, "-C", dir, "sql", "-q", "DELETE FROM t WHERE id = 3; UPDATE t SET s = 'changed' WHERE id = 1")
	runOK(t, "-C", dir, "table", "import", "-u", "t", "t.json")
	check("t", "import -u of the JSON export")
	runOK(t, "-C", dir, "sql", "-q", "DELETE FROM t")
	script, err := os.ReadFile(filepath.Join(dir, "t.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runSQLTest(dir, string(script)); code != 0 {
		t.Fatalf("loading the SQL export: %s", errOut)
	}
	check("t", "the SQL export run by verso sql")
	runOK(t, "-C", dir, "table", "import", "-c", "--pk", "id", "c", "t.csv")
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT id, s, d FROM c ORDER BY id"); out != "id,s,d\n1,\"it's \"\"q\"\" \\ back\",1.5\n2,,\n3,\"Zoë 漢字, comma\",-0.01\n" {
		t.Errorf("import -c of the CSV export: %q", out)
	}
	for _, args := range [][]string{{"table", "import", "t", "t.csv"}, {"table", "import", "-c", "t", "t.csv"}, {"table", "import", "-u", "-r", "t", "t.csv"}} {
		if msg := runFail(t, 2, append([]string{"-C", dir}, args...)...); !strings.Contains(msg, "give one of -c (with --pk), -u or -r") {
			t.Errorf("%v: %q", args, msg)
		}
	}
}

// TestDumpCommand: dump writes a script that makes every table again
// with its rows (loaded into another database, the rows are the same),
// or one CSV file per table.
func TestDumpCommand(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE u (k VARCHAR(5) PRIMARY KEY, n BIGINT UNSIGNED); INSERT INTO u VALUES ('a', 18446744073709551615); CREATE VIEW w AS SELECT * FROM t; "+
		"CREATE TRIGGER tr BEFORE INSERT ON u FOR EACH ROW SET new.n = new.n + 1; CREATE PROCEDURE p() BEGIN SELECT COUNT(*) AS n FROM t; END")
	runOK(t, "-C", dir, "dump")
	script, err := os.ReadFile(filepath.Join(dir, "doltdump.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if msg := runFail(t, 1, "-C", dir, "dump"); !strings.Contains(msg, "give --force to overwrite") {
		t.Errorf("a second dump: %q", msg)
	}
	other := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", other)
	if code, _, errOut := runSQLTest(other, string(script)); code != 0 {
		t.Fatalf("loading the dump: %s\n%s", errOut, script)
	}
	for _, q := range []string{"SELECT * FROM t ORDER BY id", "SELECT * FROM u", "SELECT * FROM w ORDER BY id", "CALL p()",
		"INSERT INTO u VALUES ('b', 1)", "SELECT * FROM u ORDER BY k"} {
		if a, b := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", q), runOK(t, "-C", other, "sql", "-r", "csv", "-q", q); a != b {
			t.Errorf("%s: %q in the dump's copy, %q in the source", q, b, a)
		}
	}
	runOK(t, "-C", dir, "dump", "-r", "csv")
	b, err := os.ReadFile(filepath.Join(dir, "doltdump", "u.csv"))
	if err != nil || string(b) != "k,n\na,18446744073709551615\nb,2\n" {
		t.Errorf("dump -r csv: %q, %v", b, err)
	}
}

// TestRmCommand: rm drops a committed table and stages the removal.
func TestRmCommand(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "rm", "t")
	if out := runOK(t, "-C", dir, "status"); !strings.Contains(out, "Changes to be committed") || !strings.Contains(out, "deleted:    t") {
		t.Errorf("status after rm:\n%s", out)
	}
	if msg := runFail(t, 1, "-C", dir, "rm", "nosuch"); !strings.Contains(msg, "nosuch") {
		t.Errorf("rm nosuch: %q", msg)
	}
}

// TestConfigCommand: config --global and --local keep user.name and
// user.email, which commits then record (the database's winning).
func TestConfigCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv(envName, "")
	t.Setenv(envEmail, "")
	runOK(t, "config", "--global", "--add", "user.name", "Ada Lovelace")
	runOK(t, "config", "--global", "--add", "user.email", "ada@example.com")
	if out := runOK(t, "config", "--get", "user.name"); out != "Ada Lovelace\n" {
		t.Errorf("--get: %q", out)
	}
	if out := runOK(t, "config", "--list"); out != "user.email = ada@example.com\nuser.name = Ada Lovelace\n" {
		t.Errorf("--list: %q", out)
	}
	dir := t.TempDir()
	runOK(t, "init", dir)
	runOK(t, "-C", dir, "commit", "--allow-empty", "-m", "x")
	if out := runOK(t, "-C", dir, "log", "-n", "1"); !strings.Contains(out, "Author: Ada Lovelace <ada@example.com>") {
		t.Errorf("the commit's author:\n%s", out)
	}
	// The database's settings win over the user's, in that database.
	runOK(t, "-C", dir, "config", "--local", "--add", "user.name", "Grace Hopper")
	if out := runOK(t, "-C", dir, "config", "--list"); out != "user.email = ada@example.com\nuser.name = Grace Hopper\n" {
		t.Errorf("--list in the database: %q", out)
	}
	if out := runOK(t, "config", "--get", "user.name"); out != "Ada Lovelace\n" {
		t.Errorf("--get outside it: %q", out)
	}
	runOK(t, "-C", dir, "commit", "--allow-empty", "-m", "y")
	if out := runOK(t, "-C", dir, "log", "-n", "1"); !strings.Contains(out, "Author: Grace Hopper <ada@example.com>") {
		t.Errorf("the commit's author with a local user.name:\n%s", out)
	}
	runOK(t, "config", "--global", "--unset", "user.name")
	runFail(t, 1, "config", "--get", "user.name")
	if msg := runFail(t, 2, "config", "--add", "k", "v"); !strings.Contains(msg, "--add and --unset need --global or --local") {
		t.Errorf("--add without a scope: %q", msg)
	}
	if msg := runFail(t, 1, "-C", t.TempDir(), "config", "--local", "--list"); !strings.Contains(msg, "no verso database") {
		t.Errorf("--local outside a database: %q", msg)
	}
}

// TestLogAndDiffFlags: log --merges, --author, --decorate and --stat;
// diff --stat, --cached and -r sql (whose statements, run on the first
// revision's rows, give the second's).
func TestLogAndDiffFlags(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name", "T", "--email", "t@x", dir)
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	runOK(t, "-C", dir, "commit", "-Am", "one", "--author", "Ada <ada@example.com>")
	runOK(t, "-C", dir, "checkout", "-b", "f")
	runOK(t, "-C", dir, "sql", "-q", "UPDATE t SET v = 'it''s' WHERE id = 1; INSERT INTO t VALUES (3, NULL)")
	runOK(t, "-C", dir, "commit", "-am", "two")
	runOK(t, "-C", dir, "checkout", "main")
	runOK(t, "-C", dir, "sql", "-q", "DELETE FROM t WHERE id = 2")
	runOK(t, "-C", dir, "commit", "-am", "three")
	runOK(t, "-C", dir, "merge", "--no-ff", "-m", "merged", "f")
	runOK(t, "-C", dir, "tag", "v1")

	if out := runOK(t, "-C", dir, "log", "--merges", "--oneline"); strings.Count(out, "\n") != 1 || !strings.Contains(out, "merged") {
		t.Errorf("--merges: %q", out)
	}
	if out := runOK(t, "-C", dir, "log", "--author", "^Ada$", "--oneline"); strings.Count(out, "\n") != 1 || !strings.Contains(out, " one") {
		t.Errorf("--author: %q", out)
	}
	if out := runOK(t, "-C", dir, "log", "--decorate", "full", "--oneline", "-n", "1"); !strings.Contains(out, "(HEAD -> refs/heads/main, tag: refs/tags/v1)") {
		t.Errorf("--decorate full: %q", out)
	}
	if out := runOK(t, "-C", dir, "log", "--decorate", "no", "--oneline", "-n", "1"); strings.Contains(out, "(") {
		t.Errorf("--decorate no: %q", out)
	}
	if out := runOK(t, "-C", dir, "log", "--stat", "-n", "1"); !strings.Contains(out, " t | 1 row added, 0 removed, 1 modified\n") {
		t.Errorf("--stat:\n%s", out)
	}

	runOK(t, "-C", dir, "sql", "-q", "INSERT INTO t VALUES (4, 'd')")
	runOK(t, "-C", dir, "add", "t")
	runOK(t, "-C", dir, "sql", "-q", "DELETE FROM t WHERE id = 1")
	if out := runOK(t, "-C", dir, "diff", "--stat"); out != " t | 1 row added, 1 removed, 0 modified\n" {
		t.Errorf("diff --stat: %q", out)
	}
	if out := runOK(t, "-C", dir, "diff", "--cached", "-r", "sql"); out != "INSERT INTO `t` VALUES ('4', 'd');\n" {
		t.Errorf("diff --cached -r sql: %q", out)
	}
	// The statements from main~1 (three) to f give f's rows.
	stmts := runOK(t, "-C", dir, "diff", "-r", "sql", "main~1", "f")
	runOK(t, "-C", dir, "reset", "--hard")
	runOK(t, "-C", dir, "checkout", "-b", "replay", "main~1")
	runOK(t, "-C", dir, "sql", "-q", stmts)
	q := "SELECT id, v FROM t ORDER BY id"
	if got, want := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", q), runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT id, v FROM t AS OF 'f' ORDER BY id"); got != want {
		t.Errorf("diff -r sql replayed: %q, want %q (statements:\n%s)", got, want, stmts)
	}
}

// TestCleanAndSchemaImport: clean drops only untracked tables; schema
// import makes a table that suits a file.
func TestCleanAndSchemaImport(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE scratch (i INT PRIMARY KEY); CREATE TABLE kept (i INT PRIMARY KEY); INSERT INTO t VALUES (9, 'x')")
	runOK(t, "-C", dir, "add", "kept")
	if out := runOK(t, "-C", dir, "clean", "--dry-run"); out != "would drop scratch\n" {
		t.Errorf("clean --dry-run: %q", out)
	}
	if out := runOK(t, "-C", dir, "clean"); out != "dropped scratch\n" {
		t.Errorf("clean: %q", out)
	}
	if out := runOK(t, "-C", dir, "ls"); out != "kept\nt\n" {
		t.Errorf("tables after clean: %q", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte("id,name,score\n1,a,1.5\n2,b,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE `people` (`id` BIGINT NOT NULL, `name` TEXT, `score` DOUBLE, PRIMARY KEY (`id`));\n"
	if out := runOK(t, "-C", dir, "schema", "import", "--create", "--pks", "id", "--dry-run", "people", "p.csv"); out != want {
		t.Errorf("schema import --dry-run: %q", out)
	}
	runOK(t, "-C", dir, "schema", "import", "-c", "--pks", "id", "people", "p.csv")
	runOK(t, "-C", dir, "table", "import", "-u", "people", "p.csv")
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT * FROM people ORDER BY id"); out != "id,name,score\n1,a,1.5\n2,b,2\n" {
		t.Errorf("the imported table: %q", out)
	}
}

// TestBlame: each row's commit is the last that wrote it, along first
// parents; a row untouched since the first commit that has the table is
// that commit's.
func TestBlame(t *testing.T) {
	dir := newTestRepo(t) // "add t": rows 1 and 2
	first := headHash(t, dir, "HEAD")
	runOK(t, "-C", dir, "sql", "-q", "UPDATE t SET v = 'uno' WHERE id = 1; INSERT INTO t VALUES (3, 'three')")
	runOK(t, "-C", dir, "commit", "-am", "second")
	second := headHash(t, dir, "HEAD")
	runOK(t, "-C", dir, "sql", "-q", "DELETE FROM t WHERE id = 3; INSERT INTO t VALUES (3, 'again')")
	runOK(t, "-C", dir, "commit", "-am", "third")
	third := headHash(t, dir, "HEAD")
	out := runOK(t, "-C", dir, "blame", "t")
	for id, want := range map[string]string{"1": second, "2": first, "3": third} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "| "+id+" ") {
				found = strings.Contains(line, want)
			}
		}
		if !found {
			t.Errorf("row %s is not %s's:\n%s", id, want, out)
		}
	}
	if out := runOK(t, "-C", dir, "blame", first, "t"); strings.Count(out, first) != 2 {
		t.Errorf("blame at the first commit:\n%s", out)
	}
	if msg := runFail(t, 1, "-C", dir, "blame", "nosuch"); !strings.Contains(msg, `no table "nosuch"`) {
		t.Errorf("blame nosuch: %q", msg)
	}
}

// TestReflogCommand: reflog lists the current branch's commits newest
// first, and --all the other refs' moves too.
func TestReflogCommand(t *testing.T) {
	dir := newTestRepo(t)
	runOK(t, "-C", dir, "branch", "f")
	runOK(t, "-C", dir, "commit", "--allow-empty", "-m", "second")
	out := runOK(t, "-C", dir, "reflog")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "(refs/heads/main) second") || !strings.HasSuffix(lines[1], "(refs/heads/main) add t") {
		t.Errorf("reflog:\n%s", out)
	}
	if out := runOK(t, "-C", dir, "reflog", "--all"); !strings.Contains(out, "(refs/heads/f) add t") {
		t.Errorf("reflog --all:\n%s", out)
	}
}

// TestStashCommand: stash, list, pop, drop, clear.
func TestStashCommand(t *testing.T) {
	dir := newTestRepo(t)
	if out := runOK(t, "-C", dir, "stash"); out != "No local changes to save\n" {
		t.Errorf("stash of nothing: %q", out)
	}
	runOK(t, "-C", dir, "sql", "-q", "UPDATE t SET v = 'changed' WHERE id = 1")
	if out := runOK(t, "-C", dir, "stash", "-m", "my change"); out != "Saved working directory and index state my change\n" {
		t.Errorf("stash: %q", out)
	}
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT v FROM t WHERE id = 1"); out != "v\none\n" {
		t.Errorf("after stash: %q", out)
	}
	if out := runOK(t, "-C", dir, "stash", "list"); out != "stash@{0}: my change\n" {
		t.Errorf("stash list: %q", out)
	}
	runOK(t, "-C", dir, "stash", "pop")
	if out := runOK(t, "-C", dir, "sql", "-r", "csv", "-q", "SELECT v FROM t WHERE id = 1"); out != "v\nchanged\n" {
		t.Errorf("after pop: %q", out)
	}
	runOK(t, "-C", dir, "stash")
	runOK(t, "-C", dir, "stash", "drop", "stash@{0}")
	if out := runOK(t, "-C", dir, "stash", "list"); out != "" {
		t.Errorf("stash list after drop: %q", out)
	}
	if msg := runFail(t, 1, "-C", dir, "stash", "pop"); !strings.Contains(msg, "no such stash") {
		t.Errorf("pop of no stash: %q", msg)
	}
	if msg := runFail(t, 1, "-C", dir, "stash", "frob"); !strings.Contains(msg, "is not push, list") {
		t.Errorf("stash frob: %q", msg)
	}
}
