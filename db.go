package verso

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Options tune Open, Init and OpenMemory. The zero value is ready to use.
type Options struct {
	// Name is the database's name (the SQL database's); by default the
	// base name of its folder.
	Name string
	// DefaultBranch is the first branch of a new database (Init,
	// OpenMemory); main if empty.
	DefaultBranch string
	// Author is who makes a new database's first commit (Init,
	// OpenMemory, OpenStore); verso <verso@localhost> if empty.
	Author Signature
	// ReadOnly opens the database to read a snapshot of it, without the
	// writer's lock, while another process may hold it (chunks.Options
	// ReadOnly): every write fails with chunks.ErrReadOnly.
	ReadOnly bool
	// Locks is the row lock manager the database's transactions share
	// with those of other databases using it; nil for one of its own.
	Locks *Locks
	// Collations gives the sort keys of the string collations tables may
	// name (other than binary ones); nil knows none. The SQL layer passes
	// its engine's.
	Collations tables.Collations
	// AutoGC configures automatic garbage collection (autogc.go); the
	// zero value collects once the store doubles, past 64 MiB.
	AutoGC AutoGC
	// Logger receives the database's log lines (automatic collections);
	// nil discards them.
	Logger *slog.Logger
	// CacheBytes bounds each of the database's caches of decoded data,
	// tree nodes and commits (SetCacheBytes); 0 is DefaultCacheBytes.
	CacheBytes int64
}

// DefaultCacheBytes is the default bound of each of a database's caches of
// decoded data (Options.CacheBytes).
const DefaultCacheBytes = prolly.DefaultCacheBytes

// DB is one open database: its chunk store, commit graph and the state its
// transactions share (the queue of group commits, auto-increment counters,
// the cache of branch snapshots). It is safe for concurrent use.
type DB struct {
	name  string
	dir   string // the folder holding .verso; "" in memory
	store chunks.Store
	graph *commitgraph.DB
	// coll holds the tables.Collations tables are opened with
	// (Options.Collations, or UseCollations'), never nil once newDB
	// has run; its c is nil while the database knows none.
	coll atomic.Pointer[collations]

	mu     sync.RWMutex
	branch string // the default branch (.verso/HEAD)

	// commitMu serializes the updates of this database's working sets by
	// transaction commits and branch procedures, so that concurrent
	// commits merge one after another instead of retrying each other's
	// compare-and-swaps.
	commitMu sync.Mutex
	// storeMu is held while a group of commits writes its working sets
	// (commitqueue.go): the next group merges under commitMu meanwhile,
	// into the working sets in pending, and writes once it can take
	// storeMu. Whoever takes both takes commitMu first.
	storeMu sync.Mutex
	pendMu  sync.Mutex            // guards pending and pendEpoch
	pending map[string]*pendingWS // by branch: a working set being written
	// pendEpoch counts, by branch, the writes of a group that failed:
	// a group that merged into a pending working set of an older epoch
	// does not make its own pending.
	pendEpoch map[string]uint64
	// commits queues transaction commits into groups (commitqueue.go).
	commits commitQueue

	// autoInc holds, per table (lower-case name), the next auto-increment
	// value handed out to any transaction, as MySQL keeps one counter per
	// table across transactions: concurrent inserts get distinct values
	// (and do not conflict at commit). Values handed out and rolled back
	// are not reused. It starts from the stored counter of the table.
	autoIncMu sync.Mutex
	autoInc   map[string]uint64

	// snapshots caches, per branch, the working set and its opened root
	// as of a store root: a transaction's snapshot is a function of the
	// store root, so transactions that start while it has not moved share
	// one read of the refs and working set (most autocommit statements).
	snapMu    sync.Mutex
	snapshots map[string]snapshot

	// feeds holds, per branch, a channel closed at the next durable
	// update of its working set (events.go), made when a subscriber asks.
	feedMu sync.Mutex
	feeds  map[string]chan struct{}
	closed bool // under feedMu

	// remotes holds, per remote name, the remote kept open between
	// operations (withRemote, remote.go); remotesMu guards the map.
	remotesMu sync.Mutex
	remotes   map[string]*openedRemote

	locks *Locks

	// ops are the operations a garbage collection waits for (gc.go).
	ops ops
	// collectHooks run after each garbage collection (OnCollect).
	hookMu       sync.Mutex
	collectHooks []func(collected func(Hash) bool)
	// auto is the automatic collection (autogc.go).
	auto autoGC
	// redo is the redo log (redolog.go), nil for a database in memory or
	// opened read-only; redoFS is the file store it logs for.
	redo   *redoLog
	redoFS *chunks.FileStore
	// checkpointing is set while a checkpoint's sync runs (redo.go),
	// which checkpoints counts.
	checkpointing atomic.Bool
	checkpoints   sync.WaitGroup
	// redoCheckpoint is the bytes of records past which the log asks
	// for a checkpoint (redoCheckpoint; tests lower it).
	redoCheckpoint int64
	// nurseryAt is the nursery's size past which a nursery collection
	// runs (nursery.go; 0: the store keeps no nursery); nurseryMu is held
	// by the one that runs; nurseryRuns counts those that finished.
	nurseryAt   int64
	nurseryWait time.Duration // nurseryWait; tests lower it
	nurseryMu   sync.Mutex
	nurseryRuns atomic.Int64
	// nurseryNext, if set, is the nursery's size a collection waits for
	// after one could not run.
	nurseryNext atomic.Int64
	// nurseryAge bounds how long the root stays held staged
	// (nurseryAge; tests lower it): a group that leaves it so arms
	// nurseryTimer (nurseryArmed), under nurseryTimerMu, unless a close
	// stopped it; nurseryTimerWG counts the writes it runs.
	nurseryAge     time.Duration
	nurseryArmed   atomic.Bool
	nurseryTimerMu sync.Mutex
	nurseryTimer   *time.Timer
	nurseryStopped bool
	nurseryTimerWG sync.WaitGroup
}

