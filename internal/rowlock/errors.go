package rowlock

import "errors"

var (
	// ErrTimeout: a Lock with policy Wait did not get its lock within its
	// timeout (MySQL's ER_LOCK_WAIT_TIMEOUT). The transaction's other locks
	// stay held.
	ErrTimeout = errors.New("rowlock: lock wait timeout exceeded")
	// ErrDeadlock: the Lock's transaction was chosen as the victim of a
	// deadlock (MySQL's ER_LOCK_DEADLOCK). Its other locks stay held: the
	// caller rolls the transaction back and calls ReleaseAll.
	ErrDeadlock = errors.New("rowlock: deadlock found when trying to get lock")
	// ErrBusy: a Lock with policy NoWait or SkipLocked found the key held in
	// a conflicting mode, or other requests queued for it.
	ErrBusy = errors.New("rowlock: the lock is held by another transaction")
)
