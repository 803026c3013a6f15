package chunks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Read-only opens.
//
// A store opened with Options.ReadOnly is a snapshot of the last commit
// whose commit record it finds, taken without the folder's lock, so it works
// while a writer (another process) holds the store. It reads the manifest,
// then every file the manifest names; it never writes, creates or removes
// a file, and refuses Put, Commit and Compact with ErrReadOnly.
//
// What it relies on from the writer (filestore.go, compact.go):
//
//   - Journals are append-only: bytes below the end of their records do
//     not change (past it lie the zeros of the reserve, which records
//     replace). The active journal is read up to its last whole commit
//     record whose checksum and chain hold; a record the writer is still
//     appending is a torn tail and not seen, and chunk records after the
//     last commit record belong to no commit and are not indexed. (A
//     writer that opens the store clears a torn tail, past that commit
//     record, and may write new records there: the snapshot never reads
//     past it.)
//   - Table files never change once a manifest names them.
//   - The manifest is replaced by an atomic rename, and the writer
//     removes a file only after a manifest that no longer names it is in
//     place (compaction; leftovers at the writer's open).
//
// So the one race is a file removed between the reads of the manifest and
// of that file: the open then reads the manifest again and starts over if
// it changed (a missing file named by the current manifest is damage, and
// fails). Damage followed by a valid root record in the active journal,
// which a writer's append cannot produce, is read again a few times before
// it fails, like the writer's open, with the file and offset.
//
// Once open, the snapshot holds no file handles: table files and journals
// stay mapped (Unix; a removed file's mapping stays valid) or in memory
// (Windows, where files are also opened with FILE_SHARE_DELETE, so that
// the writer can rename the manifest and remove files while a reader
// reads them).

// readOnlyAttempts bounds how many times a read-only open starts over.
const readOnlyAttempts = 50

// errStale says that a file a manifest names is gone and the manifest
// changed since it was read: the open starts over.
var errStale = errors.New("chunks: the store changed while it was opened")

// errUnsettled says that the active journal read as damaged with a root
// record after the damage: read it again.
var errUnsettled = errors.New("chunks: the active journal is damaged before a root record")

// openReadOnly opens the store in dir read-only (see above).
func openReadOnly(dir string, opts Options) (*FileStore, error) {
	return openReadOnlyWith(dir, opts, readManifestShared)
}

// manifestReader reads a store's manifest: readManifestShared, or a test's
// wrapper of it that races a writer.
type manifestReader func(dir string) ([]byte, manifest, error)

// openReadOnlyWith is openReadOnly reading the manifest with read.
func openReadOnlyWith(dir string, opts Options, read manifestReader) (*FileStore, error) {
	var last error
	for attempt := 0; attempt < readOnlyAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(min(attempt, 20)) * time.Millisecond)
		}
		s := &FileStore{dir: dir, opts: opts, readOnly: true}
		err := s.loadReadOnly(read)
		if err == nil {
			return s, nil
		}
		s.closeFiles()
		if !errors.Is(err, errStale) && !errors.Is(err, errUnsettled) {
			return nil, err
		}
		last = err
	}
	return nil, fmt.Errorf("chunks: open store %s read-only: gave up after %d attempts: %w", dir, readOnlyAttempts, last)
}

// loadReadOnly reads the manifest (with read) and the files it names.
func (s *FileStore) loadReadOnly(read manifestReader) error {
	raw, m, err := read(s.dir)
	if err != nil {
		return fmt.Errorf("chunks: open store %s read-only: %w", s.dir, err)
	}
	s.man = m
	s.setRoot(m.root)
	// gone handles a file of the manifest that is missing.
	gone := func(err error) error {
		if errors.Is(err, os.ErrNotExist) {
			if now, _, rerr := read(s.dir); rerr == nil && !bytes.Equal(now, raw) {
				return fmt.Errorf("%w: %v", errStale, err)
			}
		}
		return fmt.Errorf("chunks: open store %s read-only: %w", s.dir, err)
	}
	for _, n := range m.tables {
		t, err := openTable(filepath.Join(s.dir, tableFileName(n)), n, &s.z)
		if err != nil {
			return gone(err)
		}
		s.tables = append(s.tables, t)
		// Point reads go through the mapping (table.read): no handle
		// stays open.
		if err := t.f.Close(); err != nil {
			return err
		}
		t.f = nil
	}
	s.useTables(s.tables, newTableFilter(s.tables))
	for i, n := range m.journals {
		j, err := openJournalReadOnly(filepath.Join(s.dir, journalFileName(n)), n)
		if errors.Is(err, errDamageBeforeRoot) && i == len(m.journals)-1 {
			// Only the active journal changes: read it again. The damage
			// of a frozen one is real.
			return fmt.Errorf("%w: %w", errUnsettled, err)
		}
		if err != nil {
			return gone(err)
		}
		if j.hasRoot {
			s.setRoot(j.root)
			s.log = j.log
		}
		s.journals = append(s.journals, j.journal)
	}
	return nil
}

// readOnlyJournal is a journal opened read-only and the last root it holds.
type readOnlyJournal struct {
	*journal
	root    Address
	hasRoot bool
	log     uint64 // root's log position
}

// openJournalReadOnly maps (or, on Windows, reads) the journal at path and
// indexes its committed chunks. The journal reads its records from the
// mapping; its file is closed.
func openJournalReadOnly(path string, n uint64) (readOnlyJournal, error) {
	f, err := openShared(path)
	if err != nil {
		return readOnlyJournal{}, err
	}
	data, err := mapFile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if data != nil {
			_ = unmapFile(data)
		}
		return readOnlyJournal{}, fmt.Errorf("journal %s: map: %w", path, err)
	}
	res, err := replayJournal(path, data)
	if err != nil {
		if data != nil {
			_ = unmapFile(data)
		}
		return readOnlyJournal{}, err
	}
	j := &journal{num: n, path: path, data: data, index: res.index, written: res.committed, committed: res.committed}
	return readOnlyJournal{journal: j, root: res.root, hasRoot: res.hasRoot, log: res.log}, nil
}

// ReplayInMemory runs replay, during which the read-only store takes Puts
// and staged commits (CommitStaged) in memory: a journal with no file,
// after the files' ones, holds the chunks, and the root and its log
// position change for this process only. It is for a reader that brings
// its snapshot up to date from a log of its own (a database's redo log,
// whose records a writer has made durable but not yet written into the
// store), before it is used: nothing is written to the folder, and once
// replay returns, writes are refused again (ErrReadOnly). A synced commit
// is refused during replay too.
func (s *FileStore) ReplayInMemory(replay func() error) error {
	s.mu.Lock()
	if !s.readOnly || s.closed {
		s.mu.Unlock()
		return fmt.Errorf("chunks: ReplayInMemory needs an open read-only store")
	}
	if len(s.journals) == 0 || !s.active().inMemory() { // the files' journals stay as they are
		m := &journal{num: 1, path: filepath.Join(s.dir, "(in memory)"), index: map[Address]journalLoc{}, version: 3}
		if len(s.journals) > 0 {
			m.num = s.active().num + 1
		}
		s.journals = append(s.journals, m)
	}
	s.replaying = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.replaying = false
		s.mu.Unlock()
	}()
	return replay()
}

// ReadOnly reports whether the store was opened with Options.ReadOnly.
func (s *FileStore) ReadOnly() bool { return s.readOnly }
