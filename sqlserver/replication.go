package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso"
)

// Replication through a remote, with Dolt's system variables.
//
// A read replica follows a primary through a remote (a file:// folder or
// an s3:// bucket) that the primary pushes to:
//
//	@@dolt_read_replica_remote   the remote (by name, in each database) a
//	                             server pulls from; set, the server is a
//	                             read replica
//	@@dolt_replicate_heads       the branches it pulls: a comma-separated
//	                             list, * and ? allowed (feature/*)
//	@@dolt_replicate_all_heads   on: every branch, and local branches the
//	                             remote no longer has are deleted
//	@@dolt_read_replica_force_pull
//	                             on (the default, as Dolt's): a branch the
//	                             remote rewound (a forced push) is reset
//	                             to the remote's; off: such a pull fails
//	@@dolt_replicate_to_remote   the remote a primary pushes every branch
//	                             whose head moved to, after each statement
//	                             that moved one (a dolt_commit, a merge, a
//	                             transaction commit with
//	                             @@dolt_transaction_commit), forced, before
//	                             the statement answers
//	@@dolt_skip_replication_errors
//	                             on: a failed pull or push is a warning
//	                             (the replica serves what it last pulled;
//	                             the primary's commit stands) instead of
//	                             the statement's error
//
// They are global (set them in the configuration's system_variables, with
// --read-replica-remote and --replicate-heads, or with SET GLOBAL; they
// take effect at the next transaction) and apply to every database of
// the server, each of which must have the remote.
//
// When it pulls: a replica pulls a database when a transaction first uses
// it (every autocommit statement, or the first statement of BEGIN ...
// COMMIT that reads it), before taking its snapshot, so a transaction
// sees every commit the primary had pushed when it started. Pulls of one
// database run one at a time: a transaction that starts while one runs
// waits for the next, which serves every transaction waiting for it. A
// pull that finds the remote unchanged reads the remote's manifest and
// writes nothing (verso.DB.Replicate).
//
// What a replica refuses: writes of any kind to its databases (rows,
// tables, schema objects, events: at the first row written, or at the
// commit of the transaction), and the procedures that change a database
// (all but dolt_checkout of an existing branch, dolt_count_commits,
// dolt_fetch, dolt_push, dolt_remote, dolt_clone, dolt_gc, dolt_undrop
// and dolt_purge_dropped_databases), with MySQL's 1290
// (ER_OPTION_PREVENTS_STATEMENT, as a server started --read-only) and a
// message that names the remote.

const (
	readReplicaVar    = "dolt_read_replica_remote"
	replicateHeadsVar = "dolt_replicate_heads"
	replicateAllVar   = "dolt_replicate_all_heads"
	forcePullVar      = "dolt_read_replica_force_pull"
	replicateToVar    = "dolt_replicate_to_remote"
	skipReplErrorsVar = "dolt_skip_replication_errors"
)

var replicationVariables = []sql.SystemVariable{
	&sql.MysqlSystemVariable{Name: readReplicaVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true, Type: types.NewSystemStringType(readReplicaVar), Default: "", NotifyChanged: keep(&replicaRemoteNow)},
	&sql.MysqlSystemVariable{Name: replicateHeadsVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true, Type: types.NewSystemStringType(replicateHeadsVar), Default: ""},
	&sql.MysqlSystemVariable{Name: replicateAllVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true, Type: types.NewSystemBoolType(replicateAllVar), Default: int8(0)},
	&sql.MysqlSystemVariable{Name: forcePullVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true, Type: types.NewSystemBoolType(forcePullVar), Default: int8(1)},
	&sql.MysqlSystemVariable{Name: replicateToVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true, Type: types.NewSystemStringType(replicateToVar), Default: "", NotifyChanged: keep(&replicateToNow)},
	&sql.MysqlSystemVariable{Name: skipReplErrorsVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemBoolType(skipReplErrorsVar), Default: int8(0)},
}

