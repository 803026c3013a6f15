package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/sqlserver"
)

// sqlIn runs statements over the database in dir, as verso sql would.
func sqlIn(t *testing.T, dir string, stmts ...string) {
	t.Helper()
	p := sqlserver.NewMemoryProvider()
	defer p.Close()
	if err := p.AddDatabaseDir(filepath.Base(dir), dir); err != nil {
		t.Fatal(err)
	}
	e := sqlserver.NewEngine(p)
	defer e.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	ctx.SetCurrentDatabase(filepath.Base(dir))
	for _, s := range stmts {
		_, it, _, err := e.Query(ctx, s)
		if err == nil {
			_, err = sql.RowIterToRows(ctx, it)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestVersioningCommands(t *testing.T) {
	t.Setenv(envName, "Ada Lovelace")
	t.Setenv(envEmail, "ada@example.com")
	dir := t.TempDir()
	runOK(t, "init", dir)
	if got := runOK(t, "-C", dir, "status"); got != "On branch main\nnothing to commit, working tree clean\n" {
		t.Fatalf("status of a new database:\n%s", got)
	}
	sqlIn(t, dir, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
	if got := runOK(t, "-C", dir, "status"); got != "On branch main\nUntracked tables:\n\tnew table:  t\n" {
		t.Fatalf("status with a new table:\n%s", got)
	}
	if msg := runFail(t, 1, "-C", dir, "commit", "-m", "nothing"); !strings.Contains(msg, "nothing to commit: no changes are staged") {
		t.Fatalf("commit with nothing staged said %q", msg)
	}
	runOK(t, "-C", dir, "add", "t")
	if got := runOK(t, "-C", dir, "status"); got != "On branch main\nChanges to be committed:\n\tnew table:  t\n" {
		t.Fatalf("status after add:\n%s", got)
	}
	out := runOK(t, "-C", dir, "commit", "-m", "create t")
	if !regexp.MustCompile(`^\[main [0-9a-v]{32}\] create t\n$`).MatchString(out) {
		t.Fatalf("commit printed %q", out)
	}
	sqlIn(t, dir, "UPDATE t SET v = 2")
	if got := runOK(t, "-C", dir, "status"); got != "On branch main\nChanges not staged for commit:\n\tmodified:   t\n" {
		t.Fatalf("status after an update:\n%s", got)
	}
	runOK(t, "-C", dir, "commit", "-am", "v = 2")

	runOK(t, "-C", dir, "branch", "side", "HEAD~1")
	if got := runOK(t, "-C", dir, "branch"); got != "* main\n  side\n" {
		t.Fatalf("branch listed\n%s", got)
	}
	if got := runOK(t, "-C", dir, "checkout", "side"); got != "Switched to branch 'side'\n" {
		t.Fatalf("checkout printed %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".verso", "HEAD")); string(b) != "side\n" {
		t.Fatalf(".verso/HEAD holds %q after checkout", b)
	}
	if got := runOK(t, "-C", dir, "branch"); got != "  main\n* side\n" {
		t.Fatalf("branch listed after checkout\n%s", got)
	}
	if msg := runFail(t, 1, "-C", dir, "checkout", "nope"); !strings.Contains(msg, `no branch or table named "nope"`) {
		t.Fatalf("checkout of an unknown branch said %q", msg)
	}
	if msg := runFail(t, 1, "-C", dir, "branch", "-d", "side"); !strings.Contains(msg, `cannot delete the checked out branch "side"`) {
		t.Fatalf("deleting the current branch said %q", msg)
	}
	sqlIn(t, dir, "INSERT INTO t VALUES (2, 2)")
	runOK(t, "-C", dir, "commit", "-am", "row 2 on side")
	runOK(t, "-C", dir, "tag", "v1", "-m", "first tag")
	if got := runOK(t, "-C", dir, "tag"); got != "v1\n" {
		t.Fatalf("tag listed %q", got)
	}
	if msg := runFail(t, 1, "-C", dir, "tag", "-v", "v2"); !strings.Contains(msg, "verso tag without arguments lists the tags") {
		t.Fatalf("tag -v said %q", msg)
	}
	sqlIn(t, dir, "DELETE FROM t")
	runOK(t, "-C", dir, "reset", "--hard")
	if got := runOK(t, "-C", dir, "status"); got != "On branch side\nnothing to commit, working tree clean\n" {
		t.Fatalf("status after reset --hard:\n%s", got)
	}
	runOK(t, "-C", dir, "checkout", "main")

	// A merge commit of side into main, written through the library until
	// dolt_merge is there, to draw the graph.
	db, err := verso.Open(dir, verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := db.Graph()
	ctx := context.Background()
	head, ws, err := g.BranchState(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	side, err := g.Head(ctx, "side")
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.WriteCommit(ctx, head.Root, []chunks.Address{head.Addr, side}, commitgraph.Meta{Author: identity("", "", ""), Message: "merge side"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UpdateBranch(ctx, "main", commitgraph.BranchUpdate{ExpectedHead: head.Addr, ExpectedWorkingSet: ws, Head: m.Addr, WorkingSet: ws}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	graph := runOK(t, "-C", dir, "log", "--graph")
	h := regexp.MustCompile(`[0-9a-v]{32}`)
	got := h.ReplaceAllString(graph, "H")
	// main and side both hold "create t" (height 2); "v = 2" and "row 2
	// on side" are at height 3, in time order.
	want := `*   H (HEAD -> main) merge side
|\
| * H (side, tag: v1) row 2 on side
* | H v = 2
|/
* H create t
* H Initialize data repository
`
	if got != want {
		t.Fatalf("log --graph printed\n%s\nwant\n%s", got, want)
	}
}

// TestMergeCommand runs verso merge: a fast-forward, a merge commit, and a
// conflict, which fails the command and blocks commit until resolved. It
// needs dolt_merge, which another branch (tablemerge) brings.
func TestMergeCommand(t *testing.T) {
	if _, ok := sqlserver.ProcedureRegistered("dolt_merge"); !ok {
		t.Skip("dolt_merge is not registered in this build (it comes with the tablemerge branch)")
	}
	t.Setenv(envName, "Ada Lovelace")
	t.Setenv(envEmail, "ada@example.com")
	dir := t.TempDir()
	runOK(t, "init", dir)
	sqlIn(t, dir, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1), (2, 2)")
	runOK(t, "-C", dir, "commit", "-Am", "create t")
	runOK(t, "-C", dir, "checkout", "-b", "feature")
	sqlIn(t, dir, "UPDATE t SET v = 10 WHERE pk = 1")
	runOK(t, "-C", dir, "commit", "-am", "v1 = 10")
	runOK(t, "-C", dir, "checkout", "main")
	out := runOK(t, "-C", dir, "merge", "feature")
	if !strings.Contains(out, "commit ") {
		t.Fatalf("fast-forward merge printed %q", out)
	}
	if got := runOK(t, "-C", dir, "log", "--oneline", "-n", "1"); !strings.Contains(got, "(HEAD -> main, feature) v1 = 10") {
		t.Fatalf("after the fast-forward, log printed %q", got)
	}

	// Diverge on the same row: a conflict.
	sqlIn(t, dir, "UPDATE t SET v = 20 WHERE pk = 2")
	runOK(t, "-C", dir, "commit", "-am", "main: v2 = 20")
	runOK(t, "-C", dir, "checkout", "feature")
	sqlIn(t, dir, "UPDATE t SET v = 30 WHERE pk = 2")
	runOK(t, "-C", dir, "commit", "-am", "feature: v2 = 30")
	runOK(t, "-C", dir, "checkout", "main")
	var stdout, stderr strings.Builder
	if code := run([]string{"-C", dir, "merge", "feature"}, &stdout, &stderr); code != 1 {
		t.Fatalf("conflicting merge exited %d; stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "CONFLICT: 1 tables have conflicts") {
		t.Fatalf("conflicting merge printed %q", stdout.String())
	}
	if got := runOK(t, "-C", dir, "status"); !strings.Contains(got, "Unmerged tables") {
		t.Fatalf("status during the conflict:\n%s", got)
	}
	if msg := runFail(t, 1, "-C", dir, "commit", "-Am", "merge"); !strings.Contains(msg, "cannot commit: unresolved merge conflicts in t") {
		t.Fatalf("commit with conflicts said %q", msg)
	}
	runOK(t, "-C", dir, "merge", "--abort")
	if got := runOK(t, "-C", dir, "status"); got != "On branch main\nnothing to commit, working tree clean\n" {
		t.Fatalf("status after merge --abort:\n%s", got)
	}
}
