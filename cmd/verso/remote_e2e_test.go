package main

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/internal/testseed"
	"github.com/verso-db/verso/remotes"
)

// End-to-end tests of remotes over real processes: verso sql-server
// processes (this test binary run as verso, see TestMain) sharing a
// file:// remote, a clone of a long history, and pushes killed with
// SIGKILL. Each reads the remote back in this process through package
// remotes, so that what the servers say is checked against what the
// remote holds.

// e2eConn is one connection to a server process, so that USE and session
// variables hold from one statement to the next.
type e2eConn struct {
	t    *testing.T
	name string // the server's, for messages
	c    *gosql.Conn
}

// dialE2E opens a connection as root to the server at addr.
func dialE2E(t *testing.T, name, addr string) *e2eConn {
	t.Helper()
	pool, err := gosql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	c, err := pool.Conn(context.Background())
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return &e2eConn{t: t, name: name, c: c}
}

// exec runs statements, failing the test at the first error.
func (c *e2eConn) exec(qs ...string) {
	c.t.Helper()
	for _, q := range qs {
		if _, err := c.c.ExecContext(context.Background(), q); err != nil {
			c.t.Fatalf("%s: %s: %v", c.name, q, err)
		}
	}
}

// query returns a query's rows as text (NULL as "NULL").
func (c *e2eConn) query(q string) [][]string {
	c.t.Helper()
	rows, err := c.try(q)
	if err != nil {
		c.t.Fatalf("%s: %s: %v", c.name, q, err)
	}
	return rows
}

