package chunks

import (
	"context"
	"fmt"
	"time"
)

// The nursery (SetNursery): a writer that makes its commits durable in a
// log of its own (CommitStaged) need not have the store write every tree
// node each staged commit puts. Under a stream of small commits most of
// them are garbage a few commits later (the leaf a commit rewrote, and the
// nodes above it, are rewritten by the next commit that touches them), and
// writing them cost the disk's bandwidth between the log's syncs, and the
// collections that copy them, without serving anyone: a crash recovers the
// last synced root and replays the log from there.
//
// In nursery mode:
//
//   - CommitStaged appends nothing: the root is current in memory, its new
//     chunks stay in the active journal's buffer (the nursery), which Put
//     no longer writes out every 1 MiB (only past nurseryMax bytes).
//   - Commit (synced) writes the whole buffer with its record, as before:
//     what a synced root reaches is on the file. So the file always holds
//     a prefix of the chunks put, closed under what they name (every
//     layer puts a chunk's children before the chunk itself), and no
//     chunk on the file names one in the buffer.
//   - A nursery collection (CollectOptions.Nursery) drops the buffer's
//     chunks that neither the root nor the pins reach, by the protocol of
//     Collect (barrier, Quiesce, mark, finish) over the buffer's chunks
//     only: the file's chunks and the table files' are kept unread, the
//     above being why that is sound. Its finish writes what is kept,
//     with a staged commit record of the current root, and syncs after it
//     lets writers go: the root is then durable.
//   - SyncStaged, a compaction's rotation and Close write the buffer with
//     a synced commit of the root first (settleHeld): a journal that a
//     compaction freezes, or that a checkpoint relies on, holds its root.
//
// A nursery collection that finds the buffer written meanwhile (a synced
// commit, a flush past nurseryMax, a rotation) drops nothing.

// nurseryMax is the size past which Put writes the buffer out (unsynced)
// in nursery mode: memory kept for collections that cannot run (a
// transaction open for long holds them up), at the cost of writing its
// garbage.
const nurseryMax = 128 << 20

// SetNursery turns nursery mode on or off (see the top of nursery.go).
// Turning it off writes the buffer with a synced commit of the root.
func (s *FileStore) SetNursery(on bool) error {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.nursery = on && len(s.journals) > 0 && s.active().version >= 3
	s.mu.Unlock()
	return s.settleHeld()
}

// NurseryBytes returns the bytes of the nursery: the active journal's
// buffer, in nursery mode; 0 otherwise.
func (s *FileStore) NurseryBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.nursery || len(s.journals) == 0 {
		return 0
	}
	return int64(len(s.active().buf))
}

// HoldsStaged reports whether the root is a staged commit that nursery
// mode keeps in memory (no sync, collection or synced commit since).
func (s *FileStore) HoldsStaged() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.unsettled
}

// settleHeld makes the root durable in the active journal when a staged
// commit of nursery mode left it in memory: it writes the buffer with a
// synced commit record of the root and syncs. Callers hold cmu and wmu.
func (s *FileStore) settleHeld() error {
	s.mu.Lock()
	if !s.unsettled {
		s.mu.Unlock()
		return nil
	}
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return err
	}
	a, log := s.active(), s.log
	a.buf = appendCommit3Record(a.buf, recordKindSynced, s.rootAddr(), uint64(a.end()-a.committed), a.chain, log)
	a.chain = 0
	a.committed = a.end()
	a.pending = a.pending[:0]
	s.unsettled = false
	s.mu.Unlock()
	if err := s.flush(a, true); err != nil {
		return err
	}
	if err := datasync(a.f); err != nil {
		return s.fail(fmt.Errorf("journal %s: sync: %w", a.path, err))
	}
	s.mu.Lock()
	s.durable = max(s.durable, log)
	s.mu.Unlock()
	return nil
}

