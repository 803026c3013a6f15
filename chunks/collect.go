package chunks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Garbage collection: Collect keeps the chunks that the root and the pins
// reach and drops the rest, while readers and writers go on.
//
// # The protocol
//
//  1. Barrier. Under the store's locks (the writer's too, so that no
//     Commit is half done), the collection records the root R0
//     and puts up a write barrier: from then on every Put records its
//     address, whether the chunk is new or already held (a Put of bytes
//     the store holds returns at once, but its caller now refers to that
//     chunk, which may be garbage so far), and every Commit its new root
//     (which may have been put before the barrier). While the barrier is
//     up, Puts take the writer's lock, so that none slips between the
//     finish's last look at the barrier and the switch to the new files.
//  2. Quiesce (the caller's, CollectOptions.Quiesce): waits until every
//     writer that may hold chunks it put before the barrier without a
//     root that reaches them (a transaction's uncommitted tables, a
//     commit about to be written) has finished. The engine waits for its
//     transactions that began before the barrier; those it cannot wait
//     for, it pins (their roots come back from Pins).
//  3. Mark: R0 and the pins, and everything their bytes name,
//     conservatively (mark.go). Readers and writers are not held up.
//  4. Copy: every marked chunk into a new table file, sorted by address,
//     in zstd where that is smaller than its stored form (codec.go). Not
//     held up either.
//  5. Finish, holding the commit and writer's locks (Puts and Commits wait): mark from
//     every address the barrier recorded, from the current root and from
//     the pins again, then write what this marked and the copy lacks into
//     a second, small table file, start a new journal that begins with a
//     commit record of the current root, and name the new files in a new
//     manifest. Then, writers going on, the old files go.
//
// Why no chunk that anyone can still reach is dropped. A chunk is reached
// through an address someone holds. After the finish, every such holder
// is one of: (a) the current root: marked at the finish; (b) a root that
// was current at some moment since R0: it is R0 (marked) or was committed
// after the barrier (recorded, so marked at the finish, with everything
// it names); (c) a writer's chunk put after the barrier: recorded and
// marked; (d) a writer's chunk put before the barrier: the writer is done
// (its chunks are garbage, or reached through a root of (a) or (b)) or
// pinned, because Quiesce returned; (e) an address read from any chunk
// of (a)-(d): marked, since the mark follows every address a marked
// chunk holds. What is not covered is an address that came from outside
// the store (a hash a user typed) of a chunk nothing reached: that chunk
// was garbage, and reading it may fail during or after the collection.
//
// Marks follow every address inside a marked chunk, so everything a kept
// chunk names is kept: the new files hold closed sets, and the finish's
// mark stops at chunks marked before it. What the finish reads is what
// was written while the collection ran.
//
// # Young collections
//
// CollectOptions.Young runs the same protocol over the journals only:
// every chunk of a table file is marked before the mark begins, so the
// mark neither reads it nor follows what it names, the copy writes only
// the journals' marked chunks, and the new manifest names the old table
// files beside the new ones. It rests on one more fact: a table file's
// chunks name only chunks of table files. A collection writes closed sets
// (above), and a compaction moves every committed chunk of the journal,
// while every layer puts a chunk's children before the chunk itself (a
// tree's nodes bottom-up, a table's maps before the table, a commit's
// root and parents before the commit), so that a committed chunk's
// children are committed with it or before it. Garbage in the table files
// stays until a full collection.
//
// A young collection copies its chunks as the journal stored them (S2),
// without the full collection's recompression in zstd: it runs again and
// again under a steady stream of writes, and zstd's encoder was most of
// its time (10% of a server's CPU under sysbench's inserts). Its table
// files are recompressed by the next full collection, which reads every
// table file's chunks.
//
// # Crashes
//
// Every new file is written and synced before the manifest names it, and
// the manifest is replaced atomically (write, sync, rename, sync the
// folder). A crash before the rename leaves the old manifest: the store
// is as it was, and the new files are leftovers that the next open
// removes. A crash after it leaves the new manifest: the store is
// collected, and the old files are the leftovers. Commits acknowledged
// before the finish are in both sets of files; commits after it only
// in the new journal.