// try runs q and returns its rows or its error.
func (c *e2eConn) try(q string) ([][]string, error) {
	rows, err := c.c.QueryContext(context.Background(), q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		raw := make([]gosql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, b := range raw {
			row[i] = "NULL"
			if b != nil {
				row[i] = string(b)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// one returns the single value of a query of one row and one column.
func (c *e2eConn) one(q string) string {
	c.t.Helper()
	rows := c.query(q)
	if len(rows) != 1 || len(rows[0]) != 1 {
		c.t.Fatalf("%s: %s: %v, want one value", c.name, q, rows)
	}
	return rows[0][0]
}

// expect fails the test unless q returns want.
func (c *e2eConn) expect(q string, want ...[]string) {
	c.t.Helper()
	got := c.query(q)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		c.t.Fatalf("%s: %s:\n got %q\nwant %q", c.name, q, got, want)
	}
}

// fail runs q and returns its error as the server sent it, failing the
// test if q succeeds or the error is not a server's.
func (c *e2eConn) fail(q string) *gomysql.MySQLError {
	c.t.Helper()
	_, err := c.try(q)
	if err == nil {
		c.t.Fatalf("%s: %s succeeded", c.name, q)
	}
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		c.t.Fatalf("%s: %s: %v, not a server's error", c.name, q, err)
	}
	return me
}

// row is a row of text values, to write expected rows short.
func row(vs ...string) []string { return vs }

// logColumns are dolt_log's columns a clone must keep: all but refs,
// which names the clone's own branches.
const logColumns = "commit_hash, committer, email, date, message, commit_order, parents, author, author_email, author_date"

// head is the hash of the commit a revision names on c's database.
func (c *e2eConn) head(rev string) string {
	c.t.Helper()
	return c.one("SELECT HASHOF('" + rev + "')")
}

// rejected is Dolt's error for a push of main that is not a fast-forward.
func rejected(url string) string {
	return "To " + url + "\n" +
		" ! [rejected]            main -> main (non-fast-forward)\n" +
		"error: failed to push some refs to '" + url + "'\n" +
		"hint: Updates were rejected because the tip of your current branch is behind\n" +
		"hint: its remote counterpart. Integrate the remote changes (e.g.\n" +
		"hint: 'dolt pull ...') before pushing again.\n"
}

// isRejection reports whether err is Dolt's non-fast-forward rejection.
func isRejection(err error, url string) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && me.Number == 1105 && me.Message == rejected(url)
}

// fileURL is the file:// URL of the folder dir.
func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

// readRemote opens the file:// remote in dir as a reader in this process
// would, reads its refs and copies everything they reach into a memory
// store; the copy is then checked as verso fsck checks a database (every
// commit, closure, table and index). It returns the remote's refs by
// name.
func readRemote(t *testing.T, dir string) map[string]chunks.Address {
	t.Helper()
	refs, err := readRemoteWhole(dir)
	if err != nil {
		t.Fatalf("the remote %s does not read whole: %v", dir, err)
	}
	return refs
}

func readRemoteWhole(dir string) (map[string]chunks.Address, error) {
	ctx := context.Background()
	bs, err := remotes.OpenFile(dir)
	if err != nil {
		return nil, err
	}
	rs, err := remotes.Open(ctx, bs)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer rs.Close()
	refs, err := remotes.Refs(ctx, rs)
	if err != nil {
		return nil, fmt.Errorf("refs: %w", err)
	}
	mem := chunks.NewMemoryStore()
	if _, err := remotes.FetchRefs(ctx, rs, mem, refs, remotes.CopyOptions{TempDir: os.TempDir()}); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	out := map[string]chunks.Address{}
	for _, r := range refs {
		out[r.Name] = r.Addr
	}
	if len(refs) == 0 {
		return out, nil
	}
	err = commitgraph.New(mem).UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
		for _, r := range refs {
			tx.Set(r.Name, r.Addr)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("set the copy's refs: %w", err)
	}
	db, err := verso.OpenStore("remote", mem, verso.Options{})
	if err != nil {
		return nil, fmt.Errorf("open the copy: %w", err)
	}
	defer db.Close()
	rep, err := db.Check(ctx, verso.CheckOptions{})
	if err != nil {
		return nil, fmt.Errorf("check the copy: %w", err)
	}
	if !rep.OK() {
		return nil, fmt.Errorf("the copy has %d problems: %v", rep.Count(), rep.Problems)
	}
	return out, nil
}

// TestRemoteE2ETwoServers: two verso sql-server processes, each on its
// own data dir, share a file:// remote through Dolt's procedures: A
// pushes, B clones; both commit, B pushes and A pulls with a merge; a
// pull with a conflict, resolved; a rejected push and --force; a branch
// deleted on the remote and pruned on the other side; then rounds of two
// diverged pushes to main at the same time, of which exactly one wins
// while the other gets Dolt's rejection, and the remote reads whole at the
// winner's commit. After each step the remote is read back in this
// process.
func TestRemoteE2ETwoServers(t *testing.T) {
	remoteDir, url := e2eRemote(t)
	_, addrA := startChildServer(t, t.TempDir())
	t.Setenv(envName, "Bob")
	t.Setenv(envEmail, "bob@example.com")
	_, addrB := startChildServer(t, t.TempDir())
	a, b := dialE2E(t, "A", addrA), dialE2E(t, "B", addrB)
	mainOnRemote := func() string {
		t.Helper()
		return readRemote(t, remoteDir)["refs/heads/main"].String()
	}
	sameLog := func() { t.Helper(); sameHistory(t, a, b) }

	// A makes the database and pushes it, setting main's upstream.
	a.exec("CREATE DATABASE shop", "USE shop",
		"CREATE TABLE t (pk INT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 1), (2, 2)")
	a.query("CALL dolt_commit('-Am', 'first')")
	a.expect("CALL dolt_remote('add', 'origin', '"+url+"')", row("0"))
	a.expect("CALL dolt_push('-u', 'origin', 'main')",
		row("0", "To "+url+"\n * [new branch]          main -> main\nbranch 'main' set up to track 'origin/main'."))
	if got, want := mainOnRemote(), a.head("main"); got != want {
		t.Fatalf("the remote's main is %s after A's push, A's is %s", got, want)
	}

	// B clones it: the same log and rows, main tracking origin/main.
	b.expect("CALL dolt_clone('"+url+"', 'shop')", row("0"))
	b.exec("USE shop")
	b.expect("SELECT * FROM t ORDER BY pk", row("1", "1"), row("2", "2"))
	b.expect("SELECT name, remote, branch FROM dolt_branches", row("main", "origin", "main"))
	b.expect("SELECT name FROM dolt_remote_branches", row("remotes/origin/main"))
	b.expect("SELECT name, url FROM dolt_remotes", row("origin", url))
	sameLog()

	// Commits on both sides; B pushes first, A pulls with a merge commit
	// and pushes it; B pulls it as a fast-forward.
	b.exec("INSERT INTO t VALUES (3, 3)")
	b.query("CALL dolt_commit('-am', 'b: three')")
	b.expect("CALL dolt_push()", row("0", "To "+url+"\n * [new branch]          main -> main"))
	a.exec("INSERT INTO t VALUES (4, 4)")
	a.query("CALL dolt_commit('-am', 'a: four')")
	mine, theirs := a.head("main"), b.head("main")
	if got := mainOnRemote(); got != theirs {
		t.Fatalf("the remote's main is %s after B's push, B's is %s", got, theirs)
	}
	a.expect("CALL dolt_pull()", row("0", "0", "merge successful"))
	a.expect("SELECT * FROM t ORDER BY pk", row("1", "1"), row("2", "2"), row("3", "3"), row("4", "4"))
	a.expect("SELECT message, committer, parents FROM dolt_log LIMIT 1",
		row("Merge branch 'main' of "+url+" into main", "Ada", mine+", "+theirs))
	a.expect("SELECT HASHOF('origin/main') = '"+theirs+"'", row("1"))
	a.expect("CALL dolt_push()", row("0", "To "+url+"\n * [new branch]          main -> main"))
	b.expect("CALL dolt_pull()", row("1", "0", "merge successful"))
	sameLog()
	if got := mainOnRemote(); got != a.head("main") {
		t.Fatalf("the remote's main is %s after the merge, A's is %s", got, a.head("main"))
	}

	// A conflict: both change row 1. With autocommit the pull is rolled
	// back; without, dolt_conflicts shows it, and a resolution commits a
	// merge that goes back through the remote.
	b.exec("UPDATE t SET v = 10 WHERE pk = 1")
	b.query("CALL dolt_commit('-am', 'b: v10')")
	b.query("CALL dolt_push()")
	a.exec("UPDATE t SET v = 20 WHERE pk = 1")
	a.query("CALL dolt_commit('-am', 'a: v20')")
	mine, theirs = a.head("main"), b.head("main")
	if me := a.fail("CALL dolt_pull()"); !strings.HasPrefix(me.Message, "Merge conflict detected, @autocommit transaction rolled back.") {
		t.Fatalf("a conflicting pull with autocommit: %v", me)
	}
	a.expect("SELECT * FROM dolt_conflicts")
	a.expect("SELECT v FROM t WHERE pk = 1", row("20"))
	a.exec("SET autocommit = 0")
	a.expect("CALL dolt_pull()", row("0", "1", "merge has unresolved conflicts or constraint violations"))
	a.expect("SELECT * FROM dolt_conflicts", row("t", "1"))
	a.expect("SELECT base_pk, base_v, our_pk, our_v, our_diff_type, their_pk, their_v, their_diff_type FROM dolt_conflicts_t",
		row("1", "1", "1", "20", "modified", "1", "10", "modified"))
	a.expect("SELECT is_merging, source, source_commit, target, unmerged_tables FROM dolt_merge_status",
		row("1", "refs/remotes/origin/main", theirs, "refs/heads/main", "t"))
	a.expect("CALL dolt_conflicts_resolve('--theirs', 't')", row("0"))
	a.query("CALL dolt_commit('-am', 'resolved')")
	a.exec("COMMIT", "SET autocommit = 1")
	a.expect("SELECT message, parents FROM dolt_log LIMIT 1", row("resolved", mine+", "+theirs))
	a.expect("SELECT * FROM dolt_conflicts")
	a.query("CALL dolt_push()")
	b.expect("CALL dolt_pull()", row("1", "0", "merge successful"))
	b.expect("SELECT * FROM t ORDER BY pk", row("1", "10"), row("2", "2"), row("3", "3"), row("4", "4"))
	sameLog()

	// A push that is not a fast-forward is rejected with Dolt's message
	// and leaves the remote alone; --force replaces the remote's main,
	// which B then fetches and is rejected by in turn.
	b.exec("INSERT INTO t VALUES (5, 5)")
	b.query("CALL dolt_commit('-am', 'b: five')")
	b.query("CALL dolt_push()")
	a.exec("INSERT INTO t VALUES (6, 6)")
	a.query("CALL dolt_commit('-am', 'a: six')")
	if me := a.fail("CALL dolt_push('origin', 'main')"); me.Number != 1105 || me.Message != rejected(url) {
		t.Fatalf("a stale push: error %d %q, want 1105 %q", me.Number, me.Message, rejected(url))
	}
	if got := mainOnRemote(); got != b.head("main") {
		t.Fatalf("a rejected push moved the remote's main to %s", got)
	}
	a.expect("CALL dolt_push('--force', 'origin', 'main')", row("0", "To "+url+"\n * [new branch]          main -> main"))
	if got := mainOnRemote(); got != a.head("main") {
		t.Fatalf("the remote's main is %s after a forced push, A's is %s", got, a.head("main"))
	}
	a.expect("SELECT name, hash = HASHOF('main') FROM dolt_remote_branches", row("remotes/origin/main", "1"))
	b.expect("CALL dolt_fetch()", row("0"))
	b.expect("SELECT HASHOF('origin/main') = '"+a.head("main")+"'", row("1"))
	b.expect("SELECT pk FROM t AS OF 'origin/main' ORDER BY pk", row("1"), row("2"), row("3"), row("4"), row("6"))
	if me := b.fail("CALL dolt_push('origin', 'main')"); me.Message != rejected(url) {
		t.Fatalf("B's push after the forced one: %q", me.Message)
	}
	b.query("CALL dolt_reset('--hard', 'origin/main')")
	sameLog()

	// A branch pushed, fetched by B, deleted on the remote by A: B's
	// fetch keeps origin/feature, its fetch --prune drops it.
	a.query("CALL dolt_branch('feature')")
	a.expect("CALL dolt_push('origin', 'feature')", row("0", "To "+url+"\n * [new branch]          feature -> feature"))
	b.expect("CALL dolt_fetch()", row("0"))
	b.expect("SELECT name FROM dolt_remote_branches ORDER BY name", row("remotes/origin/feature"), row("remotes/origin/main"))
	a.expect("CALL dolt_push('origin', ':feature')", row("0", "To "+url+"\n - [deleted]             feature"))
	a.expect("SELECT name FROM dolt_remote_branches ORDER BY name", row("remotes/origin/main"))
	if refs := readRemote(t, remoteDir); len(refs) != 1 || refs["refs/heads/main"].IsEmpty() {
		t.Fatalf("the remote's refs after deleting feature: %v", refs)
	}
	b.expect("CALL dolt_fetch()", row("0"))
	b.expect("SELECT name FROM dolt_remote_branches ORDER BY name", row("remotes/origin/feature"), row("remotes/origin/main"))
	b.expect("CALL dolt_fetch('--prune')", row("0"))
	b.expect("SELECT name FROM dolt_remote_branches ORDER BY name", row("remotes/origin/main"))
	if me := a.fail("CALL dolt_push('origin', ':feature')"); me.Message != "failed to delete remote; 'refs/heads/feature' from remote 'origin'; branch not found" {
		t.Fatalf("deleting feature twice: %q", me.Message)
	}

	concurrentPushes(t, a, b, remoteDir, 20)
	concurrentBranchPushes(t, a, b, remoteDir, 10)
}

// concurrentBranchPushes runs rounds of two pushes at the same moment,
// A's of a new branch and B's of another: both succeed (a push that
// loses the manifest's race to a push of another branch tries again),
// and the remote then holds both, each at its pusher's commit.
func concurrentBranchPushes(t *testing.T, a, b *e2eConn, remoteDir string, rounds int) {
	t.Helper()
	for round := range rounds {
		sides := []*e2eConn{a, b}
		names := make([]string, 2)
		for i, c := range sides {
			names[i] = fmt.Sprintf("%s%d", strings.ToLower(c.name), round)
			c.query("CALL dolt_checkout('-b', '" + names[i] + "')")
			c.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 3000+1000*i+round, round))
			c.query(fmt.Sprintf("CALL dolt_commit('-am', '%s')", names[i]))
		}
		errs := make([]error, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, c := range sides {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = c.try("CALL dolt_push('origin', '" + names[i] + "')")
			}()
		}
		close(start)
		wg.Wait()
		refs := readRemote(t, remoteDir)
		for i, c := range sides {
			if errs[i] != nil {
				t.Fatalf("round %d: %s's push of %s beside %s's of another branch: %v", round, c.name, names[i], sides[1-i].name, errs[i])
			}
			if got, want := refs["refs/heads/"+names[i]].String(), c.head(names[i]); got != want {
				t.Fatalf("round %d: the remote's %s is %q, %s's is %s", round, names[i], got, c.name, want)
			}
			c.query("CALL dolt_checkout('main')")
		}
	}
}

