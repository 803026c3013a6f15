package verso

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// A group commit's row changes as a redo record (redolog.go), and their
// replay.
//
// A group is logged when it changed rows only: each of its tables is an
// editor over the table in the working root the group merged into
// (groupmerge.go), and the working set has no merge in progress. The
// record holds what the group's write makes of them, raw: for each table,
// the pending entries of its row map and of each index and its counter
// (tables.Edits), which the table's Edit, given them, turns into the same
// table value. Replaying the record onto the same working set therefore
// makes the same working set, to the address.
//
// Payload, version 1; integers are uvarints unless sized, addresses 20
// bytes, strings and byte strings a uvarint length and the bytes:
//
//	| version u8 (1) | branch | working [20] | staged [20] | table count |
//	table: | name | value [20] | auto-increment | map count | map ... |
//	map:   | entry count | entry ... |
//	entry: | kind u8 (0 put, 1 delete) | key | value (puts only) |
//
// working and staged are the addresses of the working set's roots the
// group merged into, value the table's value in that working root. A
// record whose working set is no longer the branch's at replay (its group
// failed to write after the record was synced, or the branch moved
// another way) is skipped.

const redoPayloadVersion = 1

// redoChange is a decoded redo record.
type redoChange struct {
	branch string
	base   commitgraph.WorkingSet // Working and Staged; no merge
	tables []redoTable
}

// redoTable is one table's change in a redoChange.
type redoTable struct {
	name   string
	before chunks.Address // its value in the base working root
	edits  tables.Edits
}

// errRedoPayload marks a redo record that does not decode.
var errRedoPayload = fmt.Errorf("%w: a redo record does not decode", chunks.ErrCorrupt)

func appendUvarintBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encode returns c's payload.
func (c *redoChange) encode() []byte {
	b := []byte{redoPayloadVersion}
	b = appendUvarintBytes(b, []byte(c.branch))
	b = append(b, c.base.Working[:]...)
	b = append(b, c.base.Staged[:]...)
	b = binary.AppendUvarint(b, uint64(len(c.tables)))
	for _, t := range c.tables {
		b = appendUvarintBytes(b, []byte(t.name))
		b = append(b, t.before[:]...)
		b = binary.AppendUvarint(b, t.edits.AutoIncrement)
		b = binary.AppendUvarint(b, uint64(len(t.edits.Maps)))
		for _, m := range t.edits.Maps {
			b = binary.AppendUvarint(b, uint64(len(m)))
			for _, e := range m {
				if e.Delete {
					b = append(b, 1)
					b = appendUvarintBytes(b, e.Key)
					continue
				}
				b = append(b, 0)
				b = appendUvarintBytes(b, e.Key)
				b = appendUvarintBytes(b, e.Val)
			}
		}
	}
	return b
}

// redoReader decodes a payload; its first error sticks.
type redoReader struct {
	b   []byte
	err error
}

func (r *redoReader) fail() {
	if r.err == nil {
		r.err = errRedoPayload
	}
	r.b = nil
}

