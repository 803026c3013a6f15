package chunks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
)

// Options tune a FileStore. The zero value is the default.
type Options struct {
	// DisableCompression stores chunks as they are instead of compressing
	// them with S2.
	DisableCompression bool
	// CompactAt is the size in bytes of the active journal past which a
	// commit starts a compaction in the background. Zero means 64 MiB; a
	// negative value turns automatic compaction off (Compact still works).
	CompactAt int64
	// MaxTables is the number of table files past which a compaction merges
	// them all into one. Zero means 8.
	MaxTables int
	// ReadOnly opens a snapshot of the store's last commit without its
	// lock, for reading while another process writes (readonly.go): it
	// never writes to the folder, and Put, Commit and Compact fail with
	// ErrReadOnly. The store must exist.
	ReadOnly bool
}

const (
	defaultCompactAt = 64 << 20
	defaultMaxTables = 8
	// flushSize is the size of the write buffer: puts reach the file (not
	// synced) in batches of about this many bytes.
	flushSize = 1 << 20
	lockName  = "LOCK"
)

// FileStore is a durable Store in a folder: a journal of records that every
// commit appends to and syncs once, immutable table files that compaction
// builds from the journal, and a manifest naming them. See doc.go.
type FileStore struct {
	dir      string
	opts     Options
	codec    Codec    // what compaction and collections store (the journal keeps chunks raw): S2, or raw with DisableCompression
	lock     *os.File // nil when readOnly
	readOnly bool     // Options.ReadOnly (readonly.go)

	compactMu sync.Mutex // one compaction at a time
	// cmu is held by a Commit from its check of the root to the end of
	// its sync, and by whatever changes the journals or needs no commit
	// half done (rotation, a collection's barrier and finish, Close):
	// it is taken before wmu. A commit lets go of wmu once its records
	// are written, so Puts go on while it syncs.
	cmu sync.Mutex
	wmu sync.Mutex // one writer at a time: Put, a commit's write, rotation
	// beforeSync, when set (by tests), runs in a commit after wmu is let
	// go and before the sync.
	beforeSync func()
	scratch    []byte // record encoding buffer, guarded by wmu

	mu sync.RWMutex // guards the fields below
	// root is the current root (rootAddr, setRoot): changed under mu
	// held exclusively, with whatever the root needs (the journals that
	// hold it), and read under mu but by Root of a writable store, which
	// every transaction's begin calls and which reads it alone.
	root     atomic.Pointer[Address]
	log      uint64 // the root's log position (LogPosition)
	durable  uint64 // the log position of the last root synced (DurablePosition)
	man      manifest
	journals []*journal // oldest first; the last one is active
	tables   []*table   // oldest first
	// filter answers for tables, when it covers them (tablefilter.go);
	// set with them (useTables).
	filter *tableFilter
	failed error
	closed bool
	// barrier records every Put while a collection runs (collect.go);
	// nil otherwise.
	barrier *barrier
	// nursery is nursery mode (nursery.go); unsettled is set while the
	// root is a staged commit of that mode's, in memory only.
	nursery, unsettled bool
	// replaying is set while a read-only store takes writes in memory
	// (ReplayInMemory).
	replaying bool

	collecting atomic.Bool // a Collect holds compactMu

	z zstdCodec // for the zstd records of table files

	// chunks and record bytes appended to a journal since the open
	putChunks, putBytes atomic.Int64

	// recent holds small chunks put or read lately (recent.go); unused
	// by a read-only store, which others' collections may change.
	recent recentCache

	bg      sync.WaitGroup
	bgBusy  atomic.Bool
	bgErr   atomic.Pointer[error]
	closing atomic.Bool
}

var _ Store = (*FileStore)(nil)

var storeFileName = regexp.MustCompile(`^([0-9]+)\.(journal|table)$`)

