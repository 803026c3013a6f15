package sqlserver

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/tables"
)

// Row locks, as InnoDB takes them.
//
// A transaction reads a snapshot (plain SELECTs), but the rows it writes
// (INSERT, UPDATE, DELETE, REPLACE) and the rows of its locking reads
// (SELECT ... FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are locked
// (package internal/rowlock: exclusive for writes and FOR UPDATE, shared
// for FOR SHARE) until the transaction ends, and read at their latest
// committed version: a second writer of a row waits until the first
// commits or rolls back, then sees what it wrote, so that `n = n + 1` from
// many sessions counts exactly. Waits end after innodb_lock_wait_timeout
// seconds with ER_LOCK_WAIT_TIMEOUT (1205; the statement is rolled back,
// the transaction and its locks stay); a deadlock fails the youngest
// transaction of the cycle with ER_LOCK_DEADLOCK (1213), rolled back
// whole; NOWAIT fails at once with ER_LOCK_NOWAIT (3572) and SKIP LOCKED
// leaves out the rows another transaction holds.
//
// Reading the latest version ("adopting" it): when a transaction first
// locks a row, the row as the branch's working root holds it now (L) is
// compared with the row as the transaction's snapshot holds it (B, its
// base). If they differ, another transaction committed the row since the
// snapshot; as the lock was free, that transaction has ended. The
// transaction then takes L into its own root (through its table editor,
// so indexes follow) and records L as the row's base (txDB.bases), so
// that at COMMIT its change of the row is replayed from L, not from the
// snapshot, and is no conflict. Plain reads of other rows keep the
// snapshot. A row the transaction has written since its base and that
// another writer changed anyway (a writer that takes no locks: a
// procedure rewriting the working set, another process) is a
// serialization failure (1213), as is any row that both the transaction
// and the working root changed since the transaction's base, whatever
// the values (merge.go).
//
// Lock keys are (database, branch, table, primary key), and (database,
// branch, table, unique index, value) for the values of unique indexes a
// row takes (lockUnique); rows of tables without a primary key are not
// locked (their rows are a bag: concurrent
// inserts add up, and a row deleted twice fails the second commit).
// There are no gap or next-key locks: a locking read of a range locks the
// rows it reads, not the gaps between them, so a row inserted into the
// range by another transaction meanwhile is not seen (and not locked) by
// it.

// lockClause is how a table's rows are read: in which lock mode, waiting
// or not.
type lockClause struct {
	mode   verso.LockMode
	policy verso.LockPolicy
}

// lockWrite is the lock of the rows a statement writes.
var lockWrite = lockClause{mode: verso.LockExclusive, policy: verso.LockWait}

// withLock returns a copy of t whose reads lock their rows as c says.
func (t *Table) withLock(c lockClause) *Table {
	nt := *t
	nt.lock = &c
	return &nt
}

// rowVersion is a row's stored value, or its absence.
type rowVersion = verso.RowVersion

// lockWaitTimeout returns the session's innodb_lock_wait_timeout.
func lockWaitTimeout(ctx *sql.Context) time.Duration {
	v, err := ctx.GetSessionVariable(ctx, "innodb_lock_wait_timeout")
	if err != nil {
		return defaultLockWaitTimeout
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int32:
		n = int64(x)
	case int:
		n = int64(x)
	case uint64:
		n = int64(x)
	default:
		return defaultLockWaitTimeout
	}
	return time.Duration(n) * time.Second
}

// defaultLockWaitTimeout is innodb_lock_wait_timeout's default, MySQL's.
const defaultLockWaitTimeout = 50 * time.Second

// Errors of lock waits, with MySQL's numbers and messages.
func errLockWaitTimeout() error {
	return mysql.NewSQLError(mysql.ERLockWaitTimeout, "HY000", "Lock wait timeout exceeded; try restarting transaction")
}

func errLockNowait() error {
	return mysql.NewSQLError(3572, "HY000", "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.")
}

func errDeadlock() error {
	return mysql.NewSQLError(mysql.ERLockDeadlock, mysql.SSLockDeadlock, "Deadlock found when trying to get lock; try restarting transaction")
}

// errSkipped is lock's answer for a row that SKIP LOCKED leaves out.
var errSkipped = errors.New("sqlserver: row skipped (SKIP LOCKED)")

