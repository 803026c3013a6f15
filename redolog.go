package verso

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/verso-db/verso/chunks"
)

// The redo log: a group commit's durability without its trees.
//
// A group of transactions that changed only rows (commitqueue.go; a lone
// autocommitted write too) is made durable by one record of its row changes in this log, synced, while the
// group's trees are edited and staged in the chunk store without a sync
// (chunks.FileStore.CommitStaged): the record's sync and the trees' edit
// run at once, where the journal's sync would follow the edit. The store
// keeps the staged trees' nodes in memory (its nursery, nursery.go), and
// writes only those a root still reaches, at a nursery collection: the
// journal's pages, many times a record's bytes, stay out of the way of
// the syncs that acknowledge commits, and most never reach the disk. The
// staged working sets become durable with the store's next sync: a synced
// commit, a compaction, a collection, a nursery collection, or a
// checkpoint, which the log asks for once it holds redoCheckpoint bytes of
// records.
//
// Each record has a log position, one more than the one before; the store
// keeps, with each commit, the position of the last record its root holds
// (chunks.FileStore.LogPosition). Opening the database replays, in order,
// the records past the recovered root's position (redo.go), each onto the
// working set it was made over, and checkpoints. A read-only open (another
// process beside the writer, which holds the folder) replays them too, in
// memory, writing nothing (replayRedoInMemory): its snapshot holds every
// commit acknowledged before it.
//
// The log is two files, .verso/redo-0.log and .verso/redo-1.log, one of
// them taking the records. A checkpoint switches to the other, started
// over empty, then runs a nursery collection, or if it cannot, writes the
// nursery and syncs (chunks.FileStore.SyncStaged), in the background, the
// commits going on: the records of the first file are then all in the
// store, and it is started over at the next switch. Each file;
// integers big-endian:
//
//	+----------------------------------------------------------------------+
//	| magic "VRSREDO\n" (8) | version u32 (1) | 0 u32 | first u64 | xxh3 u64 |  header, 32 bytes
//	+----------------------------------------------------------------------+
//	| record | record | ...                                                  |
//	+----------------------------------------------------------------------+
//	| 0 0 0 ... (zeros written and synced ahead: the reserve)              |
//	+----------------------------------------------------------------------+
//
//	record: | length u32 | position u64 | payload (length - 8 bytes) | xxh3 u64 |
//
// The header's xxh3 covers its first 24 bytes; a record's covers its
// length, position and payload. first is the position of the file's first
// record; each next record's is one more. The records end at the first
// that is not whole, valid and at the next position: zeros (the reserve),
// a record torn by a crash, or a record of an older start, since starting
// over rewrites the header with the next position as first and writes the
// next records from the front again. The payload is a group's row changes
// (redo.go).
//
// The reserve keeps a record's sync from having to record the file's
// growth (see chunks/reserve.go): each file is made with redoReserve bytes
// of zeros, synced, and a start over writes from the front.
//
// Records are written past the page cache, in whole 4 KiB blocks
// (chunks.BlockAppender): each write takes the last block's records again,
// then the new record and zeros to the block's end, so the bytes before a
// record stay as they were, and the sync that follows is the disk's cache
// flush alone (measured in docs/BENCHMARKS.md).

const (
	redoFileName    = "redo-%d.log"
	redoMagic       = "VRSREDO\n"
	redoVersion     = 1
	redoHeaderSize  = 32
	redoFrameSize   = 4 + 8 + 8 // length, position, checksum
	redoMaxPayload  = 64 << 20
	redoReserve     = 8 << 20
	redoCheckpoint  = 4 << 20 // bytes of records past which a checkpoint is due
	redoFirstRecord = redoHeaderSize
)

// errRedoClosed is an append to a closed or failed log.
var errRedoClosed = errors.New("verso: the redo log is closed")

// redoLog is a database's open redo log.
type redoLog struct {
	repo string // the database's .verso folder

	mu     sync.Mutex // guards the fields below
	files  [2]*os.File
	apps   [2]*chunks.BlockAppender // each file's record writes
	syncs  [2]*chunks.SyncQueue     // each file's syncs, made at its first record
	cur    int                      // the file that takes the records
	first  uint64                   // its header's first position
	next   uint64                   // the position the next record takes
	end    int64                    // where in it the next record goes
	failed error
}

// redoRecord is a record read back from the log.
type redoRecord struct {
	pos     uint64
	payload []byte
}