// CollectOptions are the options of a collection.
type CollectOptions struct {
	// Quiesce, if set, is called once the write barrier is up, and must
	// return only when no writer holds chunks it put before the barrier
	// that neither the root nor a pin reaches (see the protocol above).
	// An error aborts the collection, which then changes nothing.
	Quiesce func(ctx context.Context) error
	// Pins, if set, returns addresses to keep, with all they reach,
	// beside the root. It is called before the mark and again at the
	// finish, under the writer's lock: it must not write to the store.
	Pins func() []Address
	// Young collects only the chunks of the journals, the young ones:
	// every chunk of a table file is kept, as it is, and the mark does not
	// read it (see "Young collections" above). Its cost follows what the
	// journals hold, not the whole store. A memory store, which has no
	// table files, collects everything.
	Young bool
	// Nursery collects only the chunks of the nursery, which the store
	// keeps in memory in nursery mode (FileStore.SetNursery, nursery.go),
	// and writes what it keeps to the journal with a commit of the root,
	// synced: a checkpoint. Outside nursery mode it does nothing. It
	// fails with ErrCollecting while a collection or a compaction runs.
	// A memory store collects everything.
	Nursery bool
	// Progress, if set, is called as the collection goes: in the phase
	// "mark", done of at most total chunks read; in "copy", done of
	// total chunks written (a memory store copies nothing, and has no
	// such phase). It must be quick (it runs on the collector).
	Progress func(phase string, done, total int)
	// crashAt, in this package's tests, ends the process at a named step.
	crashAt string
}

// markLive is the steps 2 and 3 of both collectors: it waits for the
// writers (Quiesce), then marks what root and the pins reach, telling
// Progress. beforeMark, if set, runs between the two (a test's crash).
func markLive(ctx context.Context, m *marker, opts CollectOptions, root Address, beforeMark func()) error {
	if err := opts.quiesce(ctx); err != nil {
		return err
	}
	if beforeMark != nil {
		beforeMark()
	}
	m.progress = opts.Progress
	defer func() { m.progress = nil }()
	return m.markFrom(ctx, append(opts.pinned(), root)...)
}

// quiesce calls Quiesce, if set.
func (o CollectOptions) quiesce(ctx context.Context) error {
	if o.Quiesce == nil {
		return nil
	}
	return o.Quiesce(ctx)
}

// pinned returns Pins' addresses, if set.
func (o CollectOptions) pinned() []Address {
	if o.Pins == nil {
		return nil
	}
	return o.Pins()
}

// CollectStats says what a collection did.
type CollectStats struct {
	ChunksBefore, ChunksAfter int   // chunks held
	BytesBefore, BytesAfter   int64 // bytes of the store's files
	// Late is the number of chunks the finish kept: written, or reached
	// again, while the collection ran.
	Late int
	// Pause is how long the finish held up writers.
	Pause time.Duration
	// Took is how long the whole collection took; zero for a nursery
	// collection that found nothing to do (an empty nursery, or one
	// written meanwhile).
	Took time.Duration
}

// Collector is a store that can collect its garbage: FileStore and
// MemoryStore.
type Collector interface {
	Collect(ctx context.Context, opts CollectOptions) (CollectStats, error)
}

var (
	_ Collector = (*FileStore)(nil)
	_ Collector = (*MemoryStore)(nil)
)

// ErrCollecting is returned by a Collect while another runs on the store.
var ErrCollecting = errors.New("chunks: a collection is already running")

// barrier records the addresses put while a collection runs.
type barrier struct {
	mu    sync.Mutex
	addrs []Address
}

func (b *barrier) add(a Address) {
	b.mu.Lock()
	b.addrs = append(b.addrs, a)
	b.mu.Unlock()
}

// lowerBarrier takes a failed collection's barrier down, under mu.
func lowerBarrier(mu sync.Locker, b **barrier) {
	mu.Lock()
	*b = nil
	mu.Unlock()
}

func (b *barrier) take() []Address {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.addrs
	b.addrs = nil
	return out
}

