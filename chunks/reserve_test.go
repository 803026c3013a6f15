package chunks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// commitN puts and commits n chunks of about size bytes each, one commit
// each, on top of root, and returns the last root.
func commitN(t *testing.T, s *FileStore, root Address, n, size int, tag string) Address {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		data := make([]byte, size)
		copy(data, fmt.Sprintf("%s %d", tag, i))
		a, err := s.Put(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, a, root); err != nil {
			t.Fatal(err)
		}
		root = a
	}
	return root
}

// TestJournalReserve: the active journal keeps zeros written ahead of its
// records; the records stay where they are (the store's size is theirs),
// a reopen replays them and stops at the zeros, and new commits go after
// the records, not after the zeros.
func TestJournalReserve(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1, DisableCompression: true})
	root := commitN(t, s, Address{}, 20, 1000, "before")
	records := s.Stats().JournalBytes
	if err := s.Close(); err != nil { // waits for the fill
		t.Fatal(err)
	}
	path := filepath.Join(dir, journalFileName(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) < records+reserveAhead/2 {
		t.Fatalf("journal file of %d bytes for %d bytes of records: no reserve", len(b), records)
	}
	if end := nonZeroEnd(b, 0); end > records {
		t.Fatalf("bytes up to %d, past the records' end %d", end, records)
	}

	s = openTest(t, dir, Options{CompactAt: -1, DisableCompression: true})
	if got, _ := s.Root(ctx); got != root {
		t.Fatalf("root after reopen %s, want %s", got, root)
	}
	if got := s.Stats().JournalBytes; got != records {
		t.Fatalf("journal of %d bytes after reopen, want %d", got, records)
	}
	root = commitN(t, s, root, 5, 1000, "after")
	after := s.Stats().JournalBytes
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if end := nonZeroEnd(b, 0); end <= records || end > after {
		t.Fatalf("records end at %d after 5 more commits; want them after %d and by %d", end, records, after)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != root {
		t.Fatalf("root after the second reopen %s, want %s", got, root)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestJournalTornCommitInReserve writes a commit whose record reached the
// disk while a page of its chunk records did not (zeros, as the reserve
// left them): the store opens at the commit before, clears the torn bytes,
// and a new commit after that survives a reopen.
func TestJournalTornCommitInReserve(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1, DisableCompression: true})
	good := commitN(t, s, Address{}, 3, 500, "good")
	goodEnd := s.Stats().JournalBytes
	torn := commitN(t, s, good, 1, 9000, "torn")
	tornEnd := s.Stats().JournalBytes
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, journalFileName(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !isCommitAt(b, tornEnd-commit3RecordSize, JournalFormatVersion) {
		t.Fatal("the fixture's last commit does not validate")
	}
	// Its first 4 KiB after the good commit never reached the disk.
	for i := goodEnd; i < goodEnd+4096; i++ {
		b[i] = 0
	}
	if isCommitAt(b, tornEnd-commit3RecordSize, JournalFormatVersion) {
		t.Fatal("a commit record validates with its records zeroed")
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != good {
		t.Fatalf("root %s after the torn commit, want the one before, %s", got, good)
	}
	if has, _ := s.Has(ctx, torn); has {
		t.Fatal("the torn commit's chunk is readable")
	}
	next := commitN(t, s, good, 1, 100, "next")
	s.Close()
	b, _ = os.ReadFile(path)
	if end := nonZeroEnd(b, 0); end > tornEnd {
		t.Fatalf("bytes of the torn commit remain up to %d", end)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	if got, _ := s.Root(ctx); got != next {
		t.Fatalf("root %s after reopen, want the commit after the torn one, %s", got, next)
	}
}

// TestJournalVersion1 opens a journal of format version 1 (root records, no
// reserve): it replays, takes new commits as root records, and the journal
// a compaction starts is of version 2.
func TestJournalVersion1(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A store with one commit, its journal rewritten as version 1.
	s := openTest(t, dir, Options{CompactAt: -1})
	data := []byte("a chunk of version 1")
	a, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	j := appendJournalHeader(nil, 1)
	j = appendChunkRecord(j, a, CodecRaw, data)
	j = appendRootRecord(j, a)
	path := filepath.Join(dir, journalFileName(1))
	if err := os.WriteFile(path, j, 0o644); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, dir, Options{CompactAt: -1})
	if got, _ := s.Root(ctx); got != a {
		t.Fatalf("root %s, want %s", got, a)
	}
	root := commitN(t, s, a, 3, 200, "v1")
	s.Close()
	b, _ := os.ReadFile(path)
	res, err := replayJournal(path, b)
	if err != nil || res.version != 1 || res.root != root || res.committed != int64(len(b)) {
		t.Fatalf("version 1 journal after commits: version %d, root %s (want %s), committed %d of %d, err %v",
			res.version, res.root, root, res.committed, len(b), err)
	}

	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	root = commitN(t, s, root, 2, 200, "v2")
	if v := s.active().version; v != JournalFormatVersion {
		t.Fatalf("the journal after a compaction is of version %d, want %d", v, JournalFormatVersion)
	}
	if got, _ := s.Root(ctx); got != root {
		t.Fatalf("root %s, want %s", got, root)
	}
}