// openRedoLog opens the database's redo log in repo (.verso), making
// files whose first position is first where there are none, and returns
// the records the files hold, by position.
func openRedoLog(repo string, first uint64) (*redoLog, []redoRecord, error) {
	l := &redoLog{repo: repo}
	var recs []redoRecord
	var firsts [2]uint64
	var ends [2]int64
	for i := range l.files {
		path := l.path(i)
		b, err := readRedoFile(path)
		if errors.Is(err, os.ErrNotExist) {
			if err = l.create(i, first); err == nil {
				firsts[i], ends[i] = first, redoFirstRecord
				l.apps[i], err = chunks.NewBlockAppender(l.files[i], path, redoFirstRecord, appendRedoHeader(nil, first))
			}
			if err == nil {
				continue
			}
		}
		var rs []redoRecord
		if err == nil {
			firsts[i], rs, ends[i], err = readRedoLog(b)
			if err != nil {
				err = fmt.Errorf("redo log %s: %w", path, err)
			}
		}
		if err == nil {
			l.files[i], err = os.OpenFile(path, os.O_RDWR, 0)
		}
		if err == nil {
			l.apps[i], err = chunks.NewBlockAppender(l.files[i], path, ends[i], b[:ends[i]])
		}
		if err != nil {
			l.close()
			return nil, nil, err
		}
		recs = append(recs, rs...)
	}
	// The file that takes the records is the one started over last.
	if firsts[1] > firsts[0] {
		l.cur = 1
	}
	l.first, l.end = firsts[l.cur], ends[l.cur]
	l.next = l.first
	for _, r := range recs {
		l.next = max(l.next, r.pos+1)
	}
	slices.SortFunc(recs, func(a, b redoRecord) int { return cmp.Compare(a.pos, b.pos) })
	return l, recs, nil
}

// path returns the path of file i.
func (l *redoLog) path(i int) string {
	return filepath.Join(l.repo, fmt.Sprintf(redoFileName, i))
}

// create writes file i, new, whose first position is first, with its
// reserve, and syncs it and its folder.
func (l *redoLog) create(i int, first uint64) error {
	path := l.path(i)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err == nil {
		_, err = f.Write(append(appendRedoHeader(nil, first), make([]byte, redoReserve)...))
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = chunks.SyncDir(l.repo)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.Remove(tmp)
		return fmt.Errorf("redo log %s: create: %w", path, err)
	}
	l.files[i] = f
	return nil
}

// appendRedoHeader appends a header whose first position is first.
func appendRedoHeader(b []byte, first uint64) []byte {
	start := len(b)
	b = append(b, redoMagic...)
	b = binary.BigEndian.AppendUint32(b, redoVersion)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint64(b, first)
	return binary.BigEndian.AppendUint64(b, xxh3.Hash(b[start:]))
}

// appendRedoRecord appends the record of payload at position pos.
func appendRedoRecord(b []byte, pos uint64, payload []byte) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(8+len(payload)))
	b = binary.BigEndian.AppendUint64(b, pos)
	b = append(b, payload...)
	return binary.BigEndian.AppendUint64(b, xxh3.Hash(b[start:]))
}

// readRedoFile reads the log file at path as far as readRedoLog needs:
// the header, the records, and the first bytes after them (the reserve's
// zeros, or a torn or older record), not the rest of the reserve, which
// every open would otherwise read in full.
func readRedoFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, 64<<10)
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, cap(b))
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if _, _, end, err := readRedoLog(b); err != nil || !redoCut(b[end:]) {
			return b, nil // a bad header, or the records end before b does
		}
	}
}

// redoCut reports whether rest, the bytes after the last record read,
// may be the start of a record cut short by the end of the read: it holds
// less than a frame's length field, or a length that runs past it.
func redoCut(rest []byte) bool {
	if len(rest) < 4 {
		return true
	}
	n := binary.BigEndian.Uint32(rest)
	return n >= 8 && n <= 8+redoMaxPayload && int64(len(rest)) < int64(n)+12
}

