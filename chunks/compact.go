package chunks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Compact moves the committed chunks of the journal into a new table file
// and starts a fresh journal. When there would be more than MaxTables
// tables, it merges them all into the new one. Readers are never blocked
// while the table is written; the writer waits only while the journal is
// swapped. A crash at any point loses nothing: the manifest names the new
// files only once they are durable, and leftovers are removed on open.
func (s *FileStore) Compact() error {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	if p := s.bgErr.Swap(nil); p != nil {
		return fmt.Errorf("chunks: an earlier background compaction failed: %w", *p)
	}

	// Phase 1: freeze the active journal and start a new one.
	frozen, tableNum, err := s.rotate()
	if err != nil || frozen == nil {
		return err
	}

	// Phase 2: write the table from the frozen journals (and the tables, if
	// there are too many of them), holding no lock but compactMu.
	s.mu.RLock()
	tables := slices.Clone(s.tables)
	s.mu.RUnlock()
	var merged []*table
	if len(tables)+1 > s.opts.MaxTables {
		merged = tables
	}
	path := filepath.Join(s.dir, tableFileName(tableNum))
	if err := s.buildTable(path, frozen, merged); err != nil {
		return fmt.Errorf("chunks: compaction: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	t, err := openTable(path, tableNum, &s.z)
	if err != nil {
		return fmt.Errorf("chunks: compaction: %w", err)
	}

	// Phase 3: name the table in the manifest, then drop what it replaces.
	s.mu.RLock()
	m := manifest{root: s.rootAddr(), nextFile: s.man.nextFile, journals: []uint64{s.active().num}}
	var keep []*table
	for _, old := range s.tables {
		if !slices.Contains(merged, old) {
			keep = append(keep, old)
			m.tables = append(m.tables, old.num)
		}
	}
	m.tables = append(m.tables, tableNum)
	s.mu.RUnlock()
	if err := writeManifest(s.dir, &m); err != nil {
		t.close()
		return fmt.Errorf("chunks: compaction: write manifest: %w", err)
	}
	keep = append(keep, t)
	filter := newTableFilter(keep)
	s.mu.Lock()
	s.man = m
	s.useTables(keep, filter)
	s.journals = []*journal{s.active()}
	s.mu.Unlock()

	var errs error
	for _, j := range frozen {
		errs = errors.Join(errs, j.closeFile(), os.Remove(j.path))
	}
	for _, old := range merged {
		errs = errors.Join(errs, old.close(), os.Remove(old.path))
	}
	return errors.Join(errs, syncDir(s.dir))
}

// rotate freezes the journals and makes a new active one, which begins with
// a commit record of the current root and takes over the pending puts. It
// returns the frozen journals (nil when there is nothing to compact) and the
// file number reserved for the new table.
func (s *FileStore) rotate() ([]*journal, uint64, error) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	// The journal frozen must hold its root, which the new one's head
	// names: a root staged in nursery mode is written first, and the
	// staged commits' records are synced.
	if err := s.settleHeld(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	err := s.writable()
	old := s.active()
	idle := len(s.journals) == 1 && len(old.index) == len(old.pending) && len(s.tables) <= s.opts.MaxTables
	root, log, m := s.rootAddr(), s.log, s.man
	s.mu.RUnlock()
	if err != nil || idle {
		return nil, 0, err
	}

	// The pending records move to the new journal: records do not depend on
	// where they lie, so their bytes are copied as they are.
	tail := make([]byte, old.written-old.committed, old.end()-old.committed)
	if _, err := old.f.ReadAt(tail, old.committed); err != nil {
		return nil, 0, s.fail(fmt.Errorf("journal %s: read pending records: %w", old.path, err))
	}
	tail = append(tail, old.buf...)

	num := m.nextFile
	m.nextFile += 2 // the journal, and the table that compaction will write
	m.journals = append(slices.Clone(m.journals), num)
	m.root = root
	path := filepath.Join(s.dir, journalFileName(num))
	if old.version >= 3 {
		if err := old.syncFill(); err != nil {
			return nil, 0, s.fail(fmt.Errorf("journal %s: sync: %w", old.path, err))
		}
	}
	head := appendHeadRecord(appendJournalHeader(nil, JournalFormatVersion), JournalFormatVersion, root, log)
	if err := writeFileSync(path, head); err != nil {
		os.Remove(path)
		return nil, 0, fmt.Errorf("chunks: compaction: new journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, 0, err
	}
	if err := writeManifest(s.dir, &m); err != nil {
		f.Close()
		os.Remove(path)
		return nil, 0, fmt.Errorf("chunks: compaction: write manifest: %w", err)
	}
	j := &journal{num: num, path: path, f: f, index: make(map[Address]journalLoc, len(old.pending)),
		written: int64(len(head)), committed: int64(len(head)), buf: tail,
		version: JournalFormatVersion, chain: old.chain, reserved: int64(len(head))}
	shift := j.written - old.committed
	s.mu.Lock()
	for _, a := range old.pending {
		loc := old.index[a]
		delete(old.index, a)
		j.index[a] = journalLoc{loc.off + shift, loc.size}
	}
	j.pending = old.pending
	old.pending, old.buf = nil, nil
	frozen := slices.Clone(s.journals)
	s.journals = append(s.journals, j)
	s.man = m
	s.durable = max(s.durable, log)
	s.mu.Unlock()
	return frozen, num + 1, nil
}

// buildTable writes a table holding every committed chunk of the frozen
// journals and of the tables to merge.
func (s *FileStore) buildTable(path string, frozen []*journal, merged []*table) error {
	type src struct {
		j    *journal
		data []byte
	}
	var maps []src
	defer func() {
		for _, m := range maps {
			_ = unmapFile(m.data)
		}
	}()
	type ent struct {
		addr Address
		src  int
		loc  journalLoc
	}
	var ents []ent
	for _, j := range frozen {
		data, err := mapFile(j.f)
		if err != nil {
			return fmt.Errorf("journal %s: map: %w", j.path, err)
		}
		if data == nil {
			continue
		}
		maps = append(maps, src{j, data})
		for a, loc := range j.index {
			ents = append(ents, ent{a, len(maps) - 1, loc})
		}
	}
	slices.SortFunc(ents, func(x, y ent) int { return x.addr.Compare(y.addr) })

	// One cursor over the journal entries and one per merged table; each
	// step takes the smallest address and skips its duplicates.
	type cursor struct {
		next   func() (Address, Codec, []byte, bool, error)
		addr   Address
		codec  Codec
		stored []byte
		ok     bool
	}
	ji := 0
	cursors := []*cursor{{next: func() (Address, Codec, []byte, bool, error) {
		for ji < len(ents) {
			e := ents[ji]
			ji++
			if ji < len(ents) && ents[ji].addr == e.addr {
				continue
			}
			m := maps[e.src]
			if e.loc.off+int64(e.loc.size) > int64(len(m.data)) {
				return e.addr, 0, nil, false, fmt.Errorf("%w: journal %s: record at %d runs past the file", ErrCorrupt, m.j.path, e.loc.off)
			}
			r, err := decodeRecord(m.data[e.loc.off : e.loc.off+int64(e.loc.size)])
			if err == nil && r.addr != e.addr {
				err = fmt.Errorf("%w: record is not chunk %s", ErrCorrupt, e.addr)
			}
			if err != nil {
				return e.addr, 0, nil, false, fmt.Errorf("journal %s at offset %d: %w", m.j.path, e.loc.off, err)
			}
			codec, stored := s.tableCodec(r.codec, r.stored)
			return e.addr, codec, stored, true, nil
		}
		return Address{}, 0, nil, false, nil
	}}}
	for _, t := range merged {
		i := 0
		cursors = append(cursors, &cursor{next: func() (Address, Codec, []byte, bool, error) {
			if i >= t.count {
				return Address{}, 0, nil, false, nil
			}
			a, codec, stored, err := t.record(i)
			i++
			if err != nil {
				return a, 0, nil, false, fmt.Errorf("table file %s: %w", t.path, err)
			}
			return a, codec, stored, true, nil
		}})
	}
	for _, c := range cursors {
		var err error
		if c.addr, c.codec, c.stored, c.ok, err = c.next(); err != nil {
			return err
		}
	}
	_, err := writeTable(path, func() (Address, Codec, []byte, bool, error) {
		var min *cursor
		for _, c := range cursors {
			if c.ok && (min == nil || c.addr.Compare(min.addr) < 0) {
				min = c
			}
		}
		if min == nil {
			return Address{}, 0, nil, false, nil
		}
		addr, codec, stored := min.addr, min.codec, min.stored
		for _, c := range cursors {
			for c.ok && c.addr == addr {
				var err error
				if c.addr, c.codec, c.stored, c.ok, err = c.next(); err != nil {
					return addr, 0, nil, false, err
				}
			}
		}
		return addr, codec, stored, true, nil
	})
	return err
}