// Collect drops every chunk that neither the root nor opts.Pins reaches,
// online, by the protocol at the top of collect.go. It runs instead of a
// compaction: the store ends with one or two table files and a journal
// holding only a commit record. It fails with ErrCollecting while another
// collection runs, and with the error of any chunk it cannot read (run a
// check: it collects nothing from a damaged store).
func (s *FileStore) Collect(ctx context.Context, opts CollectOptions) (st CollectStats, err error) {
	if opts.Nursery {
		return s.collectNursery(ctx, opts)
	}
	start := time.Now()
	if !s.compactMu.TryLock() {
		if s.collecting.Load() {
			return st, ErrCollecting
		}
		s.compactMu.Lock() // a compaction: wait for it
	}
	defer s.compactMu.Unlock()
	s.collecting.Store(true)
	defer s.collecting.Store(false)

	// 1. The barrier, and the marker over every address held now. The
	// commit lock too (a commit holds it from its look at the barrier to
	// its update of the root, after the sync): a Commit between the two
	// would make a root current that neither R0 nor the barrier names.
	s.cmu.Lock()
	s.wmu.Lock()
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		s.wmu.Unlock()
		s.cmu.Unlock()
		return st, err
	}
	b := &barrier{}
	s.barrier = b
	root := s.rootAddr()
	n := 0
	for _, t := range s.tables {
		n += t.count
	}
	for _, j := range s.journals {
		n += len(j.index)
	}
	m := newMarker(s.Get, n)
	for _, t := range s.tables {
		for i := 0; i < t.count; i++ {
			a, _, _ := t.entry(i)
			m.add(a)
		}
	}
	// The chunks of table files have the first ids; a young collection
	// keeps them all, unread.
	old := 0
	if opts.Young {
		old = len(m.addrs)
		for id := range old {
			m.marked[id] = true
		}
		m.count = old
	}
	for _, j := range s.journals {
		for a := range j.index {
			m.add(a)
		}
	}
	st.BytesBefore = s.fileBytes()
	s.mu.Unlock()
	s.wmu.Unlock()
	s.cmu.Unlock()
	st.ChunksBefore = len(m.addrs)
	defer func() {
		if err != nil {
			lowerBarrier(&s.mu, &s.barrier)
		}
	}()

	// 2. Quiesce, 3. mark.
	if err := markLive(ctx, m, opts, root, func() { s.crash(opts, "mark") }); err != nil {
		return st, err
	}

	// 4. Copy what is marked into a new table file.
	s.mu.Lock()
	num := s.man.nextFile
	s.man.nextFile += 3 // the table, the late table, the journal
	s.mu.Unlock()
	copied := make([]bool, len(m.marked))
	var keep []Address
	for id, ok := range m.marked {
		if ok {
			copied[id] = true
			if id >= old {
				keep = append(keep, m.addrs[id])
			}
		}
	}
	mainPath := filepath.Join(s.dir, tableFileName(num))
	if err := s.writeKept(mainPath, keep, !opts.Young, opts.Progress); err != nil {
		os.Remove(mainPath)
		return st, err
	}
	s.crash(opts, "copy")
	if s.closing.Load() {
		os.Remove(mainPath)
		return st, ErrClosed
	}

	// 5. Finish under the commit and writer's locks; then, with writers
	// going on, the old files go.
	s.cmu.Lock()
	s.wmu.Lock()
	held := time.Now()
	st, replaced, err := s.finish(ctx, opts, m, b, copied, num, mainPath, st)
	s.wmu.Unlock()
	s.cmu.Unlock()
	st.Pause = time.Since(held)
	if err != nil {
		return st, err
	}
	if err := s.removeOld(replaced); err != nil {
		return st, err
	}
	st.Took = time.Since(start)
	return st, nil
}

// oldFiles are the files a collection replaced.
type oldFiles struct {
	journals []*journal
	tables   []*table
}

// removeOld closes and removes the files a collection replaced. It needs
// none of the store's locks: the store names them no longer, and the
// journal's and tables' reads hold mu, which the switch to the new files
// took exclusively. (It once ran under the writer's lock, where closing
// and removing a 64 MiB journal was half of a young collection's pause,
// 21-25 ms of 41-44 under sysbench's updates at 16 threads.)
func (s *FileStore) removeOld(old oldFiles) error {
	var errs error
	for _, oj := range old.journals {
		errs = errors.Join(errs, oj.closeFile(), os.Remove(oj.path))
	}
	for _, ot := range old.tables {
		errs = errors.Join(errs, ot.close(), os.Remove(ot.path))
	}
	if errs = errors.Join(errs, syncDir(s.dir)); errs != nil {
		// The store is collected; a file left behind goes at the next open.
		return fmt.Errorf("chunks: collection done, but removing the old files failed: %w", errs)
	}
	return nil
}