// readRedoLog reads a log file's bytes: its first position, its records
// (payloads aliasing b) and where they end. A bad header is an error
// (chunks.ErrCorrupt, or chunks.ErrVersion for a newer format); the
// records end quietly at the first that is not whole, valid and next.
func readRedoLog(b []byte) (first uint64, recs []redoRecord, end int64, err error) {
	if len(b) < redoHeaderSize || string(b[:8]) != redoMagic {
		return 0, nil, 0, fmt.Errorf("%w: not a redo log (bad header)", chunks.ErrCorrupt)
	}
	if xxh3.Hash(b[:24]) != binary.BigEndian.Uint64(b[24:32]) || binary.BigEndian.Uint32(b[12:]) != 0 {
		return 0, nil, 0, fmt.Errorf("%w: the redo log's header is damaged", chunks.ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != redoVersion {
		return 0, nil, 0, fmt.Errorf("%w: redo log format version %d; this build reads version %d", chunks.ErrVersion, v, redoVersion)
	}
	first = binary.BigEndian.Uint64(b[16:])
	off := int64(redoFirstRecord)
	for next := first; ; next++ {
		rest := b[off:]
		if len(rest) < redoFrameSize {
			break
		}
		n := binary.BigEndian.Uint32(rest)
		if n < 8 || n > 8+redoMaxPayload || int64(len(rest)) < int64(n)+12 {
			break
		}
		size := int64(n) + 12
		if binary.BigEndian.Uint64(rest[4:]) != next || xxh3.Hash(rest[:size-8]) != binary.BigEndian.Uint64(rest[size-8:size]) {
			break
		}
		recs = append(recs, redoRecord{pos: next, payload: rest[12 : size-8]})
		off += size
	}
	return first, recs, off, nil
}

// append writes payload's record and returns its position and a function
// that makes it durable (with every record before it); the record is
// durable, and may be replayed, only once that returns nil. Callers append
// in the order the records' changes apply.
func (l *redoLog) append(payload []byte) (uint64, func() error, error) {
	if len(payload) > redoMaxPayload {
		return 0, nil, fmt.Errorf("verso: a redo record of %d bytes is larger than the %d allowed", len(payload), redoMaxPayload)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return 0, nil, l.failed
	}
	rec := appendRedoRecord(nil, l.next, payload)
	f := l.files[l.cur]
	if err := l.apps[l.cur].Append(rec); err != nil {
		l.failed = fmt.Errorf("redo log %s: write: %w", l.path(l.cur), err)
		return 0, nil, l.failed
	}
	pos := l.next
	l.next++
	l.end += int64(len(rec))
	// The sync starts now and runs while the caller goes on
	// (chunks.SyncQueue): the returned func waits for it.
	q := l.syncs[l.cur]
	if q == nil {
		q = chunks.NewSyncQueue(f)
		l.syncs[l.cur] = q
	}
	ticket := q.Start()
	return pos, func() error {
		if err := q.Wait(ticket); err != nil {
			l.mu.Lock()
			if l.failed == nil {
				l.failed = fmt.Errorf("redo log: %w", err)
			}
			err = l.failed
			l.mu.Unlock()
			return err
		}
		return nil
	}, nil
}

// last returns the position of the last record appended and the bytes
// of records in the file that takes them.
func (l *redoLog) last() (uint64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next - 1, l.end - redoFirstRecord
}

// switchOver starts the other file over, empty, and makes it take the
// records. The caller knows that the store holds every record of that
// file durably (a checkpoint's sync after the previous switch).
func (l *redoLog) switchOver() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return l.failed
	}
	i := 1 - l.cur
	if err := l.startOver(i, l.next); err != nil {
		l.failed = err
		return err
	}
	l.cur, l.first, l.end = i, l.next, redoFirstRecord
	return nil
}

// reset starts both files over, empty, once the store holds every record
// durably.
func (l *redoLog) reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return l.failed
	}
	for i := range l.files {
		if err := l.startOver(i, l.next); err != nil {
			l.failed = err
			return err
		}
	}
	l.first, l.end = l.next, redoFirstRecord
	return nil
}

// startOver rewrites file i's header with first as its first position,
// and syncs it: its records are of an older start from then on, and the
// next is written after the header.
func (l *redoLog) startOver(i int, first uint64) error {
	f := l.files[i]
	h := appendRedoHeader(nil, first)
	if _, err := f.WriteAt(h, 0); err != nil {
		return fmt.Errorf("redo log %s: write header: %w", f.Name(), err)
	}
	if err := chunks.DataSync(f); err != nil {
		return fmt.Errorf("redo log %s: sync header: %w", f.Name(), err)
	}
	return l.apps[i].Reset(redoFirstRecord, h)
}

// close closes the files.
func (l *redoLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for i, q := range l.syncs {
		if q != nil {
			errs = append(errs, q.Close())
			l.syncs[i] = nil
		}
	}
	for i, a := range l.apps {
		if a != nil {
			errs = append(errs, a.Close())
			l.apps[i] = nil
		}
	}
	for i, f := range l.files {
		if f != nil {
			errs = append(errs, f.Close())
			l.files[i] = nil
		}
	}
	if l.failed == nil {
		l.failed = errRedoClosed
	}
	return errors.Join(errs...)
}