// lock takes the lock of the row under key of table for the transaction
// and returns whether this is its first lock of the row. A deadlock rolls
// the whole transaction back (its snapshots, writes and locks), as
// InnoDB's does.
func (d *txDB) lock(ctx *sql.Context, p *Provider, table string, key []byte, c lockClause) (bool, error) {
	tx, err := transaction(ctx)
	if err != nil {
		return false, err
	}
	if tx.locks == nil {
		tx.locks = p.locks.NewOwner()
	}
	first, err := tx.locks.Lock(ctx, d.LockKey(table, key), c.mode, c.policy, lockWaitTimeout(ctx))
	switch {
	case err == nil:
		return first, nil
	case errors.Is(err, verso.ErrLockBusy):
		if c.policy == verso.LockSkipLocked {
			return false, errSkipped
		}
		return false, errLockNowait()
	case errors.Is(err, verso.ErrLockTimeout):
		return false, errLockWaitTimeout()
	case errors.Is(err, verso.ErrDeadlock):
		// The transaction is over, as MySQL's is: the session's next
		// statements autocommit (under autocommit) until a BEGIN.
		tx.abort()
		ctx.SetIgnoreAutoCommit(false)
		return false, errDeadlock()
	}
	return false, err
}

// abort ends the transaction (CommitTransaction's end, committed or
// not, and a deadlock's rollback): its views of every database, its
// savepoints, the pulls a read replica made for it, and its locks.
func (t *Transaction) abort() {
	t.endAll()
	t.dbs = map[txKey]*txDB{}
	t.savepoints = nil
	t.pulled = nil
	t.releaseLocks()
}

// endAll rolls back the engine transactions of every database the
// transaction touched: the ones committed already are over, the rest end
// here, so that a garbage collection does not wait for them (verso's
// gc.go).
func (t *Transaction) endAll() {
	for _, d := range t.dbs {
		d.Rollback()
	}
}

// releaseLocks releases the transaction's row locks; its next lock starts
// a younger lock-holder.
func (t *Transaction) releaseLocks() {
	if t.locks != nil {
		t.locks.ReleaseAll()
		t.locks = nil
	}
}

// lockRow locks the row under key of the table (of database db) and
// returns its version for the statement: the transaction's own, after
// adopting the latest committed version on the first lock (see above),
// and whether that adoption changed it, with the table's writer.
//
// A lock the transaction held already adopts nothing and returns no
// version or writer: the version is the one the transaction's statement
// reads (see rowIter.locked).
func (d *txDB) lockRow(ctx *sql.Context, db *Database, table string, key []byte, c lockClause) (v rowVersion, first, adopted bool, w *tableWriter, err error) {
	first, err = d.lock(ctx, db.p, table, key, c)
	if err != nil || !first {
		return rowVersion{}, first, false, nil, err
	}
	if w, err = d.writer(ctx, db, table); err != nil {
		return rowVersion{}, first, false, w, err
	}
	cur, err := rawGet(ctx, w.ed, key)
	if err != nil {
		return rowVersion{}, first, false, w, err
	}
	v, err = d.adopt(ctx, db, w, key, cur)
	return v, first, err == nil && !v.Equal(cur), w, err
}

// rawGet returns the editor's version of the row under key.
func rawGet(ctx context.Context, ed *tables.Editor, key []byte) (rowVersion, error) {
	v, ok, err := ed.GetRaw(ctx, key)
	if err != nil {
		return rowVersion{}, err
	}
	return rowVersion{Val: v, OK: ok}, nil
}

// adopt brings the latest committed version of the row under key of w's
// table into the transaction (verso.Txn.AdoptRow), if it differs from the
// transaction's base of the row, and returns the version the transaction
// now holds (cur is its version before).
func (d *txDB) adopt(ctx *sql.Context, db *Database, w *tableWriter, key []byte, cur rowVersion) (rowVersion, error) {
	v, changed, err := d.AdoptRow(ctx, w.name, w.ed, key, cur, db.cacheLoader(ctx))
	if err != nil || !changed {
		return v, engineError(err)
	}
	w.dirty = true
	if w.adopted == nil {
		w.adopted = map[string]bool{}
	}
	w.adopted[string(key)] = true
	if d.editing[strings.ToLower(w.name)] == 0 {
		// A locking SELECT: no statement end will write the adopted row
		// into the transaction's root for its later statements to read.
		if err := d.flush(ctx, w); err != nil {
			return rowVersion{}, err
		}
	}
	return v, nil
}