// concurrentPushes runs rounds of two diverged commits, one on A and one
// on B, pushed to main at the same moment: exactly one push wins, the
// other gets Dolt's rejection, the remote's main is the winner's and
// reads whole, and a fresh clone's dolt_log is the winner's. The loser
// then takes the winner's main for the next round.
func concurrentPushes(t *testing.T, a, b *e2eConn, remoteDir string, rounds int) {
	t.Helper()
	url := fileURL(remoteDir)
	wins := map[string]int{}
	overlapped := 0
	for round := range rounds {
		if ha, hb := a.head("main"), b.head("main"); ha != hb {
			t.Fatalf("round %d: A is at %s, B at %s", round, ha, hb)
		}
		a.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 1000+round, round))
		a.query(fmt.Sprintf("CALL dolt_commit('-am', 'a: round %d')", round))
		b.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 2000+round, round))
		b.query(fmt.Sprintf("CALL dolt_commit('-am', 'b: round %d')", round))
		sides := []*e2eConn{a, b}
		errs := make([]error, 2)
		spans := make([][2]time.Time, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, c := range sides {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				spans[i][0] = time.Now()
				_, errs[i] = c.try("CALL dolt_push('origin', 'main')")
				spans[i][1] = time.Now()
			}()
		}
		close(start)
		wg.Wait()
		if spans[0][0].Before(spans[1][1]) && spans[1][0].Before(spans[0][1]) {
			overlapped++
		}
		var winner, loser *e2eConn
		switch {
		case errs[0] == nil && errs[1] == nil:
			t.Fatalf("round %d: both pushes of diverged commits to main succeeded", round)
		case errs[0] != nil && errs[1] != nil:
			t.Fatalf("round %d: both pushes failed: A %v; B %v", round, errs[0], errs[1])
		case errs[0] == nil:
			winner, loser = a, b
		default:
			winner, loser = b, a
		}
		if lost := errs[slices.Index(sides, loser)]; !isRejection(lost, url) {
			t.Fatalf("round %d: %s's losing push: %v, want Dolt's non-fast-forward rejection", round, loser.name, lost)
		}
		wins[winner.name]++
		want := winner.head("main")
		if got := readRemote(t, remoteDir)["refs/heads/main"].String(); got != want {
			t.Fatalf("round %d: the remote's main is %s, the winner %s's is %s", round, got, winner.name, want)
		}
		clone := fmt.Sprintf("check%d", round)
		loser.expect("CALL dolt_clone('"+url+"', '"+clone+"')", row("0"))
		if got, want := loser.query("SELECT "+logColumns+" FROM "+clone+".dolt_log"), winner.query("SELECT "+logColumns+" FROM dolt_log"); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: a fresh clone's dolt_log\n%q\nthe winner %s's\n%q", round, got, winner.name, want)
		}
		loser.exec("DROP DATABASE " + clone)
		loser.expect("CALL dolt_fetch()", row("0"))
		loser.query("CALL dolt_reset('--hard', 'origin/main')")
	}
	t.Logf("%d rounds of concurrent pushes: wins %v; the two pushes overlapped in time in %d rounds", rounds, wins, overlapped)
}

