package chunks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// stage puts a chunk of size bytes tagged tag and commits it staged at log
// position log over root; it returns the new root.
func stage(t *testing.T, s *FileStore, root Address, size int, tag string, log uint64) Address {
	t.Helper()
	ctx := context.Background()
	data := make([]byte, size)
	copy(data, tag)
	a, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitStaged(ctx, a, root, log); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCommitStaged: a staged commit is the root at once, with its log
// position; a synced commit after it carries the position on; a clean
// close and reopen find the last commit and its position, and so do a
// compaction and a collection, whose new journals begin with them.
func TestCommitStaged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	if !s.CanStage() {
		t.Fatal("a new store cannot stage")
	}
	root := commitN(t, s, Address{}, 2, 300, "synced")
	if got := s.LogPosition(); got != 0 {
		t.Fatalf("log position %d before any staged commit", got)
	}
	root = stage(t, s, root, 300, "staged 1", 7)
	if got, _ := s.Root(ctx); got != root || s.LogPosition() != 7 {
		t.Fatalf("after a staged commit: root %s (want %s), log position %d (want 7)", got, root, s.LogPosition())
	}
	// A lower position never moves it back.
	root = stage(t, s, root, 300, "staged 2", 3)
	if s.LogPosition() != 7 {
		t.Fatalf("log position %d after a staged commit at 3, want 7", s.LogPosition())
	}
	root = stage(t, s, root, 300, "staged 3", 9)
	// A wrong expected root is refused as with Commit.
	if err := s.CommitStaged(ctx, root, Address{}, 10); !errors.Is(err, ErrRootMoved) {
		t.Fatalf("staged commit over a moved root: %v", err)
	}
	root = commitN(t, s, root, 1, 300, "synced after")
	if s.LogPosition() != 9 {
		t.Fatalf("log position %d after a synced commit, want 9", s.LogPosition())
	}
	root = stage(t, s, root, 300, "staged 4", 11)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != root || s.LogPosition() != 11 {
		t.Fatalf("after a reopen: root %s (want %s), log position %d (want 11)", got, root, s.LogPosition())
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	root = stage(t, s, root, 300, "staged 5", 12)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	root = stage(t, s, root, 300, "staged 6", 13)
	if _, err := s.Collect(ctx, CollectOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	if got, _ := s.Root(ctx); got != root || s.LogPosition() != 13 {
		t.Fatalf("after a compaction, a collection and a reopen: root %s (want %s), log position %d (want 13)", got, root, s.LogPosition())
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStagedCommitsTornByPowerLoss: staged commits were never synced, so
// a power loss may keep a later one's pages and lose an earlier one's.
// Recovery then opens at the last synced commit (with its log position)
// instead of refusing the journal, and clears the rest; damage before a
// synced commit is still refused.
func TestStagedCommitsTornByPowerLoss(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1, DisableCompression: true})
	good := commitN(t, s, Address{}, 2, 500, "good")
	if err := s.CommitStaged(ctx, good, good, 4); err != nil { // position 4, same root
		t.Fatal(err)
	}
	synced := commitN(t, s, good, 1, 500, "synced")
	syncedEnd := s.Stats().JournalBytes
	r := stage(t, s, synced, 9000, "staged a", 5)
	last := stage(t, s, r, 600, "staged b", 6)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, journalFileName(1))
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first 4 KiB of the staged records never reached the disk; the
	// last staged commit, whole, did.
	b := append([]byte(nil), orig...)
	for i := syncedEnd; i < syncedEnd+4096; i++ {
		b[i] = 0
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != synced || s.LogPosition() != 4 {
		t.Fatalf("after the torn staged commits: root %s (want %s), log position %d (want 4)", got, synced, s.LogPosition())
	}
	if has, _ := s.Has(ctx, last); has {
		t.Fatal("the torn tail's last staged chunk is still there")
	}
	after := commitN(t, s, synced, 1, 500, "after")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != after {
		t.Fatalf("root %s after a commit past the torn tail and a reopen, want %s", got, after)
	}
	s.Close()

	// The same damage with a synced commit after it is damage to
	// committed data: refused.
	b = append([]byte(nil), orig...)
	for i := syncedEnd - 700; i < syncedEnd-600; i++ {
		b[i] ^= 0x55
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := OpenFileStore(dir, Options{CompactAt: -1}); err == nil {
		s.Close()
		t.Fatal("a journal damaged before a synced commit opened")
	} else if !IsCorrupt(err) {
		t.Fatalf("damage before a synced commit: %v, want a corruption error", err)
	}
}

// TestCommitStagedOldJournal: in a journal of version 2, CommitStaged
// commits synced, and CanStage says so.
func TestCommitStagedOldJournal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, dir, Options{CompactAt: -1})
	root := commitN(t, s, Address{}, 1, 100, "v3")
	s.Close()
	// Rewrite the journal as version 2: its chunk records under one
	// version-2 commit record.
	path := filepath.Join(dir, journalFileName(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replayJournal(path, b)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the chunk records; drop the version-3 commit records.
	var keep []byte
	for off := int64(journalHeaderSize); off < res.committed; {
		r, err := decodeRecord(b[off:])
		if err != nil {
			t.Fatal(err)
		}
		if r.kind == recordKindChunk {
			keep = append(keep, b[off:off+int64(r.size)]...)
		}
		off += int64(r.size)
	}
	j2 := append(appendJournalHeader(nil, 2), keep...)
	j2 = appendCommitRecord(j2, root, uint64(len(keep)), chainOf(t, keep))
	if err := os.WriteFile(path, j2, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	if s.CanStage() {
		t.Fatal("a version-2 journal can stage")
	}
	next := stage(t, s, root, 100, "staged in v2", 5)
	if got, _ := s.Root(ctx); got != next {
		t.Fatalf("root %s, want %s", got, next)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// chainOf folds the checksums of the chunk records in b (record.go).
func chainOf(t *testing.T, b []byte) uint64 {
	var chain uint64
	for off := 0; off < len(b); {
		r, err := decodeRecord(b[off:])
		if err != nil {
			t.Fatal(fmt.Errorf("chain: %w", err))
		}
		chain = chainNext(chain, b[off+r.size-8:off+r.size])
		off += r.size
	}
	return chain
}