// globalString returns a global string variable, trimmed ("" if unset).
func globalString(name string) string {
	if _, v, ok := sql.SystemVariables.GetGlobal(name); ok {
		if s, ok := v.(string); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// globalFlag returns a global boolean variable.
func globalFlag(name string) bool {
	if _, v, ok := sql.SystemVariables.GetGlobal(name); ok {
		b, _ := sql.ConvertToBool(nil, v)
		return b
	}
	return false
}

// replicaRemoteNow and replicateToNow hold @@dolt_read_replica_remote and
// @@dolt_replicate_to_remote (trimmed; nil when empty), kept by the engine's
// NotifyChanged as each is set: every transaction asks for the first and
// every procedure for both, and the engine's global variables are behind
// one lock that every connection would take.
var replicaRemoteNow, replicateToNow atomic.Pointer[string]

// keep returns the NotifyChanged of a string variable held in p.
func keep(p *atomic.Pointer[string]) func(*sql.Context, sql.SystemVariableScope, sql.SystemVarValue) error {
	return func(_ *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
		s, _ := v.Val.(string)
		if s = strings.TrimSpace(s); s == "" {
			p.Store(nil)
		} else {
			p.Store(&s)
		}
		return nil
	}
}

func load(p *atomic.Pointer[string]) string {
	if s := p.Load(); s != nil {
		return *s
	}
	return ""
}

// replicaRemote returns the remote the server's databases pull from, ""
// when the server is no read replica.
func replicaRemote() string { return load(&replicaRemoteNow) }

// replicateTo returns the remote a primary pushes every commit to, "" for
// none.
func replicateTo() string { return load(&replicateToNow) }

// replicaOptions returns the pull's options from the variables.
func replicaOptions() (verso.ReplicateOptions, error) {
	opts := verso.ReplicateOptions{FastForwardOnly: !globalFlag(forcePullVar)}
	if globalFlag(replicateAllVar) {
		return opts, nil
	}
	for _, h := range strings.Split(globalString(replicateHeadsVar), ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Heads = append(opts.Heads, h)
		}
	}
	if len(opts.Heads) == 0 {
		return opts, fmt.Errorf("@@%s is set but no branch is: set @@%s (a comma-separated list of branches, * allowed) or @@%s = 1", readReplicaVar, replicateHeadsVar, replicateAllVar)
	}
	return opts, nil
}

// replicaWriteError is a replica's refusal of a write: 1290, as MySQL's
// refusal on a server started --read-only.
func replicaWriteError(db, remote string) error {
	return mysql.NewSQLError(mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState,
		"database %s is a read replica of remote %q and takes no writes; send them to the primary, or clear @@%s", db, remote, readReplicaVar)
}

// refuseReplicaWrite returns the refusal of a write to st, nil when the
// server is no replica.
func refuseReplicaWrite(st *dbState) error {
	if r := replicaRemote(); r != "" {
		return replicaWriteError(st.name, r)
	}
	return nil
}

// replicaPuller runs one pull of a database at a time, and makes each
// caller wait for a pull that started after it asked.
type replicaPuller struct {
	mu        sync.Mutex
	cur, next *replicaPull
}

type replicaPull struct {
	done chan struct{}
	err  error
}

// testPullDelay, set by tests, is a pause at the end of each pull (after
// the remote is read): a statement that arrives during it must wait for
// the next pull.
var testPullDelay time.Duration

// pullTimeout bounds one pull (the remote's own retries and timeouts are
// inside it).
const pullTimeout = 5 * time.Minute

// do waits for a pull of st that starts after the call, starting one if
// none is running. The pull runs on its own context: a caller that gives
// up (its statement killed) leaves it to the others.
func (p *replicaPuller) do(ctx context.Context, st *dbState) error {
	p.mu.Lock()
	var c *replicaPull
	if p.cur == nil {
		c = &replicaPull{done: make(chan struct{})}
		p.cur = c
		go p.run(c, st)
	} else {
		if p.next == nil {
			p.next = &replicaPull{done: make(chan struct{})}
		}
		c = p.next
	}
	p.mu.Unlock()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *replicaPuller) run(c *replicaPull, st *dbState) {
	for c != nil {
		c.err = st.pullOnce()
		if d := testPullDelay; d > 0 {
			time.Sleep(d) // a test's: a pull that is slow to finish
		}
		close(c.done)
		p.mu.Lock()
		c, p.cur, p.next = p.next, p.next, nil
		p.mu.Unlock()
	}
}

// pullOnce pulls st from the replica remote, with the options the
// variables hold now.
func (st *dbState) pullOnce() error {
	remote := replicaRemote()
	if remote == "" {
		return nil
	}
	opts, err := replicaOptions()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pullTimeout)
	defer cancel()
	_, err = st.db.Replicate(ctx, remote, opts)
	return err
}

// pullReplica brings st up to the replica remote before a transaction
// reads it; nothing when the server is no replica.
func pullReplica(ctx *sql.Context, st *dbState) error {
	remote := replicaRemote()
	if remote == "" || st.readOnly() {
		return nil
	}
	err := st.puller.do(ctx, st)
	if err == nil || ctx.Err() != nil {
		return err
	}
	return replicationFailure(ctx, fmt.Sprintf("read replica: pulling database %s from remote %q failed: %s", st.name, remote, replicationCause(err)),
		"serving what was pulled last", "to serve what was pulled last")
}

// replicationFailure is the statement's error for a failed pull or push,
// or, with @@dolt_skip_replication_errors, a warning (and no error).
func replicationFailure(ctx *sql.Context, msg, skipped, howToSkip string) error {
	if sessionFlag(ctx, skipReplErrorsVar) {
		ctx.Warn(mysql.ERUnknownError, "%s; %s", msg, skipped)
		return nil
	}
	return fmt.Errorf("%s; set @@%s = 1 %s", msg, skipReplErrorsVar, howToSkip)
}