// dropAdopted forgets the rows w adopted since its statement began (the
// statement's edits, adoptions included, were rolled back).
func (d *txDB) dropAdopted(w *tableWriter) {
	d.Unadopt(strings.ToLower(w.name), w.adopted)
	w.adopted = nil
}

// cacheLoader opens table values through the provider's cache, for the
// engine's adoption of locked rows: under concurrent writers the latest
// table is new after each commit, but one load serves every session's
// locks until the next.
func (db *Database) cacheLoader(ctx *sql.Context) verso.TableLoader {
	return func(_ context.Context, name string, addr chunks.Address) (*tables.Table, error) {
		info, err := db.p.cache.get(ctx, db, name, addr, chunks.Address{})
		if err != nil {
			return nil, err
		}
		return info.t, nil
	}
}

// lockStored locks the row of a table with a primary key whose stored
// values are vals (an insert's, an update's or a delete's) for writing.
// read marks a row the statement read, to update or delete: if it changed
// since (the statement's read took no lock: a view, a trigger's statement),
// the values the statement computed from it are stale, and the statement
// fails with a serialization failure instead of overwriting the change.
func (e *editor) lockStored(ctx *sql.Context, vals []tables.Value, read bool) error {
	key := e.storedKey(vals)
	if key == nil {
		return nil
	}
	return e.lockKey(ctx, key, read)
}

// storedKey returns the row key of stored values vals, or nil for a row
// that takes no lock: of a temporary table, a read-only revision, a table
// without a primary key, or with an auto-increment key still to be
// assigned (no other session gets that value).
func (e *editor) storedKey(vals []tables.Value) []byte {
	if e.t.db.temp || e.d.ReadOnly() || e.w.ed.Schema().Keyless() {
		return nil
	}
	for _, p := range e.w.ed.Schema().PrimaryKey {
		if vals[p].IsNull() {
			return nil
		}
	}
	return e.t.info.t.KeyOf(vals)
}

// lockKey locks the row under key for writing (see lockStored).
func (e *editor) lockKey(ctx *sql.Context, key []byte, read bool) error {
	_, _, adopted, _, err := e.d.lockRow(ctx, e.t.db, e.t.name, key, lockWrite)
	if err == nil && adopted && read {
		return errSerialization("the row with key %s in table %q changed since this statement read it", tables.KeyText(key), e.t.name)
	}
	return err
}

// locked locks the iterator's current row (a locking read) and returns the
// values to return for it, or keep false for a row to leave out: deleted
// since the snapshot, moved out of the index range read, or, with SKIP
// LOCKED, held by another transaction.
func (r *rowIter) locked(ctx *sql.Context) (vals []tables.Value, keep bool, err error) {
	db := r.t.db
	if db.temp || db.rev != nil || r.tbl.Schema().Keyless() {
		return r.it.Row(), true, nil
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, false, err
	}
	if d.ReadOnly() {
		return r.it.Row(), true, nil
	}
	key := bytes.Clone(r.it.Key())
	v, first, _, w, err := d.lockRow(ctx, db, r.t.name, key, *r.lock)
	switch {
	case errors.Is(err, errSkipped):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case !first:
		// Locked before: by an earlier statement, whose writes (and
		// adoptions) the table read holds, or earlier in this one, which
		// reads the row as it was before its own writes (an UPDATE over
		// a join meets a row once per match, and must see it unchanged),
		// adopted version included.
		if !d.HasAdopted() {
			return r.it.Row(), true, nil
		}
		if w, err = d.writer(ctx, db, r.t.name); err != nil {
			return nil, false, err
		}
		if !w.adopted[string(key)] {
			return r.it.Row(), true, nil
		}
		v, _ = d.Adopted(strings.ToLower(w.name), string(key))
	}
	switch {
	case !v.OK:
		return nil, false, nil
	case bytes.Equal(v.Val, r.it.Value()):
		return r.it.Row(), true, nil
	}
	full, err := r.tbl.Decode(ctx, key, v.Val)
	if err != nil {
		return nil, false, err
	}
	if r.cur.index >= 0 && !r.tbl.InIndexSpan(r.cur.index, full, key, r.cur.lo, r.cur.hi) {
		return nil, false, nil
	}
	if r.proj == nil {
		return full, true, nil
	}
	cols := r.proj.Columns()
	out := make([]tables.Value, len(cols))
	for i, c := range cols {
		out[i] = full[c]
	}
	return out, true, nil
}

