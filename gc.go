package verso

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/verso-db/verso/chunks"
)

// Garbage collection (DB.GC, CALL dolt_gc(), verso gc) drops every chunk
// that no ref, working set or open transaction reaches, while the
// database serves reads and writes. The chunk store does the work
// (chunks.Collector; its protocol and the argument for why nothing
// reachable is dropped are at the top of chunks/collect.go); the engine
// supplies what the store cannot know:
//
//   - Quiesce: the store's write barrier records every chunk put and
//     every root committed from its start on, but a writer may hold
//     chunks it put before the barrier that no root reaches yet (a
//     transaction's tables, a branch operation's new commit). Every such
//     writer is an operation of the DB: a Txn from Begin to its Commit or
//     Rollback, or a branch or tag operation for its call. The collection
//     waits (GCOptions.Wait) for the operations that began before the
//     barrier to end. Those that began after it hold only chunks the
//     barrier records or that the roots it marks reach.
//   - Pins: the collecting caller's own transactions (GCOptions.Txns; a
//     SQL session's CALL dolt_gc() runs inside one) is not waited for:
//     its roots are kept instead, with GCOptions.Pins (its savepoints).
//   - Caches: once the store is collected, the node cache, the cache of
//     decoded commits, the cache of branch snapshots and every cache a
//     layer above registered with OnCollect drop what the store no longer
//     holds, so no cache serves a collected chunk.
//
// What is not kept: an address that came from outside the store (a hash
// a user typed) of a commit no ref reaches; a RootValue obtained outside a
// transaction (DB.Root) whose branch moved on. Read inside a Txn to keep
// what you read.

// DefaultGCWait is how long a collection waits, by default, for the
// transactions that began before it to end.
const DefaultGCWait = time.Minute

// GCOptions are the options of DB.GC.
type GCOptions struct {
	// Shallow folds the journal into table files and drops nothing: the
	// quick pass (dolt_gc('--shallow')).
	Shallow bool
	// Young collects the journal's garbage only, keeping every chunk of
	// the table files (chunks.CollectOptions.Young): what automatic
	// collection runs between full ones, at a cost that follows the
	// writes since the last collection rather than the database's size.
	Young bool
	// Wait bounds the wait for transactions that began before the
	// collection; 0 is DefaultGCWait. If they are still open then, the
	// collection fails with ErrGCWait and changes nothing.
	Wait time.Duration
	// Txns are the caller's own open transactions, if any: they are not
	// waited for, and everything they hold is kept.
	Txns []*Txn
	// Pins are more roots to keep, with everything they reach (the
	// root values of the Txns' savepoints).
	Pins []Hash
	// Progress, if set, hears how the collection goes: the chunks read
	// in the phase "mark", then written in "copy"
	// (chunks.CollectOptions.Progress).
	Progress func(phase string, done, total int)
}

// GCReport says what a collection did.
type GCReport struct {
	chunks.CollectStats
	// Waited is how long it waited for older transactions to end.
	Waited time.Duration
	// Evicted is the number of cached nodes and commits dropped.
	Evicted int
}

var (
	// ErrGCWait is returned when transactions that began before a
	// collection stay open past GCOptions.Wait.
	ErrGCWait = errors.New("verso: transactions that began before the collection are still open")
	// ErrGCBusy is returned while another collection of the database
	// runs.
	ErrGCBusy = errors.New("verso: a garbage collection of this database is already running")
	// ErrNoGC is returned for a database whose store cannot collect.
	ErrNoGC = errors.New("verso: this database's store cannot collect garbage")
)

// GC collects the database's garbage (see the top of gc.go). It returns
// ErrGCBusy while another collection runs, ErrGCWait when transactions
// that began before it stay open too long, and a store's error (wrapping
// chunks.ErrCorrupt) when it cannot read a chunk it must keep: it then
// collects nothing (run Check).
func (db *DB) GC(ctx context.Context, opts GCOptions) (*GCReport, error) {
	col, ok := db.store.(chunks.Collector)
	if !ok {
		return nil, fmt.Errorf("%w (%T)", ErrNoGC, db.store)
	}
	if opts.Shallow {
		return db.shallowGC()
	}
	wait := opts.Wait
	if wait <= 0 {
		wait = DefaultGCWait
	}
	rep := &GCReport{}
	var self []uint64
	for _, t := range opts.Txns {
		self = append(self, t.op)
	}
	quiesce := func(ctx context.Context) error {
		start := time.Now()
		err := db.ops.drain(ctx, self, wait)
		rep.Waited = time.Since(start)
		return err
	}
	pins := func() []chunks.Address {
		out := append([]chunks.Address(nil), opts.Pins...)
		for _, t := range opts.Txns {
			out = append(out, t.pins()...)
		}
		return out
	}
	st, err := col.Collect(ctx, chunks.CollectOptions{Quiesce: quiesce, Pins: pins, Progress: opts.Progress, Young: opts.Young})
	if errors.Is(err, chunks.ErrCollecting) {
		return nil, ErrGCBusy
	}
	if err != nil {
		return nil, err
	}
	rep.CollectStats = st
	rep.Evicted = db.afterCollect(ctx)
	db.auto.collected(rep, opts.Young)
	return rep, nil
}