// OpenFileStore opens the store in dir, creating the folder and an empty
// store if there is none. It takes an exclusive lock on the folder: a second
// open, from this process or another, fails with ErrLocked until Close.
// With opts.ReadOnly it takes no lock and creates nothing (readonly.go).
func OpenFileStore(dir string, opts Options) (*FileStore, error) {
	if opts.ReadOnly {
		return openReadOnly(dir, opts)
	}
	if opts.CompactAt == 0 {
		opts.CompactAt = defaultCompactAt
	}
	if opts.MaxTables <= 0 {
		opts.MaxTables = defaultMaxTables
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("chunks: create store folder: %w", err)
	}
	s := &FileStore{dir: dir, opts: opts, codec: CodecS2}
	if opts.DisableCompression {
		s.codec = CodecRaw
	}
	lock, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	s.lock = lock
	if err := s.load(); err != nil {
		s.closeFiles()
		lock.Close()
		return nil, err
	}
	return s, nil
}

// lockFolder takes the folder's exclusive lock.
func lockFolder(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("chunks: open lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLockHeld) {
			return nil, fmt.Errorf("%w: %s is open for writing elsewhere; close that store (or stop that process) first", ErrLocked, dir)
		}
		return nil, fmt.Errorf("chunks: lock %s: %w", path, err)
	}
	return f, nil
}

// load reads the manifest (or creates the store), removes leftovers, opens
// the tables and replays the journals.
func (s *FileStore) load() error {
	m, err := readManifest(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		m, err = s.create()
	}
	if err != nil {
		return fmt.Errorf("chunks: open store %s: %w", s.dir, err)
	}
	s.man = m
	s.setRoot(m.root)
	if err := s.removeLeftovers(); err != nil {
		return err
	}
	for _, n := range m.tables {
		t, err := openTable(filepath.Join(s.dir, tableFileName(n)), n, &s.z)
		if err != nil {
			return fmt.Errorf("chunks: open store %s: %w", s.dir, err)
		}
		s.tables = append(s.tables, t)
	}
	s.useTables(s.tables, newTableFilter(s.tables))
	for i, n := range m.journals {
		j, err := s.openJournal(n, i == len(m.journals)-1)
		if err != nil {
			return fmt.Errorf("chunks: open store %s: %w", s.dir, err)
		}
		s.journals = append(s.journals, j)
	}
	return nil
}

// create makes a new empty store: one journal and a manifest naming it.
func (s *FileStore) create() (manifest, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return manifest{}, err
	}
	for _, e := range entries {
		if storeFileName.MatchString(e.Name()) {
			return manifest{}, fmt.Errorf("%w: the folder holds %s but no %s; restore the manifest from a copy", ErrCorrupt, e.Name(), manifestName)
		}
	}
	m := manifest{nextFile: 2, journals: []uint64{1}}
	if err := writeFileSync(filepath.Join(s.dir, journalFileName(1)), appendJournalHeader(nil, JournalFormatVersion)); err != nil {
		return manifest{}, err
	}
	if err := writeManifest(s.dir, &m); err != nil {
		return manifest{}, err
	}
	return m, nil
}

// removeLeftovers deletes files that the manifest does not name: the
// remains of a compaction or an AddTable that a crash interrupted.
func (s *FileStore) removeLeftovers() error {
	named := map[string]bool{}
	for _, n := range s.man.journals {
		named[journalFileName(n)] = true
	}
	for _, n := range s.man.tables {
		named[tableFileName(n)] = true
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	removed := false
	for _, e := range entries {
		name := e.Name()
		if name == manifestTmpName || isAdoptLeftover(name) || (storeFileName.MatchString(name) && !named[name]) {
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
				return fmt.Errorf("chunks: remove leftover %s: %w", name, err)
			}
			removed = true
		}
	}
	if removed {
		return syncDir(s.dir)
	}
	return nil
}

