package rowlock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is the strength of a row lock. Exclusive is stronger than Shared:
// a transaction holding a key Exclusive also has it Shared.
type Mode uint8

const (
	Shared    Mode = 1 // FOR SHARE
	Exclusive Mode = 2 // writes, FOR UPDATE
)

func (m Mode) String() string {
	switch m {
	case Shared:
		return "S"
	case Exclusive:
		return "X"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// compatible reports whether two transactions may hold one key in modes a
// and b at once: only Shared with Shared.
func compatible(a, b Mode) bool { return a == Shared && b == Shared }

// Policy says what Lock does when the lock cannot be granted at once.
type Policy uint8

const (
	Wait       Policy = iota // wait up to the timeout
	NoWait                   // fail at once with ErrBusy
	SkipLocked               // fail at once with ErrBusy (the caller skips the row)
)

func (p Policy) String() string {
	switch p {
	case Wait:
		return "Wait"
	case NoWait:
		return "NoWait"
	case SkipLocked:
		return "SkipLocked"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// Key names one lockable row. It is opaque to the manager: the caller
// builds it from the database, branch, table and primary key bytes.
type Key string

// Stats counts events since New.
type Stats struct {
	Waits     uint64 // Lock calls that went to sleep waiting for a conflicting lock
	Deadlocks uint64 // ErrDeadlock results (one per victim)
	Timeouts  uint64 // ErrTimeout results, including timeout <= 0 ones that did not wait
}

// Manager holds the row locks of every transaction of one server. It is
// safe for concurrent use. All its state is guarded by one mutex: each
// Lock and ReleaseAll takes it once (twice for a wait that ends by timeout
// or cancellation).
type Manager struct {
	nextID atomic.Uint64

	mu    sync.Mutex
	locks map[Key]*lock // keys with at least one holder
	peak  int           // the largest len(locks) since locks was made
	free  []*lock       // released lock records kept for reuse, at most maxFree
	stats Stats
	dl    detector

	// waitHook, set by tests before any Lock, is called by a Lock that is
	// about to sleep, after it is queued and m.mu is released.
	waitHook func(*Txn)
}

const (
	// maxFree bounds the free list of lock records.
	maxFree = 256
	// maxReuseCap: a record whose holder or queue slice grew past this is
	// not reused, so one burst of contention does not pin its memory.
	maxReuseCap = 16
	// shrinkPeak: when the last lock goes and the map once held more keys
	// than this, the map is made anew (Go maps never shrink).
	shrinkPeak = 1 << 12
)

// New returns an empty Manager.
func New() *Manager {
	return &Manager{locks: make(map[Key]*lock)}
}

// Stats returns the counters since New.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// lock is the state of one key: who holds it and who waits for it.
type lock struct {
	key Key
	// holders: any number of Shared, or one Exclusive; never empty while
	// the lock is in Manager.locks.
	holders []holder
	// queue: the waiting requests, FIFO except that upgrades by holders
	// go before every other request. Its front is never grantable: every
	// change of holders or queue ends with grantWaiters.
	queue []*waiter
}

type holder struct {
	txn  *Txn
	mode Mode
}

// modeOf returns the mode t holds l in, or 0.
func (l *lock) modeOf(t *Txn) Mode {
	for _, h := range l.holders {
		if h.txn == t {
			return h.mode
		}
	}
	return 0
}

// compatibleHolders reports whether t may hold l in mode alongside every
// other holder.
func (l *lock) compatibleHolders(t *Txn, mode Mode) bool {
	for _, h := range l.holders {
		if h.txn != t && !compatible(h.mode, mode) {
			return false
		}
	}
	return true
}

// Txn is one transaction's set of locks. Its methods are called by one
// goroutine at a time (the session's); other transactions' Lock and
// ReleaseAll calls run concurrently with them.
type Txn struct {
	m  *Manager
	id uint64
	// held: the locks granted to t, each once, for ReleaseAll. Written
	// under m.mu, by t's own calls or, while t sleeps in Lock, by the call
	// that grants t's request; so t's goroutine reads it without m.mu.
	held []*lock
	// w is t's request while t waits in Lock (a transaction waits for one
	// key at a time).
	w     waiter
	timer *time.Timer // t's wait timer, made at its first wait
	visit uint64      // the last deadlock search that reached t (m.mu)
}

// waiter is a queued request.
type waiter struct {
	txn     *Txn
	lock    *lock // the lock waited for; nil when not queued (m.mu)
	mode    Mode
	upgrade bool  // txn holds lock Shared and asks Exclusive
	done    bool  // resolved: granted (err nil) or a deadlock victim (m.mu)
	err     error // the result once done
	ready   chan struct{}
}

// Begin starts a transaction younger than every earlier one.
func (m *Manager) Begin() *Txn {
	t := &Txn{m: m, id: m.nextID.Add(1)}
	t.w = waiter{txn: t, ready: make(chan struct{}, 1)}
	return t
}

// ID returns t's id: larger is younger.
func (t *Txn) ID() uint64 { return t.id }

// Held returns the number of keys t holds.
func (t *Txn) Held() int { return len(t.held) }

// Lock takes key in mode for t. While another transaction holds key in a
// conflicting mode, or other requests are queued ahead, policy Wait waits
// for at most timeout (timeout <= 0: fail at once with ErrTimeout), or
// until ctx is done (ctx.Err()); NoWait and SkipLocked fail at once with
// ErrBusy. A wait that would close a cycle of waiting transactions is a
// deadlock: the youngest transaction of the cycle gets ErrDeadlock (see
// the package documentation). After an error, t's other locks stay held.
//
// first reports that t held no lock on key before this call, in any mode;
// it is set whatever err is. A lock already held in mode or stronger
// returns at once. A Shared holder may ask Exclusive: the upgrade waits
// for the other Shared holders only, ahead of every queued request.
func (t *Txn) Lock(ctx context.Context, key Key, mode Mode, p Policy, timeout time.Duration) (first bool, err error) {
	if mode != Shared && mode != Exclusive {
		panic(fmt.Sprintf("rowlock: Lock of %q with invalid mode %d", key, mode))
	}
	m := t.m
	m.mu.Lock()
	l := m.locks[key]
	if l == nil {
		l = m.newLock(key)
		m.grant(l, t, mode, false)
		m.mu.Unlock()
		return true, nil
	}
	held := l.modeOf(t)
	if held >= mode {
		m.mu.Unlock()
		return false, nil
	}
	first = held == 0
	upgrade := !first
	if upgrade && len(l.holders) == 1 || !upgrade && len(l.queue) == 0 && l.compatibleHolders(t, mode) {
		m.grant(l, t, mode, upgrade)
		m.mu.Unlock()
		return first, nil
	}
	switch {
	case p != Wait:
		m.mu.Unlock()
		return first, ErrBusy
	case timeout <= 0:
		m.stats.Timeouts++
		m.mu.Unlock()
		return first, ErrTimeout
	}
	if err := ctx.Err(); err != nil {
		m.mu.Unlock()
		return first, err
	}
	w := &t.w
	m.enqueue(l, w, mode, upgrade)
	if err := m.breakCycles(t); err != nil {
		m.mu.Unlock()
		return first, err
	}
	if w.done { // granted when a victim's request left the queue
		m.mu.Unlock()
		return first, w.finish()
	}
	m.stats.Waits++
	hook := m.waitHook
	m.mu.Unlock()

	if hook != nil {
		hook(t)
	}
	if t.timer == nil {
		t.timer = time.NewTimer(timeout)
	} else {
		t.timer.Reset(timeout)
	}
	select {
	case <-w.ready:
		t.timer.Stop()
		return first, w.result()
	case <-t.timer.C:
		err = ErrTimeout
	case <-ctx.Done():
		t.timer.Stop()
		err = ctx.Err()
	}
	m.mu.Lock()
	if w.done { // resolved before we got the mutex: that result wins
		m.mu.Unlock()
		return first, w.finish()
	}
	m.dequeue(w)
	if err == ErrTimeout {
		m.stats.Timeouts++
	}
	m.mu.Unlock()
	return first, err
}

// ReleaseAll releases every lock of t and grants the requests that can now
// go. t can be used again afterwards; a new transaction calls Begin.
func (t *Txn) ReleaseAll() {
	if len(t.held) == 0 {
		return
	}
	m := t.m
	m.mu.Lock()
	for i, l := range t.held {
		for j, h := range l.holders {
			if h.txn == t {
				last := len(l.holders) - 1
				l.holders[j] = l.holders[last]
				l.holders[last] = holder{}
				l.holders = l.holders[:last]
				break
			}
		}
		m.settle(l)
		t.held[i] = nil
	}
	t.held = t.held[:0]
	if len(m.locks) == 0 && m.peak > shrinkPeak {
		m.locks = make(map[Key]*lock)
		m.peak = 0
	}
	m.mu.Unlock()
}

// newLock adds an empty record for key to m.locks.
func (m *Manager) newLock(key Key) *lock {
	var l *lock
	if n := len(m.free); n > 0 {
		l = m.free[n-1]
		m.free[n-1] = nil
		m.free = m.free[:n-1]
	} else {
		l = new(lock)
	}
	l.key = key
	m.locks[key] = l
	if len(m.locks) > m.peak {
		m.peak = len(m.locks)
	}
	return l
}

// grant gives l to t in mode; upgrade: t holds l Shared already.
func (m *Manager) grant(l *lock, t *Txn, mode Mode, upgrade bool) {
	if upgrade {
		for i := range l.holders {
			if l.holders[i].txn == t {
				l.holders[i].mode = mode
				return
			}
		}
		panic("rowlock: invariant: an upgrading transaction holds its key")
	}
	l.holders = append(l.holders, holder{txn: t, mode: mode})
	t.held = append(t.held, l)
}

// enqueue queues w for l: an upgrade after the upgrades already queued
// (there is at most one once deadlocks are broken), anything else last.
func (m *Manager) enqueue(l *lock, w *waiter, mode Mode, upgrade bool) {
	w.lock, w.mode, w.upgrade = l, mode, upgrade
	at := len(l.queue)
	if upgrade {
		at = 0
		for at < len(l.queue) && l.queue[at].upgrade {
			at++
		}
	}
	l.queue = append(l.queue, nil)
	copy(l.queue[at+1:], l.queue[at:])
	l.queue[at] = w
}

// dequeue takes the unresolved request w out of its queue, and grants the
// requests behind it that can now go.
func (m *Manager) dequeue(w *waiter) {
	l := w.lock
	for i, q := range l.queue {
		if q == w {
			copy(l.queue[i:], l.queue[i+1:])
			l.queue[len(l.queue)-1] = nil
			l.queue = l.queue[:len(l.queue)-1]
			break
		}
	}
	w.lock = nil
	m.settle(l)
}

// settle grants the requests at the front of l's queue while they are
// compatible with the holders, then drops l if no one holds it.
func (m *Manager) settle(l *lock) {
	for len(l.queue) > 0 {
		w := l.queue[0]
		if !l.compatibleHolders(w.txn, w.mode) {
			break
		}
		copy(l.queue, l.queue[1:])
		l.queue[len(l.queue)-1] = nil
		l.queue = l.queue[:len(l.queue)-1]
		m.grant(l, w.txn, w.mode, w.upgrade)
		w.resolve(nil)
	}
	if len(l.holders) > 0 {
		return
	}
	delete(m.locks, l.key)
	l.key = ""
	if len(m.free) < maxFree && cap(l.holders) <= maxReuseCap && cap(l.queue) <= maxReuseCap {
		m.free = append(m.free, l)
	}
}

// resolve ends w's wait with err (nil: granted) and wakes its Lock. The
// caller holds m.mu and has taken w out of its queue.
func (w *waiter) resolve(err error) {
	w.lock = nil
	w.done, w.err = true, err
	w.ready <- struct{}{} // never blocks: one send per wait, cap 1
}

// finish consumes the wake-up and the result of a resolved wait, leaving
// w ready for the next one. Only w's transaction calls it.
func (w *waiter) finish() error {
	<-w.ready
	return w.result()
}

// result returns the result of a resolved wait whose wake-up was
// consumed, leaving w ready for the next one.
func (w *waiter) result() error {
	err := w.err
	w.done, w.err = false, nil
	return err
}
