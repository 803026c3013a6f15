package rowlock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verso-db/verso/internal/rowlock"
)

func Example() {
	ctx := context.Background()
	m := rowlock.New()
	a, b := m.Begin(), m.Begin()

	first, err := a.Lock(ctx, "orders/1", rowlock.Exclusive, rowlock.Wait, time.Second)
	fmt.Println("a takes orders/1:", first, err)

	// FOR SHARE NOWAIT fails at once; a wait ends when a commits.
	_, err = b.Lock(ctx, "orders/1", rowlock.Shared, rowlock.NoWait, 0)
	fmt.Println("b, NOWAIT:", err)
	done := make(chan error)
	go func() {
		_, err := b.Lock(ctx, "orders/1", rowlock.Shared, rowlock.Wait, time.Minute)
		done <- err
	}()
	a.ReleaseAll() // a commits
	fmt.Println("b, waiting:", <-done, b.Held())
	b.ReleaseAll()
	// Output:
	// a takes orders/1: true <nil>
	// b, NOWAIT: rowlock: the lock is held by another transaction
	// b, waiting: <nil> 1
}

// Two transactions that each wait for the other's row: the younger one
// is the victim, and rolls back.
func Example_deadlock() {
	ctx := context.Background()
	m := rowlock.New()
	older, younger := m.Begin(), m.Begin()
	older.Lock(ctx, "orders/1", rowlock.Exclusive, rowlock.Wait, time.Second)
	younger.Lock(ctx, "orders/2", rowlock.Exclusive, rowlock.Wait, time.Second)

	done := make(chan error)
	go func() {
		_, err := older.Lock(ctx, "orders/2", rowlock.Exclusive, rowlock.Wait, time.Minute)
		done <- err
	}()
	// Whichever of the two waits begins second closes the cycle and finds
	// it; either way the younger transaction's Lock returns ErrDeadlock.
	_, err := younger.Lock(ctx, "orders/1", rowlock.Exclusive, rowlock.Wait, time.Minute)
	fmt.Println("younger:", errors.Is(err, rowlock.ErrDeadlock))
	younger.ReleaseAll() // rollback
	fmt.Println("older:", <-done)
	older.ReleaseAll()
	fmt.Println("deadlocks:", m.Stats().Deadlocks)
	// Output:
	// younger: true
	// older: <nil>
	// deadlocks: 1
}
