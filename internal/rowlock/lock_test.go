package rowlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// long is the timeout of waits that must not time out.
const long = time.Minute

// harness runs Lock calls that wait in goroutines of their own, and knows
// when they are asleep through the manager's wait hook.
type harness struct {
	t       *testing.T
	m       *Manager
	blocked chan uint64
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, m: New(), blocked: make(chan uint64, 64)}
	h.m.waitHook = func(tx *Txn) { h.blocked <- tx.id }
	t.Cleanup(func() {
		if err := h.m.check(); err != nil {
			t.Errorf("invariants at the end: %v\n%s", err, h.m.dump())
		}
	})
	return h
}

// call is a Lock running in its own goroutine.
type call struct {
	done  chan struct{}
	first bool
	err   error
}

// goLock starts tx.Lock in a goroutine and returns once the call has
// returned or gone to sleep.
func (h *harness) goLock(ctx context.Context, tx *Txn, key Key, mode Mode, timeout time.Duration) *call {
	h.t.Helper()
	c := &call{done: make(chan struct{})}
	go func() {
		c.first, c.err = tx.Lock(ctx, key, mode, Wait, timeout)
		close(c.done)
	}()
	select {
	case <-c.done:
	case id := <-h.blocked:
		if id != tx.id {
			h.t.Fatalf("txn %d went to sleep, expected %d", id, tx.id)
		}
	case <-time.After(5 * time.Second):
		h.t.Fatalf("Lock of %q by %d neither returned nor slept", key, tx.id)
	}
	return c
}

// wait returns c's result, failing the test if it does not come.
func (c *call) wait(t *testing.T) (bool, error) {
	t.Helper()
	select {
	case <-c.done:
		return c.first, c.err
	case <-time.After(5 * time.Second):
		t.Fatal("a Lock call did not return")
		return false, nil
	}
}

// pending reports whether c has not returned yet.
func (c *call) pending() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// lock takes a lock that must be granted at once.
func (h *harness) lock(tx *Txn, key Key, mode Mode) bool {
	h.t.Helper()
	first, err := tx.Lock(context.Background(), key, mode, NoWait, 0)
	if err != nil {
		h.t.Fatalf("Lock(%q, %v) by %d: %v\n%s", key, mode, tx.id, err, h.m.dump())
	}
	return first
}

func (h *harness) wantGranted(c *call, what string) {
	h.t.Helper()
	if _, err := c.wait(h.t); err != nil {
		h.t.Fatalf("%s: %v, want the lock\n%s", what, err, h.m.dump())
	}
}

func (h *harness) wantPending(c *call, what string) {
	h.t.Helper()
	if !c.pending() {
		h.t.Fatalf("%s returned (%v), want it waiting\n%s", what, c.err, h.m.dump())
	}
}

func (h *harness) wantErr(c *call, want error, what string) {
	h.t.Helper()
	if _, err := c.wait(h.t); !errors.Is(err, want) {
		h.t.Fatalf("%s: %v, want %v\n%s", what, err, want, h.m.dump())
	}
}

func (h *harness) wantStats(want Stats) {
	h.t.Helper()
	if got := h.m.Stats(); got != want {
		h.t.Fatalf("stats %+v, want %+v", got, want)
	}
}

