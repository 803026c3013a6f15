package verso

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/verso-db/verso/internal/rowlock"
)

// Row locks, as InnoDB takes them (see internal/rowlock for the manager's
// semantics): exclusive for a row a transaction writes or reads for
// update, shared for a row read for share, held until the transaction
// ends. A transaction that first locks a row adopts its latest committed
// version (adopt.go), so that `n = n + 1` from many transactions counts
// exactly; a second writer waits (bounded by a timeout: ErrLockTimeout);
// a deadlock fails the youngest transaction of the cycle (ErrDeadlock).

// Locks is a row lock manager. Every database opened without
// Options.Locks has its own; databases that share one (the SQL layer's
// databases) find deadlocks among all their transactions.
type Locks struct{ m *rowlock.Manager }

// NewLocks returns an empty lock manager.
func NewLocks() *Locks { return &Locks{m: rowlock.New()} }

// LockOwner holds the row locks of one transaction, in one database or
// several of one Locks. An owner made later is younger: a deadlock fails
// the youngest owner of its cycle.
type LockOwner struct{ t *rowlock.Txn }

// NewOwner returns a lock owner with no locks yet.
func (l *Locks) NewOwner() *LockOwner { return &LockOwner{t: l.m.Begin()} }

// ReleaseAll releases every lock of the owner.
func (o *LockOwner) ReleaseAll() { o.t.ReleaseAll() }

// LockMode is a lock's mode.
type LockMode int

// The modes of a lock: shared locks are compatible with each other only.
const (
	LockExclusive LockMode = iota
	LockShared
)

// LockPolicy says what a lock that cannot be had at once does.
type LockPolicy int

// The policies of a lock: wait (bounded), fail at once (NOWAIT), or leave
// the row out (SKIP LOCKED: ErrLockBusy, for the caller to skip it).
const (
	LockWait LockPolicy = iota
	LockNoWait
	LockSkipLocked
)

var (
	// ErrLockTimeout is returned for a lock not granted within its
	// timeout. The transaction and its other locks stay.
	ErrLockTimeout = errors.New("verso: lock wait timeout exceeded; try restarting the transaction")
	// ErrLockBusy is returned under LockNoWait and LockSkipLocked for a
	// row another transaction holds.
	ErrLockBusy = errors.New("verso: the row is locked by another transaction")
	// ErrDeadlock is returned to the youngest transaction of a deadlock:
	// its locks are released; roll it back and retry it.
	ErrDeadlock = errors.New("verso: deadlock found when trying to get a lock; roll the transaction back and retry it")
)

// DefaultLockTimeout bounds a lock wait when the caller gives none
// (innodb_lock_wait_timeout's default).
const DefaultLockTimeout = 50 * time.Second

// Lock takes the lock of key for o in mode and reports whether it is o's
// first lock of key. A deadlock releases every lock of o.
func (o *LockOwner) Lock(ctx context.Context, key string, mode LockMode, policy LockPolicy, timeout time.Duration) (bool, error) {
	m := rowlock.Exclusive
	if mode == LockShared {
		m = rowlock.Shared
	}
	p := rowlock.Wait
	switch policy {
	case LockNoWait:
		p = rowlock.NoWait
	case LockSkipLocked:
		p = rowlock.SkipLocked
	}
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	first, err := o.t.Lock(ctx, rowlock.Key(key), m, p, timeout)
	switch {
	case err == nil:
		return first, nil
	case errors.Is(err, rowlock.ErrBusy):
		return false, ErrLockBusy
	case errors.Is(err, rowlock.ErrTimeout):
		return false, ErrLockTimeout
	case errors.Is(err, rowlock.ErrDeadlock):
		o.t.ReleaseAll()
		return false, ErrDeadlock
	}
	return false, err
}

// Locks returns the database's lock manager.
func (db *DB) Locks() *Locks { return db.locks }

// LockKey returns the lock key of the row under key (a row map key) of
// table in the transaction's database and branch; part names a lock of
// something else of the table (a unique index's value).
func (t *Txn) LockKey(table string, key []byte) string {
	var b strings.Builder
	b.Grow(len(t.db.name) + len(t.branch) + len(table) + len(key) + 3)
	b.WriteString(t.db.name)
	b.WriteByte(0)
	b.WriteString(t.branch)
	b.WriteByte(0)
	b.WriteString(strings.ToLower(table))
	b.WriteByte(0)
	b.Write(key)
	return b.String()
}

// owner returns the transaction's lock owner, made on its first lock.
func (t *Txn) owner() *LockOwner {
	if t.locks == nil {
		t.locks = t.db.locks.NewOwner()
	}
	return t.locks
}

// Rollback ends the transaction: its writes are dropped and its row
// locks released. The Txn is not to be used after.
func (t *Txn) Rollback() {
	t.root = t.base
	t.adopted = nil
	t.releaseLocks()
	t.endOp()
}

// releaseLocks releases the locks the transaction's own owner holds.
func (t *Txn) releaseLocks() {
	if t.locks != nil {
		t.locks.ReleaseAll()
		t.locks = nil
	}
}