// snapshot is a branch's working set and root as of a store root.
type snapshot struct {
	storeRoot chunks.Address
	refs      *commitgraph.Snapshot
	ws        commitgraph.WorkingSet
	root      commitgraph.RootValue
}

// newDB opens the commit graph of cs, giving a store without refs its
// first commit on branch.
func newDB(name, dir string, cs chunks.Store, branch string, opts Options) (*DB, error) {
	db := &DB{name: name, dir: dir, store: cs, graph: commitgraph.New(cs), branch: branch,
		pending: map[string]*pendingWS{}, pendEpoch: map[string]uint64{}}
	if opts.CacheBytes != 0 {
		db.SetCacheBytes(opts.CacheBytes)
	}
	db.coll.Store(&collations{c: opts.Collations, schemas: tables.NewSchemas(opts.Collations)})
	if db.locks = opts.Locks; db.locks == nil {
		db.locks = NewLocks()
	}
	ctx := context.Background()
	ok, err := db.graph.Initialized(ctx)
	switch {
	case err == nil && !ok && opts.ReadOnly:
		err = fmt.Errorf("%w, and a read-only open does not make one", commitgraph.ErrNotInitialized)
	case err == nil && !ok:
		_, err = db.graph.Init(ctx, branch, initMeta(opts.Author))
	}
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db.auto.init(opts.AutoGC, cs, opts.ReadOnly, log)
	if !opts.ReadOnly {
		err = db.openRedo(ctx, log)
	} else {
		err = db.replayRedoInMemory(ctx)
	}
	if err != nil {
		db.stopAutoGC()
		return nil, err
	}
	return db, nil
}

// SetCacheBytes bounds each of the database's two caches of decoded data,
// tree nodes and commits, to n bytes (at most n each; 0 caches nothing),
// evicting what no longer fits. Reads of a node or commit not cached fetch
// it from the store and decode it: a database whose working set and read
// history fit in the caches reads from memory.
func (db *DB) SetCacheBytes(n int64) {
	n = max(n, 0)
	db.graph.NodeStore().SetCacheBytes(int(min(n, math.MaxInt)))
	db.graph.SetCommitCacheBytes(n)
}

// CacheBytes returns the bound of each of the database's caches.
func (db *DB) CacheBytes() int64 { return int64(db.graph.NodeStore().CacheBytes()) }

// Close closes the database's store. Transactions of the database must be
// over.
func (db *DB) Close() error {
	db.stopAutoGC()
	rerr := db.closeRedo(context.Background())
	db.feedMu.Lock()
	if !db.closed {
		db.closed = true
		for b, ch := range db.feeds {
			close(ch)
			delete(db.feeds, b)
		}
	}
	db.feedMu.Unlock()
	db.closeRemotes()
	if c, ok := db.store.(interface{ Close() error }); ok {
		return errors.Join(rerr, c.Close())
	}
	return rerr
}

// Name returns the database's name.
func (db *DB) Name() string { return db.name }

// Dir returns the folder that holds the database's .verso, or "" for a
// database in memory.
func (db *DB) Dir() string { return db.dir }

// DefaultBranch returns the database's default branch (.verso/HEAD).
func (db *DB) DefaultBranch() string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.branch
}

// Graph returns the database's commit graph, for the layers that read
// commits and root values directly (the SQL layer's system tables).
func (db *DB) Graph() *commitgraph.DB { return db.graph }

