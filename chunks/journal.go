package chunks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
)

// errJournalClosed is a fill's sync of a journal closed meanwhile.
var errJournalClosed = errors.New("chunks: the journal was closed")

// journalLoc is where a chunk record lies in a journal.
type journalLoc struct {
	off  int64
	size uint32
}

// journal is one open journal file. The store's mu guards every field that
// changes (written, buf, committed, pending, index for the active journal);
// a journal that is no longer active never changes.
type journal struct {
	num  uint64
	path string
	f    *os.File // nil in a read-only store
	// data is the journal's mapping (or bytes, on Windows) in a read-only
	// store (readonly.go), read instead of f; nil otherwise.
	data []byte

	index     map[Address]journalLoc // committed chunks, and pending ones if active
	written   int64                  // bytes on file; records past it are in buf
	buf       []byte                 // records appended after written
	committed int64                  // end of the last root or commit record (or of the header)
	pending   []Address              // chunks put since the last commit, in order

	version uint32 // format version: 2 writes commit records and keeps a reserve
	chain   uint64 // the chain of the chunk records after committed (record.go)
	wchain  uint64 // the chain at written, where written is past committed
	// reserved is where the zeros written and synced ahead of the records
	// end (reserve.go); filling is set while a fill runs, and noFill once
	// one failed.
	reserved        int64
	filling, noFill bool
	// fmu keeps a fill's final sync (reserve.go), which runs without the
	// store's locks, from a close of the file that a collection or a
	// compaction makes of a journal it replaced (closeFile); fclosed is
	// set once the file is closed.
	fmu     sync.Mutex
	fclosed bool
}

// inMemory reports whether j has no file: a read-only store's replay
// (ReplayInMemory), whose records are all in buf.
func (j *journal) inMemory() bool { return j.f == nil && j.data == nil }

// closeFile closes j's file once no fill syncs it.
func (j *journal) closeFile() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	j.fclosed = true
	return j.f.Close()
}

// syncFill syncs j's file for a fill or SyncStaged, unless it was closed
// (the journal replaced meanwhile).
func (j *journal) syncFill() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if j.fclosed {
		return errJournalClosed
	}
	return datasync(j.f)
}

// end returns the offset where the next record will go.
func (j *journal) end() int64 { return j.written + int64(len(j.buf)) }

// readRecord returns a copy of the record bytes at loc. Callers hold the
// store's mu (read or write).
func (j *journal) readRecord(loc journalLoc) ([]byte, error) {
	b := make([]byte, loc.size)
	if loc.off >= j.written {
		copy(b, j.buf[loc.off-j.written:])
		return b, nil
	}
	if j.data != nil {
		copy(b, j.data[loc.off:])
		return b, nil
	}
	if _, err := j.f.ReadAt(b, loc.off); err != nil {
		return nil, fmt.Errorf("journal %s: read at offset %d: %w", j.path, loc.off, err)
	}
	return b, nil
}

// get returns the chunk at loc, checked against its checksum and address.
func (j *journal) get(addr Address, loc journalLoc) ([]byte, error) {
	b, err := j.readRecord(loc)
	if err != nil {
		return nil, err
	}
	return decodeJournalChunk(j.path, addr, loc, b)
}