// finish is step 5 of Collect; the caller holds wmu. It returns the files
// the collection replaced, for the caller to remove once it has let
// writers go.
func (s *FileStore) finish(ctx context.Context, opts CollectOptions, m *marker, b *barrier, copied []bool,
	num uint64, mainPath string, st CollectStats) (_ CollectStats, _ oldFiles, err error) {
	var made []string
	defer func() {
		if err != nil {
			for _, p := range append(made, mainPath) {
				os.Remove(p)
			}
		}
	}()
	// The barrier stays up until the switch, so that a Put that comes
	// now waits for the writer's lock (a Put of a chunk held would
	// otherwise find it in the old files and return at once).
	s.mu.Lock()
	err = s.writable()
	root, log := s.rootAddr(), s.log
	late := b.take()
	for _, a := range late {
		m.add(a)
	}
	s.mu.Unlock()
	if err != nil {
		return st, oldFiles{}, err
	}
	if err := m.markFrom(ctx, append(append(late, opts.pinned()...), root)...); err != nil {
		return st, oldFiles{}, err
	}
	var extra []Address
	for id, ok := range m.marked {
		if ok && (id >= len(copied) || !copied[id]) {
			extra = append(extra, m.addrs[id])
		}
	}
	st.Late = len(extra)
	st.ChunksAfter = m.count

	// A young collection keeps the table files (Collect holds compactMu:
	// they are the ones it began with).
	var oldTables []*table
	var oldNums []uint64
	if opts.Young {
		s.mu.RLock()
		oldTables, oldNums = slices.Clone(s.tables), slices.Clone(s.man.tables)
		s.mu.RUnlock()
	}
	fresh := []uint64{num}
	if len(extra) > 0 {
		p := filepath.Join(s.dir, tableFileName(num+1))
		made = append(made, p)
		if err := s.writeKept(p, extra, !opts.Young, nil); err != nil {
			return st, oldFiles{}, err
		}
		fresh = append(fresh, num+1)
	}
	newMan := manifest{root: root, journals: []uint64{num + 2}, tables: append(slices.Clone(oldNums), fresh...)}
	jpath := filepath.Join(s.dir, journalFileName(num+2))
	made = append(made, jpath)
	head := appendHeadRecord(appendJournalHeader(nil, JournalFormatVersion), JournalFormatVersion, root, log)
	if err := writeFileSync(jpath, head); err != nil {
		return st, oldFiles{}, fmt.Errorf("chunks: collection: new journal: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		return st, oldFiles{}, err
	}
	var tabs []*table
	for _, n := range fresh {
		t, err := openTable(filepath.Join(s.dir, tableFileName(n)), n, &s.z)
		if err != nil {
			for _, t := range tabs {
				t.close()
			}
			return st, oldFiles{}, fmt.Errorf("chunks: collection: %w", err)
		}
		tabs = append(tabs, t)
	}
	f, err := os.OpenFile(jpath, os.O_RDWR, 0)
	if err != nil {
		for _, t := range tabs {
			t.close()
		}
		return st, oldFiles{}, err
	}
	s.crash(opts, "manifest")
	s.mu.RLock()
	newMan.nextFile = s.man.nextFile
	s.mu.RUnlock()
	if err := writeManifest(s.dir, &newMan); err != nil {
		f.Close()
		for _, t := range tabs {
			t.close()
		}
		return st, oldFiles{}, fmt.Errorf("chunks: collection: write manifest: %w", err)
	}
	s.mu.RLock()
	filter := s.filter
	s.mu.RUnlock()
	tabs = append(oldTables, tabs...)
	filter = filter.with(tabs)
	made = nil // named by the manifest now: the store is collected
	j := &journal{num: num + 2, path: jpath, f: f, index: map[Address]journalLoc{},
		written: int64(len(head)), committed: int64(len(head)),
		version: JournalFormatVersion, reserved: int64(len(head))}
	s.mu.Lock()
	oldJournals, dropped := s.journals, s.tables
	if opts.Young {
		dropped = nil
	}
	s.journals, s.man = []*journal{j}, newMan
	s.useTables(tabs, filter)
	s.barrier = nil
	s.unsettled = false // the new journal begins with the root, synced
	s.durable = max(s.durable, log)
	s.recent.clear() // it may hold chunks the collection dropped
	st.BytesAfter = s.fileBytes()
	s.mu.Unlock()
	s.crash(opts, "remove")
	return st, oldFiles{journals: oldJournals, tables: dropped}, nil
}

// writeKept writes a table file of the chunks at addrs (sorted here),
// with recompress each in zstd where that is smaller than its stored form
// (unless the store keeps chunks raw), else as stored.
func (s *FileStore) writeKept(path string, addrs []Address, recompress bool, progress func(string, int, int)) error {
	slices.SortFunc(addrs, func(a, b Address) int { return a.Compare(b) })
	i := 0
	_, err := writeTable(path, func() (Address, Codec, []byte, bool, error) {
		if i == len(addrs) {
			if progress != nil {
				progress("copy", i, len(addrs))
			}
			return Address{}, 0, nil, false, nil
		}
		if progress != nil && i%1024 == 0 {
			progress("copy", i, len(addrs))
		}
		a := addrs[i]
		i++
		codec, stored, err := s.stored(a)
		if err == nil && recompress && s.codec != CodecRaw {
			codec, stored, err = s.z.recompress(codec, stored)
		} else if err == nil {
			codec, stored = s.tableCodec(codec, stored)
		}
		return a, codec, stored, err == nil, err
	})
	if err != nil {
		return fmt.Errorf("chunks: collection: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// stored returns the codec and stored bytes of the chunk at a, checked,
// as a copy.
func (s *FileStore) stored(a Address) (Codec, []byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return 0, nil, err
	}
	j, loc, t, ti := s.locate(a)
	switch {
	case j != nil:
		b, err := j.readRecord(loc)
		if err != nil {
			return 0, nil, err
		}
		r, err := decodeRecord(b)
		if err == nil && (r.kind != recordKindChunk || r.addr != a) {
			err = fmt.Errorf("%w: record is not chunk %s", ErrCorrupt, a)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("journal %s at offset %d: %w", j.path, loc.off, err)
		}
		return r.codec, r.stored, nil
	case t != nil:
		_, codec, stored, err := t.record(ti)
		if err != nil {
			return 0, nil, fmt.Errorf("table file %s: %w", t.path, err)
		}
		return codec, slices.Clone(stored), nil
	}
	return 0, nil, fmt.Errorf("%w: %s", ErrNotFound, a)
}

// fileBytes returns the bytes of the store's files. Callers hold mu.
func (s *FileStore) fileBytes() int64 {
	var n int64
	for _, j := range s.journals {
		n += j.end()
	}
	for _, t := range s.tables {
		n += int64(len(t.data))
	}
	return n
}

// crash ends the process at the step a test names (CollectOptions.crashAt).
func (s *FileStore) crash(opts CollectOptions, step string) {
	if opts.crashAt == step {
		os.Exit(3)
	}
}

// Collect drops every chunk that neither the root nor opts.Pins reaches,
// by the same protocol as FileStore's: the mark runs without the store's
// lock, the finish (and the deletion) with it.
func (s *MemoryStore) Collect(ctx context.Context, opts CollectOptions) (st CollectStats, err error) {
	start := time.Now()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return st, ErrClosed
	}
	if s.barrier != nil {
		s.mu.Unlock()
		return st, ErrCollecting
	}
	b := &barrier{}
	s.barrier = b
	root := s.root
	m := newMarker(s.Get, len(s.chunks))
	for a, data := range s.chunks {
		m.add(a)
		st.BytesBefore += int64(len(data))
	}
	s.mu.Unlock()
	st.ChunksBefore = len(m.addrs)
	defer func() {
		if err != nil {
			lowerBarrier(&s.mu, &s.barrier)
		}
	}()
	if err := markLive(ctx, m, opts, root, nil); err != nil {
		return st, err
	}
	before := m.count

	s.mu.Lock()
	defer s.mu.Unlock()
	held := time.Now()
	s.barrier = nil
	late := b.take()
	for _, a := range late {
		m.add(a)
	}
	// The finish reads under the store's lock: through the map itself.
	m.get = func(_ context.Context, a Address) ([]byte, error) {
		data, ok := s.chunks[a]
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, a)
		}
		return data, nil
	}
	if err := m.markFrom(ctx, append(append(late, opts.pinned()...), s.root)...); err != nil {
		return st, err
	}
	for id, a := range m.addrs {
		if !m.marked[id] {
			delete(s.chunks, a)
		}
	}
	for _, data := range s.chunks {
		st.BytesAfter += int64(len(data))
	}
	st.ChunksAfter, st.Late = m.count, m.count-before
	st.Pause = time.Since(held)
	st.Took = time.Since(start)
	return st, nil
}
