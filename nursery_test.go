package verso

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// TestNurseryHeldUpByOpenTransaction: a transaction left open holds every
// nursery collection up (it may read what they would drop); they fail
// after their wait, back off, and the checkpoints write the whole nursery
// instead, so that every acknowledged commit is still there after a
// close and reopen. Once the transaction ends, a collection runs.
func TestNurseryHeldUpByOpenTransaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := initRedoDB(t, dir)
	defer func() { db.Close() }()
	db.nurseryAt, db.nurseryWait = 4<<10, 20*time.Millisecond
	db.redoCheckpoint = 4 << 10
	db.commitMu.Lock()
	db.redoLone = true // every commit logged, so that the nursery fills
	db.commitMu.Unlock()
	open, err := db.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	write := func(from, n int) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < from+n; i += 4 {
					tx, err := db.Begin(ctx, "")
					var tb *tables.Table
					if err == nil {
						tb, err = tx.Table(ctx, "t")
					}
					if err == nil {
						ed := tb.Edit()
						if _, err = ed.Insert(ctx, []tables.Value{prolly.Int(int64(i)), prolly.Int(int64(i))}); err == nil {
							err = tx.CommitEdits(ctx, []TableEdit{{Name: "t", Editor: ed}})
						}
					}
					if err != nil {
						errs <- fmt.Errorf("row %d: %w", i, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	write(0, 1200)
	db.checkpoints.Wait()
	if n := db.nurseryRuns.Load(); n != 0 {
		t.Fatalf("%d nursery collections ran while a transaction older than them was open", n)
	}
	if db.nurseryNext.Load() == 0 {
		t.Fatal("no nursery collection was tried")
	}
	if db.redo.first <= 1 {
		t.Fatal("the log never switched files")
	}
	// A crash now: the copy has every acknowledged commit.
	copyDir := t.TempDir()
	copyTree(t, dir, copyDir)
	checkRows(t, copyDir, 1200)
	if first := db.redo.first; first < 100 {
		t.Fatalf("the log's file begins at position %d: too few checkpoints to tell", first)
	}
	open.Rollback()
	db.nurseryNext.Store(0)
	write(1200, 400)
	db.checkpoints.Wait()
	if db.nurseryRuns.Load() == 0 {
		t.Fatal("no nursery collection ran once the transaction ended")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	checkRows(t, dir, 1600)
}

// checkRows opens the database in dir and checks that table t holds the
// rows (i, i) for i below n, and that the database checks clean.
func checkRows(t *testing.T, dir string, n int) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i := range n {
		row, found, err := tx.Get(ctx, "t", prolly.Int(int64(i)))
		if err != nil || !found || row[1].AsInt() != int64(i) {
			t.Fatalf("row %d after reopening: %v %v %v", i, row, found, err)
		}
	}
	rep, err := db.Check(ctx, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("check: %v", rep.Problems)
	}
}