// TestRemoteE2EClone10kHistory: a database of 10,000 commits (merges of
// side branches among them) written in process, served by one server
// process that pushes it to a file:// remote, and cloned by another:
// the clone's dolt_log (every column but refs, in its order), its log of
// the side branch, and its table equal the original's.
func TestRemoteE2EClone10kHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-commit history and starts server processes")
	}
	const commits = 10_000
	dataA := t.TempDir()
	start := time.Now()
	db, err := verso.Init(filepath.Join(dataA, "hist"), verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := histgen.Build(context.Background(), db.Graph(), histgen.Options{
		Commits: commits, Rows: 200, Seed: 1, BranchEvery: 50, BranchLen: 3, RefsEvery: commits})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	built := time.Since(start)
	remoteDir := filepath.Join(t.TempDir(), "remote")
	if err := os.Mkdir(remoteDir, 0o755); err != nil {
		t.Fatal(err)
	}
	url := fileURL(remoteDir)
	_, addrA := startChildServer(t, dataA)
	_, addrB := startChildServer(t, t.TempDir())
	a, b := dialE2E(t, "A", addrA), dialE2E(t, "B", addrB)
	a.exec("USE hist")
	a.expect("CALL dolt_remote('add', 'origin', '"+url+"')", row("0"))
	start = time.Now()
	var side string // the last side branch, which the history keeps
	for name := range h.Branches {
		if name != "main" {
			side = name
		}
	}
	if len(h.Branches) != 2 {
		t.Fatalf("the history's branches are %v, want main and one side branch", h.Branches)
	}
	a.query("CALL dolt_push('origin', 'main')")
	a.query("CALL dolt_push('origin', '" + side + "')")
	pushed := time.Since(start)
	start = time.Now()
	b.expect("CALL dolt_clone('"+url+"', 'hist')", row("0"))
	cloned := time.Since(start)
	b.exec("USE hist")

	start = time.Now()
	logA := a.query("SELECT " + logColumns + " FROM dolt_log")
	logB := b.query("SELECT " + logColumns + " FROM dolt_log")
	if len(logA) < commits {
		t.Fatalf("the original's dolt_log has %d commits, want at least %d", len(logA), commits)
	}
	if !reflect.DeepEqual(logA, logB) {
		for i := range min(len(logA), len(logB)) {
			if !reflect.DeepEqual(logA[i], logB[i]) {
				t.Fatalf("dolt_log differs at row %d of %d and %d:\noriginal %q\nclone    %q", i, len(logA), len(logB), logA[i], logB[i])
			}
		}
		t.Fatalf("the original's dolt_log has %d rows, the clone's %d", len(logA), len(logB))
	}
	if got, want := len(logA), len(h.Commits)+1; got > want {
		t.Fatalf("dolt_log has %d commits; the history has %d", got, want)
	}
	if sa, sb := a.query("SELECT "+logColumns+" FROM dolt_log('"+side+"')"), b.query("SELECT "+logColumns+" FROM dolt_log('origin/"+side+"')"); !reflect.DeepEqual(sa, sb) {
		t.Fatalf("the clone's origin/side has %d commits, the original's side %d, or they differ", len(sb), len(sa))
	}
	rowsA, rowsB := a.query("SELECT * FROM t ORDER BY pk"), b.query("SELECT * FROM t ORDER BY pk")
	if len(rowsA) == 0 || !reflect.DeepEqual(rowsA, rowsB) {
		t.Fatalf("t: the original has %d rows, the clone %d, or they differ", len(rowsA), len(rowsB))
	}
	// An older state too: the table as of a commit in the middle.
	mid := logA[len(logA)/2][0]
	if ra, rb := a.query("SELECT * FROM t AS OF '"+mid+"' ORDER BY pk"), b.query("SELECT * FROM t AS OF '"+mid+"' ORDER BY pk"); len(ra) == 0 || !reflect.DeepEqual(ra, rb) {
		t.Fatalf("t as of %s: the original has %d rows, the clone %d, or they differ", mid, len(ra), len(rb))
	}
	compared := time.Since(start)
	t.Logf("%d commits in dolt_log, %d rows: history built in process in %s, pushed in %s, cloned in %s, compared in %s",
		len(logA), len(rowsA), built.Round(time.Millisecond), pushed.Round(time.Millisecond), cloned.Round(time.Millisecond), compared.Round(time.Millisecond))
}