func TestLockHeld(t *testing.T) {
	h := newHarness(t)
	a, b := h.m.Begin(), h.m.Begin()
	if a.ID() >= b.ID() {
		t.Fatalf("ids %d then %d: not increasing", a.ID(), b.ID())
	}
	if !h.lock(a, "k1", Shared) {
		t.Fatal("first Shared lock: first = false")
	}
	for _, mode := range []Mode{Shared, Exclusive, Shared, Exclusive} {
		if h.lock(a, "k1", mode) {
			t.Fatalf("lock again in %v: first = true", mode)
		}
	}
	if !h.lock(a, "k2", Exclusive) || !h.lock(b, "k3", Shared) || !h.lock(b, "k4", Shared) || !h.lock(a, "k4", Shared) {
		t.Fatal("first locks: first = false")
	}
	if a.Held() != 3 || b.Held() != 2 {
		t.Fatalf("Held %d and %d, want 3 and 2", a.Held(), b.Held())
	}
	if err := h.m.check(a, b); err != nil {
		t.Fatal(err)
	}
	a.ReleaseAll()
	if a.Held() != 0 || len(h.m.snapshot()) != 2 {
		t.Fatalf("after ReleaseAll: Held %d, %d keys locked\n%s", a.Held(), len(h.m.snapshot()), h.m.dump())
	}
	// a is usable again, and b's Shared lock on k4 is alone.
	if !h.lock(a, "k1", Exclusive) {
		t.Fatal("lock after ReleaseAll: first = false")
	}
	if h.lock(b, "k4", Exclusive) {
		t.Fatal("upgrade: first = true")
	}
	a.ReleaseAll()
	b.ReleaseAll()
	b.ReleaseAll()
	if n := len(h.m.snapshot()); n != 0 {
		t.Fatalf("%d keys locked after every ReleaseAll", n)
	}
	h.wantStats(Stats{})
}

func TestBusy(t *testing.T) {
	h := newHarness(t)
	a, b, c := h.m.Begin(), h.m.Begin(), h.m.Begin()
	ctx := context.Background()
	h.lock(a, "x", Exclusive)
	h.lock(a, "s", Shared)
	h.lock(b, "s", Shared)
	for _, p := range []Policy{NoWait, SkipLocked} {
		for _, tc := range []struct {
			tx        *Txn
			key       Key
			mode      Mode
			wantFirst bool
		}{
			{b, "x", Shared, true},     // Shared against Exclusive
			{b, "x", Exclusive, true},  // Exclusive against Exclusive
			{c, "s", Exclusive, true},  // Exclusive against Shared
			{b, "s", Exclusive, false}, // an upgrade with another Shared holder
		} {
			start := time.Now()
			first, err := tc.tx.Lock(ctx, tc.key, tc.mode, p, long)
			if !errors.Is(err, ErrBusy) || first != tc.wantFirst {
				t.Fatalf("%v %v of %q by %d: %v, first %v; want ErrBusy, first %v", p, tc.mode, tc.key, tc.tx.id, err, first, tc.wantFirst)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("%v took %v", p, d)
			}
		}
	}
	// A Shared request compatible with the holders is still busy while an
	// Exclusive request is queued: no starvation of the queued request.
	w := h.goLock(ctx, c, "s", Exclusive, long)
	d := h.m.Begin()
	if _, err := d.Lock(ctx, "s", Shared, SkipLocked, long); !errors.Is(err, ErrBusy) {
		t.Fatalf("Shared behind a queued Exclusive: %v, want ErrBusy", err)
	}
	a.ReleaseAll()
	b.ReleaseAll()
	h.wantGranted(w, "queued Exclusive")
	c.ReleaseAll()
	h.wantStats(Stats{Waits: 1})
}