// collations boxes a tables.Collations for an atomic pointer, with the
// cache of the schemas decoded with them.
type collations struct {
	c       tables.Collations
	schemas *tables.Schemas
}

// Collations returns the collations the database's tables are opened
// with (Options.Collations, or UseCollations'); nil knows none.
func (db *DB) Collations() tables.Collations {
	return db.coll.Load().c
}

// tableAt reads the table value at addr with the database's
// collations, through the cache of decoded schemas.
func (db *DB) tableAt(ctx context.Context, addr chunks.Address) (*tables.Table, error) {
	return db.coll.Load().schemas.Load(ctx, db.graph.NodeStore(), addr)
}

// UseCollations gives a database opened without Options.Collations the
// collations of the layer put over it (the SQL layer's, when a program's
// DB is served through the database/sql driver), and reports whether it
// took them: a database that has collations keeps its own.
func (db *DB) UseCollations(c tables.Collations) bool {
	old := db.coll.Load()
	return old.c == nil && db.coll.CompareAndSwap(old, &collations{c: c, schemas: tables.NewSchemas(c)})
}

// Store returns the database's chunk store.
func (db *DB) Store() chunks.Store { return db.store }

// CommitWrites returns how many working-set updates transaction commits
// made (one store commit, so one fsync on disk, each): with group commit,
// fewer than the commits acknowledged.
func (db *DB) CommitWrites() int64 { return db.commits.writes.Load() }

// CommitsWithEdits returns how many transaction commits took rows as
// pending edits (Txn.CommitEdits) and committed.
func (db *DB) CommitsWithEdits() int64 { return db.commits.edited.Load() }

// NextAutoIncrement returns the value for an auto-increment insert into
// table: given (non-zero), or the next of the shared counter, which moves
// past it. stored is the counter the caller's table value holds.
func (db *DB) NextAutoIncrement(table string, stored, given uint64) uint64 {
	db.autoIncMu.Lock()
	defer db.autoIncMu.Unlock()
	if db.autoInc == nil {
		db.autoInc = map[string]uint64{}
	}
	k := strings.ToLower(table)
	next := max(db.autoInc[k], stored, 1)
	if given > 0 {
		db.autoInc[k] = max(next, given+1)
		return given
	}
	db.autoInc[k] = next + 1
	return next
}

// PeekAutoIncrement returns the next value NextAutoIncrement would hand
// out.
func (db *DB) PeekAutoIncrement(table string, stored uint64) uint64 {
	db.autoIncMu.Lock()
	defer db.autoIncMu.Unlock()
	return max(db.autoInc[strings.ToLower(table)], stored, 1)
}

// SetAutoIncrement resets the shared counter of table (ALTER TABLE ...
// AUTO_INCREMENT, DROP TABLE, RENAME TABLE); 0 forgets it.
func (db *DB) SetAutoIncrement(table string, n uint64) {
	db.autoIncMu.Lock()
	defer db.autoIncMu.Unlock()
	if n == 0 {
		delete(db.autoInc, strings.ToLower(table))
		return
	}
	if db.autoInc == nil {
		db.autoInc = map[string]uint64{}
	}
	db.autoInc[strings.ToLower(table)] = n
}

// Snapshot returns the refs, the working set of branch and its opened
// working root as they are now, from a cache while the store's root has
// not moved.
func (db *DB) Snapshot(ctx context.Context, branch string) (*commitgraph.Snapshot, commitgraph.WorkingSet, commitgraph.RootValue, error) {
	storeRoot, err := db.store.Root(ctx)
	if err != nil {
		return nil, commitgraph.WorkingSet{}, commitgraph.RootValue{}, err
	}
	db.snapMu.Lock()
	s, ok := db.snapshots[branch]
	db.snapMu.Unlock()
	if ok && s.storeRoot == storeRoot {
		return s.refs, s.ws, s.root, nil
	}
	refs, err := db.graph.Snapshot(ctx)
	if err != nil {
		return nil, commitgraph.WorkingSet{}, commitgraph.RootValue{}, err
	}
	ws, err := refs.WorkingSet(ctx, branch)
	if err != nil {
		return nil, commitgraph.WorkingSet{}, commitgraph.RootValue{}, err
	}
	root, err := db.graph.OpenRoot(ctx, ws.Working)
	if err != nil {
		return nil, commitgraph.WorkingSet{}, commitgraph.RootValue{}, err
	}
	// The refs snapshot is immutable and names the store root it was read
	// at, so it and what was read from it can be cached under that root.
	db.snapMu.Lock()
	if db.snapshots == nil {
		db.snapshots = map[string]snapshot{}
	}
	db.snapshots[branch] = snapshot{storeRoot: refs.Root(), refs: refs, ws: ws, root: root}
	db.snapMu.Unlock()
	return refs, ws, root, nil
}
