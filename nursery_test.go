package verso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
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
	open, err := db.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	insertRows(t, db, 0, 1200, 4)
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
	insertRows(t, db, 1200, 400, 4)
	db.checkpoints.Wait()
	if db.nurseryRuns.Load() == 0 {
		t.Fatal("no nursery collection ran once the transaction ended")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	checkRows(t, dir, 1600)
}

// insertRows inserts the rows (i, i) of table t for i from from on, n of
// them, each committed alone, by the given number of concurrent writers.
func insertRows(t *testing.T, db *DB, from, n, writers int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := from + w; i < from+n; i += writers {
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

// TestNurseryWrittenWithinAge: with no more writes to fill the nursery or
// reach a checkpoint, a group held staged in it still reaches the
// journal's file within nurseryAge (the store's files alone, read by
// another process, then hold it); the next group arms the timer again.
func TestNurseryWrittenWithinAge(t *testing.T) {
	dir := t.TempDir()
	db := initRedoDB(t, dir)
	defer func() { db.Close() }()
	db.nurseryAge = time.Second
	had := 0
	for round, rows := range []int{1, 3} {
		start := time.Now()
		insertRows(t, db, had, rows-had, 1)
		had = rows
		want, err := db.redoFS.Root(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !db.nurseryHolds() {
			t.Fatalf("round %d: the logged commit's root is not held staged", round)
		}
		if got := filesRoot(t, dir); got == want && time.Since(start) < db.nurseryAge {
			t.Fatalf("round %d: the store's files hold the staged root at once", round)
		}
		for db.nurseryHolds() {
			if time.Since(start) > 10*db.nurseryAge {
				t.Fatalf("round %d: the root still held staged after %v", round, time.Since(start))
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got := filesRoot(t, dir); got != want {
			t.Fatalf("round %d: the store's files hold root %s, the database %s", round, got, want)
		}
	}
}

// TestNurseryTimerAtClose: with the timer firing all the time, a close
// stops it and waits for the write it runs; the reopened database holds
// every row and checks clean.
func TestNurseryTimerAtClose(t *testing.T) {
	for round := range 5 {
		dir := t.TempDir()
		db := initRedoDB(t, dir)
		db.nurseryAge = time.Millisecond
		insertRows(t, db, 0, 100+round, 4)
		if err := db.Close(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		checkRows(t, dir, 100+round)
	}
}

// filesRoot opens the store of the database in dir read-only, beside the
// database open in it, and returns the root its files hold.
func filesRoot(t *testing.T, dir string) chunks.Address {
	t.Helper()
	fs, err := chunks.OpenFileStore(filepath.Join(dir, RepoDir, StoreDir), chunks.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	root, err := fs.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestReadOnlyOpenReplaysRedo: commits the redo log made durable but the
// writer kept in its nursery are seen by a read-only open beside it (and
// of a crash copy), which replays the records in memory: every row, a
// clean check, writes refused, and not a byte of the folder changed.
func TestReadOnlyOpenReplaysRedo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := initRedoDB(t, dir)
	defer func() { db.Close() }()
	db.nurseryAge = time.Hour // nothing written but by a checkpoint
	const rows = 200
	insertRows(t, db, 0, rows, 4)
	if !db.nurseryHolds() {
		t.Fatal("the commits' root is not held staged")
	}
	want, err := db.redoFS.Root(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if filesRoot(t, dir) == want {
		t.Fatal("the store's files hold the writer's root: nothing to replay")
	}
	crash := t.TempDir()
	copyTree(t, dir, crash)
	for _, d := range []string{dir, crash} {
		before := folderState(t, d)
		ro, err := Open(d, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ro.store.Root(ctx); err != nil || got != want {
			t.Errorf("%s: read-only root %s (%v), the writer's %s", d, got, err, want)
		}
		if rep, err := ro.Check(ctx, CheckOptions{}); err != nil || !rep.OK() {
			t.Errorf("%s: check: %v %v", d, err, rep.Problems)
		}
		if log, err := ro.Reflog(ctx, "", true); err != nil || len(log) == 0 {
			t.Errorf("%s: reflog: %v, %v", d, log, err)
		}
		tx, err := ro.Begin(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			row, found, err := tx.Get(ctx, "t", prolly.Int(int64(i)))
			if err != nil || !found || row[1].AsInt() != int64(i) {
				t.Fatalf("%s: row %d: %v %v %v", d, i, row, found, err)
			}
		}
		err = tx.Insert(ctx, "t", prolly.Int(rows), prolly.Int(rows))
		if err == nil {
			err = tx.Commit(ctx)
		}
		if !errors.Is(err, chunks.ErrReadOnly) {
			t.Errorf("%s: a write to the read-only open: %v, want chunks.ErrReadOnly", d, err)
		}
		tx.Rollback()
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
		if after := folderState(t, d); after != before {
			t.Errorf("%s: the read-only open changed the folder:\n%s\nafter:\n%s", d, before, after)
		}
	}
}

// folderState lists the files under dir with their sizes and contents'
// hashes.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", p, fi.Size(), chunks.Of(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
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
