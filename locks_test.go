package verso

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/tables"
)

// counterDB returns a database with the table c (id, n) holding rows
// (0, 0) and (1, 0).
func counterDB(t testing.TB) *DB {
	ctx := context.Background()
	db, err := OpenMemory("c", Options{})
	if err != nil {
		t.Fatal(err)
	}
	txn, _ := db.Begin(ctx, "")
	must(t.(*testing.T), txn.CreateTable(ctx, "c", &Schema{
		Columns:    []Column{{Name: "id", Type: "int", Kind: KindInt}, {Name: "n", Type: "int", Kind: KindInt}},
		PrimaryKey: []int{0},
	}))
	must(t.(*testing.T), txn.Insert(ctx, "c", Int(0), Int(0)))
	must(t.(*testing.T), txn.Insert(ctx, "c", Int(1), Int(0)))
	must(t.(*testing.T), txn.Commit(ctx))
	return db
}

// increment adds one to counter id in a transaction of its own.
func increment(ctx context.Context, db *DB, id int64) error {
	txn, err := db.Begin(ctx, "")
	if err != nil {
		return err
	}
	row, _, err := txn.GetForUpdate(ctx, "c", Int(id))
	if err != nil {
		txn.Rollback()
		return err
	}
	if err := txn.Put(ctx, "c", Int(id), Int(row[1].AsInt()+1)); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(ctx)
}

// TestLockedIncrements: goroutines increment two counters through the
// typed API, each increment its own transaction from a snapshot taken
// before others committed; every counter ends equal to its acknowledged
// increments (none lost to a stale snapshot, none refused).
func TestLockedIncrements(t *testing.T) {
	ctx := context.Background()
	db := counterDB(t)
	const workers, each = 6, 40
	var acked [2]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := int64((w + i) % 2)
				if err := increment(ctx, db, id); err != nil {
					t.Errorf("increment: %v", err)
					return
				}
				acked[id].Add(1)
			}
		}()
	}
	wg.Wait()
	check, _ := db.Begin(ctx, "")
	for id := range int64(2) {
		row, _, err := check.Get(ctx, "c", Int(id))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := row[1].AsInt(), acked[id].Load(); got != want {
			t.Errorf("counter %d is %d, acknowledged increments %d", id, got, want)
		}
	}
}

// TestLockWaitsForCommit: a second writer of a row waits for the first's
// commit, then writes over the first's value, not its own snapshot's.
func TestLockWaitsForCommit(t *testing.T) {
	ctx := context.Background()
	db := counterDB(t)
	a, _ := db.Begin(ctx, "")
	b, _ := db.Begin(ctx, "")
	if _, _, err := a.GetForUpdate(ctx, "c", Int(0)); err != nil {
		t.Fatal(err)
	}
	must(t, a.Put(ctx, "c", Int(0), Int(5)))
	done := make(chan error, 1)
	go func() {
		row, _, err := b.GetForUpdate(ctx, "c", Int(0))
		if err == nil && row[1].AsInt() != 5 {
			t.Errorf("b read %d after a committed 5", row[1].AsInt())
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("b did not wait for a's lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	must(t, a.Commit(ctx))
	must(t, <-done)
	b.Rollback()
}

// TestUniqueValueLocked: a second transaction inserting a unique value
// another holds uncommitted waits for it; when the first commits, the
// second's insert fails as a duplicate (the first's row is adopted), and
// when the first rolls back, it goes in.
func TestUniqueValueLocked(t *testing.T) {
	ctx := context.Background()
	for _, commitFirst := range []bool{true, false} {
		db, err := OpenMemory("u", Options{})
		if err != nil {
			t.Fatal(err)
		}
		setup, _ := db.Begin(ctx, "")
		must(t, setup.CreateTable(ctx, "u", &Schema{
			Columns:    []Column{{Name: "id", Type: "int", Kind: KindInt}, {Name: "email", Type: "varchar(40)", Kind: KindString}},
			PrimaryKey: []int{0},
			Indexes:    []Index{{Name: "email", Columns: []int{1}, Unique: true}},
		}))
		must(t, setup.Commit(ctx))
		a, _ := db.Begin(ctx, "")
		b, _ := db.Begin(ctx, "")
		must(t, a.Insert(ctx, "u", Int(1), String("jane@example.com")))
		done := make(chan error, 1)
		go func() { done <- b.Insert(ctx, "u", Int(2), String("jane@example.com")) }()
		select {
		case err := <-done:
			t.Fatalf("b's insert did not wait for a's unique value: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if commitFirst {
			must(t, a.Commit(ctx))
			var dup *tables.DuplicateKeyError
			if err := <-done; !errors.As(err, &dup) {
				t.Fatalf("b inserted a value a committed: %v", err)
			}
			b.Rollback()
		} else {
			a.Rollback()
			must(t, <-done)
			must(t, b.Commit(ctx))
		}
		db.Close()
	}
}

// TestAlterTable: adding a unique index rebuilds the table with its rows;
// one the rows break fails with the duplicate and changes nothing.
func TestAlterTable(t *testing.T) {
	ctx := context.Background()
	db := counterDB(t) // rows (0, 0) and (1, 0)
	txn, _ := db.Begin(ctx, "")
	before := txn.Root().Address()
	_, err := txn.AlterTable(ctx, "c", func(s *Schema) error {
		s.Indexes = append(s.Indexes, Index{Name: "un", Columns: []int{1}, Unique: true})
		return nil
	})
	var dup *tables.DuplicateKeyError
	if !errors.As(err, &dup) || txn.Root().Address() != before {
		t.Fatalf("a unique index over two zeros: %v (root changed: %v)", err, txn.Root().Address() != before)
	}
	tb, err := txn.AlterTable(ctx, "c", func(s *Schema) error {
		s.Indexes = append(s.Indexes, Index{Name: "n", Columns: []int{1}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Check(ctx); err != nil || tb.Count() != 2 {
		t.Fatalf("rebuilt table: %d rows, %v", tb.Count(), err)
	}
	must(t, txn.Commit(ctx))
}