func TestTimeout(t *testing.T) {
	h := newHarness(t)
	a, b := h.m.Begin(), h.m.Begin()
	ctx := context.Background()
	h.lock(a, "k", Exclusive)
	for _, timeout := range []time.Duration{0, -time.Second} {
		start := time.Now()
		if _, err := b.Lock(ctx, "k", Shared, Wait, timeout); !errors.Is(err, ErrTimeout) {
			t.Fatalf("timeout %v: %v, want ErrTimeout", timeout, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("timeout %v took %v", timeout, d)
		}
	}
	const timeout = 50 * time.Millisecond
	start := time.Now()
	first, err := b.Lock(ctx, "k", Shared, Wait, timeout)
	d := time.Since(start)
	if !errors.Is(err, ErrTimeout) || !first {
		t.Fatalf("Lock: %v, first %v; want ErrTimeout, first", err, first)
	}
	if d < timeout || d > timeout+2*time.Second {
		t.Fatalf("timed out after %v, want about %v", d, timeout)
	}
	h.wantStats(Stats{Waits: 1, Timeouts: 3})
	if s := h.m.snapshot()["k"]; len(s.Queue) != 0 {
		t.Fatalf("queue after the timeout: %v", s.Queue)
	}
	// The Txn's timer is reused by its next wait.
	c := h.goLock(ctx, b, "k", Exclusive, long)
	a.ReleaseAll()
	h.wantGranted(c, "second wait")
	b.ReleaseAll()
}

// TestLeaveRegrants: a request that leaves the queue lets the compatible
// requests behind it go.
func TestLeaveRegrants(t *testing.T) {
	for _, how := range []string{"timeout", "cancel"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t)
			a, b, c := h.m.Begin(), h.m.Begin(), h.m.Begin()
			h.lock(a, "k", Shared)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wb *call
			if how == "timeout" {
				wb = h.goLock(context.Background(), b, "k", Exclusive, 200*time.Millisecond)
			} else {
				wb = h.goLock(ctx, b, "k", Exclusive, long)
			}
			wc := h.goLock(context.Background(), c, "k", Shared, long)
			h.wantPending(wc, "Shared behind a queued Exclusive")
			cancel()
			if how == "timeout" {
				h.wantErr(wb, ErrTimeout, "queued Exclusive")
			} else {
				h.wantErr(wb, context.Canceled, "queued Exclusive")
			}
			h.wantGranted(wc, "Shared once the Exclusive left")
			if err := h.m.check(a, b, c); err != nil {
				t.Fatal(err)
			}
			a.ReleaseAll()
			c.ReleaseAll()
		})
	}
}

func TestContext(t *testing.T) {
	h := newHarness(t)
	a, b := h.m.Begin(), h.m.Begin()
	h.lock(a, "k", Exclusive)

	ctx, cancel := context.WithCancel(context.Background())
	c := h.goLock(ctx, b, "k", Shared, long)
	cancel()
	h.wantErr(c, context.Canceled, "canceled wait")

	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	c = h.goLock(ctx, b, "k", Shared, long)
	h.wantErr(c, context.DeadlineExceeded, "wait past the deadline")

	// A done context fails a wait before it is queued, but not a lock
	// that is free.
	if _, err := b.Lock(ctx, "k", Shared, Wait, long); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock with a done context: %v", err)
	}
	if _, err := b.Lock(ctx, "free", Exclusive, Wait, long); err != nil {
		t.Fatalf("Lock of a free key with a done context: %v", err)
	}
	h.wantStats(Stats{Waits: 2})
	if s := h.m.snapshot()["k"]; len(s.Queue) != 0 {
		t.Fatalf("queue after the cancellations: %v", s.Queue)
	}
	a.ReleaseAll()
	b.ReleaseAll()
}

// TestFIFO: a Shared request waits behind a queued Exclusive one even
// when the holders would let it in, and releases grant the queue from its
// front while its requests are compatible.
func TestFIFO(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	a, b, c, d, e, f := h.m.Begin(), h.m.Begin(), h.m.Begin(), h.m.Begin(), h.m.Begin(), h.m.Begin()
	h.lock(a, "k", Shared)
	wb := h.goLock(ctx, b, "k", Exclusive, long)
	wc := h.goLock(ctx, c, "k", Shared, long)
	wd := h.goLock(ctx, d, "k", Shared, long)
	we := h.goLock(ctx, e, "k", Exclusive, long)
	wf := h.goLock(ctx, f, "k", Shared, long)
	h.wantPending(wc, "Shared behind a queued Exclusive")
	a.ReleaseAll()
	h.wantGranted(wb, "front Exclusive")
	h.wantPending(wc, "Shared behind the granted Exclusive")
	b.ReleaseAll()
	h.wantGranted(wc, "first Shared of the run")
	h.wantGranted(wd, "second Shared of the run")
	h.wantPending(we, "Exclusive behind the run")
	h.wantPending(wf, "Shared behind a queued Exclusive")
	c.ReleaseAll()
	h.wantPending(we, "Exclusive with one Shared holder left")
	d.ReleaseAll()
	h.wantGranted(we, "Exclusive")
	e.ReleaseAll()
	h.wantGranted(wf, "last Shared")
	f.ReleaseAll()
	h.wantStats(Stats{Waits: 5})
}

