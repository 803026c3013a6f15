package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tablemerge"
)

// Session is a client's session: the engine's BaseSession plus verso's
// transactions (see Transaction).
type Session struct {
	*sql.BaseSession
	p *Provider
	// fast runs the server's prepared primary-key selects (fastpath.go);
	// nil for sessions of an embedded engine.
	fast *fastPath
	// temp holds the session's temporary tables, per database (lower-case
	// name): a database in memory of the same name (see temporary.go).
	temp map[string]*dbState
	// access is what the account may reach beyond the engine's checks
	// (access.go); nil for sessions of an embedded engine.
	access *serverAccess
	// branches holds the branch the session has checked out per database
	// (lower-case name), when it is not the database's (dolt_checkout).
	branches map[string]string
	// txAtBegin is the transaction the running command began in
	// (CommandBegin, rowlocks.go).
	txAtBegin sql.Transaction
	// calls keeps the result sets of the CALLs the session runs, when
	// asked to (callresults.go).
	calls *callSink
}

var (
	_ sql.Session            = (*Session)(nil)
	_ sql.TransactionSession = (*Session)(nil)
)

// NewSession returns a session over base reading p's databases, logging
// to p's logger (SetLogger).
func (p *Provider) NewSession(base *sql.BaseSession) *Session {
	base.SetLogger(p.sessionEntry())
	s := &Session{BaseSession: base, p: p}
	p.activity.join(s)
	return s
}

// GetPreparedQuery implements sql.Session: the statement a prepared
// statement runs, which for the fast path's shapes is its injected
// statement.
func (s *Session) GetPreparedQuery(query string) (sqlparser.Statement, bool) {
	stmt, ok := s.BaseSession.GetPreparedQuery(query)
	if ok && s.fast != nil {
		if inj := s.fast.inject(query, stmt); inj != nil {
			return inj, true
		}
	}
	return stmt, ok
}

// Transaction is a session's transaction. On first use of a database it
// takes a snapshot: the working root of the session's branch. Its writes
// build new roots from there; CommitTransaction merges them into the
// branch's working set as it is then (see commit.go).
type Transaction struct {
	readOnly   bool
	dbs        map[txKey]*txDB
	savepoints []savepoint // in order of creation
	// locks holds the transaction's row locks (rowlocks.go); nil until
	// its first.
	locks *verso.LockOwner
	// pulled holds the databases a read replica pulled for this
	// transaction (replication.go).
	pulled map[*dbState]bool
}

// savepoint is a named state of a transaction: each database's root.
type savepoint struct {
	name  string
	roots map[txKey]chunks.Address
	bases map[txKey]verso.Adopted // each txDB's adopted rows
}

// savepoint returns the position of the savepoint name, or -1.
func (t *Transaction) savepoint(name string) int {
	for i, sp := range t.savepoints {
		if strings.EqualFold(sp.name, name) {
			return i
		}
	}
	return -1
}

var _ sql.Transaction = (*Transaction)(nil)

func (t *Transaction) String() string { return "verso transaction" }

// IsReadOnly implements sql.Transaction.
func (t *Transaction) IsReadOnly() bool { return t.readOnly }

// txKey names a database and branch a transaction works on.
type txKey struct {
	st     *dbState
	branch string
	commit chunks.Address // a read-only revision: the commit read
}

// txDB is a transaction's view of one database: the engine's transaction
// on one branch (or at one commit) with the SQL layer's pending writes.
type txDB struct {
	*verso.Txn
	st   *dbState
	refs *refsSnapshot // the refs it was read from (systables.go)
	// writers holds the pending writes of each table (editor.go), by
	// lower-case name.
	writers map[string]*tableWriter
	// targets counts, per table (lower-case name), the updaters and
	// deleters of the running statement: their reads lock (lockplan.go).
	targets map[string]int
	// editing counts, per table, the running statement's editors of any
	// kind (the statement flushes their writes when it ends).
	editing map[string]int
	// deferredBy is the query (its process id) whose writes stayed in
	// their writers for its commit (endStatement); 0 for none.
	deferredBy uint64
	// edits are the writes CommitTransaction hands to the engine's
	// commit as they are (takeEdits).
	edits []verso.TableEdit
	// conflictedMerge: a dolt_merge of this transaction left conflicts
	// that its end must either commit (when the session allows them) or
	// undo, as Dolt's rollback of the transaction would (undoMerge).
	conflictedMerge bool
}