// collectNursery is Collect with CollectOptions.Nursery.
func (s *FileStore) collectNursery(ctx context.Context, opts CollectOptions) (st CollectStats, err error) {
	start := time.Now()
	if !s.compactMu.TryLock() {
		return st, ErrCollecting // a collection or a compaction
	}
	defer s.compactMu.Unlock()

	// 1. The barrier, and the marker over the buffer's chunks.
	s.cmu.Lock()
	s.wmu.Lock()
	s.mu.Lock()
	err = s.writable()
	if err != nil || !s.nursery || len(s.active().buf) == 0 {
		s.mu.Unlock()
		s.wmu.Unlock()
		s.cmu.Unlock()
		return st, err
	}
	a := s.active()
	written := a.written
	b := &barrier{}
	s.barrier = b
	root := s.rootAddr()
	m := newMarker(s.Get, len(a.pending))
	for _, p := range a.pending {
		if a.index[p].off >= written {
			m.add(p)
		}
	}
	st.ChunksBefore = len(m.addrs)
	st.BytesBefore = int64(len(a.buf))
	s.mu.Unlock()
	s.wmu.Unlock()
	s.cmu.Unlock()
	defer func() {
		if err != nil {
			lowerBarrier(&s.mu, &s.barrier)
		}
	}()

	// 2. Quiesce, 3. mark.
	if err := markLive(ctx, m, opts, root, nil); err != nil {
		return st, err
	}

	// 4. Finish: drop what is not marked, write the rest with a commit of
	// the root; then, writers going on, sync.
	s.cmu.Lock()
	s.wmu.Lock()
	held := time.Now()
	st, log, synced, err := s.finishNursery(ctx, opts, m, b, a, written, st)
	s.wmu.Unlock()
	s.cmu.Unlock()
	st.Pause = time.Since(held)
	if err != nil || !synced {
		return st, err
	}
	switch err := a.syncFill(); {
	case err == nil:
		s.mu.Lock()
		s.durable = max(s.durable, log)
		s.mu.Unlock()
	case err != errJournalClosed: // else replaced, its root in the new journal's head
		return st, s.fail(fmt.Errorf("journal %s: sync: %w", a.path, err))
	}
	st.Took = time.Since(start)
	return st, nil
}

// finishNursery is the finish of collectNursery; the caller holds cmu and
// wmu. It reports whether it wrote a commit, which the caller syncs, and
// the commit's log position.
func (s *FileStore) finishNursery(ctx context.Context, opts CollectOptions, m *marker, b *barrier, a *journal,
	written int64, st CollectStats) (_ CollectStats, log uint64, synced bool, err error) {
	s.mu.Lock()
	err = s.writable()
	root := s.rootAddr()
	late := b.take()
	for _, l := range late {
		m.add(l)
	}
	moved := s.active() != a || a.written != written
	s.mu.Unlock()
	if err != nil {
		return st, 0, false, err
	}
	if moved {
		// The buffer was written meanwhile: nothing is left to drop.
		lowerBarrier(&s.mu, &s.barrier)
		st.ChunksAfter, st.BytesAfter = st.ChunksBefore, st.BytesBefore
		return st, 0, false, nil
	}
	if err := m.markFrom(ctx, append(append(late, opts.pinned()...), root)...); err != nil {
		return st, 0, false, err
	}

	s.mu.Lock()
	// The buffer holds the records of the pending chunks put since the
	// file's end, in order, and nothing else (nursery mode appends no
	// staged commit record; a synced one writes the buffer out).
	seen, n := 0, 0
	for _, p := range a.pending {
		if loc := a.index[p]; loc.off >= written {
			seen += int(loc.size)
			n++
		}
	}
	st.ChunksBefore, st.BytesBefore = n, int64(len(a.buf))
	if seen != len(a.buf) {
		s.barrier = nil
		s.mu.Unlock()
		return st, 0, false, fmt.Errorf("chunks: nursery collection: the buffer holds %d bytes, its pending chunks %d: nothing dropped", len(a.buf), seen)
	}
	// The kept records move to the front of the buffer, in order (each
	// to where it was or before), which keeps its capacity for the next.
	w := 0
	chain, kept := a.wchain, 0
	for _, p := range a.pending {
		loc := a.index[p]
		if loc.off < written {
			continue
		}
		if id, ok := m.ids[p]; ok && !m.marked[id] {
			delete(a.index, p)
			continue
		}
		from, size := int(loc.off-written), int(loc.size)
		copy(a.buf[w:w+size], a.buf[from:from+size])
		a.index[p] = journalLoc{written + int64(w), loc.size}
		w += size
		chain = chainNext(chain, a.buf[w-8:w])
		kept++
	}
	log = s.log
	a.buf = appendCommit3Record(a.buf[:w], recordKindStaged, root, uint64(written+int64(w)-a.committed), chain, log)
	a.chain = 0
	a.committed = a.end()
	a.pending = a.pending[:0]
	s.unsettled = false
	s.barrier = nil
	s.recent.clear() // it may hold chunks the collection dropped
	s.mu.Unlock()
	st.Late = len(late)
	st.ChunksAfter = kept
	st.BytesAfter = int64(len(a.buf))
	// Readers find the records in the buffer while it is written.
	if err := s.flush(a, true); err != nil {
		return st, 0, false, err
	}
	return st, log, true, nil
}