// shallowGC compacts a file store's journal into its table files.
func (db *DB) shallowGC() (*GCReport, error) {
	fs, ok := db.store.(*chunks.FileStore)
	if !ok {
		return &GCReport{}, nil // a memory store has no journal
	}
	before := fs.Stats()
	start := time.Now()
	if err := fs.Compact(); err != nil {
		return nil, err
	}
	after := fs.Stats()
	return &GCReport{CollectStats: chunks.CollectStats{
		BytesBefore: before.JournalBytes + before.TableBytes,
		BytesAfter:  after.JournalBytes + after.TableBytes,
		Took:        time.Since(start),
	}}, nil
}

// afterCollect drops from every cache what the store no longer holds.
func (db *DB) afterCollect(ctx context.Context) int {
	gone := func(a chunks.Address) bool {
		ok, err := db.store.Has(ctx, a)
		return err == nil && !ok
	}
	n := db.graph.NodeStore().Evict(gone)
	n += db.graph.EvictCommits(gone)
	db.snapMu.Lock()
	clear(db.snapshots)
	db.snapMu.Unlock()
	db.hookMu.Lock()
	hooks := append([]func(collected func(Hash) bool){}, db.collectHooks...)
	db.hookMu.Unlock()
	for _, h := range hooks {
		h(gone)
	}
	return n
}

// OnCollect registers fn to run after each garbage collection of the
// database, with a function that reports whether an address was
// collected: a layer above that caches what it read by address (decoded
// commits, opened tables) drops those entries, so that no cache serves a
// collected chunk.
func (db *DB) OnCollect(fn func(collected func(Hash) bool)) {
	db.hookMu.Lock()
	db.collectHooks = append(db.collectHooks, fn)
	db.hookMu.Unlock()
}

// pins returns the addresses of what the transaction holds: its
// snapshot's working set and refs, its base and its root.
func (t *Txn) pins() []chunks.Address {
	out := []chunks.Address{t.start.Working, t.start.Staged, t.base.Address(), t.root.Address()}
	if m := t.start.Merge; m != nil {
		out = append(out, m.Commit, m.PreMergeWorking)
	}
	if t.refs != nil {
		out = append(out, t.refs.Root())
	}
	return out
}

// ops tracks the database's operations that may hold chunks no root
// reaches (see the top of gc.go), cheaply enough for every transaction:
// a count of live operations per epoch, in opSlots slots. An operation
// begins in the slot of the current epoch (begin returns a token naming
// it) and ends there. A collection moves the epoch on (drain) and waits
// for every slot but the new one to empty: the operations that began
// before the move, which includes every one that began before the
// store's barrier.
type ops struct {
	epoch  atomic.Uint64
	counts [opSlots]atomic.Int64
}

// opSlots is the number of epochs with live operations at once: a drain
// that gave up leaves its operations in their slot, and the next drain
// waits for them too, so slots are reused only once empty.
const opSlots = 4

// begin registers an operation and returns its token (never 0).
func (o *ops) begin() uint64 {
	for {
		e := o.epoch.Load()
		o.counts[e%opSlots].Add(1)
		if o.epoch.Load() == e {
			return e + 1
		}
		// A drain moved the epoch on meanwhile, and may have looked at
		// the slot already: count in the new one.
		o.counts[e%opSlots].Add(-1)
	}
}

// end ends the operation of token tok.
func (o *ops) end(tok uint64) {
	o.counts[(tok-1)%opSlots].Add(-1)
}

// drain moves the epoch on and waits until the only live operations of
// the earlier epochs are those of the tokens in except, for at most wait.
// A transaction the program dropped without ending it ends when Go's
// collector finds it (Begin attaches a cleanup): if the wait goes on,
// drain runs Go's collector once to find them.
func (o *ops) drain(ctx context.Context, except []uint64, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	skip := func(slot uint64) int64 {
		n := int64(0)
		for _, tok := range except {
			if tok != 0 && (tok-1)%opSlots == slot {
				n++
			}
		}
		return n
	}
	// waitSlots waits until each slot but keep holds only except's.
	collected := false
	waitSlots := func(keep uint64) error {
		for pause := 50 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
			open := int64(0)
			for s := uint64(0); s < opSlots; s++ {
				if s != keep {
					open += max(o.counts[s].Load()-skip(s), 0)
				}
			}
			if open == 0 {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: %d after %s; commit or roll them back and collect again", ErrGCWait, open, wait)
			}
			if !collected && time.Until(deadline) < wait-50*time.Millisecond {
				collected = true
				runtime.GC()
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(pause):
			}
		}
	}
	// The slot the epoch moves to must hold no older operation first:
	// wait for what earlier drains left (nothing, unless one gave up).
	e := o.epoch.Load()
	if err := waitSlots(e % opSlots); err != nil {
		return err
	}
	o.epoch.Add(1)
	return waitSlots((e + 1) % opSlots)
}

// op runs the rest of a DB method as an operation (see ops): a caller
// writes defer db.op()().
func (db *DB) op() func() {
	tok := db.ops.begin()
	return func() { db.ops.end(tok) }
}