// openJournal replays journal n. The last journal stays open for writing;
// its torn tail, if any, is cut off.
func (s *FileStore) openJournal(n uint64, last bool) (*journal, error) {
	path := filepath.Join(s.dir, journalFileName(n))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	data, err := mapFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: map: %w", path, err)
	}
	res, err := replayJournal(path, data)
	size := int64(len(data))
	if data != nil {
		_ = unmapFile(data)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if res.hasRoot {
		s.setRoot(res.root)
		s.log, s.durable = res.log, res.log
	}
	if last && res.version < 2 && res.committed < size {
		if err := f.Truncate(res.committed); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: cut torn tail at %d: %w", path, res.committed, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
		size = res.committed
	}
	if last && res.version >= 2 && res.committed < res.tornEnd {
		// The torn tail becomes zeros again, part of the reserve: no
		// commit record of it can be found after the next commits.
		if err := clearRange(f, res.committed, res.tornEnd); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: clear torn tail at %d: %w", path, res.committed, err)
		}
	}
	return &journal{num: n, path: path, f: f, index: res.index, written: res.committed, committed: res.committed,
		version: res.version, reserved: size}, nil
}

func (s *FileStore) active() *journal { return s.journals[len(s.journals)-1] }

// check returns the error that stops every call, if any. Callers hold mu.
func (s *FileStore) check() error {
	if s.closed {
		return ErrClosed
	}
	return nil
}

// locate finds addr: in a journal (newest first), then in a table (newest
// first). Callers hold mu.
func (s *FileStore) locate(addr Address) (j *journal, loc journalLoc, t *table, ti int) {
	for i := len(s.journals) - 1; i >= 0; i-- {
		if loc, ok := s.journals[i].index[addr]; ok {
			return s.journals[i], loc, nil, 0
		}
	}
	if s.filter != nil && !s.filter.mayHold(addr) {
		return nil, journalLoc{}, nil, -1
	}
	for i := len(s.tables) - 1; i >= 0; i-- {
		if ti := s.tables[i].search(addr); ti >= 0 {
			return nil, journalLoc{}, s.tables[i], ti
		}
	}
	return nil, journalLoc{}, nil, -1
}

// useTables makes tables the store's table files, with f their filter
// (newTableFilter(tables) or an extension, built before the caller took
// mu, since it reads every entry's head). A filter built for another list
// (the list changed meanwhile) is dropped: the tables are then searched
// one by one until the next change. Callers hold mu exclusively.
func (s *FileStore) useTables(tables []*table, f *tableFilter) {
	if !f.covers(tables) {
		f = nil
	}
	s.tables, s.filter = tables, f
}

func (s *FileStore) Get(ctx context.Context, addr Address) ([]byte, error) {
	// The small chunks read or put lately are read without the store's
	// lock: every statement reads a few (the working set, the root value,
	// the table), and a commit's Puts, which take the lock exclusively,
	// would otherwise wait for those reads and hold them up in turn.
	if !s.closing.Load() {
		if b, ok := s.recent.get(addr); ok {
			return b, nil
		}
	}
	s.mu.RLock()
	if err := s.check(); err != nil {
		s.mu.RUnlock()
		return nil, err
	}
	j, loc, t, ti := s.locate(addr)
	var data []byte
	var err error
	switch {
	case j != nil:
		var b []byte
		if b, err = j.readRecord(loc); err == nil {
			data, err = decodeJournalChunk(j.path, addr, loc, b)
		}
	case t != nil:
		data, err = t.read(ti)
	default:
		err = fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	if err == nil && !s.readOnly {
		// Under mu: a collection clears the cache under mu, so the
		// chunk cannot be dropped between this read and its keeping.
		s.recent.addCopy(addr, data)
	}
	s.mu.RUnlock()
	return data, err
}

func (s *FileStore) GetMany(ctx context.Context, addrs []Address, found func(Address, []byte)) error {
	return getEach(ctx, s, addrs, found)
}

func (s *FileStore) Has(ctx context.Context, addr Address) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return false, err
	}
	j, _, t, _ := s.locate(addr)
	return j != nil || t != nil, nil
}

func (s *FileStore) HasMany(ctx context.Context, addrs []Address) (AddressSet, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	absent := AddressSet{}
	for _, a := range addrs {
		if j, _, t, _ := s.locate(a); j == nil && t == nil {
			absent.Add(a)
		}
	}
	return absent, nil
}