// TestRemoteE2EKilledPush: verso push processes sending a large change
// to a file:// remote are killed with SIGKILL after random delays spread
// over a push's duration. After each kill the remote reads whole (its
// refs, everything they reach, checked as fsck checks a database) with
// main at the old commit or the new one, never between; a push from the
// same source then completes over whatever the killed one left.
func TestRemoteE2EKilledPush(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills push processes")
	}
	seed := testseed.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 17))
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	base := t.TempDir()
	src := filepath.Join(base, "src")
	remoteDir, pristine := filepath.Join(base, "remote"), filepath.Join(base, "pristine")
	runOK(t, "init", src)
	sqlIn(t, src, "CREATE TABLE big (id INT PRIMARY KEY, s VARCHAR(80), n BIGINT)", "INSERT INTO big VALUES (0, 'zero', 0)")
	runOK(t, "-C", src, "commit", "-Am", "old")
	runOK(t, "-C", src, "remote", "add", "origin", fileURL(remoteDir))
	runOK(t, "-C", src, "push", "origin", "main")
	copyTree(t, remoteDir, pristine)
	const rows = 100_000
	start := time.Now()
	sqlIn(t, src, fmt.Sprintf("INSERT INTO big SELECT i, SHA2(CONCAT('row ', i), 256), i * 7919 FROM "+
		"(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT a.i * 1000 + b.i + 1 AS i FROM s a, s b WHERE a.i < %d) x", rows/1000))
	runOK(t, "-C", src, "commit", "-am", "new")
	t.Logf("%d rows written and committed in %s", rows, time.Since(start).Round(time.Millisecond))
	oldCommit, newCommit := commitOf(t, src, "main~1"), commitOf(t, src, "main")

	push := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-C", src, "push", "origin", "main")
		cmd.Env = append(os.Environ(), "VERSO_TEST_AS_VERSO=1")
		return cmd
	}
	restore := func() {
		if err := os.RemoveAll(remoteDir); err != nil {
			t.Fatal(err)
		}
		copyTree(t, pristine, remoteDir)
	}
	// at is where the remote's main is, checking that it reads whole.
	at := func(when string) string {
		t.Helper()
		refs := readRemote(t, remoteDir)
		switch m := refs["refs/heads/main"]; {
		case len(refs) != 1:
			t.Fatalf("%s: the remote's refs are %v", when, refs)
		case m == oldCommit:
			return "old"
		case m == newCommit:
			return "new"
		default:
			t.Fatalf("%s: the remote's main is %s, neither the old commit %s nor the new %s", when, m, oldCommit, newCommit)
		}
		return ""
	}

	pristineTables, err := os.ReadDir(filepath.Join(pristine, "tables"))
	if err != nil {
		t.Fatal(err)
	}
	// uploaded says how far a push has got in writing into the
	// remote's tables folder: 0 nothing yet, 1 a temporary file, 2 a
	// table file in place.
	uploaded := func() int {
		es, _ := os.ReadDir(filepath.Join(remoteDir, "tables"))
		switch {
		case len(es) == len(pristineTables):
			return 0
		case slices.ContainsFunc(es, func(e fs.DirEntry) bool { return strings.HasPrefix(e.Name(), ".tmp-") }):
			return 1
		default:
			return 2
		}
	}
	// watch runs a push until it exits, or until kill says so (polled
	// every 200µs) and then kills it; it returns how long the push ran,
	// when it began to upload and when its table was in place (-1 if
	// not seen), and whether it finished on its own.
	watch := func(cmd *exec.Cmd, kill func(elapsed, sinceUpload, sinceTable time.Duration) bool) (ran, upload, table time.Duration, finished bool) {
		t.Helper()
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		upload, table = -1, -1
		for {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("the push failed: %v: %s", err, out.String())
				}
				return time.Since(start), upload, table, true
			default:
			}
			elapsed := time.Since(start)
			if table < 0 {
				switch uploaded() {
				case 2:
					table = elapsed
					if upload < 0 {
						upload = elapsed
					}
				case 1:
					if upload < 0 {
						upload = elapsed
					}
				}
			}
			sinceUpload, sinceTable := time.Duration(-1), time.Duration(-1)
			if upload >= 0 {
				sinceUpload = elapsed - upload
			}
			if table >= 0 {
				sinceTable = elapsed - table
			}
			if kill(elapsed, sinceUpload, sinceTable) {
				if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
					t.Fatal(err)
				}
				err := <-exited
				return elapsed, upload, table, err == nil
			}
			time.Sleep(200 * time.Microsecond)
		}
	}

	// A whole push, timed: the kills are spread over its duration.
	restore()
	full, upload, table, _ := watch(push(), func(_, _, _ time.Duration) bool { return false })
	if got := at("after a whole push"); got != "new" {
		t.Fatalf("a whole push left the remote at the %s commit", got)
	}
	var size int64
	filepath.WalkDir(remoteDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	if upload < 0 || table < 0 {
		t.Fatal("the push was not seen writing its table into the remote")
	}
	t.Logf("a whole push takes %s as a process; it writes into the remote from %s, its table is in place at %s; the remote holds %.1f MiB",
		full.Round(time.Millisecond), upload.Round(time.Millisecond), table.Round(time.Millisecond), float64(size)/(1<<20))

	const rounds = 20
	outcomes := map[string]int{}
	for round := range rounds {
		restore()
		// Rounds 0, 2, 4...: a delay from 0 to 110% of a whole push, one
		// in each tenth of it, placed at random inside. Rounds 1, 5, 9...:
		// a delay after the push begins to write into the remote, up to
		// 120% of the time the whole push spent there. Rounds 3, 7, 11...:
		// up to 3ms after its table is in place, while the manifest is
		// written and the push records origin/main.
		var kill func(elapsed, sinceUpload, sinceTable time.Duration) bool
		var delay time.Duration
		switch round % 4 {
		case 0, 2:
			delay = time.Duration((float64(round/2) + rng.Float64()) / (rounds / 2) * 1.1 * float64(full))
			kill = func(elapsed, _, _ time.Duration) bool { return elapsed >= delay }
		case 1:
			delay = time.Duration(rng.Float64() * 1.2 * float64(full-upload))
			kill = func(_, since, _ time.Duration) bool { return since >= delay }
		case 3:
			delay = time.Duration(rng.Float64() * float64(3*time.Millisecond))
			kill = func(_, _, since time.Duration) bool { return since >= delay }
		}
		ran, up, _, finished := watch(push(), kill)
		when := fmt.Sprintf("round %d, kill due %s after the push began", round, ran.Round(time.Millisecond))
		if up >= 0 {
			when += fmt.Sprintf(" (%s after it began to upload)", (ran - up).Round(time.Millisecond))
		}
		where := at(when)
		if finished && where != "new" {
			t.Fatalf("%s: a push that exited left the remote at the old commit", when)
		}
		key, note := where, ""
		if finished {
			key, note = "finished", " (the push had exited)"
		}
		outcomes[key]++
		t.Logf("%s: the remote is at the %s commit%s", when, where, note)
		if tmp, orphans := leftovers(t, remoteDir); tmp > 0 || orphans > 0 {
			outcomes["left temporary files"] += min(tmp, 1)
			outcomes["left unnamed tables"] += min(orphans, 1)
		}
		// A push from the same source then completes, whatever the
		// killed one left behind.
		if out, err := push().CombinedOutput(); err != nil {
			t.Fatalf("%s: the push after the kill: %v: %s", when, err, out)
		}
		if where == "new" {
			continue // the remote did not change, and read whole
		}
		if got := at(fmt.Sprintf("round %d, pushed again", round)); got != "new" {
			t.Fatalf("round %d: the push after the kill left the remote at the %s commit", round, got)
		}
	}
	t.Logf("%d rounds: killed with the remote at the old commit %d times, at the new one %d times; the push had finished %d times; "+
		"kills left temporary files %d times and tables no manifest names %d times",
		rounds, outcomes["old"], outcomes["new"], outcomes["finished"], outcomes["left temporary files"], outcomes["left unnamed tables"])
	runOK(t, "-C", src, "fsck")
}

