package chunks

import (
	"fmt"
	"os"
)

// The reserve of the active journal (version 2, record.go).
//
// A commit appends its records to the journal and syncs it (fdatasync).
// When the records grow the file, the sync must also make the new size and
// the new blocks durable, a second write to the disk on most file systems:
// a 13 KB append and its fdatasync cost 270-360 us on the development
// machine against 170-190 us for the same write into space already written
// and synced (BenchmarkSyncedWrite). So
// the store keeps zeros written and synced ahead of the records, as
// databases preallocate their logs: once a commit has used up half of the
// reserve, a background fill writes reserveAhead more bytes of zeros past
// the records and syncs them.
//
// The fill writes zeros only past the end of the records (written plus
// the buffer) as it is while the fill holds the writer's lock, in pieces of
// fillPiece bytes, so it never overwrites a record and a writer waits at
// most for one piece. A writer that outruns the fill appends as it always
// could: the reserve is a matter of speed, never of correctness, and a
// failed fill only turns it off for that journal. Replay reads the zeros
// as the clean end of the records.

const (
	reserveAhead = 8 << 20  // bytes of zeros a fill adds
	fillPiece    = 64 << 10 // bytes a fill writes per hold of the writer's lock
)

// needsFill reports whether a, the active journal, needs a fill, its
// records having reached the second half of its reserve, and if so marks
// it filling and returns where the fill starts. Callers hold mu (a
// commit, after its sync, holds cmu too); they start the fill (startFill)
// once they have let go of mu.
func (s *FileStore) needsFill(a *journal) (from int64, ok bool) {
	if a.version < 2 || a.filling || a.noFill || a.end()+reserveAhead/2 <= a.reserved || s.closing.Load() {
		return 0, false
	}
	a.filling = true
	return max(a.reserved, a.end()), true
}

// startFill starts the background fill of a from from (needsFill).
func (s *FileStore) startFill(a *journal, from int64) {
	s.bg.Add(1)
	go s.fill(a, from, from+reserveAhead)
}

// fill writes zeros over [from, to) of a's file, past its records, and
// syncs them; it runs in the background (startFill).
func (s *FileStore) fill(a *journal, from, to int64) {
	defer s.bg.Done()
	zeros := make([]byte, fillPiece)
	var err error
	for pos := from; pos < to && err == nil; {
		s.wmu.Lock()
		s.mu.RLock()
		live := !s.closed && s.failed == nil && s.active() == a && !s.closing.Load()
		end := a.end()
		s.mu.RUnlock()
		if !live {
			// Closing, failed, or no longer the journal that takes
			// records: the reserve is of no more use.
			s.wmu.Unlock()
			s.mu.Lock()
			a.filling = false
			s.mu.Unlock()
			return
		}
		pos = max(pos, end)
		if n := min(int64(fillPiece), to-pos); n > 0 {
			_, err = a.f.WriteAt(zeros[:n], pos)
			pos += n
		}
		s.wmu.Unlock()
	}
	if err == nil {
		err = a.syncFill()
	}
	s.mu.Lock()
	a.filling = false
	if err == nil {
		a.reserved = max(a.reserved, to)
	} else {
		a.noFill = true // the writer appends as without a reserve
	}
	s.mu.Unlock()
}

// clearRange writes zeros over [from, to) of f and syncs them.
func clearRange(f *os.File, from, to int64) error {
	zeros := make([]byte, min(to-from, fillPiece))
	for pos := from; pos < to; pos += int64(len(zeros)) {
		n := min(int64(len(zeros)), to-pos)
		if _, err := f.WriteAt(zeros[:n], pos); err != nil {
			return fmt.Errorf("write zeros: %w", err)
		}
	}
	return datasync(f)
}