func (s *FileStore) Root(ctx context.Context) (Address, error) {
	// Without mu in a writable store: a commit sets the root once its
	// chunks are in the journal's index. A read-only store's refresh
	// changes its journals and root together, under mu.
	if !s.readOnly && !s.closing.Load() {
		return s.rootAddr(), nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return Address{}, err
	}
	return s.rootAddr(), nil
}

// rootAddr returns the current root.
func (s *FileStore) rootAddr() Address {
	if r := s.root.Load(); r != nil {
		return *r
	}
	return Address{}
}

// setRoot makes a the current root. Callers hold mu exclusively.
func (s *FileStore) setRoot(a Address) { s.root.Store(&a) }

// writable returns the error that stops a write, if any. Callers hold mu.
func (s *FileStore) writable() error {
	if s.closed {
		return ErrClosed
	}
	if s.readOnly && !s.replaying {
		return fmt.Errorf("%w: %s", ErrReadOnly, s.dir)
	}
	if s.failed != nil {
		return fmt.Errorf("%w: %v", ErrFailed, s.failed)
	}
	return nil
}

func (s *FileStore) Put(ctx context.Context, data []byte) (Address, error) {
	if len(data) > maxChunkSize {
		return Address{}, fmt.Errorf("chunks: a chunk of %d bytes is larger than the %d allowed; split it", len(data), maxChunkSize)
	}
	addr := Of(data)
	s.mu.RLock()
	err := s.writable()
	j, _, t, _ := s.locate(addr)
	collecting := s.barrier != nil
	s.mu.RUnlock()
	if err != nil || (!collecting && (j != nil || t != nil)) {
		return addr, err
	}
	if collecting {
		// A collection runs: every Put, of a chunk held or not, is
		// recorded, under the writer's lock so that none falls between
		// the finish's last look at the barrier and its switch to the
		// new files (collect.go).
		s.wmu.Lock()
		defer s.wmu.Unlock()
		s.mu.Lock()
		if s.barrier != nil {
			s.barrier.add(addr)
		}
		j, _, t, _ = s.locate(addr)
		s.mu.Unlock()
		if j != nil || t != nil {
			return addr, nil
		}
	}
	// The journal keeps the chunk as it is: compressing it here would cost
	// a fifth of a commit's tree edit, and most of what a journal holds is
	// garbage by the time it is compacted or collected, which compress
	// what they keep (tableCodec).
	codec, stored := CodecRaw, data

	if !collecting {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	s.scratch = appendChunkRecord(s.scratch[:0], addr, codec, stored)
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return addr, err
	}
	if s.barrier != nil {
		s.barrier.add(addr) // a collection began since the look above
	}
	a := s.active()
	if _, ok := a.index[addr]; !ok {
		a.index[addr] = journalLoc{a.end(), uint32(len(s.scratch))}
		if s.nursery && cap(a.buf)-len(a.buf) < len(s.scratch) {
			// The nursery grows to tens of MiB: by doubling, not by
			// append's quarter for large slices, which copied it over
			// and over (a fifth of the CPU under writes), under mu.
			nb := make([]byte, len(a.buf), max(min(2*cap(a.buf), nurseryMax+flushSize), len(a.buf)+len(s.scratch), flushSize))
			copy(nb, a.buf)
			a.buf = nb
		}
		a.buf = append(a.buf, s.scratch...)
		a.pending = append(a.pending, addr)
		a.chain = chainNext(a.chain, s.scratch[len(s.scratch)-8:])
		s.putChunks.Add(1)
		s.putBytes.Add(int64(len(s.scratch)))
		s.recent.add(addr, data)
	}
	full := len(a.buf) >= flushSize && (!s.nursery || len(a.buf) >= nurseryMax) && !s.readOnly
	s.mu.Unlock()
	if full {
		return addr, s.flush(a, false)
	}
	return addr, nil
}