func TestUpgrade(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	a, b, c := h.m.Begin(), h.m.Begin(), h.m.Begin()

	// The only Shared holder upgrades at once, ahead of a queued request.
	h.lock(a, "k", Shared)
	wc := h.goLock(ctx, c, "k", Exclusive, long)
	if first, err := a.Lock(ctx, "k", Exclusive, NoWait, 0); err != nil || first {
		t.Fatalf("upgrade of the only holder: %v, first %v", err, first)
	}
	a.ReleaseAll()
	h.wantGranted(wc, "Exclusive after the upgraded holder left")
	c.ReleaseAll()

	// With another Shared holder, the upgrade waits ahead of the queue.
	h.lock(a, "k", Shared)
	h.lock(b, "k", Shared)
	wc = h.goLock(ctx, c, "k", Exclusive, long)
	wa := h.goLock(ctx, a, "k", Exclusive, long)
	b.ReleaseAll()
	h.wantGranted(wa, "upgrade")
	if first, _ := wa.wait(t); first {
		t.Fatal("upgrade: first = true")
	}
	h.wantPending(wc, "Exclusive behind the upgrade")
	if a.Held() != 1 {
		t.Fatalf("upgraded transaction holds %d keys", a.Held())
	}
	a.ReleaseAll()
	h.wantGranted(wc, "Exclusive")
	c.ReleaseAll()
	h.wantStats(Stats{Waits: 3})
}

func TestDeadlockTwo(t *testing.T) {
	ctx := context.Background()
	t.Run("younger closes", func(t *testing.T) {
		h := newHarness(t)
		a, b := h.m.Begin(), h.m.Begin()
		h.lock(a, "k1", Exclusive)
		h.lock(b, "k2", Exclusive)
		wa := h.goLock(ctx, a, "k2", Exclusive, long)
		start := time.Now()
		if _, err := b.Lock(ctx, "k1", Shared, Wait, long); !errors.Is(err, ErrDeadlock) {
			t.Fatalf("younger closing the cycle: %v, want ErrDeadlock", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("deadlock took %v to find", d)
		}
		h.wantPending(wa, "older")
		if b.Held() != 1 {
			t.Fatalf("victim holds %d keys, want its 1 still", b.Held())
		}
		b.ReleaseAll()
		h.wantGranted(wa, "older after the victim's rollback")
		a.ReleaseAll()
		h.wantStats(Stats{Waits: 1, Deadlocks: 1})
	})
	t.Run("older closes", func(t *testing.T) {
		h := newHarness(t)
		a, b := h.m.Begin(), h.m.Begin()
		h.lock(a, "k1", Shared)
		h.lock(b, "k2", Shared)
		wb := h.goLock(ctx, b, "k1", Exclusive, long)
		wa := h.goLock(ctx, a, "k2", Exclusive, long)
		h.wantErr(wb, ErrDeadlock, "younger, already waiting")
		h.wantPending(wa, "older, waiting for the victim's lock")
		b.ReleaseAll()
		h.wantGranted(wa, "older after the victim's rollback")
		a.ReleaseAll()
		h.wantStats(Stats{Waits: 2, Deadlocks: 1})
	})
}

func TestDeadlockThree(t *testing.T) {
	ctx := context.Background()
	// a waits for b, b for c, c for a; the transaction named last closes
	// the cycle.
	for _, order := range [][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}} {
		h := newHarness(t)
		txns := []*Txn{h.m.Begin(), h.m.Begin(), h.m.Begin()}
		keys := []Key{"k0", "k1", "k2"}
		for i, tx := range txns {
			h.lock(tx, keys[i], Exclusive)
		}
		calls := make([]*call, 3)
		for _, i := range order {
			calls[i] = h.goLock(ctx, txns[i], keys[(i+1)%3], Exclusive, long)
		}
		h.wantErr(calls[2], ErrDeadlock, "youngest")
		h.wantPending(calls[0], "oldest")
		h.wantPending(calls[1], "middle")
		txns[2].ReleaseAll()
		h.wantGranted(calls[1], "middle")
		h.wantPending(calls[0], "oldest")
		txns[1].ReleaseAll()
		h.wantGranted(calls[0], "oldest")
		txns[0].ReleaseAll()
		waits := uint64(3)
		if order[2] == 2 {
			waits = 2 // the youngest closed the cycle: it did not wait
		}
		h.wantStats(Stats{Waits: waits, Deadlocks: 1})
	}
}

