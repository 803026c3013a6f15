package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/remotes"
	"github.com/verso-db/verso/sqlserver"
)

// runAll runs the command line and returns its exit code, stdout and
// stderr.
func runAll(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// logHashes is the hashes and subjects of a database's log.
func logHashes(t *testing.T, dir, rev string) string {
	t.Helper()
	return runOK(t, "-C", dir, "log", "--oneline", "--decorate", "no", rev)
}

// TestRemoteCommands: remote add, list and remove; push to a file://
// remote, clone, fetch, pull with a fast-forward, a merge and a conflict;
// a rejected push and --force; a remote branch deleted and pruned;
// upstreams; and the errors, each with a clear message and exit 1 (2 for
// a usage error).
func TestRemoteCommands(t *testing.T) {
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	remoteDir := filepath.Join(base, "srv", "shop")
	url := "file://" + filepath.ToSlash(remoteDir)
	runOK(t, "init", a)
	sqlIn(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'one')")
	runOK(t, "-C", a, "commit", "-Am", "one")

	// remote: add (a relative file URL, made absolute; the folder is
	// made), list, and the refusals.
	if out := runOK(t, "-C", a, "remote"); out != "" {
		t.Fatalf("remote with no remotes printed %q", out)
	}
	runOK(t, "-C", a, "remote", "add", "origin", "file://../srv/shop")
	if fi, err := os.Stat(remoteDir); err != nil || !fi.IsDir() {
		t.Fatalf("remote add did not make the remote's folder: %v", err)
	}
	if out := runOK(t, "-C", a, "remote"); out != "origin\n" {
		t.Fatalf("remote printed %q", out)
	}
	if out := runOK(t, "-C", a, "remote", "-v"); out != "origin "+url+"\n" {
		t.Fatalf("remote -v printed %q, want %q", out, "origin "+url+"\n")
	}
	if msg := runFail(t, 1, "-C", a, "remote", "add", "origin", url); !strings.Contains(msg, `a remote named "origin" exists already`) {
		t.Fatalf("adding origin twice said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "remote", "add", "x", "/tmp/x"); !strings.Contains(msg, "has no scheme") {
		t.Fatalf("a URL without a scheme said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "remote", "add", "x", "https://example.com/x"); !strings.Contains(msg, "file:///path and s3://bucket/prefix") {
		t.Fatalf("an https URL said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "remote", "rm", "nosuch"); !strings.Contains(msg, `unknown remote "nosuch"`) {
		t.Fatalf("remote rm nosuch said %q", msg)
	}
	runFail(t, 2, "-C", a, "remote", "add", "x")
	runFail(t, 2, "-C", a, "remote", "frob")

	// push: a new branch, then up to date; without a refspec it needs an
	// upstream, which -u sets.
	if out := runOK(t, "-C", a, "push", "origin", "main"); out != "To "+url+"\n * [new branch]          main -> main\n" {
		t.Fatalf("the first push printed %q", out)
	}
	if out := runOK(t, "-C", a, "push", "origin", "main"); out != "Everything up-to-date\n" {
		t.Fatalf("a second push printed %q", out)
	}
	if msg := runFail(t, 1, "-C", a, "push"); !strings.Contains(msg, "the current branch main has no upstream branch") || !strings.Contains(msg, "verso push --set-upstream origin main") {
		t.Fatalf("push without an upstream said %q", msg)
	}
	if out := runOK(t, "-C", a, "push", "-u", "origin", "main"); !strings.Contains(out, "branch 'main' set up to track 'origin/main'.") {
		t.Fatalf("push -u printed %q", out)
	}
	if out := runOK(t, "-C", a, "push"); out != "Everything up-to-date\n" {
		t.Fatalf("push to the upstream printed %q", out)
	}

	// clone: every commit, the remote as origin, main tracking
	// origin/main; the folder is named after the remote's by default.
	out := runOK(t, "-C", base, "clone", url)
	if !strings.Contains(out, "cloning "+url+" into "+filepath.Join(base, "shop")) || !strings.Contains(out, "on branch main, tracking origin/main") {
		t.Fatalf("clone printed %q", out)
	}
	if got := runOK(t, "-C", filepath.Join(base, "shop"), "branch", "-a"); got != "* main\n  remotes/origin/main\n" {
		t.Fatalf("branch -a in the clone:\n%s", got)
	}
	runOK(t, "-C", base, "clone", url, "b")
	if got, want := logHashes(t, b, "main"), logHashes(t, a, "main"); got != want {
		t.Fatalf("the clone's log\n%s\nthe original's\n%s", got, want)
	}
	if got, want := logHashes(t, b, "origin/main"), logHashes(t, a, "main"); got != want {
		t.Fatalf("the clone's origin/main\n%s", got)
	}
	if out := runOK(t, "-C", b, "remote", "-v"); out != "origin "+url+"\n" {
		t.Fatalf("the clone's remotes: %q", out)
	}
	if out := runOK(t, "-C", b, "pull"); !strings.Contains(out, msgUpToDate) {
		t.Fatalf("pull in a fresh clone printed %q", out)
	}

	// A commit on a, pushed to the upstream: a fast-forward of the
	// remote; b fetches it, then pulls it as a fast-forward.
	old := head(t, a)
	sqlIn(t, a, "INSERT INTO t VALUES (2, 'two')")
	runOK(t, "-C", a, "commit", "-am", "two")
	two := head(t, a)
	if out := runOK(t, "-C", a, "push"); out != "To "+url+"\n   "+old+".."+two+" main -> main\n" {
		t.Fatalf("a fast-forward push printed %q", out)
	}
	if out := runOK(t, "-C", b, "fetch"); out != "From "+url+"\n   "+old+".."+two+" main -> origin/main\n" {
		t.Fatalf("fetch printed %q", out)
	}
	if out := runOK(t, "-C", b, "fetch", "origin"); out != "" {
		t.Fatalf("a fetch with nothing new printed %q", out)
	}
	if out := runOK(t, "-C", b, "pull"); out != "Updating "+old+".."+two+"\nFast-forward\n"+msgMergeOK+"\ncommit "+two+"\n" {
		t.Fatalf("a fast-forward pull printed %q", out)
	}
	if logHashes(t, a, "main") != logHashes(t, b, "main") {
		t.Fatal("a and b differ after the fast-forward pull")
	}

	// Diverge: b pushes first, a's push is rejected until it pulls (a
	// merge commit) and pushes again.
	sqlIn(t, b, "INSERT INTO t VALUES (10, 'b')")
	runOK(t, "-C", b, "commit", "-am", "b's row")
	runOK(t, "-C", b, "push", "origin", "main")
	sqlIn(t, a, "INSERT INTO t VALUES (20, 'a')")
	runOK(t, "-C", a, "commit", "-am", "a's row")
	code, sout, serr := runAll("-C", a, "push", "origin", "main")
	if code != 1 || sout != "" || !strings.Contains(serr, " ! [rejected]            main -> main (non-fast-forward)") ||
		!strings.Contains(serr, "failed to push some refs to '"+url+"'") || !strings.Contains(serr, "--force") {
		t.Fatalf("a stale push: exit %d, stdout %q, stderr %q", code, sout, serr)
	}
	out = runOK(t, "-C", a, "pull", "origin", "main")
	if !strings.Contains(out, " main -> origin/main\n") || !regexp.MustCompile(msgMergeOK+`\ncommit [0-9a-v]{32}\n$`).MatchString(out) || strings.Contains(out, "Fast-forward") {
		t.Fatalf("a merging pull printed %q", out)
	}
	if got := runOK(t, "-C", a, "log", "-n", "1"); !strings.Contains(got, "Merge branch 'main' of "+url+" into main") || !strings.Contains(got, "Merge: ") {
		t.Fatalf("the pull's merge commit:\n%s", got)
	}
	runOK(t, "-C", a, "push")
	runOK(t, "-C", b, "pull")
	if logHashes(t, a, "main") != logHashes(t, b, "main") {
		t.Fatal("a and b differ after the merge")
	}
	if got := runOK(t, "-C", b, "sql", "-r", "csv", "-q", "SELECT id FROM t ORDER BY id"); got != "id\n1\n2\n10\n20\n" {
		t.Fatalf("b's rows after the round trip: %q", got)
	}

	// A conflict: both change row 1; the pull fails with the conflict in
	// the working set, as verso merge leaves it.
	sqlIn(t, b, "UPDATE t SET v = 'from b' WHERE id = 1")
	runOK(t, "-C", b, "commit", "-am", "b: row 1")
	runOK(t, "-C", b, "push")
	sqlIn(t, a, "UPDATE t SET v = 'from a' WHERE id = 1")
	runOK(t, "-C", a, "commit", "-am", "a: row 1")
	code, sout, serr = runAll("-C", a, "pull")
	if code != 1 || !strings.Contains(sout, "CONFLICT: 1 tables have conflicts") {
		t.Fatalf("a conflicting pull: exit %d, stdout %q, stderr %q", code, sout, serr)
	}
	if got := runOK(t, "-C", a, "status"); !strings.Contains(got, "Unmerged tables") {
		t.Fatalf("status after a conflicting pull:\n%s", got)
	}
	runOK(t, "-C", a, "merge", "--abort")

	// --force: a's main, which lacks b's commit, replaces the remote's.
	mine, theirs := head(t, a), head(t, b)
	runFail(t, 1, "-C", a, "push")
	if out := runOK(t, "-C", a, "push", "--force"); out != "To "+url+"\n + "+theirs+"..."+mine+" main -> main (forced update)\n" {
		t.Fatalf("a forced push printed %q", out)
	}
	if out := runOK(t, "-C", b, "fetch"); out != "From "+url+"\n + "+theirs+"..."+mine+" main -> origin/main (forced update)\n" {
		t.Fatalf("fetch after a forced push printed %q", out)
	}
	runOK(t, "-C", b, "reset", "--hard", "origin/main")

	// A branch pushed under another name, fetched, deleted on the
	// remote, and pruned.
	if out := runOK(t, "-C", a, "push", "origin", "main:other"); out != "To "+url+"\n * [new branch]          main -> other\n" {
		t.Fatalf("push main:other printed %q", out)
	}
	if out := runOK(t, "-C", b, "fetch"); out != "From "+url+"\n * [new branch]          other -> origin/other\n" {
		t.Fatalf("fetch of a new branch printed %q", out)
	}
	if out := runOK(t, "-C", a, "push", "origin", ":other"); out != "To "+url+"\n - [deleted]             other\n" {
		t.Fatalf("deleting other printed %q", out)
	}
	if msg := runFail(t, 1, "-C", a, "push", "origin", ":other"); !strings.Contains(msg, `the remote origin has no branch "other" to delete`) {
		t.Fatalf("deleting a missing branch said %q", msg)
	}
	if out := runOK(t, "-C", b, "fetch"); out != "" {
		t.Fatalf("fetch without --prune printed %q", out)
	}
	if out := runOK(t, "-C", b, "fetch", "-p"); out != "From "+url+"\n - [deleted]             (none) -> origin/other\n" {
		t.Fatalf("fetch --prune printed %q", out)
	}
	if got := runOK(t, "-C", b, "branch", "-a"); strings.Contains(got, "other") {
		t.Fatalf("origin/other after the prune:\n%s", got)
	}

	// Errors: an unknown remote, a missing branch or folder, a folder
	// that is not empty; a failed clone leaves nothing behind.
	for _, args := range [][]string{{"fetch", "nosuch"}, {"push", "nosuch", "main"}, {"pull", "nosuch", "main"}} {
		if msg := runFail(t, 1, append([]string{"-C", a}, args...)...); !strings.Contains(msg, `unknown remote "nosuch"`) {
			t.Errorf("%v said %q", args, msg)
		}
	}
	if msg := runFail(t, 1, "-C", a, "fetch", "origin", "nosuch"); !strings.Contains(msg, `the remote origin has no branch "nosuch"`) {
		t.Errorf("fetch of a missing branch said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "pull", "origin", "nosuch"); !strings.Contains(msg, `the remote origin has no branch "nosuch"`) {
		t.Errorf("pull of a missing branch said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "push", "origin", "nosuch"); !strings.Contains(msg, `"nosuch" matches no branch, tag or commit`) {
		t.Errorf("push of a missing branch said %q", msg)
	}
	runOK(t, "-C", a, "branch", "lone")
	runOK(t, "-C", a, "checkout", "lone")
	if msg := runFail(t, 1, "-C", a, "pull"); !strings.Contains(msg, "no tracking information for the current branch lone") {
		t.Errorf("pull without an upstream said %q", msg)
	}
	if msg := runFail(t, 1, "-C", a, "pull", "origin"); !strings.Contains(msg, "did not name a branch") {
		t.Errorf("pull origin without an upstream said %q", msg)
	}
	runOK(t, "-C", a, "checkout", "main")
	missing := filepath.Join(base, "nowhere")
	if msg := runFail(t, 1, "-C", base, "clone", "file://"+filepath.ToSlash(missing), "c"); !strings.Contains(msg, "the folder "+missing+" does not exist") {
		t.Errorf("clone of a missing folder said %q", msg)
	}
	if msg := runFail(t, 1, "-C", base, "clone", url, "a"); !strings.Contains(msg, "already holds a database") {
		t.Errorf("clone into a database said %q", msg)
	}
	if msg := runFail(t, 1, "-C", base, "clone", "-b", "nosuch", url, "c"); !strings.Contains(msg, `has no branch "nosuch"`) {
		t.Errorf("clone -b nosuch said %q", msg)
	}
	for _, d := range []string{"c", "nowhere"} {
		if _, err := os.Stat(filepath.Join(base, d)); !os.IsNotExist(err) {
			t.Errorf("a failed clone left %s: %v", d, err)
		}
	}
	runFail(t, 2, "-C", a, "push", "origin", "main", "extra")
	runFail(t, 2, "-C", a, "push", "-u", "origin", ":main")
	runFail(t, 2, "-C", a, "pull", "--no-ff", "--ff-only")
	runFail(t, 2, "-C", base, "clone")

	// remove: the remote and its remote-tracking branches go.
	runOK(t, "-C", b, "remote", "remove", "origin")
	if out := runOK(t, "-C", b, "remote", "-v"); out != "" {
		t.Fatalf("remotes after remove: %q", out)
	}
	if got := runOK(t, "-C", b, "branch", "-a"); strings.Contains(got, "origin/") {
		t.Fatalf("remote-tracking branches after remove:\n%s", got)
	}
	for _, d := range []string{a, b} {
		runOK(t, "-C", d, "fsck")
	}
}

// head is the hash of a database's current commit.
func head(t *testing.T, dir string) string {
	t.Helper()
	return strings.Fields(runOK(t, "-C", dir, "log", "--oneline", "-n", "1", "--decorate", "no"))[0]
}

// TestRemoteProcesses runs the commands as separate processes, the way a
// user does: exit codes, and no progress output when stderr is not a
// terminal.
func TestRemoteProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	base := t.TempDir()
	verso := func(want int, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "VERSO_TEST_AS_VERSO=1", envName+"=Ada", envEmail+"=ada@example.com")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Fatalf("verso %v: exit %d, want %d; stdout %q, stderr %q", args, code, want, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	url := "file://" + filepath.ToSlash(filepath.Join(base, "remote"))
	verso(0, "init", a)
	verso(0, "-C", a, "sql", "-q", "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)")
	verso(0, "-C", a, "commit", "-Am", "one")
	verso(0, "-C", a, "remote", "add", "origin", url)
	if _, serr := verso(0, "-C", a, "push", "-u", "origin", "main"); serr != "" {
		t.Errorf("push wrote to a stderr that is not a terminal: %q", serr)
	}
	if _, serr := verso(0, "clone", url, b); serr != "" {
		t.Errorf("clone wrote to a stderr that is not a terminal: %q", serr)
	}
	verso(0, "-C", a, "sql", "-q", "INSERT INTO t VALUES (2)")
	verso(0, "-C", a, "commit", "-am", "two")
	verso(0, "-C", a, "push")
	if out, serr := verso(0, "-C", b, "pull"); !strings.Contains(out, "Fast-forward") || serr != "" {
		t.Errorf("pull: stdout %q, stderr %q", out, serr)
	}
	if out, _ := verso(0, "-C", b, "sql", "-r", "csv", "-q", "SELECT COUNT(*) AS n FROM t"); out != "n\n2\n" {
		t.Errorf("b's rows after the pull: %q", out)
	}
	verso(1, "-C", b, "fetch", "nosuch")
	verso(1, "clone", "file://"+filepath.ToSlash(filepath.Join(base, "nowhere")), filepath.Join(base, "c"))
	verso(2, "-C", b, "push", "--bogus")
}

// TestRemoteCommandsBesideServer: while a server holds the database,
// remote lists it read-only, and remote add, push and fetch run their
// procedures through the server.
func TestRemoteCommandsBesideServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	data := t.TempDir()
	shop := filepath.Join(data, "shop")
	remoteDir := filepath.Join(t.TempDir(), "remote")
	url := "file://" + filepath.ToSlash(remoteDir)
	runOK(t, "init", shop)
	runOK(t, "-C", shop, "remote", "add", "local", url)
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	var sout, serr syncBuffer
	go func() {
		exited <- serveSQL("", []string{"--data-dir", data, "--port", "0", "--socket", ""}, &sout, &serr, stop)
	}()
	defer func() {
		stop <- os.Interrupt
		<-exited
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(sout.String(), "listening on") && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if out := runOK(t, "-C", shop, "remote", "-v"); out != "local "+url+"\n" {
		t.Fatalf("remote -v beside the server: %q", out)
	}
	for _, proc := range []string{"dolt_remote", "dolt_push", "dolt_fetch"} {
		if _, ok := sqlserver.ProcedureRegistered(proc); !ok {
			t.Skipf("%s is not registered in this build", proc)
		}
	}
	code, _, errOut := runAll("-C", shop, "remote", "add", "origin", url)
	if code != 0 || !strings.Contains(errOut, "running CALL dolt_remote through it") {
		t.Fatalf("remote add beside the server: exit %d, stderr %q", code, errOut)
	}
	if out := runOK(t, "-C", shop, "remote"); out != "local\norigin\n" {
		t.Fatalf("remotes after an add through the server: %q", out)
	}
	code, _, errOut = runAll("-C", shop, "push", "origin", "main")
	if code != 0 || !strings.Contains(errOut, "running CALL dolt_push through it") {
		t.Fatalf("push beside the server: exit %d, stderr %q", code, errOut)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	runOK(t, "clone", url, clone)
	if got, want := logHashes(t, clone, "main"), logHashes(t, shop, "main"); got != want {
		t.Fatalf("a clone of what the server pushed:\n%s\nthe server's:\n%s", got, want)
	}
	code, _, errOut = runAll("-C", shop, "fetch", "nosuch")
	if code != 1 || !strings.Contains(errOut, "nosuch") {
		t.Fatalf("fetch of an unknown remote beside the server: exit %d, stderr %q", code, errOut)
	}
}

// TestTransferDisplay: the progress line (redrawn by its ticker while
// the engine is between reports) counts chunks and bytes and
// ends with what was moved and the rate; off a terminal there is none,
// and a nil display takes every call.
func TestTransferDisplay(t *testing.T) {
	var buf syncBuffer
	d := newTransferDisplay(&buf, false, 5*time.Millisecond)
	d.update(remotes.Progress{Chunks: 2, Bytes: 1024})
	time.Sleep(100 * time.Millisecond)
	d.update(remotes.Progress{Chunks: 3, Bytes: 3 << 10, Done: true})
	d.finish(true)
	d.finish(true)
	out := buf.String()
	if !strings.Contains(out, "receiving 2 chunks (1.0 KiB") || !regexp.MustCompile(`received 3 chunks, 3\.0 KiB in [0-9.]+m?s \([0-9.]+ (bytes|KiB|MiB)/s\)\n$`).MatchString(out) {
		t.Fatalf("the display wrote %q", out)
	}
	var plain bytes.Buffer
	if p := transferProgress(&plain, true); p != nil {
		t.Fatal("a display on a buffer, which is not a terminal")
	}
	var none *transferDisplay
	none.update(remotes.Progress{Chunks: 1})
	none.finish(true)
	if none.callback() != nil {
		t.Fatal("a nil display gave a callback")
	}
}
