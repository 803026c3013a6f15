package verso

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/verso-db/verso/chunks"
)

// Automatic garbage collection (Options.AutoGC): after a commit, if the
// store's files have grown to Growth times their size after the last
// collection (or since the database was opened) and past MinBytes, a
// collection starts in the background, as Dolt's auto-GC does; one at a
// time, and only for a database on disk opened for writing.
//
// The default, on, with Growth 2 and MinBytes 64 MiB: a collection copies
// what is live, L bytes, and the next one starts once L more bytes were
// written, so collecting costs at most one more write of each byte the
// database takes in, and the files hold at most twice what is live (plus
// 64 MiB, which a small database does not bother to collect). A database
// whose writes are all live (appends, no updates) grows past each
// threshold too: its collections find nothing to drop, which costs one
// copy per doubling, as much as the journal's compaction costs.
//
// Most automatic collections are young (GCOptions.Young): they collect
// the journals and keep the table files as they are, so that each one
// reads and copies what was written since the last, not the whole
// database. Under a steady stream of small writes, where every commit
// rewrites a few tree nodes and the store doubles every few seconds, a
// full collection each time would read and recompress the whole database
// as often. A full collection runs instead once the table files have
// grown to Growth times their size after the last full one (and past
// Growth times MinBytes/2, so that a small database's first tables do not
// count as growth), or number more than maxYoungTables, so garbage left in
// them is bounded the same way.

// AutoGC configures automatic collection. The zero value is the default:
// on, Growth 2, MinBytes 64 MiB.
type AutoGC struct {
	// Off turns automatic collection off (DB.GC still works).
	Off bool
	// Growth is how many times its size after the last collection the
	// store must reach; 0 is 2, and values below 1.1 are 1.1.
	Growth float64
	// MinBytes is the size below which no automatic collection starts;
	// 0 is 64 MiB.
	MinBytes int64
}

const defaultAutoGCMin = 64 << 20

// maxYoungTables is the number of table files past which an automatic
// collection is a full one.
const maxYoungTables = 16

// autoGC is a database's automatic collection state.
type autoGC struct {
	cfg  atomic.Pointer[AutoGC] // nil: off
	fs   *chunks.FileStore      // nil: a store that cannot be collected this way
	log  atomic.Pointer[slog.Logger]
	base atomic.Int64 // the size the growth is measured from
	// fullBase is the table files' size after the last full collection
	// (or at the open), which their growth is measured from.
	fullBase atomic.Int64
	running  atomic.Bool
	runs     atomic.Int64
	wg       sync.WaitGroup
	ctx      context.Context
	cancel   context.CancelFunc
}

func (a *autoGC) init(cfg AutoGC, store chunks.Store, readOnly bool, log *slog.Logger) {
	a.log.Store(log)
	fs, ok := store.(*chunks.FileStore)
	if !ok || readOnly {
		return
	}
	a.fs = fs
	a.base.Store(storeBytes(fs))
	a.fullBase.Store(fs.Stats().TableBytes)
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.set(cfg)
}

// set applies cfg, with its defaults.
func (a *autoGC) set(cfg AutoGC) {
	if cfg.Off {
		a.cfg.Store(nil)
		return
	}
	if cfg.Growth == 0 {
		cfg.Growth = 2
	}
	cfg.Growth = max(cfg.Growth, 1.1)
	if cfg.MinBytes <= 0 {
		cfg.MinBytes = defaultAutoGCMin
	}
	a.cfg.Store(&cfg)
}

// SetAutoGC replaces the database's automatic collection settings
// (Options.AutoGC). It does nothing for a database in memory or opened
// read-only, which never collect by themselves.
func (db *DB) SetAutoGC(cfg AutoGC) {
	if db.auto.fs != nil {
		db.auto.set(cfg)
	}
}

// SetLogger replaces the logger of the database's log lines
// (Options.Logger); nil discards them.
func (db *DB) SetLogger(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	db.auto.log.Store(l)
}

func storeBytes(fs *chunks.FileStore) int64 {
	st := fs.Stats()
	return st.JournalBytes + st.TableBytes
}

// maybeAutoGC starts a background collection if the store grew enough.
// It runs after each durable commit; the test is one read of the store's
// sizes.
func (db *DB) maybeAutoGC() {
	a := &db.auto
	cfg := a.cfg.Load()
	if cfg == nil || a.running.Load() {
		return
	}
	st := a.fs.Stats()
	size := st.JournalBytes + st.TableBytes
	if size < cfg.MinBytes || float64(size) < cfg.Growth*float64(a.base.Load()) {
		return
	}
	if !a.running.CompareAndSwap(false, true) {
		return
	}
	young := st.Tables <= maxYoungTables && float64(st.TableBytes) < cfg.Growth*float64(max(a.fullBase.Load(), cfg.MinBytes/2))
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer a.running.Store(false)
		rep, err := db.GC(a.ctx, GCOptions{Young: young})
		switch {
		case err == nil:
			a.runs.Add(1)
			a.log.Load().Info("automatic garbage collection", "database", db.name, "young", young,
				"bytes_before", rep.BytesBefore, "bytes_after", rep.BytesAfter,
				"chunks_kept", rep.ChunksAfter, "chunks_before", rep.ChunksBefore,
				"pause", rep.Pause, "took", rep.Took)
		case errors.Is(err, context.Canceled), errors.Is(err, ErrGCBusy):
		default:
			// Open transactions, most likely: try again after more growth.
			a.base.Store(size)
			a.log.Load().Warn("automatic garbage collection failed", "database", db.name, "err", err)
		}
	}()
}

// collected records a collection's result, which the next automatic
// one's growth is measured from.
func (a *autoGC) collected(rep *GCReport, young bool) {
	if a.fs == nil {
		return
	}
	a.base.Store(rep.BytesAfter)
	if !young {
		a.fullBase.Store(a.fs.Stats().TableBytes)
	}
}

// stopAutoGC cancels a running automatic collection and waits for it.
func (db *DB) stopAutoGC() {
	if db.auto.cancel != nil {
		db.auto.cancel()
	}
	db.auto.wg.Wait()
}

// AutoGCRuns returns the number of automatic collections that finished.
func (db *DB) AutoGCRuns() int64 { return db.auto.runs.Load() }