// decodeJournalChunk decodes the record bytes b read from loc as the chunk
// addr. The result may alias b.
func decodeJournalChunk(path string, addr Address, loc journalLoc, b []byte) ([]byte, error) {
	r, err := decodeRecord(b)
	if err == nil && (r.kind != recordKindChunk || r.addr != addr || r.size != len(b)) {
		err = fmt.Errorf("%w: record is not chunk %s", ErrCorrupt, addr)
	}
	var data []byte
	if err == nil {
		data, err = decodeOwned(r.codec, r.stored, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("journal %s at offset %d: %w", path, loc.off, err)
	}
	return data, nil
}

// errDamageBeforeRoot marks replayJournal's error for damage with a valid
// root record after it.
var errDamageBeforeRoot = errors.New("damaged record")

// replayResult is what replaying a journal's bytes found.
type replayResult struct {
	index     map[Address]journalLoc // committed chunks
	root      Address                // the last commit's root
	hasRoot   bool
	log       uint64 // the last commit's log position (version 3)
	committed int64  // end of the last root or commit record, or of the header
	version   uint32 // the journal's format version
	// tornEnd is the end of the torn tail, the bytes after committed that
	// are not zeros (committed when there are none): the caller clears
	// them in the active journal.
	tornEnd int64
}

// replayJournal scans a journal's bytes. A damaged or partial record with
// no valid commit after it is a torn tail: it and everything after it
// belong to no commit, and the result ends at the last commit before it
// (the caller clears the active journal from there). Damage with a valid
// commit after it is an error naming the file and offset, so that no
// committed data is silently dropped. Zeros after the last record (the
// reserve of a version-2 journal) are its clean end.
func replayJournal(path string, b []byte) (replayResult, error) {
	res := replayResult{index: map[Address]journalLoc{}, committed: journalHeaderSize, tornEnd: journalHeaderSize}
	v, err := checkJournalHeader(b)
	if err != nil {
		return res, fmt.Errorf("journal %s: %w", path, err)
	}
	res.version = v
	type pend struct {
		addr Address
		loc  journalLoc
	}
	var pending []pend
	var chain uint64
	off := int64(journalHeaderSize)
	for off < int64(len(b)) {
		r, err := decodeRecord(b[off:])
		switch {
		case err != nil:
		case r.kind != recordKindChunk && !isCommitKind(r.kind, v):
			err = fmt.Errorf("%w: a record of kind %d in a journal of version %d", ErrCorrupt, r.kind, v)
		case v >= 2 && r.kind != recordKindChunk && (r.span != uint64(off-res.committed) || r.chain != chain):
			err = fmt.Errorf("%w: a commit record whose chunk records are not all there", ErrCorrupt)
		}
		if err != nil {
			end := nonZeroEnd(b, off)
			res.tornEnd = max(end, res.committed)
			if end == off {
				return res, nil // the reserve: zeros from here on
			}
			for y := off + 1; y < end; y++ {
				if commitAfterDamage(b, y, v) {
					return res, fmt.Errorf("journal %s: %w at offset %d with a commit after it at offset %d: %w; the store will not drop committed data: restore the file from a copy", path, errDamageBeforeRoot, off, y, err)
				}
			}
			return res, nil // torn tail
		}
		if r.kind == recordKindChunk {
			pending = append(pending, pend{r.addr, journalLoc{off, uint32(r.size)}})
			chain = chainNext(chain, b[off+int64(r.size)-8:off+int64(r.size)])
		} else {
			for _, p := range pending {
				res.index[p.addr] = p.loc
			}
			pending, chain = pending[:0], 0
			res.root, res.hasRoot, res.log = r.addr, true, r.log
			res.committed = off + int64(r.size)
			res.tornEnd = res.committed
		}
		off += int64(r.size)
	}
	if res.committed < off {
		res.tornEnd = off // chunk records of no commit
	}
	return res, nil
}

// nonZeroEnd returns the end of b's last byte that is not zero, and at
// least from.
func nonZeroEnd(b []byte, from int64) int64 {
	end := int64(len(b))
	for end-8 >= from && binary.LittleEndian.Uint64(b[end-8:]) == 0 {
		end -= 8
	}
	for end > from && b[end-1] == 0 {
		end--
	}
	return end
}

// commitAfterDamage reports whether a commit record at offset y of b,
// past a damaged record, shows that the damage lies in committed data: it
// is a valid commit (isCommitAt), or a version-2 commit record whose
// chunk records do not match it although none of its sectors is zeros. A
// crash during a commit leaves some of its sectors as the reserve had
// them, zeros: that commit was never acknowledged, and its tail is torn.
// Other damage to the records it names is damage to an acknowledged
// commit, which the store refuses to drop. A staged commit (version 3)
// proves nothing: it was not synced, so the damage before it may be a
// crash's (record.go).
func commitAfterDamage(b []byte, y int64, v uint32) bool {
	if v < 2 {
		return isRootRecordAt(b[y:])
	}
	r, ok := commitRecordAt(b, y, v)
	return ok && (chainHolds(b, y, r) || !hasZeroSector(b, y-int64(r.span), y))
}

// commitRecordAt returns the whole, valid version-2 commit record at
// offset y of b, if there is one there and its span lies inside the
// journal. It checks the fixed frame first, so that a scan over many
// offsets stays cheap.
func commitRecordAt(b []byte, y int64, v uint32) (record, bool) {
	size, length, kind := int64(commitRecordSize), uint32(commitRecordLength), byte(recordKindCommit)
	if v >= 3 {
		size, length, kind = commit3RecordSize, commit3RecordLength, recordKindSynced
	}
	if v < 2 || int64(len(b))-y < size || binary.BigEndian.Uint32(b[y:]) != length || b[y+4] != kind {
		return record{}, false
	}
	r, err := decodeRecord(b[y:])
	if err != nil || r.span > uint64(y-journalHeaderSize) {
		return record{}, false
	}
	return r, true
}

// hasZeroSector reports whether b[from:to] covers a whole 512-byte sector
// of the file (aligned) that is all zeros.
func hasZeroSector(b []byte, from, to int64) bool {
	const sector = 512
	for s := (from + sector - 1) / sector * sector; s+sector <= to; s += sector {
		if nonZeroEnd(b[:s+sector], s) == s {
			return true
		}
	}
	return false
}

// isCommitAt reports whether a valid commit of a journal of version v
// starts at offset y of b: a root record (version 1), or a commit record
// whose span holds exactly chunk records with its chain (version 2; a
// synced one in version 3).
// Recovery uses it to look for commits past a damaged record.
func isCommitAt(b []byte, y int64, v uint32) bool {
	if v < 2 {
		return isRootRecordAt(b[y:])
	}
	r, ok := commitRecordAt(b, y, v)
	return ok && chainHolds(b, y, r)
}

// chainHolds reports whether the span of r, the commit record at offset y
// of b, holds exactly chunk records whose chain is r's.
func chainHolds(b []byte, y int64, r record) bool {
	var chain uint64
	for p := y - int64(r.span); p < y; {
		c, err := decodeRecord(b[p:y])
		if err != nil || c.kind != recordKindChunk {
			return false
		}
		chain = chainNext(chain, b[p+int64(c.size)-8:p+int64(c.size)])
		p += int64(c.size)
	}
	return chain == r.chain
}

// mapFile maps a whole file read-only; the caller unmaps it with
// unmapFile when the slice is non-empty.
func mapFile(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, nil
	}
	return mapFileData(f, st.Size())
}

// DataSync makes f's written data durable, with the metadata needed to
// read it back but not its times (fdatasync where the system has it): the
// sync of a file written in place, for logs kept beside the store.
func DataSync(f *os.File) error { return datasync(f) }

// SyncDir syncs the folder dir, so that files made, renamed or removed in
// it stay so after a crash.
func SyncDir(dir string) error { return syncDir(dir) }
