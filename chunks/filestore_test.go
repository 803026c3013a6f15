package chunks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zeebo/xxh3"
)

func openTest(t testing.TB, dir string, opts Options) *FileStore {
	t.Helper()
	s, err := OpenFileStore(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFileStoreLock(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	_, err := OpenFileStore(dir, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second open: %v, want ErrLocked naming the folder", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{}) // the lock is released on close
	s.Close()
	if _, err := s.Get(context.Background(), Address{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
}

// TestFileStoreFormatGolden pins the bytes of the files a fixed sequence of
// operations writes: an accidental change of an on-disk format fails here.
func TestFileStoreFormatGolden(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	var root Address
	for i := 0; i < 3; i++ {
		a, err := s.Put(ctx, []byte(strings.Repeat(fmt.Sprintf("chunk %d ", i), 20)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, a, root); err != nil {
			t.Fatal(err)
		}
		root = a
	}
	sum := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".journal") {
			b = b[:s.Stats().JournalBytes] // the records, not the zeros of the reserve
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))[:16]
	}
	// The journal keeps its chunks raw; the compaction's table file
	// stores them in S2, the same bytes as when the journal held S2.
	if got, want := sum("000001.journal"), "687278cc285261ea"; got != want { // version 3
		t.Errorf("journal bytes hash to %s, want %s", got, want)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if got, want := sum("000003.table"), "9a128fdd118fe2ca"; got != want {
		t.Errorf("table bytes hash to %s, want %s", got, want)
	}
	if got, want := sum("MANIFEST"), "0daa69e28b3e3957"; got != want {
		t.Errorf("manifest bytes hash to %s, want %s", got, want)
	}
	// A collection writes the chunks the root reaches, in zstd where that
	// is smaller.
	var text strings.Builder
	for i := 0; text.Len() < 4000; i++ {
		fmt.Fprintf(&text, "row %d: %d, %x; ", i, i*i, i*7919)
	}
	big, err := s.Put(ctx, []byte(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, big, root); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(ctx, CollectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := sum("000004.table"), "2f70eb5c86fadecf"; got != want {
		t.Errorf("collected table bytes hash to %s, want %s", got, want)
	}
	if st := s.Stats(); st.Tables != 1 || st.TableChunks != 1 {
		t.Fatalf("after the collection: %+v", st)
	}
	_, codec, _, err := s.tables[0].record(0)
	if err != nil || codec != CodecZstd {
		t.Fatalf("the collected chunk is stored as %v (%v), want zstd", codec, err)
	}
	s.Close()
}

// TestTableVersion1 reads a table file of format version 1 (the same
// layout, no zstd records), as an older build wrote it, and refuses a
// zstd record in one.
func TestTableVersion1(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "000001.table")
	data := []byte(strings.Repeat("version one ", 30))
	addr := Of(data)
	codec, stored := encodeChunk(CodecS2, data)
	if _, err := writeTable(path, func() func() (Address, Codec, []byte, bool, error) {
		done := false
		return func() (Address, Codec, []byte, bool, error) {
			if done {
				return Address{}, 0, nil, false, nil
			}
			done = true
			return addr, codec, stored, true, nil
		}
	}()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(b[8:], 1)
	foot := b[len(b)-tableFooterSize:]
	binary.BigEndian.PutUint32(foot[24:], 1)
	binary.BigEndian.PutUint64(foot[tableFooterSize-8:], xxh3.Hash(foot[:tableFooterSize-8]))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := openTable(path, 1, &zstdCodec{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	got, err := tb.read(tb.search(addr))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("version-1 table read %q, %v", got, err)
	}
	if _, _, err := tb.checkTableRecord(addr, 0, append([]byte{byte(CodecZstd)}, make([]byte, 9)...)); !IsCorrupt(err) {
		t.Fatalf("a zstd record in a version-1 table: %v", err)
	}
}

// TestTableCorruption damages a table file: the damaged chunk reads as a
// corruption error, never as wrong bytes, and a damaged index stops the open.
func TestTableCorruption(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	var addrs []Address
	for i := 0; i < 50; i++ {
		a, err := s.Put(ctx, []byte(strings.Repeat(fmt.Sprint(i), 100)))
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	if err := s.Commit(ctx, addrs[0], Address{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	tablePath := filepath.Join(dir, tableFileName(3))
	s.Close()
	orig, err := os.ReadFile(tablePath)
	if err != nil {
		t.Fatal(err)
	}
	ti, err := parseTable(orig)
	if err != nil {
		t.Fatal(err)
	}
	indexStart := len(orig) - tableFooterSize - ti.count*tableEntrySize
	r := rand.New(rand.NewSource(seed(t)))
	for trial := 0; trial < 200; trial++ {
		b := append([]byte(nil), orig...)
		off := tableHeaderSize + r.Intn(len(b)-tableHeaderSize)
		b[off] ^= byte(1 + r.Intn(255))
		if err := os.WriteFile(tablePath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenFileStore(dir, Options{CompactAt: -1})
		if off >= indexStart {
			if !IsCorrupt(err) || !strings.Contains(err.Error(), tablePath) {
				t.Fatalf("byte %d of the index or footer flipped: open err %v, want corruption naming the file", off, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("byte %d of the data flipped: open: %v", off, err)
		}
		bad := 0
		for i, a := range addrs {
			data, err := s.Get(ctx, a)
			switch {
			case err == nil && Of(data) != a:
				t.Fatalf("byte %d flipped: chunk %d read back wrong bytes", off, i)
			case err != nil && !IsCorrupt(err):
				t.Fatalf("byte %d flipped: chunk %d: %v", off, i, err)
			case err != nil:
				bad++
			}
		}
		if bad != 1 {
			t.Fatalf("byte %d flipped: %d chunks report corruption, want 1", off, bad)
		}
		if err := s.Check(ctx); !IsCorrupt(err) {
			t.Fatalf("byte %d flipped: Check = %v", off, err)
		}
		s.Close()
	}
}

// TestConcurrentReaders reads from several goroutines while one writer
// puts, commits and compacts. Run with -race.
func TestConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir(), Options{CompactAt: 128 << 10, MaxTables: 2})
	defer s.Close()
	var mu sync.Mutex
	var published []Address // committed chunks the readers may ask for
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				n := len(published)
				mu.Unlock()
				if n == 0 {
					continue
				}
				mu.Lock()
				a := published[r.Intn(n)]
				mu.Unlock()
				data, err := s.Get(ctx, a)
				if err != nil || Of(data) != a {
					errs <- fmt.Errorf("reader %d: get %s: %v", g, a, err)
					return
				}
				if _, err := s.HasMany(ctx, []Address{a}); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	r := rand.New(rand.NewSource(seed(t)))
	var root Address
	for c := 0; c < 60; c++ {
		var batch []Address
		for i := 0; i < 20; i++ {
			a, err := s.Put(ctx, randomChunk(r))
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, a)
		}
		if err := s.Commit(ctx, batch[0], root); err != nil {
			t.Fatal(err)
		}
		root = batch[0]
		mu.Lock()
		published = append(published, batch...)
		mu.Unlock()
		if c%20 == 19 {
			if err := s.Compact(); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLeftoversRemoved simulates a crash in the middle of a compaction: files
// the manifest does not name are removed on open, and nothing is lost.
func TestLeftoversRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	a, _ := s.Put(ctx, []byte("kept"))
	if err := s.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, name := range []string{"000007.table", "000008.journal", manifestTmpName} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half-written"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	for _, name := range []string{"000007.table", "000008.journal", manifestTmpName} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("leftover %s still there (%v)", name, err)
		}
	}
	if got, err := s.Get(ctx, a); err != nil || string(got) != "kept" {
		t.Fatalf("get: %q, %v", got, err)
	}
}

// TestMissingManifest refuses a folder that holds store files but no
// manifest, instead of starting an empty store over them.
func TestMissingManifest(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	s.Close()
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileStore(dir, Options{}); !IsCorrupt(err) || !strings.Contains(err.Error(), "000001.journal") {
		t.Fatalf("open without a manifest: %v", err)
	}
}

// TestConcurrentWriters commits from several goroutines at once, each
// retrying on ErrRootMoved, with automatic compaction on. Run with -race.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir(), Options{CompactAt: 64 << 10, MaxTables: 2})
	defer s.Close()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for i := 0; i < 40; i++ {
				a, err := s.Put(ctx, randomChunk(r))
				if err != nil {
					t.Error(err)
					return
				}
				for {
					root, err := s.Root(ctx)
					if err != nil {
						t.Error(err)
						return
					}
					err = s.Commit(ctx, a, root)
					if err == nil {
						break
					}
					if !errors.Is(err, ErrRootMoved) {
						t.Error(err)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestJournalRawTablesCompressed: the journal holds chunks raw; a
// compaction and a young collection store them in S2 where that is
// smaller, a full collection in zstd, and a store opened with
// DisableCompression keeps them raw throughout. Every chunk reads back the
// same from each.
func TestJournalRawTablesCompressed(t *testing.T) {
	ctx := context.Background()
	text := func(i int) []byte {
		var b strings.Builder
		for j := 0; b.Len() < 4000; j++ {
			fmt.Fprintf(&b, "row %d: %d, %x; ", i, j*j, j*7919)
		}
		return []byte(b.String())
	}
	for _, disable := range []bool{false, true} {
		s := openTest(t, t.TempDir(), Options{CompactAt: -1, DisableCompression: disable})
		put := func(data []byte) Address {
			a, err := s.Put(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		want := map[Address][]byte{}
		codecOf := func(stage string, a Address, codec Codec) {
			t.Helper()
			if disable {
				codec = CodecRaw
			}
			got, _, err := s.stored(a)
			if err != nil || got != codec {
				t.Fatalf("disable %v, %s: stored as %v (%v), want %v", disable, stage, got, err, codec)
			}
			for a, data := range want {
				b, err := s.Get(ctx, a)
				if err != nil || !bytes.Equal(b, data) {
					t.Fatalf("disable %v, %s: %s reads back %d bytes (%v), want %d", disable, stage, a, len(b), err, len(data))
				}
			}
		}
		a1 := put(text(1))
		want[a1] = text(1)
		if err := s.Commit(ctx, a1, Address{}); err != nil {
			t.Fatal(err)
		}
		codecOf("journal", a1, CodecRaw)
		if err := s.Compact(); err != nil {
			t.Fatal(err)
		}
		codecOf("compacted", a1, CodecS2)

		a2 := put(text(2))
		want[a2] = text(2)
		if err := s.Commit(ctx, a2, a1); err != nil {
			t.Fatal(err)
		}
		codecOf("journal", a2, CodecRaw)
		if _, err := s.Collect(ctx, CollectOptions{Young: true, Pins: func() []Address { return []Address{a1} }}); err != nil {
			t.Fatal(err)
		}
		codecOf("young collection", a2, CodecS2)
		if _, err := s.Collect(ctx, CollectOptions{Pins: func() []Address { return []Address{a1} }}); err != nil {
			t.Fatal(err)
		}
		codecOf("full collection", a2, CodecZstd)
		s.Close()
	}
}

// TestRecentChunksBelongToCaller reads small chunks that the store keeps
// in memory (recent.go), from a Put, from the journal and from a table
// file, and checks that each Get returns the chunk and a slice of the
// caller's own: changing it changes nothing the store returns later.
func TestRecentChunksBelongToCaller(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	var addrs []Address
	var want [][]byte
	for i := 0; i < 300; i++ {
		data := []byte(fmt.Sprintf("small chunk %d", i))
		if i%3 == 0 {
			data = bytes.Repeat(data, 200) // larger than recentMax
		}
		a, err := s.Put(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		addrs, want = append(addrs, a), append(want, append([]byte(nil), data...))
	}
	check := func(stage string) {
		t.Helper()
		for round := 0; round < 2; round++ {
			for i, a := range addrs {
				got, err := s.Get(ctx, a)
				if err != nil || !bytes.Equal(got, want[i]) {
					t.Fatalf("%s, round %d: Get of chunk %d: %q, %v", stage, round, i, got, err)
				}
				for k := range got {
					got[k] ^= 0xff
				}
			}
		}
	}
	check("after the puts")
	if err := s.Commit(ctx, addrs[len(addrs)-1], Address{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, Options{CompactAt: -1})
	check("from the journal")
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, Options{CompactAt: -1})
	defer s.Close()
	check("from a table file")
}

// TestRootAndRecentAfterClose checks the reads made without the store's
// lock (Root, small chunks read or put lately): Root follows every commit,
// staged or synced, and both refuse with ErrClosed once the store is
// closed, as the locked reads do.
func TestRootAndRecentAfterClose(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir(), Options{})
	if r, err := s.Root(ctx); err != nil || !r.IsEmpty() {
		t.Fatal(r, err)
	}
	a, err := s.Put(ctx, []byte("small chunk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Root(ctx); err != nil || r != a {
		t.Fatalf("root after a commit: %s, %v; want %s", r, err, a)
	}
	b, err := s.Put(ctx, []byte("another small chunk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitStaged(ctx, b, a, 7); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Root(ctx); err != nil || r != b {
		t.Fatalf("root after a staged commit: %s, %v; want %s", r, err, b)
	}
	if got, err := s.Get(ctx, b); err != nil || string(got) != "another small chunk" {
		t.Fatalf("get: %q, %v", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Root(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("root after close: %v, want ErrClosed", err)
	}
	if _, err := s.Get(ctx, b); !errors.Is(err, ErrClosed) {
		t.Fatalf("get of a recent chunk after close: %v, want ErrClosed", err)
	}
}
