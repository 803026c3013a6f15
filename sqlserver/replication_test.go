package sqlserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
)

// setGlobals sets global system variables for the rest of the test. They
// are the process's: no test of the package runs in parallel with another.
func setGlobals(t *testing.T, vars map[string]any) {
	t.Helper()
	old := map[string]any{}
	for k := range vars {
		_, v, ok := sql.SystemVariables.GetGlobal(k)
		if !ok {
			t.Fatalf("no variable %s", k)
		}
		old[k] = v
	}
	if err := sql.SystemVariables.AssignValues(vars); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sql.SystemVariables.AssignValues(old) })
}

// replicaFixture is a primary database written through the engine, a
// file remote it pushes to, and a data dir holding a clone of it.
type replicaFixture struct {
	t       *testing.T
	primary *verso.DB
	url     string
	dataDir string
	next    atomic.Int64
}

func newReplicaFixture(t *testing.T) *replicaFixture {
	t.Helper()
	base := t.TempDir()
	f := &replicaFixture{t: t, url: "file://" + filepath.ToSlash(filepath.Join(base, "remote")), dataDir: filepath.Join(base, "data")}
	for _, d := range []string{filepath.Join(base, "remote"), f.dataDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := verso.Init(filepath.Join(base, "primary"), verso.Options{Name: "db", Collations: sqlCollations{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	f.primary = p
	ctx := context.Background()
	txn, err := p.Begin(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.CreateTable(ctx, "t", &verso.Schema{Columns: []verso.Column{
		{Name: "id", Type: "int", Kind: verso.KindInt}, {Name: "v", Type: "varchar(20)", Kind: verso.KindString, Nullable: true}},
		PrimaryKey: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	f.commit("main")
	if err := p.AddRemote(ctx, "origin", f.url, nil); err != nil {
		t.Fatal(err)
	}
	f.push("main")
	c, err := verso.Clone(ctx, f.url, filepath.Join(f.dataDir, "db"), verso.CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	return f
}

// commit adds a row (the next id) to branch and commits it; it returns
// the id.
func (f *replicaFixture) commit(branch string) int64 {
	f.t.Helper()
	ctx := context.Background()
	id := f.next.Add(1)
	txn, err := f.primary.Begin(ctx, branch)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := txn.Put(ctx, "t", verso.Int(id), verso.String(branch)); err != nil {
		f.t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		f.t.Fatal(err)
	}
	if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprint("row ", id), Author: verso.Signature{Name: "p", Email: "p@x"}, StageAll: true}); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *replicaFixture) push(branch string) {
	f.t.Helper()
	if _, err := f.primary.Push(context.Background(), "origin", branch, branch, verso.PushOptions{Force: true}); err != nil {
		f.t.Fatal(err)
	}
}

// errNum returns the MySQL error number err maps to, 0 for nil.
func errNum(err error, q string) int {
	if err == nil {
		return 0
	}
	return int(MySQLError(err, q).Num)
}

// TestReadReplica: a server whose databases pull from a remote before each
// transaction sees the primary's pushes without being asked, serves the
// branches @@dolt_replicate_heads names (patterns; all with
// @@dolt_replicate_all_heads, deletions included), refuses every write
// with 1290, and reports a failed pull as an error or, with
// @@dolt_skip_replication_errors, a warning.
func TestReadReplica(t *testing.T) {
	f := newReplicaFixture(t)
	p, err := NewProvider(f.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	setGlobals(t, map[string]any{readReplicaVar: "origin", replicateHeadsVar: "main"})
	r := newEnv(t, p)
	ctx := r.session("db")
	r.check(ctx, "SELECT id, v FROM t", "[1 main]")

	// The primary's pushes are seen at the next transaction.
	f.commit("main")
	f.commit("main")
	f.push("main")
	r.check(ctx, "SELECT id FROM t ORDER BY id", "[1] [2] [3]")
	head, _ := f.primary.Resolve(context.Background(), "main", "")
	r.check(ctx, "SELECT COUNT(*) FROM dolt_log", "[4]")
	r.check(ctx, "SELECT hash = '"+head.Addr.String()+"' FROM dolt_branches WHERE name = 'main'", "[true]")
	r.check(ctx, "SELECT COUNT(*) FROM dolt_status", "[0]")

	// A transaction keeps its snapshot; the next one pulls.
	r.exec(ctx, "BEGIN")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[3]")
	f.commit("main")
	f.push("main")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[3]")
	r.exec(ctx, "COMMIT")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[4]")

	// Writes are refused with 1290, naming the remote.
	for _, q := range []string{
		"INSERT INTO t VALUES (100, 'x')",
		"UPDATE t SET v = 'y' WHERE id = 1",
		"DELETE FROM t WHERE id = 1",
		"REPLACE INTO t VALUES (1, 'z')",
		"CREATE TABLE u (id INT PRIMARY KEY)",
		"ALTER TABLE t ADD COLUMN w INT",
		"DROP TABLE t",
		"CREATE VIEW vv AS SELECT 1",
		"CALL dolt_commit('--allow-empty', '-m', 'x')",
		"CALL dolt_branch('feature2')",
		"CALL dolt_tag('v1')",
		"CALL dolt_checkout('-b', 'nb')",
		"CALL dolt_reset('--hard', 'HEAD~1')",
		"CALL dolt_merge('main')",
		"CALL dolt_append_events('s', '-1', '[{\"type\":\"a\",\"data\":{}}]')",
	} {
		_, err := r.query(ctx, q)
		if n := errNum(err, q); n != 1290 || !strings.Contains(err.Error(), `read replica of remote "origin"`) {
			t.Errorf("%s on a replica: %v (%d), want 1290 naming the remote", q, err, n)
		}
	}
	r.exec(ctx, "BEGIN")
	if _, err := r.query(ctx, "INSERT INTO t VALUES (101, 'x')"); errNum(err, "") != 1290 {
		t.Errorf("INSERT in a transaction on a replica: %v", err)
	}
	r.exec(ctx, "ROLLBACK")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[4]")
	r.check(ctx, "SELECT COUNT(*) FROM dolt_log", "[5]")
	r.exec(ctx, "CALL dolt_checkout('main')")

	// Branches: only those the heads name, patterns allowed.
	f.commit("main")
	if err := f.primary.CreateBranch(context.Background(), "feature", "main"); err != nil {
		t.Fatal(err)
	}
	f.commit("feature")
	f.push("main")
	f.push("feature")
	r.check(ctx, "SELECT name FROM dolt_branches ORDER BY name", "[main]")
	setGlobals(t, map[string]any{replicateHeadsVar: "main, feat*"})
	r.check(ctx, "SELECT name FROM dolt_branches ORDER BY name", "[feature] [main]")
	r.check(ctx, "SELECT COUNT(*) FROM `db/feature`.t", "[6]")
	r.exec(ctx, "CALL dolt_checkout('feature')")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[6]")
	r.exec(ctx, "CALL dolt_checkout('main')")

	// All heads: a branch deleted on the remote goes.
	if err := f.primary.CreateBranch(context.Background(), "other", "main"); err != nil {
		t.Fatal(err)
	}
	f.push("other")
	setGlobals(t, map[string]any{replicateHeadsVar: "", replicateAllVar: 1})
	r.check(ctx, "SELECT name FROM dolt_branches ORDER BY name", "[feature] [main] [other]")
	if _, err := f.primary.Push(context.Background(), "origin", "", "feature", verso.PushOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	r.check(ctx, "SELECT name FROM dolt_branches ORDER BY name", "[main] [other]")
	r.check(ctx, "SELECT name FROM dolt_remote_branches ORDER BY name", "[remotes/origin/main] [remotes/origin/other]")

	// A forced push that rewinds main: reset by default, refused when
	// force pulls are off.
	if _, err := f.primary.Push(context.Background(), "origin", "main~1", "main", verso.PushOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	setGlobals(t, map[string]any{forcePullVar: 0})
	if _, err := r.query(ctx, "SELECT COUNT(*) FROM t"); err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "@@dolt_read_replica_force_pull") {
		t.Errorf("a rewound remote branch without force pulls: %v", err)
	}
	setGlobals(t, map[string]any{forcePullVar: 1})
	r.check(ctx, "SELECT COUNT(*) FROM t", "[4]")

	// A pull that fails: an error, or a warning when skipped.
	setGlobals(t, map[string]any{readReplicaVar: "nosuch"})
	if _, err := r.query(ctx, "SELECT COUNT(*) FROM t"); err == nil || !strings.Contains(err.Error(), `remote "nosuch"`) || !strings.Contains(err.Error(), "dolt_skip_replication_errors") {
		t.Errorf("a pull from a missing remote: %v", err)
	}
	r.exec(ctx, "SET @@dolt_skip_replication_errors = 1")
	r.check(ctx, "SELECT COUNT(*) FROM t", "[4]")
	if w := ctx.Session.Warnings(); len(w) == 0 || !strings.Contains(w[0].Message, "read replica") {
		t.Errorf("a skipped pull error left warnings %v", w)
	}
	r.exec(ctx, "SET @@dolt_skip_replication_errors = 0")

	// No longer a replica: writes go.
	setGlobals(t, map[string]any{readReplicaVar: ""})
	r.exec(ctx, "INSERT INTO t VALUES (100, 'x')")
}

// TestReadReplicaUnderLoad: while the primary commits and pushes rows one
// at a time, four sessions of the replica run statements; each statement
// sees at least every row whose push had finished before it started, and
// the replica ends with the primary's history.
func TestReadReplicaUnderLoad(t *testing.T) {
	f := newReplicaFixture(t)
	p, err := NewProvider(f.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	setGlobals(t, map[string]any{readReplicaVar: "origin", replicateHeadsVar: "main"})
	r := newEnv(t, p)
	testPullDelay = 2 * time.Millisecond
	defer func() { testPullDelay = 0 }()
	var pushed atomic.Int64
	pushed.Store(1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := r.session("db")
			for {
				select {
				case <-stop:
					return
				default:
				}
				before := pushed.Load()
				rows, err := r.query(ctx, "SELECT MAX(id) FROM t")
				if err != nil {
					errs <- err
					return
				}
				got, _ := rows[0][0].(int32)
				if int64(got) < before {
					errs <- fmt.Errorf("a statement started after row %d was pushed saw rows up to %d", before, got)
					return
				}
				reads.Add(1)
			}
		}()
	}
	deadline := time.Now().Add(3 * time.Second)
	n := 0
	for time.Now().Before(deadline) {
		id := f.commit("main")
		f.push("main")
		pushed.Store(id)
		n++
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d commits pushed, %d replica statements", n, reads.Load())
	ctx := r.session("db")
	r.check(ctx, "SELECT COUNT(*), MAX(id) FROM t", fmt.Sprintf("[%d %d]", pushed.Load(), pushed.Load()))
	head, _ := f.primary.Resolve(context.Background(), "main", "")
	r.check(ctx, "SELECT hash = '"+head.Addr.String()+"' FROM dolt_branches WHERE name = 'main'", "[true]")
}

// TestReplicateToRemote: a primary with @@dolt_replicate_to_remote pushes
// each commit before the statement that made it answers: dolt_commit,
// dolt_merge, a transaction commit with @@dolt_transaction_commit and a
// new branch's commit; a failing push is the statement's error, or a
// warning with @@dolt_skip_replication_errors, and the commit stands.
func TestReplicateToRemote(t *testing.T) {
	base := t.TempDir()
	remoteDir := filepath.Join(base, "remote")
	if err := os.Mkdir(remoteDir, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(remoteDir)
	if err := os.Mkdir(filepath.Join(base, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := NewProvider(filepath.Join(base, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w := newEnv(t, p)
	ctx := setupDB(w)
	w.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")
	w.exec(ctx, "CALL dolt_commit('-Am', 'one')")
	w.exec(ctx, "CALL dolt_remote('add', 'origin', '"+url+"')")
	setGlobals(t, map[string]any{replicateToVar: "origin"})

	remoteHead := func(branch string) string {
		t.Helper()
		st, _ := p.state("db")
		hs, err := st.db.RemoteHeads(context.Background(), "origin")
		if err != nil {
			t.Fatal(err)
		}
		return hs[branch].String()
	}
	localHead := func(branch string) string {
		t.Helper()
		return fmt.Sprint(w.exec(ctx, "SELECT hash FROM dolt_branches WHERE name = '"+branch+"'")[0][0])
	}
	w.exec(ctx, "INSERT INTO t VALUES (1)")
	w.exec(ctx, "CALL dolt_commit('-am', 'two')")
	if got, want := remoteHead("main"), localHead("main"); got != want {
		t.Fatalf("after dolt_commit the remote's main is %s, the primary's %s", got, want)
	}
	w.exec(ctx, "CALL dolt_checkout('-b', 'side')")
	w.exec(ctx, "INSERT INTO t VALUES (2)")
	w.exec(ctx, "CALL dolt_commit('-am', 'side')")
	if got, want := remoteHead("side"), localHead("side"); got != want {
		t.Fatalf("a new branch's commit: remote %s, primary %s", got, want)
	}
	w.exec(ctx, "CALL dolt_checkout('main')")
	w.exec(ctx, "CALL dolt_merge('side')")
	if got, want := remoteHead("main"), localHead("main"); got != want {
		t.Fatalf("after dolt_merge: remote %s, primary %s", got, want)
	}
	w.exec(ctx, "SET @@dolt_transaction_commit = 1")
	w.exec(ctx, "INSERT INTO t VALUES (3)")
	w.exec(ctx, "SET @@dolt_transaction_commit = 0")
	if got, want := remoteHead("main"), localHead("main"); got != want {
		t.Fatalf("after a transaction commit: remote %s, primary %s", got, want)
	}
	w.check(ctx, "SELECT message FROM dolt_log LIMIT 1", "[Transaction commit]")

	// The remote gone: the commit stands, the statement fails (or warns).
	if err := os.RemoveAll(remoteDir); err != nil {
		t.Fatal(err)
	}
	w.exec(ctx, "INSERT INTO t VALUES (4)")
	_, err = w.query(ctx, "CALL dolt_commit('-am', 'four')")
	if err == nil || !strings.Contains(err.Error(), `pushing database db to remote "origin" failed`) {
		t.Fatalf("a commit whose push fails: %v", err)
	}
	w.check(ctx, "SELECT message FROM dolt_log LIMIT 1", "[four]")
	w.exec(ctx, "SET @@dolt_skip_replication_errors = 1")
	w.exec(ctx, "CALL dolt_commit('--allow-empty', '-m', 'five')")
	if ws := ctx.Session.Warnings(); len(ws) == 0 || !strings.Contains(ws[0].Message, "replication") {
		t.Errorf("a skipped push error left warnings %v", ws)
	}
}
