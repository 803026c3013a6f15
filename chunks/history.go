package chunks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The history of the root.
//
// Every commit of a store appends a commit record (a root record in
// journals of version 1) to its journal (record.go), so the journals hold
// the roots the store has had, in order, since the
// oldest journal began: a collection (collect.go) and a compaction start a
// new journal whose first record is the root of that moment, and drop the
// older history with the old journal. RootHistory reads it, for a log of
// the refs (the engine's reflog). A root of the history may name chunks a
// collection has since dropped: only the current root's are kept.

// RootHistorian is a store that can list the roots it has had.
type RootHistorian interface {
	// RootHistory returns the roots committed, oldest first, as far
	// back as the store keeps them.
	RootHistory(ctx context.Context) ([]Address, error)
}

var (
	_ RootHistorian = (*FileStore)(nil)
	_ RootHistorian = (*MemoryStore)(nil)
)

// RootHistory implements RootHistorian: the root records of the journals,
// oldest first, read from the files (each record's frame is read; a root
// record is checked against its checksum).
func (s *FileStore) RootHistory(ctx context.Context) ([]Address, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var roots []Address
	for _, j := range s.journals {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if j.inMemory() {
			continue // no records
		}
		var r io.Reader
		if j.data != nil {
			r = bytes.NewReader(j.data[:j.committed])
		} else {
			r = io.NewSectionReader(j.f, 0, j.committed)
		}
		rs, err := journalRoots(bufio.NewReaderSize(r, 1<<16), j.committed)
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", j.path, err)
		}
		roots = append(roots, rs...)
	}
	return roots, nil
}

// journalRoots reads the root records of a journal's first n bytes.
func journalRoots(r *bufio.Reader, n int64) ([]Address, error) {
	head := make([]byte, journalHeaderSize)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("%w: reading the header: %v", ErrCorrupt, err)
	}
	v, err := checkJournalHeader(head)
	if err != nil {
		return nil, err
	}
	recSize := int64(rootRecordSize)
	switch {
	case v == 2:
		recSize = commitRecordSize
	case v >= 3:
		recSize = commit3RecordSize
	}
	var roots []Address
	rec := make([]byte, recSize)
	for off := int64(journalHeaderSize); off < n; {
		frame, err := r.Peek(5)
		if err != nil {
			return nil, fmt.Errorf("%w: a record at offset %d: %v", ErrCorrupt, off, err)
		}
		length := int64(binary.BigEndian.Uint32(frame))
		size := 4 + length + 8
		if length < 1 || off+size > n {
			return nil, fmt.Errorf("%w: a record of length %d at offset %d", ErrCorrupt, length, off)
		}
		if isCommitKind(frame[4], v) {
			if size != recSize {
				return nil, fmt.Errorf("%w: a root record of %d bytes at offset %d", ErrCorrupt, size, off)
			}
			if _, err := io.ReadFull(r, rec); err != nil {
				return nil, err
			}
			d, err := decodeRecord(rec)
			if err != nil {
				return nil, fmt.Errorf("the root record at offset %d: %w", off, err)
			}
			roots = append(roots, d.addr)
		} else if _, err := r.Discard(int(size)); err != nil {
			return nil, err
		}
		off += size
	}
	return roots, nil
}

// RootHistory implements RootHistorian: every root committed since the
// store was made (or last collected).
func (s *MemoryStore) RootHistory(ctx context.Context) ([]Address, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	return append([]Address(nil), s.roots...), nil
}

var errNoHistory = errors.New("chunks: this store keeps no history of its root")

// History returns the roots r has had, oldest first, when it keeps them.
func History(ctx context.Context, r any) ([]Address, error) {
	h, ok := r.(RootHistorian)
	if !ok {
		return nil, errNoHistory
	}
	return h.RootHistory(ctx)
}