// replicationCause says what failed, with a hint where one helps.
func replicationCause(err error) string {
	switch {
	case errors.Is(err, verso.ErrRemoteNotFound):
		return fmt.Sprintf("%v: add it with CALL dolt_remote('add', name, url)", err)
	case errors.Is(err, verso.ErrDiverged):
		return fmt.Sprintf("%v: set @@%s = 1 to reset the replica's branch to the remote's", err, forcePullVar)
	}
	return err.Error()
}

// pushReplicas pushes, forced, every branch of st whose head is not where
// the replication remote's tracking branch says the remote has it; nothing
// when no remote is set. Pushes of one database run one at a time, each
// reading the heads when it starts, so a statement's push also carries
// what others committed before it. Branches deleted here are not deleted
// on the remote.
func pushReplicas(ctx *sql.Context, st *dbState) error {
	remote := replicateTo()
	if remote == "" || st.readOnly() {
		return nil
	}
	err := func() error {
		st.pushMu.Lock()
		defer st.pushMu.Unlock()
		branches, err := st.db.Branches(ctx)
		if err != nil {
			return err
		}
		tracked, err := st.db.RemoteBranches(ctx)
		if err != nil {
			return err
		}
		at := map[string]verso.Hash{}
		for _, rb := range tracked {
			if rb.Remote == remote {
				at[rb.Branch] = rb.Head
			}
		}
		for _, b := range branches {
			if h, ok := at[b.Name]; ok && h == b.Head {
				continue
			}
			if _, err := st.db.Push(ctx, remote, b.Name, b.Name, verso.PushOptions{Force: true}); err != nil {
				return fmt.Errorf("branch %s: %w", b.Name, err)
			}
		}
		return nil
	}()
	if err == nil || ctx.Err() != nil {
		return err
	}
	return replicationFailure(ctx, fmt.Sprintf("replication: pushing database %s to remote %q failed: %s (the commit is made here; the next one pushes again)", st.name, remote, replicationCause(err)),
		"the statement goes on", "to make this a warning")
}

// replicaProcedures are the procedures a read replica runs: they change
// no database's branches or data (dolt_checkout only without options,
// which would make a branch).
var replicaProcedures = map[string]bool{
	"dolt_checkout": true, "dolt_count_commits": true, "dolt_fetch": true, "dolt_push": true,
	"dolt_remote": true, "dolt_clone": true, "dolt_gc": true, "dolt_undrop": true,
	"dolt_purge_dropped_databases": true,
}

// replicatingProcedure wraps a procedure's function (any signature whose
// first parameter is the *sql.Context and whose results are a
// sql.RowIter and an error): on a read replica it refuses the procedures
// that write; on a primary with @@dolt_replicate_to_remote it pushes what
// the procedure committed before answering.
func replicatingProcedure(name string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumIn() == 0 || t.In(0) != reflect.TypeOf((*sql.Context)(nil)) ||
		t.NumOut() != 2 || t.Out(1) != reflect.TypeOf((*error)(nil)).Elem() {
		panic(fmt.Sprintf("sqlserver: procedure %s: function of type %s", name, t))
	}
	fail := func(err error) []reflect.Value {
		return []reflect.Value{reflect.Zero(t.Out(0)), reflect.ValueOf(&err).Elem()}
	}
	name = strings.ToLower(name)
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		ctx := args[0].Interface().(*sql.Context)
		if replicaRemote() == "" && replicateTo() == "" {
			return call(v, t, args)
		}
		db, dbErr := currentDatabase(ctx)
		if dbErr == nil && replicaRemote() != "" && !replicaProcedureAllowed(name, t, args) {
			return fail(replicaWriteError(db.st.name, replicaRemote()))
		}
		out := call(v, t, args)
		if dbErr == nil && out[1].IsNil() {
			if err := pushReplicas(ctx, db.st); err != nil {
				return fail(err)
			}
		}
		return out
	}).Interface()
}

func call(v reflect.Value, t reflect.Type, args []reflect.Value) []reflect.Value {
	if t.IsVariadic() {
		return v.CallSlice(args)
	}
	return v.Call(args)
}

// replicaProcedureAllowed reports whether a replica runs the procedure
// with these arguments.
func replicaProcedureAllowed(name string, t reflect.Type, args []reflect.Value) bool {
	if !replicaProcedures[name] {
		return false
	}
	if name != "dolt_checkout" || !t.IsVariadic() {
		return true
	}
	// dolt_checkout(args ...string): an option makes a branch.
	return !slices.ContainsFunc(args[len(args)-1].Interface().([]string), func(a string) bool { return strings.HasPrefix(a, "-") })
}