// leftovers counts what a push cut short left in the remote folder dir:
// temporary files and table files its manifest does not name.
func leftovers(t *testing.T, dir string) (tmp, orphans int) {
	t.Helper()
	bs, err := remotes.OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := remotes.Open(context.Background(), bs)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	tables := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case strings.HasPrefix(d.Name(), ".tmp-"):
			tmp++
		case strings.HasSuffix(d.Name(), ".table"):
			tables++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tmp, tables - rs.Tables()
}

// commitOf is the address of the commit rev names in the database in dir.
func commitOf(t *testing.T, dir, rev string) chunks.Address {
	t.Helper()
	db, err := verso.Open(dir, verso.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Resolve(context.Background(), rev, db.DefaultBranch())
	if err != nil {
		t.Fatal(err)
	}
	return c.Addr
}

// copyTree copies the files of the folder from into the new folder to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRemoteE2EReadReplica: a primary server pushing every commit
// (SET GLOBAL dolt_replicate_to_remote) and a read replica server started
// with --read-replica-remote: the replica clones the database, sees each
// commit of the primary at its next statement without being asked (rows,
// dolt_log, a new branch with --replicate-all-heads), and refuses writes
// with 1290.
func TestRemoteE2EReadReplica(t *testing.T) {
	_, url := e2eRemote(t)
	_, addrA := startChildServer(t, t.TempDir())
	a := dialE2E(t, "primary", addrA)
	a.exec("CREATE DATABASE shop", "USE shop",
		"CREATE TABLE t (pk INT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 1)")
	a.query("CALL dolt_commit('-Am', 'first')")
	a.query("CALL dolt_remote('add', 'origin', '" + url + "')")
	a.query("CALL dolt_push('origin', 'main')")
	a.exec("SET GLOBAL dolt_replicate_to_remote = 'origin'")

	_, addrB := startChildServer(t, t.TempDir(), "--read-replica-remote", "origin", "--replicate-all-heads")
	b := dialE2E(t, "replica", addrB)
	b.query("CALL dolt_clone('" + url + "', 'shop')")
	b.exec("USE shop")
	b.expect("SELECT * FROM t", row("1", "1"))
	b.expect("SELECT @@GLOBAL.dolt_read_replica_remote, @@GLOBAL.dolt_replicate_all_heads", row("origin", "1"))

	sameLog := func() { t.Helper(); sameHistory(t, a, b) }
	for i := 2; i <= 6; i++ {
		a.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i))
		a.query(fmt.Sprintf("CALL dolt_commit('-am', 'row %d')", i))
		// No pull asked for: the replica's next statement sees it.
		if got := b.one("SELECT MAX(pk) FROM t"); got != fmt.Sprint(i) {
			t.Fatalf("after the primary's commit %d the replica's MAX(pk) is %s", i, got)
		}
	}
	sameLog()
	// A transaction commit with @@dolt_transaction_commit, and a branch.
	a.exec("SET @@dolt_transaction_commit = 1", "UPDATE t SET v = 10 WHERE pk = 1", "SET @@dolt_transaction_commit = 0")
	b.expect("SELECT v FROM t WHERE pk = 1", row("10"))
	a.query("CALL dolt_checkout('-b', 'feature')")
	a.exec("INSERT INTO t VALUES (100, 100)")
	a.query("CALL dolt_commit('-am', 'on feature')")
	b.expect("SELECT name FROM dolt_branches ORDER BY name", row("feature"), row("main"))
	b.expect("SELECT COUNT(*) FROM `shop/feature`.t", row("7"))
	a.query("CALL dolt_checkout('main')")
	sameLog()

	for _, q := range []string{
		"INSERT INTO t VALUES (50, 50)",
		"UPDATE t SET v = 0",
		"CREATE TABLE u (id INT PRIMARY KEY)",
		"CALL dolt_commit('--allow-empty', '-m', 'x')",
		"CALL dolt_branch('nb')",
	} {
		if me := b.fail(q); me.Number != 1290 || !strings.Contains(me.Message, `read replica of remote "origin"`) {
			t.Errorf("replica: %s: %d %q, want 1290 naming the remote", q, me.Number, me.Message)
		}
	}
	sameLog()
}