func (r *redoReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items of at least min bytes each, bounded by
// what is left.
func (r *redoReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *redoReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

func (r *redoReader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *redoReader) addr() chunks.Address {
	var a chunks.Address
	if len(r.b) < len(a) {
		r.fail()
		return a
	}
	copy(a[:], r.b)
	r.b = r.b[len(a):]
	return a
}

// decodeRedoChange decodes a payload. It never panics; the result aliases
// b.
func decodeRedoChange(b []byte) (redoChange, error) {
	r := &redoReader{b: b}
	var c redoChange
	if v := r.byte(); r.err == nil && v != redoPayloadVersion {
		return c, fmt.Errorf("%w: redo record version %d; this build reads version %d", chunks.ErrVersion, v, redoPayloadVersion)
	}
	c.branch = string(r.bytes())
	c.base.Working, c.base.Staged = r.addr(), r.addr()
	n := r.count(1 + 20 + 2)
	for i := 0; i < n && r.err == nil; i++ {
		t := redoTable{name: string(r.bytes()), before: r.addr()}
		t.edits.AutoIncrement = r.uvarint()
		maps := r.count(1)
		t.edits.Maps = make([][]tables.RawEdit, maps)
		for m := 0; m < maps && r.err == nil; m++ {
			entries := r.count(2)
			t.edits.Maps[m] = make([]tables.RawEdit, 0, entries)
			for e := 0; e < entries && r.err == nil; e++ {
				var x tables.RawEdit
				switch r.byte() {
				case 0:
					x.Key, x.Val = r.bytes(), r.bytes()
				case 1:
					x.Key, x.Delete = r.bytes(), true
				default:
					r.fail()
				}
				t.edits.Maps[m] = append(t.edits.Maps[m], x)
			}
		}
		c.tables = append(c.tables, t)
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return redoChange{}, r.err
	}
	return c, nil
}

// redoWait is a logged group's record: its position, and the wait for
// its sync.
type redoWait struct {
	pos  uint64
	wait func() error
}

// logGroup appends the redo record of the group g, which merged into the
// working set ws of branch, and starts its sync; it returns nil when the
// group cannot be logged (its changes are not rows alone, or the database
// keeps no log), and then the group's write is a synced one.
func (db *DB) logGroup(ctx context.Context, branch string, ws commitgraph.WorkingSet, g *groupMerge) *redoWait {
	if db.redo == nil || g.whole || ws.Merge != nil || !db.redoFS.CanStage() {
		return nil
	}
	c := redoChange{branch: branch, base: commitgraph.WorkingSet{Working: ws.Working, Staged: ws.Staged}}
	names := make([]string, 0, len(g.tables))
	for n, gt := range g.tables {
		if gt.ed == nil {
			return nil // a table taken whole: its trees are not rows to log
		}
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		before, _, err := g.root.Get(ctx, commitgraph.TablePrefix+n)
		if err != nil {
			return nil
		}
		c.tables = append(c.tables, redoTable{name: n, before: before, edits: g.tables[n].ed.Edits()})
	}
	// The record's sync starts in append and runs in the kernel while
	// this goroutine edits the trees.
	pos, wait, err := db.redo.append(c.encode())
	if err != nil {
		db.auto.log.Load().Warn("the redo log failed; commits are synced in the store from now on", "database", db.name, "err", err)
		return nil
	}
	return &redoWait{pos: pos, wait: wait}
}

// applyRedo replays c onto its branch's working set, staged at log
// position pos. It reports false, changing nothing, when the branch's
// working set is not the one c was made over.
func (db *DB) applyRedo(ctx context.Context, c redoChange, pos uint64) (bool, error) {
	ws, err := db.graph.WorkingSet(ctx, c.branch)
	if errors.Is(err, commitgraph.ErrBranchNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if ws.Working != c.base.Working || ws.Staged != c.base.Staged || ws.Merge != nil {
		return false, nil
	}
	root, err := db.graph.OpenRoot(ctx, ws.Working)
	if err != nil {
		return false, err
	}
	edits := make([]commitgraph.RootEdit, 0, len(c.tables))
	for _, t := range c.tables {
		key := commitgraph.TablePrefix + t.name
		a, ok, err := root.Get(ctx, key)
		if err != nil {
			return false, err
		}
		if !ok || a != t.before {
			return false, fmt.Errorf("%w: the redo record at position %d changes table %q, which its working root holds otherwise", chunks.ErrCorrupt, pos, t.name)
		}
		tb, err := db.tableAt(ctx, a)
		if err != nil {
			return false, err
		}
		ed := tb.Edit()
		if err := ed.SetEdits(t.edits); err != nil {
			return false, fmt.Errorf("the redo record at position %d, table %q: %w", pos, t.name, err)
		}
		nt, err := ed.Table(ctx)
		if err != nil {
			return false, err
		}
		na, err := nt.Write(ctx)
		if err != nil {
			return false, err
		}
		edits = append(edits, commitgraph.RootEdit{Name: key, Addr: na})
	}
	next, err := root.Edit(ctx, edits...)
	if err != nil {
		return false, err
	}
	nws := ws
	nws.Working = next.Address()
	return true, db.graph.StageWorkingSet(ctx, c.branch, ws, nws, pos)
}

// openRedo opens the database's redo log (a database on disk opened for
// writing, over a file store), replays the records its store's root does
// not hold, and checkpoints.
func (db *DB) openRedo(ctx context.Context, log *slog.Logger) error {
	fs, ok := db.store.(*chunks.FileStore)
	if !ok || db.dir == "" {
		return nil
	}
	at := fs.LogPosition()
	l, recs, err := openRedoLog(filepath.Join(db.dir, RepoDir), at+1)
	if err != nil {
		return err
	}
	// The records past the store's position must all be there, from the
	// next one on: a file is started over only once the store holds its
	// records.
	if want := redoNext(recs, at); want < l.first {
		l.close()
		return fmt.Errorf("%w: the redo log lacks the records from position %d (the store holds the changes up to %d, the log goes on from %d): restore the database from a copy", chunks.ErrCorrupt, want, at, l.first)
	}
	replayed, skipped, err := db.replayRedo(ctx, recs, at)
	if err != nil {
		l.close()
		return err
	}
	db.redo, db.redoFS, db.redoCheckpoint = l, fs, redoCheckpoint
	if err := fs.SetNursery(true); err != nil {
		db.redo = nil
		l.close()
		return err
	}
	db.nurseryAt, db.nurseryWait, db.nurseryAge = nurseryCollectAt, nurseryWait, nurseryAge
	if replayed+skipped > 0 {
		log.Info("replayed the redo log", "database", db.name, "replayed", replayed, "skipped", skipped)
	}
	if len(recs) > 0 {
		if err := db.checkpointLocked(ctx); err != nil {
			db.redo = nil
			l.close()
			return err
		}
	}
	return nil
}

// redoNext returns the first position past at that recs (sorted) lack.
func redoNext(recs []redoRecord, at uint64) uint64 {
	want := at + 1
	for _, r := range recs {
		if r.pos >= want {
			if r.pos != want {
				break
			}
			want++
		}
	}
	return want
}

// replayRedo applies the records of recs (sorted) past the store's
// position at, up to the first gap (past it lie records of a start that
// the store's root predates), each onto the working set it was made over
// (applyRedo), and counts those applied and those skipped.
func (db *DB) replayRedo(ctx context.Context, recs []redoRecord, at uint64) (replayed, skipped int, err error) {
	want := redoNext(recs, at)
	for _, r := range recs {
		if r.pos <= at {
			continue
		}
		if r.pos >= want {
			break
		}
		c, err := decodeRedoChange(r.payload)
		if err == nil {
			var ok bool
			if ok, err = db.applyRedo(ctx, c, r.pos); ok {
				replayed++
			} else if err == nil {
				skipped++
			}
		}
		if err != nil {
			return replayed, skipped, fmt.Errorf("replaying the redo log at position %d: %w", r.pos, err)
		}
	}
	return replayed, skipped, nil
}

// replayRedoInMemory brings a read-only open up to date with the records
// of the redo log that its writer (a server running meanwhile, or one
// that crashed) made durable but has not written into the store yet: it
// replays them in memory (chunks.FileStore.ReplayInMemory), writing
// nothing, so that the snapshot holds every commit acknowledged before the
// open. A log file being started over as it is read (its records are then
// in the store's newer root) or not there is read as no records: the
// snapshot is then the store's, older but whole.
func (db *DB) replayRedoInMemory(ctx context.Context) error {
	fs, ok := db.store.(*chunks.FileStore)
	if !ok || db.dir == "" || !fs.ReadOnly() {
		return nil
	}
	var recs []redoRecord
	for i := range 2 {
		b, err := readRedoFile(filepath.Join(db.dir, RepoDir, fmt.Sprintf(redoFileName, i)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the redo log: %w", err)
		}
		if _, rs, _, err := readRedoLog(b); err == nil {
			recs = append(recs, rs...)
		}
	}
	slices.SortFunc(recs, func(a, b redoRecord) int { return cmp.Compare(a.pos, b.pos) })
	at := fs.LogPosition()
	if redoNext(recs, at) == at+1 {
		return nil // nothing past the store's root
	}
	return fs.ReplayInMemory(func() error {
		_, _, err := db.replayRedo(ctx, recs, at)
		return err
	})
}

// checkpointLocked makes the store's root durable with a synced commit,
// and starts the redo log over. Callers hold commitMu and storeMu (or are
// alone with the database), and no checkpoint runs.
func (db *DB) checkpointLocked(ctx context.Context) error {
	if db.redo == nil {
		return nil
	}
	root, err := db.redoFS.Root(ctx)
	if err != nil {
		return err
	}
	// At the last record's position: the store holds, from now on, the
	// records the replay skipped and those of failed groups, which it
	// would otherwise never reach. The files started over, a crash would
	// find the store short of the log's first position.
	last, _ := db.redo.last()
	if err := db.redoFS.CommitAt(ctx, root, root, last); err != nil {
		return err
	}
	return db.redo.reset()
}

// coverFailed stages a commit of the store's root at the log's last
// position when the store's position is behind it: every record is staged
// but those of groups whose write failed, which the store would never
// reach. The checkpoint that follows makes it durable, so that no file of
// the log is started over while the store's durable position is short of
// a record in it. Callers hold commitMu and storeMu (no group is between
// its record and its write).
func (db *DB) coverFailed(ctx context.Context) error {
	last, _ := db.redo.last()
	if db.redoFS.LogPosition() >= last {
		return nil
	}
	root, err := db.redoFS.Root(ctx)
	if err != nil {
		return err
	}
	return db.redoFS.CommitStaged(ctx, root, root, last)
}

// maybeCheckpoint starts a checkpoint once the redo log's file holds
// redoCheckpoint bytes of records and no checkpoint runs: the log switches
// to its other file, with every record of this one staged (under storeMu),
// and the journal's sync, which makes them durable in the store, runs in
// the background, the commits going on. Callers hold commitMu, not
// storeMu.
func (db *DB) maybeCheckpoint(ctx context.Context) {
	if db.redo == nil || db.checkpointing.Load() {
		return
	}
	if _, n := db.redo.last(); n < db.redoCheckpoint {
		return
	}
	db.storeMu.Lock()
	err := db.coverFailed(ctx)
	pos, _ := db.redo.last()
	if err == nil {
		err = db.redo.switchOver()
	}
	db.storeMu.Unlock()
	if err != nil {
		db.auto.log.Load().Warn("the redo log failed; commits are synced in the store from now on", "database", db.name, "err", err)
		return
	}
	db.checkpointing.Store(true)
	db.checkpoints.Add(1)
	go func() {
		defer db.checkpoints.Done()
		defer db.checkpointing.Store(false)
		if err := db.syncStaged(pos); err != nil {
			db.auto.log.Load().Warn("a checkpoint of the redo log failed", "database", db.name, "err", err)
		}
	}()
}

// closeRedo checkpoints and closes the redo log.
func (db *DB) closeRedo(ctx context.Context) error {
	if db.redo == nil {
		return nil
	}
	db.stopNurseryTimer()
	db.commitMu.Lock()
	db.storeMu.Lock()
	db.checkpoints.Wait()
	err := db.checkpointLocked(ctx)
	db.storeMu.Unlock()
	db.commitMu.Unlock()
	return errors.Join(err, db.redo.close())
}
