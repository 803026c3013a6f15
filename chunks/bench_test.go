package chunks

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Benchmarks of the file store, each with a baseline in the same run. All
// writes are synced (fdatasync), the store's and the baselines'. Chunks are
// 4 KiB shaped like tree nodes (sorted keys, repeated words), which S2
// halves; "raw" runs store them uncompressed.
//
//	go test ./chunks -run '^$' -bench . -benchmem

const benchChunkSize = 4096

var benchWords = []string{"alpha", "order", "customer", "shipped", "pending", "london", "paris",
	"widget", "gadget", "blue", "red", "2026-11-30", "total", "invoice", "user@example.com"}

// nodeLikeChunk fills a 4 KiB chunk with key/value-like records, starting at
// key id, and makes it unique with seq in its first 8 bytes.
func nodeLikeChunk(r *rand.Rand, seq uint64) []byte {
	b := make([]byte, 8, benchChunkSize+64)
	binary.BigEndian.PutUint64(b, seq)
	id := seq * 1000
	for len(b) < benchChunkSize {
		id += uint64(r.Intn(3) + 1)
		b = binary.BigEndian.AppendUint64(b, id)
		b = binary.BigEndian.AppendUint32(b, uint32(r.Intn(100000)))
		for i := 0; i < 3; i++ {
			w := benchWords[r.Intn(len(benchWords))]
			b = append(b, byte(len(w)))
			b = append(b, w...)
		}
	}
	return b[:benchChunkSize]
}

type benchStore struct {
	name string
	opts Options
}

var benchStores = []benchStore{
	{"s2", Options{CompactAt: -1}},
	{"raw", Options{CompactAt: -1, DisableCompression: true}},
}