// TestRemoteE2EKilledClone: `verso clone` killed with SIGKILL at random
// points of its run leaves either no database in its folder (the next
// clone into it goes ahead) or a whole one; a clone run again after each
// kill gives the source's history and rows.
func TestRemoteE2EKilledClone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills clone processes")
	}
	seed := testseed.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 23))
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	base := t.TempDir()
	src, remoteDir := filepath.Join(base, "src"), filepath.Join(base, "remote")
	runOK(t, "init", src)
	sqlIn(t, src, "CREATE TABLE big (id INT PRIMARY KEY, s VARCHAR(80))",
		"INSERT INTO big SELECT i, SHA2(CONCAT('row ', i), 256) FROM "+
			"(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT a.i * 1000 + b.i AS i FROM s a, s b WHERE a.i < 50) x")
	runOK(t, "-C", src, "commit", "-Am", "rows")
	for i := 0; i < 20; i++ {
		sqlIn(t, src, fmt.Sprintf("UPDATE big SET s = 'v%d' WHERE id %% 97 = %d", i, i))
		runOK(t, "-C", src, "commit", "-am", fmt.Sprint("change ", i))
	}
	runOK(t, "-C", src, "remote", "add", "origin", fileURL(remoteDir))
	runOK(t, "-C", src, "push", "origin", "main")
	want := commitOf(t, src, "main")

	clone := func(dst string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "clone", fileURL(remoteDir), dst)
		cmd.Env = append(os.Environ(), "VERSO_TEST_AS_VERSO=1")
		return cmd
	}
	start := time.Now()
	if out, err := clone(filepath.Join(base, "whole")).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	full := time.Since(start)
	t.Logf("a whole clone takes %s", full.Round(time.Millisecond))
	check := func(dst, when string) {
		t.Helper()
		if got := commitOf(t, dst, "main"); got != want {
			t.Fatalf("%s: the clone's main is %s, the source's %s", when, got, want)
		}
		if a, b := runOK(t, "-C", dst, "log", "--oneline"), runOK(t, "-C", src, "log", "--oneline"); a != b {
			t.Fatalf("%s: the clone's log\n%s\nthe source's\n%s", when, a, b)
		}
	}
	killed, whole := 0, 0
	for round := 0; round < 8; round++ {
		dst := filepath.Join(base, fmt.Sprint("c", round))
		cmd := clone(dst)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(full))))
		cmd.Process.Kill()
		cmd.Wait()
		if verso.IsDatabase(dst) {
			whole++
			check(dst, fmt.Sprintf("round %d, a clone that finished before the kill", round))
			continue
		}
		killed++
		if out, err := clone(dst).CombinedOutput(); err != nil {
			t.Fatalf("round %d: the clone after a killed one: %v: %s", round, err, out)
		}
		check(dst, fmt.Sprintf("round %d, a clone after a killed one", round))
	}
	t.Logf("%d clones killed part way, %d finished first", killed, whole)
}