// flush writes the active journal's buffer to its file, without syncing.
// Callers hold wmu, not mu. While the write runs, readers still find the
// records in the buffer, which only a holder of wmu changes.
func (s *FileStore) flush(a *journal, commit bool) error {
	if len(a.buf) == 0 {
		return nil
	}
	if _, err := a.f.WriteAt(a.buf, a.written); err != nil {
		return s.fail(fmt.Errorf("journal %s: write: %w", a.path, err))
	}
	if !commit {
		// Start writing the batch back to the disk now, so the sync at the
		// commit finds less to do: disk and CPU work overlap in big commits.
		// It is a hint; durability still comes from the commit's sync.
		writeBackHint(a.f, a.written, int64(len(a.buf)))
	}
	s.mu.Lock()
	a.written += int64(len(a.buf))
	a.buf = a.buf[:0]
	a.wchain = a.chain
	s.mu.Unlock()
	return nil
}

// fail poisons the store after a failed write or sync: what reached the
// disk is unknown, so no later write may build on it.
func (s *FileStore) fail(err error) error {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
	return fmt.Errorf("%w: %v", ErrFailed, err)
}

func (s *FileStore) Commit(ctx context.Context, newRoot, expected Address) error {
	return s.commit(newRoot, expected, 0, false)
}

// CommitAt is Commit (synced) at log position log, as CommitStaged sets
// it: a writer that keeps a log of its own checkpoints with it, the store
// then holding every record up to log durably, those of changes that never
// reached the store (a failed write's) too. In a journal older than
// version 3 (CanStage false) the position is lost.
func (s *FileStore) CommitAt(ctx context.Context, newRoot, expected Address, log uint64) error {
	return s.commit(newRoot, expected, log, false)
}

// commit is Commit, CommitAt and CommitStaged.
func (s *FileStore) commit(newRoot, expected Address, log uint64, staged bool) error {
	s.cmu.Lock()
	s.wmu.Lock()
	size, err := s.commitLocked(newRoot, expected, log, staged)
	s.cmu.Unlock()
	if err == nil && s.opts.CompactAt > 0 && size >= s.opts.CompactAt {
		s.compactInBackground()
	}
	return err
}

// LogPosition returns the log position of the store's root: the one the
// last CommitStaged gave, or that a crash left (record.go). It is 0 in a
// store that was never given one, and in journals of version 2 or older.
func (s *FileStore) LogPosition() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.log
}

// DurablePosition returns the log position (LogPosition) of the last root
// that a sync made durable in this process: a Commit's, SyncStaged's, a
// nursery collection's, or the one the store opened at.
func (s *FileStore) DurablePosition() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.durable
}

// CanStage reports whether CommitStaged writes staged commits: the active
// journal is of version 3 or newer. An older journal takes the commits
// synced and loses their log positions: a writer that keeps a log of its
// own must not rely on them until a compaction or a collection starts a
// new journal.
func (s *FileStore) CanStage() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return !s.closed && len(s.journals) > 0 && s.active().version >= 3
}

// CommitStaged is Commit without the sync: the new root is the store's
// root at once, for every reader, and becomes durable with the next sync
// of the journal (a Commit, a compaction, a collection). log is the root's
// log position (LogPosition), at least the current one: the caller's
// count of the changes the root holds, which it must have made durable in
// its own log first, and replays past the recovered position after a
// crash. Commits after it carry that position until the next CommitStaged.
// In a journal older than version 3 (CanStage false) it commits synced.
func (s *FileStore) CommitStaged(ctx context.Context, newRoot, expected Address, log uint64) error {
	return s.commit(newRoot, expected, log, true)
}

