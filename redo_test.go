package verso

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// redoSchema is a table with a primary key and a secondary index, so that
// redo records carry index entries too.
func redoSchema() *tables.Schema {
	return &tables.Schema{
		Columns: []tables.Column{
			{Name: "k", Type: "int", Kind: prolly.KindInt},
			{Name: "v", Type: "int", Kind: prolly.KindInt, Nullable: true},
		},
		PrimaryKey: []int{0},
		Indexes:    []tables.Index{{Name: "v_idx", Columns: []int{1}}},
	}
}

// copyTree copies the folder src to dst, files as they are now.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if fi.Name() == "LOCK" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cutJournal zeroes the only journal of the store in dir from offset at
// on: a power loss that kept none of the pages written since a sync that
// ended there.
func cutJournal(t *testing.T, dir string, at int64) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, RepoDir, StoreDir, "*.journal"))
	if len(names) != 1 {
		t.Fatalf("%d journals, want 1", len(names))
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	clear(b[at:])
	if err := os.WriteFile(names[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRedoReplay: concurrent commits of pending row edits (inserts,
// updates, deletes, with an index) are logged, the log switching files
// and checkpointing in the background many times; then the journal is
// synced, more commits are made, and a copy of the database taken while it
// runs, with the journal cut back to that sync as a power loss would
// leave it, opens with every acknowledged commit, its tables checked
// whole. Without its redo log the same copy lacks the later ones, so the
// replay is what restores them.
func TestRedoReplay(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	ctx := context.Background()
	dir := t.TempDir()
	db := initRedoDB(t, dir)
	defer db.Close()
	if db.redo == nil {
		t.Fatal("a database on disk keeps no redo log")
	}
	const writers, each, keys = 4, 150, 40
	models := make([]map[int64]int64, writers) // acknowledged rows, by writer
	rands := make([]*rand.Rand, writers)
	for w := range writers {
		models[w] = map[int64]int64{}
		rands[w] = rand.New(rand.NewSource(seed + int64(w)))
	}
	run := func() {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, m := rands[w], models[w]
				for range each {
					k := int64(w*keys + r.Intn(keys))
					tx, err := db.Begin(ctx, "")
					var tb *tables.Table
					if err == nil {
						tb, err = tx.Table(ctx, "t")
					}
					if err != nil {
						errs <- err
						return
					}
					ed := tb.Edit()
					old, had := m[k]
					v := int64(r.Intn(1000))
					del := had && r.Intn(3) == 0
					switch {
					case del:
						err = ed.Delete(ctx, []tables.Value{prolly.Int(k), prolly.Int(old)})
					case had:
						err = ed.Update(ctx, []tables.Value{prolly.Int(k), prolly.Int(old)}, []tables.Value{prolly.Int(k), prolly.Int(v)})
					default:
						_, err = ed.Insert(ctx, []tables.Value{prolly.Int(k), prolly.Int(v)})
					}
					if err == nil {
						err = tx.CommitEdits(ctx, []TableEdit{{Name: "t", Editor: ed}})
					}
					if err != nil {
						errs <- fmt.Errorf("writer %d, key %d: %w", w, k, err)
						return
					}
					if del {
						delete(m, k)
					} else {
						m[k] = v
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
	db.redoCheckpoint = 2 << 10 // a switch and a checkpoint every few groups
	db.nurseryAt = 8 << 10      // and a nursery collection
	run()
	db.checkpoints.Wait()
	db.redoCheckpoint = 1 << 40
	db.nurseryAt = 0
	if db.nurseryRuns.Load() == 0 {
		t.Fatal("no nursery collection ran")
	}
	if first, _ := db.redo.last(); first < writers*each/4 {
		t.Fatalf("%d commits logged of %d", first, writers*each)
	}
	if db.redo.first <= 1 {
		t.Fatal("the log never switched files")
	}
	// The journal's last sync is this one: phase two's commits are in
	// the log only.
	if err := db.redoFS.SyncStaged(); err != nil {
		t.Fatal(err)
	}
	synced := db.redoFS.Stats().JournalBytes
	run()

	check := func(dir string, want bool) {
		t.Helper()
		db2, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db2.Close()
		tx, err := db2.Begin(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		missing := 0
		for w := range writers {
			for k := int64(w * keys); k < int64((w+1)*keys); k++ {
				row, found, err := tx.Get(ctx, "t", prolly.Int(k))
				if err != nil {
					t.Fatal(err)
				}
				v, in := models[w][k]
				if found != in || (found && row[1].AsInt() != v) {
					missing++
					if want {
						t.Fatalf("key %d: found %v %v, want %v %d", k, found, row, in, v)
					}
				}
			}
		}
		if !want && missing == 0 {
			t.Fatal("the copy without its redo log holds every commit: the test proves nothing")
		}
		if want {
			rep, err := db2.Check(ctx, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Fatalf("check: %v", rep.Problems)
			}
		}
	}
	copyDir := t.TempDir()
	copyTree(t, dir, copyDir)
	cutJournal(t, copyDir, synced)
	noRedo := t.TempDir()
	copyTree(t, copyDir, noRedo)
	for i := range 2 {
		if err := os.Remove(filepath.Join(noRedo, RepoDir, fmt.Sprintf(redoFileName, i))); err != nil {
			t.Fatal(err)
		}
	}
	check(noRedo, false)
	check(copyDir, true)
	// And the database itself, closed (a checkpoint) and reopened.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	check(dir, true)
}

// TestRedoLogFile: records read back in order from both files and end
// at a torn one; a switch starts the other file over at the next
// position, the records of the first still read; a reset starts both over
// and the older records behind the new ones are not read.
func TestRedoLogFile(t *testing.T) {
	repo := t.TempDir()
	l, recs, err := openRedoLog(repo, 5)
	if err != nil || len(recs) != 0 {
		t.Fatal(recs, err)
	}
	add := func(l *redoLog, what string, want uint64) {
		t.Helper()
		pos, sync, err := l.append([]byte(what))
		if err != nil || pos != want {
			t.Fatal(pos, err)
		}
		if err := sync(); err != nil {
			t.Fatal(err)
		}
	}
	positions := func(recs []redoRecord) []uint64 {
		var ps []uint64
		for _, r := range recs {
			ps = append(ps, r.pos)
		}
		return ps
	}
	for i := range 3 {
		add(l, fmt.Sprintf("record %d", i), uint64(5+i))
	}
	if err := l.switchOver(); err != nil {
		t.Fatal(err)
	}
	add(l, "after the switch", 8)
	l.close()
	l, recs, err = openRedoLog(repo, 99)
	if err != nil || fmt.Sprint(positions(recs)) != "[5 6 7 8]" || string(recs[3].payload) != "after the switch" {
		t.Fatal(positions(recs), err)
	}
	add(l, "ninth", 9) // the file taking records is the one switched to
	if err := l.switchOver(); err != nil {
		t.Fatal(err)
	}
	add(l, "tenth", 10)
	l.close()
	l, recs, err = openRedoLog(repo, 99)
	if err != nil || fmt.Sprint(positions(recs)) != "[8 9 10]" {
		t.Fatal(positions(recs), err)
	}
	if err := l.reset(); err != nil {
		t.Fatal(err)
	}
	add(l, "after the reset", 11)
	l.close()
	_, recs, err = openRedoLog(repo, 99)
	if err != nil || fmt.Sprint(positions(recs)) != "[11]" {
		t.Fatal(positions(recs), err)
	}
	// A torn record ends the file's records there.
	for i := range 2 {
		path := filepath.Join(repo, fmt.Sprintf(redoFileName, i))
		b, _ := os.ReadFile(path)
		b[redoFirstRecord+10] ^= 1
		os.WriteFile(path, b, 0o644)
	}
	if _, recs, err = openRedoLog(repo, 99); err != nil || len(recs) != 0 {
		t.Fatal(positions(recs), err)
	}
	// A damaged header is an error.
	path := filepath.Join(repo, fmt.Sprintf(redoFileName, 0))
	b, _ := os.ReadFile(path)
	b[3] ^= 1
	os.WriteFile(path, b, 0o644)
	if _, _, err = openRedoLog(repo, 99); !chunks.IsCorrupt(err) {
		t.Fatalf("damaged header: %v", err)
	}
}

// TestReadRedoFile: reading a log file as far as its records go gives the
// records of the whole file, for logs of records of many sizes (some
// larger than a read, some cut by the end of one), without reading the
// reserve past them; a torn record ends them as in the whole file.
func TestReadRedoFile(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 20 {
		repo := t.TempDir()
		l, _, err := openRedoLog(repo, 1)
		if err != nil {
			t.Fatal(err)
		}
		for range rng.Intn(200) {
			payload := make([]byte, rng.Intn(3000)+[]int{0, 0, 0, 100 << 10}[rng.Intn(4)])
			rng.Read(payload)
			if _, sync, err := l.append(payload); err != nil || sync() != nil {
				t.Fatal(err)
			}
		}
		l.close()
		path := filepath.Join(repo, fmt.Sprintf(redoFileName, 0))
		whole, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, end, _ := readRedoLog(whole); round%2 == 1 && end > redoFirstRecord {
			whole[redoFirstRecord+rng.Int63n(end-redoFirstRecord)] ^= 1 // a torn record
			if err := os.WriteFile(path, whole, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := readRedoFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, recs, end, err := readRedoLog(whole)
		first2, recs2, end2, err2 := readRedoLog(b)
		if err != nil || err2 != nil || first != first2 || end != end2 || len(recs) != len(recs2) {
			t.Fatalf("round %d: whole file: first %d, %d records, end %d, %v; read: first %d, %d records, end %d, %v", round, first, len(recs), end, err, first2, len(recs2), end2, err2)
		}
		for i := range recs {
			if recs[i].pos != recs2[i].pos || !bytes.Equal(recs[i].payload, recs2[i].payload) {
				t.Fatalf("round %d: record %d differs", round, i)
			}
		}
		if int64(len(b)) > 3*end+256<<10 {
			t.Fatalf("round %d: read %d bytes of a %d-byte file whose records end at %d", round, len(b), len(whole), end)
		}
	}
}

// FuzzRedoPayload: a payload decodes or fails with a corruption error,
// never panics, and what decodes encodes to the same bytes.
func FuzzRedoPayload(f *testing.F) {
	c := redoChange{branch: "main", tables: []redoTable{{name: "t", edits: tables.Edits{AutoIncrement: 3, Maps: [][]tables.RawEdit{
		{{Key: []byte("k1"), Val: []byte("v1")}, {Key: []byte("k2"), Delete: true}}, {}}}}}}
	f.Add(c.encode())
	f.Add((&redoChange{branch: "b"}).encode())
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeRedoChange(b)
		if err != nil {
			if !chunks.IsCorrupt(err) && !isVersionErr(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if !bytes.Equal(c.encode(), b) {
			t.Fatal("payload does not round-trip")
		}
	})
}

// FuzzRedoLog: any file bytes read as a log or fail with an error.
func FuzzRedoLog(f *testing.F) {
	b := appendRedoHeader(nil, 1)
	b = appendRedoRecord(b, 1, []byte("one"))
	b = appendRedoRecord(b, 2, []byte("two"))
	f.Add(b)
	f.Add(append(b, make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		first, recs, end, err := readRedoLog(b)
		if err != nil {
			if !chunks.IsCorrupt(err) && !isVersionErr(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if end > int64(len(b)) {
			t.Fatalf("records end at %d past %d bytes", end, len(b))
		}
		for i, r := range recs {
			if r.pos != first+uint64(i) {
				t.Fatalf("record %d at position %d, first %d", i, r.pos, first)
			}
		}
	})
}

func isVersionErr(err error) bool { return errors.Is(err, chunks.ErrVersion) }

// TestRedoSkippedRecordsCheckpoint: the record of a group whose write
// failed (its working set is not the branch's) is never staged in the
// store, yet a checkpoint covers it: one in the background, before the
// file holding it is started over, and the one that follows a replay
// that skipped it. Crash images taken after either open, however many
// there are, without any logged commit between them.
func TestRedoSkippedRecordsCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := initRedoDB(t, dir)
	// A record over a working set that never lands: a group whose
	// write failed.
	failed := func() {
		t.Helper()
		bogus := redoChange{branch: "main"}
		bogus.base.Working[0] = 1
		_, wait, err := db.redo.append(bogus.encode())
		if err == nil {
			err = wait()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Two checkpoints, each after a failed group's record, start over
	// the file that held the first.
	db.redoCheckpoint = 1
	for range 2 {
		failed()
		db.commitMu.Lock()
		db.maybeCheckpoint(ctx)
		db.commitMu.Unlock()
		db.checkpoints.Wait()
	}
	image := t.TempDir()
	copyTree(t, dir, image) // a crash now
	if db2, err := Open(image, Options{}); err != nil {
		t.Fatalf("after the checkpoints: %v", err)
	} else {
		must(t, db2.Close())
	}
	failed()
	image = t.TempDir()
	copyTree(t, dir, image) // a crash now
	must(t, db.Close())
	for round := range 3 {
		db, err := Open(image, Options{})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// A commit synced in the store, not logged.
		tx, err := db.Begin(ctx, "")
		if err == nil {
			err = tx.Insert(ctx, "t", prolly.Int(int64(round)), prolly.Int(1))
		}
		if err == nil {
			err = tx.Commit(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		next := t.TempDir()
		copyTree(t, image, next) // and a crash again
		must(t, db.Close())
		image = next
	}
}

// initRedoDB makes a database in dir with the table t of redoSchema.
func initRedoDB(t *testing.T, dir string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Init(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin(ctx, "")
	if err == nil {
		err = tx.CreateTable(ctx, "t", redoSchema())
	}
	if err == nil {
		err = tx.Commit(ctx)
	}
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}