// e2eRemote skips the test under -short and otherwise makes an empty
// folder remote, returning it and its URL; the servers the test starts
// commit as Ada and, under -race, stop at their first race, failing the
// test's next statement.
func e2eRemote(t *testing.T) (dir, url string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir = filepath.Join(t.TempDir(), "remote")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GORACE", "halt_on_error=1")
	t.Setenv(envName, "Ada")
	t.Setenv(envEmail, "ada@example.com")
	return dir, fileURL(dir)
}

// sameHistory fails the test unless the current databases of a and b
// have the same dolt_log (but refs) and the same rows in t.
func sameHistory(t *testing.T, a, b *e2eConn) {
	t.Helper()
	if la, lb := a.query("SELECT "+logColumns+" FROM dolt_log"), b.query("SELECT "+logColumns+" FROM dolt_log"); !reflect.DeepEqual(la, lb) {
		t.Fatalf("%s's dolt_log\n%q\n%s's\n%q", a.name, la, b.name, lb)
	}
	if ra, rb := a.query("SELECT * FROM t ORDER BY pk"), b.query("SELECT * FROM t ORDER BY pk"); !reflect.DeepEqual(ra, rb) {
		t.Fatalf("%s's rows %q, %s's %q", a.name, ra, b.name, rb)
	}
}