func TestDeadlockUpgrade(t *testing.T) {
	ctx := context.Background()
	for _, youngerFirst := range []bool{false, true} {
		h := newHarness(t)
		a, b := h.m.Begin(), h.m.Begin()
		h.lock(a, "k", Shared)
		h.lock(b, "k", Shared)
		if !youngerFirst {
			wa := h.goLock(ctx, a, "k", Exclusive, long)
			if _, err := b.Lock(ctx, "k", Exclusive, Wait, long); !errors.Is(err, ErrDeadlock) {
				t.Fatalf("second upgrade, by the younger: %v, want ErrDeadlock", err)
			}
			b.ReleaseAll()
			h.wantGranted(wa, "older upgrade")
		} else {
			wb := h.goLock(ctx, b, "k", Exclusive, long)
			wa := h.goLock(ctx, a, "k", Exclusive, long)
			h.wantErr(wb, ErrDeadlock, "younger upgrade, already waiting")
			h.wantPending(wa, "older upgrade while the victim holds Shared")
			b.ReleaseAll()
			h.wantGranted(wa, "older upgrade")
		}
		if s := h.m.snapshot()["k"]; s.Holders[a.id] != Exclusive || len(s.Holders) != 1 {
			t.Fatalf("holders after the upgrade: %v", s.Holders)
		}
		a.ReleaseAll()
		if got := h.m.Stats().Deadlocks; got != 1 {
			t.Fatalf("%d deadlocks", got)
		}
	}
}

// TestDeadlockGrantsCaller: removing the victim's request grants the
// transaction that closed the cycle, which then does not wait.
func TestDeadlockGrantsCaller(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	n, a, v := h.m.Begin(), h.m.Begin(), h.m.Begin()
	h.lock(n, "k2", Exclusive)
	h.lock(a, "k", Shared)
	wv := h.goLock(ctx, v, "k", Exclusive, long)  // v -> a
	wa := h.goLock(ctx, a, "k2", Exclusive, long) // a -> n
	// n -> v (queued ahead, conflicting): the cycle n -> v -> a -> n.
	if first, err := n.Lock(ctx, "k", Shared, Wait, long); err != nil || !first {
		t.Fatalf("closing the cycle: %v, first %v; want the lock", err, first)
	}
	h.wantErr(wv, ErrDeadlock, "youngest")
	h.wantPending(wa, "a")
	n.ReleaseAll()
	h.wantGranted(wa, "a")
	a.ReleaseAll()
	v.ReleaseAll()
	h.wantStats(Stats{Waits: 2, Deadlocks: 1})
}

// TestDeadlockTwoCycles: the new waiter is on two cycles; each has its
// own victim.
func TestDeadlockTwoCycles(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	n, a, b := h.m.Begin(), h.m.Begin(), h.m.Begin()
	h.lock(n, "ka", Exclusive)
	h.lock(n, "kb", Exclusive)
	h.lock(a, "k", Shared)
	h.lock(b, "k", Shared)
	wa := h.goLock(ctx, a, "ka", Shared, long)
	wb := h.goLock(ctx, b, "kb", Shared, long)
	wn := h.goLock(ctx, n, "k", Exclusive, long) // n -> a -> n and n -> b -> n
	h.wantErr(wa, ErrDeadlock, "a")
	h.wantErr(wb, ErrDeadlock, "b")
	h.wantPending(wn, "n, while a and b hold k")
	a.ReleaseAll()
	h.wantPending(wn, "n, while b holds k")
	b.ReleaseAll()
	h.wantGranted(wn, "n")
	n.ReleaseAll()
	h.wantStats(Stats{Waits: 3, Deadlocks: 2})
}

func TestInvalidMode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Lock with mode 0 did not panic")
		}
	}()
	New().Begin().Lock(context.Background(), "k", 0, Wait, long)
}
