package chunks

import (
	"errors"
	"fmt"
	"os"
)

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
	committed int64                  // end of the last root record (or of the header)
	pending   []Address              // chunks put since the last commit, in order
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
	root      Address                // the last root record's root
	hasRoot   bool
	committed int64 // end of the last root record, or of the header
}

// replayJournal scans a journal's bytes. A damaged or partial record with
// no valid root record after it is a torn tail: it and everything after it
// belong to no commit, and the result ends at the last root record before
// it (the caller cuts the active journal there). Damage with a root record
// after it is an error naming the file and offset, so that no committed data
// is silently dropped.
func replayJournal(path string, b []byte) (replayResult, error) {
	res := replayResult{index: map[Address]journalLoc{}, committed: journalHeaderSize}
	if err := checkJournalHeader(b); err != nil {
		return res, fmt.Errorf("journal %s: %w", path, err)
	}
	type pend struct {
		addr Address
		loc  journalLoc
	}
	var pending []pend
	off := int64(journalHeaderSize)
	for off < int64(len(b)) {
		r, err := decodeRecord(b[off:])
		if err != nil {
			for y := off + 1; y+rootRecordSize <= int64(len(b)); y++ {
				if isRootRecordAt(b[y:]) {
					return res, fmt.Errorf("journal %s: %w at offset %d with a committed root record after it at offset %d: %w; the store will not drop committed data: restore the file from a copy", path, errDamageBeforeRoot, off, y, err)
				}
			}
			return res, nil // torn tail
		}
		switch r.kind {
		case recordKindChunk:
			pending = append(pending, pend{r.addr, journalLoc{off, uint32(r.size)}})
		case recordKindRoot:
			for _, p := range pending {
				res.index[p.addr] = p.loc
			}
			pending = pending[:0]
			res.root, res.hasRoot = r.addr, true
			res.committed = off + int64(r.size)
		}
		off += int64(r.size)
	}
	return res, nil
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