// readLock returns how a read of t locks its rows: as its locking clause
// says, exclusively while a statement of the transaction updates or
// deletes its rows, else (nil) not at all.
func (t *Table) readLock(ctx *sql.Context) *lockClause {
	if t.lock != nil {
		return t.lock
	}
	if t.db.temp || t.db.rev != nil {
		return nil
	}
	d, err := t.db.tx(ctx)
	if err != nil || d.targets[strings.ToLower(t.name)] == 0 {
		return nil
	}
	return &lockWrite
}

var _ sql.LifecycleAwareSession = (*Session)(nil)

// CommandBegin implements sql.LifecycleAwareSession: it notes the
// transaction the command starts in.
func (s *Session) CommandBegin() error {
	s.txAtBegin = s.GetTransaction()
	return nil
}

// CommandEnd implements sql.LifecycleAwareSession. A transaction the
// command began in and no longer has, which neither committed nor rolled
// back (the engine drops an autocommit transaction when a statement fails
// in its bind), is rolled back, and its row locks released: else they
// stayed taken by a transaction nobody could end, and every writer of
// those rows waited for them until its lock wait timeout.
//
// Under autocommit, a transaction the command leaves open is rolled back
// when it wrote nothing and holds no locks and the command began it
// (preparing a statement begins one, and the engine ends it only after
// an execution: else the statement's first execution would read the
// snapshot taken when it was prepared, not the latest committed data, as
// every autocommit statement must), and whenever it holds row locks (a
// statement that failed in its execution leaves its transaction open
// with the locks it took, which MySQL releases with the failed
// statement's rollback).
func (s *Session) CommandEnd() {
	tx, ok := s.GetTransaction().(*Transaction)
	at := s.txAtBegin
	s.txAtBegin = nil
	if old, isOurs := at.(*Transaction); isOurs && old != nil && (!ok || old != tx) {
		old.abort()
	}
	if !ok || tx == nil || s.GetIgnoreAutoCommit() {
		return
	}
	locked := tx.locks != nil
	if !locked && (at == sql.Transaction(tx) || !tx.unchanged()) {
		return
	}
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	if v, err := s.GetSessionVariable(ctx, "autocommit"); err != nil {
		return
	} else if on, err := sql.ConvertToBool(ctx, v); err != nil || !on {
		return
	}
	tx.abort()
	s.SetTransaction(nil)
}

// unchanged reports whether the transaction wrote nothing and holds no
// row locks.
func (t *Transaction) unchanged() bool {
	if t.locks != nil || len(t.savepoints) > 0 {
		return false
	}
	for _, d := range t.dbs {
		for _, w := range d.writers {
			if w.dirty {
				return false
			}
		}
		if !d.Unchanged() {
			return false
		}
	}
	return true
}

// SessionEnd implements sql.LifecycleAwareSession: a session that ends
// (its client went away, or the server shuts down) rolls back its open
// transaction and releases its row locks, which would otherwise keep
// every other writer of its rows waiting.
func (s *Session) SessionEnd() {
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil {
		t.abort()
	}
	s.p.activity.leave(s)
}

// lockUnique locks, for writing, the values the row vals (stored under
// key) takes in the table's unique indexes (verso.Txn.LockUnique): the
// holders of a value are locked shared and adopted through the
// statement's lockRow, so that the editor's unique check sees the latest.
func (e *editor) lockUnique(ctx *sql.Context, vals []tables.Value, key []byte) error {
	if key == nil {
		return nil // a row that takes no locks (storedKey)
	}
	lock := func(table string, key []byte) (bool, error) { return e.d.lock(ctx, e.t.db.p, table, key, lockWrite) }
	holder := func(rk []byte) error {
		_, _, _, _, err := e.d.lockRow(ctx, e.t.db, e.t.name, rk, lockClause{mode: verso.LockShared, policy: verso.LockWait})
		return err
	}
	return e.d.LockUnique(ctx, e.t.name, e.t.info.t, e.w.ed, vals, key, lock, holder, e.t.db.cacheLoader(ctx))
}