func benchDir(b *testing.B) string {
	dir, err := os.MkdirTemp("", "verso-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// BenchmarkCommitBatch commits 1000 chunks of 4 KiB at a time, against
// writing the same bytes to a plain file with one sync.
func BenchmarkCommitBatch(b *testing.B) {
	const perCommit = 1000
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	var seq uint64
	batch := func() [][]byte {
		out := make([][]byte, perCommit)
		for i := range out {
			seq++
			out[i] = nodeLikeChunk(r, seq)
		}
		return out
	}
	for _, bs := range benchStores {
		b.Run("store-"+bs.name, func(b *testing.B) {
			s := openTest(b, benchDir(b), bs.opts)
			defer s.Close()
			b.SetBytes(perCommit * benchChunkSize)
			b.ReportAllocs()
			var root Address
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				chunks := batch()
				b.StartTimer()
				var last Address
				for _, c := range chunks {
					a, err := s.Put(ctx, c)
					if err != nil {
						b.Fatal(err)
					}
					last = a
				}
				if err := s.Commit(ctx, last, root); err != nil {
					b.Fatal(err)
				}
				root = last
			}
			b.StopTimer()
			st := s.Stats()
			b.ReportMetric(float64(st.JournalBytes)/float64(b.N*perCommit), "disk-B/chunk")
		})
	}
	b.Run("plainfile", func(b *testing.B) {
		f, err := os.Create(filepath.Join(benchDir(b), "plain"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, flushSize)
		b.SetBytes(perCommit * benchChunkSize)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			chunks := batch()
			b.StartTimer()
			for _, c := range chunks {
				if _, err := w.Write(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			if err := datasync(f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCommitSingle commits one 4 KiB chunk at a time, against a plain
// file write and sync per commit.
func BenchmarkCommitSingle(b *testing.B) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(2))
	var seq uint64
	for _, bs := range benchStores {
		b.Run("store-"+bs.name, func(b *testing.B) {
			s := openTest(b, benchDir(b), bs.opts)
			defer s.Close()
			b.SetBytes(benchChunkSize)
			b.ReportAllocs()
			var root Address
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				seq++
				c := nodeLikeChunk(r, seq)
				b.StartTimer()
				a, err := s.Put(ctx, c)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, a, root); err != nil {
					b.Fatal(err)
				}
				root = a
			}
		})
	}
	b.Run("plainfile", func(b *testing.B) {
		f, err := os.Create(filepath.Join(benchDir(b), "plain"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		b.SetBytes(benchChunkSize)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			c := nodeLikeChunk(r, seq)
			b.StartTimer()
			if _, err := f.Write(c); err != nil {
				b.Fatal(err)
			}
			if err := datasync(f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fillStore puts n 4 KiB chunks, committing every 1000, and returns their
// addresses.
func fillStore(b *testing.B, s *FileStore, n int) []Address {
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	addrs := make([]Address, n)
	var root Address
	for i := range addrs {
		a, err := s.Put(ctx, nodeLikeChunk(r, uint64(i)))
		if err != nil {
			b.Fatal(err)
		}
		addrs[i] = a
		if i%1000 == 999 || i == n-1 {
			if err := s.Commit(ctx, a, root); err != nil {
				b.Fatal(err)
			}
			root = a
		}
	}
	return addrs
}

// benchPread reads records at known offsets of a file with pread: the cost
// of the I/O alone.
func benchPread(b *testing.B, path string, locs []journalLoc) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := rand.New(rand.NewSource(4))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loc := locs[r.Intn(len(locs))]
		buf := make([]byte, loc.size)
		if _, err := f.ReadAt(buf, loc.off); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGets(b *testing.B, s *FileStore, addrs []Address) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(4))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Get(ctx, addrs[r.Intn(len(addrs))]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet reads random chunks from stores of 100k and 1M chunks of
// 4 KiB, from the journal and after compaction into a table file, against
// pread of the same stored bytes at known offsets. The files are in the page
// cache: this measures the store's own cost, not the disk's.
func BenchmarkGet(b *testing.B) {
	sizes := []int{100_000, 1_000_000}
	if testing.Short() {
		sizes = []int{10_000}
	}
	for _, n := range sizes {
		for _, bs := range benchStores {
			b.Run(fmt.Sprintf("n=%d/%s", n, bs.name), func(b *testing.B) {
				dir := benchDir(b)
				s := openTest(b, dir, bs.opts)
				defer s.Close()
				addrs := fillStore(b, s, n)
				j := s.active()
				locs := make([]journalLoc, 0, len(j.index))
				for _, loc := range j.index {
					locs = append(locs, loc)
				}
				b.Run("journal", func(b *testing.B) { benchGets(b, s, addrs) })
				b.Run("journal-pread", func(b *testing.B) { benchPread(b, j.path, locs) })
				if err := s.Compact(); err != nil {
					b.Fatal(err)
				}
				t := s.tables[0]
				tlocs := make([]journalLoc, t.count)
				for i := range tlocs {
					e := t.index[i*tableEntrySize:]
					tlocs[i] = journalLoc{int64(binary.BigEndian.Uint64(e[AddressSize:])), binary.BigEndian.Uint32(e[AddressSize+8:])}
				}
				b.Run("table", func(b *testing.B) { benchGets(b, s, addrs) })
				b.Run("table-pread", func(b *testing.B) { benchPread(b, t.path, tlocs) })
				b.ReportMetric(float64(s.Stats().TableBytes)/float64(n), "disk-B/chunk")
			})
		}
	}
}

// BenchmarkHasMany asks for 10k addresses, half of them absent, of a store
// of 100k chunks in a table and a journal, against the memory store.
func BenchmarkHasMany(b *testing.B) {
	ctx := context.Background()
	s := openTest(b, benchDir(b), Options{CompactAt: -1})
	defer s.Close()
	addrs := fillStore(b, s, 100_000)
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	mem := NewMemoryStore()
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 10_000; i++ { // some in the journal too
		c := nodeLikeChunk(r, uint64(1e9+i))
		if _, err := s.Put(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	for _, a := range addrs {
		mem.chunks[a] = nil
	}
	query := make([]Address, 10_000)
	for i := range query {
		if i%2 == 0 {
			query[i] = addrs[r.Intn(len(addrs))]
		} else {
			r.Read(query[i][:])
		}
	}
	for _, st := range []struct {
		name string
		s    Store
	}{{"file", s}, {"memory", mem}} {
		b.Run(st.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				absent, err := st.s.HasMany(ctx, query)
				if err != nil || len(absent) != 5000 {
					b.Fatalf("%d absent, err %v", len(absent), err)
				}
			}
		})
	}
}

// BenchmarkSyncedWrite measures what the journal's reserve (reserve.go)
// saves: a write of a commit's size followed by fdatasync, appended to a
// growing file, against the same write into zeros written and synced
// ahead of it.
func BenchmarkSyncedWrite(b *testing.B) {
	for _, size := range []int{300, 13000} {
		for _, mode := range []string{"append", "reserve"} {
			b.Run(fmt.Sprintf("%s/%dB", mode, size), func(b *testing.B) {
				f, err := os.Create(filepath.Join(b.TempDir(), "file"))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				if mode == "reserve" {
					zeros := make([]byte, 1<<20)
					for off := int64(0); off < int64(b.N*size)+int64(len(zeros)); off += int64(len(zeros)) {
						if _, err := f.WriteAt(zeros, off); err != nil {
							b.Fatal(err)
						}
					}
					if err := datasync(f); err != nil {
						b.Fatal(err)
					}
				}
				buf := make([]byte, size)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					buf[0] = byte(i)
					if _, err := f.WriteAt(buf, int64(i*size)); err != nil {
						b.Fatal(err)
					}
					if err := datasync(f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLocateAbsent looks for addresses none of a store's 12 table
// files holds, as every Put of a new chunk does, searching each table
// (directory and heads) or asking the tables' filter first.
func BenchmarkLocateAbsent(b *testing.B) {
	for _, per := range []int{2_000, 300_000} {
		r := rand.New(rand.NewSource(7))
		ts, _ := randomTables(r, slices.Repeat([]int{per}, 12)...)
		query := make([]Address, 1<<16)
		for i := range query {
			r.Read(query[i][:])
		}
		for _, mode := range []string{"search", "filter"} {
			b.Run(fmt.Sprintf("%dx12/%s", per, mode), func(b *testing.B) {
				s := &FileStore{tables: ts}
				if mode == "filter" {
					s.filter = newTableFilter(ts)
				}
				found := 0
				for i := 0; i < b.N; i++ {
					if _, _, t, _ := s.locate(query[i&(len(query)-1)]); t != nil {
						found++
					}
				}
				if found > 0 {
					b.Fatalf("%d random addresses found", found)
				}
			})
		}
	}
}
