package rowlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/internal/testseed"
)

// TestStress runs transactions in many goroutines over a few keys with
// random modes and policies, checking all along that no two holders of a
// key conflict, that the manager's invariants hold, and that every Lock
// call ends: a lost wake-up or an undetected deadlock would leave a
// waiter asleep until its long timeout, which fails the test, or past the
// global deadline. Deadlock victims roll back and restart.
func TestStress(t *testing.T) {
	seed := testseed.Seed(t)
	goroutines, iterations := 16, 6000
	if testing.Short() {
		iterations = 300
	}
	const (
		nKeys = 6
		// longWait is the timeout of the waits that must end by a grant
		// or a deadlock; holders hold for microseconds.
		longWait = 10 * time.Second
		deadline = 20 * time.Second
	)
	m := New()
	var keys [nKeys]Key
	for i := range keys {
		keys[i] = Key(fmt.Sprint("row", i))
	}
	// shared[k] and exclusive[k] count the holders of key k: incremented
	// after a grant, decremented before the release, so they never exceed
	// the true holders and any conflict they show is real.
	var shared, exclusive [nKeys]atomic.Int32
	var failed atomic.Bool
	failf := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	var deadlocks, timeouts atomic.Uint64

	stop := make(chan struct{})
	checked := make(chan struct{})
	go func() { // the manager's invariants, continuously
		defer close(checked)
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
			if err := m.check(); err != nil {
				failf("invariants: %v", err)
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			tx := m.Begin()
			var held [nKeys]Mode // what tx holds, as far as it counted
			release := func() {
				for k, mode := range held {
					switch mode {
					case Shared:
						shared[k].Add(-1)
					case Exclusive:
						exclusive[k].Add(-1)
					}
					held[k] = 0
				}
				tx.ReleaseAll()
			}
			for it := 0; it < iterations && !failed.Load(); it++ {
				if it%50 == 0 {
					tx = m.Begin() // a new, younger transaction now and then
				}
				n := 1 + rng.IntN(4)
			attempt:
				for range n {
					k := rng.IntN(nKeys)
					mode := Shared
					if rng.IntN(2) == 0 {
						mode = Exclusive
					}
					ctx, p, timeout := context.Background(), Wait, longWait
					var cancel context.CancelFunc
					switch rng.IntN(20) {
					case 0:
						p = NoWait
					case 1:
						p = SkipLocked
					case 2:
						timeout = time.Duration(rng.IntN(500)) * time.Microsecond
					case 3:
						ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(500))*time.Microsecond)
					}
					first, err := tx.Lock(ctx, keys[k], mode, p, timeout)
					if cancel != nil {
						cancel()
					}
					switch {
					case err == nil:
					case errors.Is(err, ErrDeadlock):
						deadlocks.Add(1)
						release() // roll back; the txn restarts with its age
						break attempt
					case errors.Is(err, ErrTimeout):
						timeouts.Add(1)
						if timeout == longWait {
							failf("a wait of %v timed out: a lost wake-up or a missed deadlock\n%s", longWait, m.dump())
						}
						continue
					case errors.Is(err, ErrBusy), errors.Is(err, context.DeadlineExceeded):
						continue
					default:
						failf("Lock: %v", err)
						return
					}
					if first != (held[k] == 0) {
						failf("first %v, holding %v", first, held[k])
					}
					switch {
					case held[k] >= mode:
					case mode == Shared:
						shared[k].Add(1)
						if e := exclusive[k].Load(); e != 0 {
							failf("%s: Shared granted with %d Exclusive holders", keys[k], e)
						}
						held[k] = Shared
					default:
						if held[k] == Shared {
							shared[k].Add(-1) // the upgrade
						}
						if e := exclusive[k].Add(1); e != 1 {
							failf("%s: %d Exclusive holders", keys[k], e)
						}
						if s := shared[k].Load(); s != 0 {
							failf("%s: Exclusive granted with %d Shared holders", keys[k], s)
						}
						held[k] = Exclusive
					}
					if rng.IntN(4) == 0 {
						runtime.Gosched() // hold the locks a little
					}
				}
				release()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(deadline):
		close(stop)
		<-checked
		t.Fatalf("the workers did not end within %v: a Lock call never returned\n%s", deadline, m.dump())
	}
	close(stop)
	<-checked
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
	if n := len(m.snapshot()); n != 0 {
		t.Fatalf("%d keys locked after every ReleaseAll\n%s", n, m.dump())
	}
	st := m.Stats()
	if st.Deadlocks != deadlocks.Load() || st.Timeouts != timeouts.Load() {
		t.Fatalf("stats %+v; the workers saw %d deadlocks and %d timeouts", st, deadlocks.Load(), timeouts.Load())
	}
	t.Logf("%d goroutines x %d transactions: %+v", goroutines, iterations, st)
}