// commitLocked commits under cmu and wmu, and returns the size of the
// active journal after the commit. It lets go of wmu once the commit's
// records are written, before the sync: Puts made while the sync runs
// go after the commit record, into the next commit. A staged commit
// (version 3) sets the log position and is written, not synced.
func (s *FileStore) commitLocked(newRoot, expected Address, log uint64, staged bool) (int64, error) {
	s.mu.Lock()
	refuse := func(err error) (int64, error) {
		s.mu.Unlock()
		s.wmu.Unlock()
		return 0, err
	}
	if err := s.writable(); err != nil {
		return refuse(err)
	}
	if cur := s.rootAddr(); cur != expected {
		return refuse(fmt.Errorf("%w: expected %s, found %s", ErrRootMoved, expected, cur))
	}
	if !newRoot.IsEmpty() {
		if j, _, t, _ := s.locate(newRoot); j == nil && t == nil {
			return refuse(fmt.Errorf("%w: %s", errMissingRoot, newRoot))
		}
	}
	if s.barrier != nil {
		// A root committed while a collection runs may have been put
		// before its barrier: readers may still take it (collect.go).
		s.barrier.add(newRoot)
	}
	a := s.active()
	if log < s.log {
		log = s.log
	}
	if s.readOnly { // ReplayInMemory
		if !staged {
			return refuse(fmt.Errorf("%w: %s (a synced commit while replaying in memory)", ErrReadOnly, s.dir))
		}
		s.setRoot(newRoot)
		s.log = log
		s.mu.Unlock()
		s.wmu.Unlock()
		return 0, nil
	}
	switch {
	case a.version >= 3 && staged && s.nursery:
		// The chunks stay in the buffer (nursery.go); the size is the
		// file's, which a compaction is measured by.
		s.setRoot(newRoot)
		s.log = log
		s.unsettled = true
		size := a.written
		s.mu.Unlock()
		s.wmu.Unlock()
		return size, nil
	case a.version >= 3 && staged:
		a.buf = appendCommit3Record(a.buf, recordKindStaged, newRoot, uint64(a.end()-a.committed), a.chain, log)
		a.chain = 0
		a.committed = a.end()
		a.pending = a.pending[:0]
		s.setRoot(newRoot)
		s.log = log
		size := a.committed
		s.mu.Unlock()
		// Written, not synced: a compaction or a collection takes the
		// journal's committed records from the file. Without the hint
		// to start writing them back now, which would put them in the
		// way of the sync that makes the commit durable elsewhere (the
		// writer's log): the writer starts it once that sync is done
		// (WriteBack).
		err := s.flush(a, true)
		s.wmu.Unlock()
		return size, err
	case a.version >= 3:
		a.buf = appendCommit3Record(a.buf, recordKindSynced, newRoot, uint64(a.end()-a.committed), a.chain, log)
	case a.version == 2:
		a.buf = appendCommitRecord(a.buf, newRoot, uint64(a.end()-a.committed), a.chain)
	default:
		a.buf = appendRootRecord(a.buf, newRoot)
	}
	a.chain = 0
	end, puts := a.end(), len(a.pending) // the commit's records and chunks
	s.mu.Unlock()

	err := s.flush(a, true)
	s.wmu.Unlock()
	if err != nil {
		return 0, err
	}
	if s.beforeSync != nil {
		s.beforeSync()
	}
	if err := datasync(a.f); err != nil {
		return 0, s.fail(fmt.Errorf("journal %s: sync: %w", a.path, err))
	}
	s.mu.Lock()
	a.committed = end
	// Chunks put during the sync stay pending, for the next commit.
	a.pending = a.pending[:copy(a.pending, a.pending[puts:])]
	s.setRoot(newRoot)
	s.log = log
	s.durable = max(s.durable, log)
	s.unsettled = false
	size := a.committed
	from, fill := s.needsFill(a)
	s.mu.Unlock()
	if fill {
		s.startFill(a, from)
	}
	return size, nil
}

// SyncStaged makes every commit staged so far durable: it syncs the
// active journal, into which CommitStaged wrote them, without a commit
// record and without holding up Puts and commits meanwhile. Only a failed
// sync fails the store.
//
// In nursery mode (nursery.go) it writes the nursery with a synced commit
// of the root first, holding up Puts and commits while it does.
func (s *FileStore) SyncStaged() error {
	s.mu.RLock()
	nursery := s.nursery
	s.mu.RUnlock()
	if nursery {
		s.cmu.Lock()
		defer s.cmu.Unlock()
	}
	// Under the writer's lock, the root's records are written: no commit
	// is between its position and its write.
	s.wmu.Lock()
	var err error
	if nursery {
		err = s.settleHeld()
	}
	s.mu.RLock()
	if err == nil {
		err = s.writable()
	}
	a, log := s.active(), s.log
	s.mu.RUnlock()
	s.wmu.Unlock()
	if err != nil {
		return err
	}
	err = a.syncFill()
	if errors.Is(err, errJournalClosed) {
		// Replaced by a compaction or a collection, whose new journal
		// begins, synced, with a commit of the root as it was then.
		return nil
	}
	if err != nil {
		return s.fail(fmt.Errorf("journal %s: sync: %w", a.path, err))
	}
	s.mu.Lock()
	s.durable = max(s.durable, log)
	s.mu.Unlock()
	return nil
}

