package verso

import (
	"context"
	"errors"
	"time"

	"github.com/verso-db/verso/chunks"
)

// The nursery: while the redo log makes groups of row changes durable,
// the chunk store keeps the tree nodes of their staged commits in memory
// (chunks.FileStore.SetNursery) instead of writing them to its journal,
// and a nursery collection writes only those the root still reaches
// (under sysbench's updates most are rewritten by a later group first).
// It runs once the nursery holds nurseryCollectAt bytes, and at each
// checkpoint of the redo log, whose old file may be started over only once
// the store holds its records durably (chunks.FileStore.DurablePosition).
//
// A nursery collection follows the collection's protocol (gc.go): it waits
// for the transactions that began before its barrier, for at most
// nurseryWait; past that, or while another collection runs, it does
// nothing and a checkpoint writes the whole nursery instead (SyncStaged).
//
// Under a light load neither trigger may come for minutes, and a staged
// group is in the journal's file only once a collection or a synced
// commit writes it: the redo log keeps it durable, and a read-only open
// (another process beside a server) replays it from there
// (replayRedoInMemory), but the records to replay at an open, and what
// the store's files alone hold, should not grow without bound. So a group
// that leaves the root held staged also arms a timer, and a nursery
// collection (or, if that cannot run, a synced commit of the whole
// nursery) writes it within nurseryAge.

const (
	// nurseryCollectAt is the nursery's size past which a nursery
	// collection starts.
	nurseryCollectAt = 32 << 20
	// nurseryWait bounds a nursery collection's wait for older
	// transactions.
	nurseryWait = time.Second
	// nurseryAge bounds how long a staged group stays out of the
	// journal's file.
	nurseryAge = 5 * time.Second
)

// nurseryHolds reports whether the store's root is a staged commit held
// in its nursery.
func (db *DB) nurseryHolds() bool {
	return db.nurseryAt > 0 && db.redoFS.HoldsStaged()
}

// maybeCollectNursery starts a nursery collection in the background once
// the nursery holds db.nurseryAt bytes (and, after one that could not
// run, db.nurseryAt more) and none runs.
func (db *DB) maybeCollectNursery() {
	if db.nurseryAt <= 0 || db.redoFS == nil {
		return
	}
	n := db.redoFS.NurseryBytes()
	if n < max(db.nurseryAt, db.nurseryNext.Load()) || !db.nurseryMu.TryLock() {
		return
	}
	db.checkpoints.Add(1)
	go func() {
		defer db.checkpoints.Done()
		defer db.nurseryMu.Unlock()
		err := db.collectNursery(context.Background())
		if err == nil {
			db.nurseryNext.Store(0)
			return
		}
		// Not again before the nursery has grown as much once more:
		// a transaction open for long holds every one up.
		db.nurseryNext.Store(n + db.nurseryAt)
		if !errors.Is(err, chunks.ErrCollecting) && !errors.Is(err, ErrGCWait) {
			db.auto.log.Load().Warn("a nursery collection failed", "database", db.name, "err", err)
		}
	}()
}

// collectNursery runs one nursery collection. Callers hold nurseryMu.
func (db *DB) collectNursery(ctx context.Context) error {
	quiesce := func(ctx context.Context) error { return db.ops.drain(ctx, nil, db.nurseryWait) }
	st, err := db.redoFS.Collect(ctx, chunks.CollectOptions{Nursery: true, Quiesce: quiesce})
	if err != nil {
		return err
	}
	if st.Took == 0 {
		return nil // nothing to do
	}
	db.nurseryRuns.Add(1)
	if st.ChunksAfter < st.ChunksBefore {
		db.afterCollect(ctx)
	}
	return nil
}

// syncStaged makes every record up to pos durable in the store, for a
// checkpoint: by a nursery collection if the store keeps one, else (or
// if that could not run) by a sync of the journal.
func (db *DB) syncStaged(pos uint64) error {
	if db.nurseryAt > 0 {
		db.nurseryMu.Lock()
		err := db.collectNursery(context.Background())
		db.nurseryMu.Unlock()
		if err == nil && db.redoFS.DurablePosition() >= pos {
			return nil
		}
	}
	return db.redoFS.SyncStaged()
}

// armNurseryTimer makes sure a nursery collection comes within
// db.nurseryAge while the store's root is held staged: it arms the timer
// if none is. It runs after each staged group.
func (db *DB) armNurseryTimer() {
	if db.nurseryAge <= 0 || db.nurseryArmed.Load() || !db.nurseryHolds() {
		return
	}
	db.nurseryTimerMu.Lock()
	defer db.nurseryTimerMu.Unlock()
	if db.nurseryArmed.Load() || db.nurseryStopped {
		return
	}
	db.nurseryArmed.Store(true)
	db.nurseryTimer = time.AfterFunc(db.nurseryAge, db.nurseryTimeUp)
}

// nurseryTimeUp writes the staged root into the journal's file: by a
// nursery collection, or by a synced commit of the whole nursery if that
// cannot run.
func (db *DB) nurseryTimeUp() {
	db.nurseryTimerMu.Lock()
	db.nurseryArmed.Store(false) // a group staged from now on arms it again
	if db.nurseryStopped {
		db.nurseryTimerMu.Unlock()
		return
	}
	db.nurseryTimerWG.Add(1) // stopNurseryTimer waits for it
	db.nurseryTimerMu.Unlock()
	defer db.nurseryTimerWG.Done()
	if !db.nurseryHolds() {
		return // a collection, a checkpoint or a synced commit wrote it
	}
	db.nurseryMu.Lock()
	runs := db.nurseryRuns.Load()
	err := db.collectNursery(context.Background())
	ran := db.nurseryRuns.Load() > runs
	db.nurseryMu.Unlock()
	if err == nil && (ran || !db.nurseryHolds()) {
		// Written; groups staged since arm the timer again.
		return
	}
	// It could not run, or found nothing in the buffer (a root whose
	// chunks were all written already).
	if err := db.redoFS.SyncStaged(); err != nil {
		db.auto.log.Load().Warn("writing the nursery failed", "database", db.name, "err", err)
	}
}

// stopNurseryTimer stops the timer for good, before a close, and waits
// for a write it started.
func (db *DB) stopNurseryTimer() {
	db.nurseryTimerMu.Lock()
	db.nurseryStopped = true
	if db.nurseryTimer != nil {
		db.nurseryTimer.Stop()
	}
	db.nurseryTimerMu.Unlock()
	db.nurseryTimerWG.Wait()
}