// changed reports whether committing the transaction would write to d:
// its root, rows it adopted, or edits it hands to the commit.
func (d *txDB) changed() bool { return !d.Unchanged() || len(d.edits) > 0 }

// StartTransaction implements sql.TransactionSession.
func (s *Session) StartTransaction(ctx *sql.Context, c sql.TransactionCharacteristic) (sql.Transaction, error) {
	return &Transaction{readOnly: c == sql.ReadOnly, dbs: map[txKey]*txDB{}}, nil
}

// CommitTransaction implements sql.TransactionSession: each database the
// transaction changed gets its working set replaced (or merged into) with
// one durable store commit.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) (err error) {
	t, ok := tx.(*Transaction)
	if !ok {
		return fmt.Errorf("verso: not a verso transaction: %T", tx)
	}
	defer func() {
		if err != nil && ctx.GetTransaction() == tx {
			// The engine keeps a transaction whose COMMIT failed open;
			// MySQL's session is out of it (status flags, autocommit).
			ctx.SetIgnoreAutoCommit(false)
			ctx.SetTransaction(nil)
		}
		// Committed or not, the transaction is over: a failed COMMIT
		// (a serialization failure) rolls it back, as MySQL's does, so
		// that the client's retry starts from a fresh snapshot. Keeping
		// the failed writes made every later BEGIN (which commits the
		// open transaction first) fail the same way forever. Its locks
		// go once its writes are durable, or dropped.
		t.abort()
	}()
	historyCommit := sessionFlag(ctx, txnCommitVar)
	for _, d := range t.dbs {
		if historyCommit {
			if err := d.flushAll(ctx); err != nil {
				return err
			}
			continue
		}
		if err := d.takeEdits(ctx); err != nil {
			return err
		}
	}
	if err := refuseConflicts(ctx, t); err != nil {
		return err
	}
	for _, d := range t.dbs {
		if !d.ReadOnly() && d.changed() {
			if err := refuseReplicaWrite(d.st); err != nil {
				return err
			}
		}
	}
	for _, d := range t.dbs {
		changed := d.changed()
		if historyCommit && !d.ReadOnly() && changed {
			if err := commitToHistory(ctx, d); err != nil {
				return err
			}
			s.p.activity.note(s, d.st, d.Branch(), true)
			continue
		}
		if err := d.CommitEdits(ctx, d.edits); err != nil {
			return engineError(err)
		}
		d.cacheEdited(ctx)
		if changed {
			s.p.activity.note(s, d.st, d.Branch(), true)
		}
	}
	// A primary's replication: a transaction commit that made a commit
	// (@@dolt_transaction_commit) pushes it before it answers; the
	// procedures that commit push as they end (replicatingProcedure).
	if historyCommit && replicateTo() != "" {
		pushed := map[*dbState]bool{}
		for _, d := range t.dbs {
			if !d.ReadOnly() && !pushed[d.st] {
				pushed[d.st] = true
				if err := pushReplicas(ctx, d.st); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commitToHistory commits the transaction's changes to d and, with every
// change of the working set staged, to its branch's history, in one
// durable step (@@dolt_transaction_commit).
func commitToHistory(ctx *sql.Context, d *txDB) error {
	msg := "Transaction commit"
	if v, err := ctx.GetSessionVariable(ctx, txnCommitMsgVar); err == nil {
		if m, _ := v.(string); m != "" {
			msg = m
		}
	}
	who, err := commitIdentity(ctx)
	if err != nil {
		return err
	}
	_, err = d.CommitChanges(ctx, verso.CommitOptions{Message: msg, Author: who, StageAll: true, SkipEmpty: true})
	if err != nil {
		return engineError(err)
	}
	return nil
}

// refuseConflicts fails the commit of a transaction that writes to a
// working set with merge conflicts or schema conflicts (unresolved, or
// left by an earlier merge), as Dolt's does, unless the session allows
// them (@@dolt_allow_commit_conflicts, @@dolt_force_transaction_commit),
// and one whose working set holds constraint violations unless
// @@dolt_force_transaction_commit. CommitTransaction then rolls the
// transaction back. A transaction that wrote nothing commits.
func refuseConflicts(ctx *sql.Context, t *Transaction) error {
	for _, d := range t.dbs {
		if d.ReadOnly() || !d.changed() && !d.conflictedMerge {
			continue
		}
		if !conflictsAllowed(ctx) {
			tables, err := verso.ConflictedTables(ctx, d.Root())
			if err != nil {
				return err
			}
			schema, err := verso.SchemaConflictedTables(ctx, d.Root())
			if err != nil {
				return err
			}
			if len(tables) > 0 || len(schema) > 0 {
				undoMerges(ctx, t)
				if autocommitting(ctx) {
					return errAutocommitConflicts
				}
				return errCommitConflicts
			}
		}
		if !sessionFlag(ctx, forceTxnCommitVar) {
			vs, err := tablemerge.ListViolations(ctx, d.st.graph.NodeStore(), d.Root())
			if err != nil {
				return err
			}
			if len(vs) > 0 {
				msg, err := violationsMessage(ctx, d)
				if err != nil {
					return err
				}
				undoMerges(ctx, t)
				return errors.New(msg)
			}
		}
	}
	return nil
}

// undoMerges takes back, in each database, the conflicted merge the
// transaction made and its writes since: a dolt_merge writes the branch
// at once (verso.Txn.Merge), where Dolt's stays in the transaction until
// it commits, so a rolled-back transaction must abort it to leave the
// branch as it was.
func undoMerges(ctx *sql.Context, t *Transaction) {
	for _, d := range t.dbs {
		if !d.conflictedMerge {
			continue
		}
		d.conflictedMerge = false
		d.SetRoot(d.Base())
		d.writers = map[string]*tableWriter{}
		if err := d.AbortMerge(ctx); err != nil && !errors.Is(err, verso.ErrNoMerge) {
			ctx.GetLogger().Warnf("undoing the conflicted merge of a rolled-back transaction on %s: %v", d.Branch(), err)
		}
	}
}

// Rollback implements sql.TransactionSession: the transaction's writes are
// dropped.
func (s *Session) Rollback(ctx *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*Transaction); ok {
		undoMerges(ctx, t)
		t.abort()
	}
	return nil
}

// CreateSavepoint implements sql.TransactionSession. A savepoint of the
// same name as an older one replaces it.
func (s *Session) CreateSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t := tx.(*Transaction)
	roots := map[txKey]chunks.Address{}
	bases := map[txKey]verso.Adopted{}
	for k, d := range t.dbs {
		if err := d.flushAll(ctx); err != nil {
			return err
		}
		roots[k] = d.Root().Address()
		bases[k] = d.SaveAdopted()
	}
	if i := t.savepoint(name); i >= 0 {
		t.savepoints = append(t.savepoints[:i], t.savepoints[i+1:]...)
	}
	t.savepoints = append(t.savepoints, savepoint{name: name, roots: roots, bases: bases})
	return nil
}

// RollbackToSavepoint implements sql.TransactionSession. Savepoints made
// after it are removed; it stays.
func (s *Session) RollbackToSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t := tx.(*Transaction)
	i := t.savepoint(name)
	if i < 0 {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	roots, bases := t.savepoints[i].roots, t.savepoints[i].bases
	t.savepoints = t.savepoints[:i+1]
	for k, d := range t.dbs {
		addr, ok := roots[k]
		if !ok {
			addr = d.Base().Address()
		}
		r, err := d.st.graph.OpenRoot(ctx, addr)
		if err != nil {
			return err
		}
		d.SetRoot(r)
		d.writers = map[string]*tableWriter{}
		// Rows adopted since stay locked; their adopted versions are
		// gone with the writes, so a later lock adopts them again.
		d.RestoreAdopted(bases[k]) // the savepoint stays usable
	}
	return nil
}

// ReleaseSavepoint implements sql.TransactionSession: it and the
// savepoints made after it are removed.
func (s *Session) ReleaseSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t := tx.(*Transaction)
	i := t.savepoint(name)
	if i < 0 {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	t.savepoints = t.savepoints[:i]
	return nil
}

// transaction returns the context's transaction, starting one if the
// engine has not (direct calls outside a query).
func transaction(ctx *sql.Context) (*Transaction, error) {
	if tx, ok := ctx.GetTransaction().(*Transaction); ok && tx != nil {
		return tx, nil
	}
	ts, ok := ctx.Session.(sql.TransactionSession)
	if !ok {
		return nil, fmt.Errorf("verso: session %T has no transactions", ctx.Session)
	}
	tx, err := ts.StartTransaction(ctx, sql.ReadWrite)
	if err != nil {
		return nil, err
	}
	ctx.SetTransaction(tx)
	return tx.(*Transaction), nil
}

// txDatabase returns the transaction's view of branch of st, taking its
// snapshot on first use.
func txDatabase(ctx *sql.Context, st *dbState, branch string) (*txDB, error) {
	tx, err := transaction(ctx)
	if err != nil {
		return nil, err
	}
	key := txKey{st: st, branch: branch}
	if d, ok := tx.dbs[key]; ok {
		if d.deferredBy != 0 && d.deferredBy != ctx.Pid() {
			// A statement whose writes waited for a commit that did
			// not come: a later one reads them in the root.
			if err := d.flushAll(ctx); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	if !tx.pulled[st] && replicaRemote() != "" {
		if err := pullReplica(ctx, st); err != nil {
			return nil, err
		}
		if tx.pulled == nil {
			tx.pulled = map[*dbState]bool{}
		}
		tx.pulled[st] = true
	}
	t, err := st.db.Begin(ctx, branch)
	if err != nil {
		return nil, err
	}
	d := &txDB{Txn: t, st: st, refs: &refsSnapshot{t.Refs(), t.Start()}, writers: map[string]*tableWriter{}}
	tx.dbs[key] = d
	if s := sessionOf(ctx); s != nil {
		s.p.activity.note(s, st, branch, false)
	}
	return d, nil
}

// continueDeferred lets the statement pid, a direct write, go on from the
// edits earlier statements of the transaction left in their writers
// (deferWrites) instead of writing them into the roots first
// (txDatabase): it reads the rows it writes through the writers. Should it
// hand the statement to the engine after all, the engine's statement
// writes them first, its process id being another.
func (t *Transaction) continueDeferred(pid uint64) {
	for _, d := range t.dbs {
		if d.deferredBy != 0 {
			d.deferredBy = pid
		}
	}
}

// txRevision returns the transaction's read-only view of the commit c of
// st (a revision database at a tag or a hash, or AS OF).
func txRevision(ctx *sql.Context, st *dbState, c *commitgraph.Commit) (*txDB, error) {
	tx, err := transaction(ctx)
	if err != nil {
		return nil, err
	}
	key := txKey{st: st, commit: c.Addr}
	if d, ok := tx.dbs[key]; ok {
		return d, nil
	}
	t, err := st.db.BeginAt(ctx, c)
	if err != nil {
		return nil, err
	}
	d := &txDB{Txn: t, st: st, writers: map[string]*tableWriter{}}
	tx.dbs[key] = d
	return d, nil
}