// compactInBackground starts a compaction unless one is running.
func (s *FileStore) compactInBackground() {
	if s.closing.Load() || !s.bgBusy.CompareAndSwap(false, true) {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer s.bgBusy.Store(false)
		if err := s.Compact(); err != nil && !errors.Is(err, ErrClosed) {
			s.bgErr.Store(&err)
		}
	}()
}

// Dir returns the store's folder.
func (s *FileStore) Dir() string { return s.dir }

// Close waits for a running compaction, closes the files and releases the
// lock. Puts that were not committed are lost. It returns the error of a
// failed background compaction, if any.
func (s *FileStore) Close() error {
	s.closing.Store(true)
	s.bg.Wait()
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	serr := s.settleHeld()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.closed = true
	err := errors.Join(serr, s.closeFiles())
	if p := s.bgErr.Load(); p != nil {
		err = errors.Join(fmt.Errorf("chunks: background compaction: %w", *p), err)
	}
	if s.lock != nil {
		err = errors.Join(err, s.lock.Close())
	}
	return err
}

// closeFiles closes every journal and unmaps every table.
func (s *FileStore) closeFiles() error {
	var err error
	for _, j := range s.journals {
		if j.f != nil {
			err = errors.Join(err, j.f.Close())
		}
		if j.data != nil {
			err = errors.Join(err, unmapFile(j.data))
		}
	}
	for _, t := range s.tables {
		err = errors.Join(err, t.close())
	}
	s.journals = nil
	s.useTables(nil, nil)
	return err
}

// Appended returns the chunks Put has appended to a journal since the store
// was opened (puts of chunks the store held already not counted) and the
// bytes of their records.
func (s *FileStore) Appended() (chunks, bytes int64) { return s.putChunks.Load(), s.putBytes.Load() }

// Stats describes a FileStore's files.
type Stats struct {
	Journals     int   // journal files
	JournalBytes int64 // bytes in them, committed and pending, but the nursery's
	NurseryBytes int64 // the nursery's bytes (NurseryBytes), or a read-only store's replay's, in memory
	Tables       int   // table files
	TableBytes   int64 // bytes in them
	TableChunks  int   // chunks in them (a chunk may be in several)
}

// Stats returns the store's file counts and sizes.
func (s *FileStore) Stats() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var st Stats
	for _, j := range s.journals {
		if j.inMemory() {
			st.NurseryBytes += int64(len(j.buf))
			continue
		}
		st.Journals++
		st.JournalBytes += j.end()
	}
	if s.nursery && len(s.journals) > 0 {
		st.NurseryBytes = int64(len(s.active().buf))
		st.JournalBytes -= st.NurseryBytes
	}
	for _, t := range s.tables {
		st.Tables++
		st.TableBytes += int64(len(t.data))
		st.TableChunks += t.count
	}
	return st
}

// EachRecord calls fn with the address and the on-disk bytes of the
// record of every chunk the store holds (a chunk held in more than one
// file counts where a read finds it), for tools that measure where a
// store's bytes go. It holds the store's read lock while it runs.
func (s *FileStore) EachRecord(fn func(a Address, bytes int)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	seen := map[Address]bool{}
	for i := len(s.journals) - 1; i >= 0; i-- {
		for a, loc := range s.journals[i].index {
			if !seen[a] {
				seen[a] = true
				fn(a, int(loc.size))
			}
		}
	}
	for i := len(s.tables) - 1; i >= 0; i-- {
		t := s.tables[i]
		for k := 0; k < t.count; k++ {
			a, _, size := t.entry(k)
			if !seen[a] {
				seen[a] = true
				fn(a, size+tableEntrySize)
			}
		}
	}
}
