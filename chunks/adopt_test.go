package chunks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builtTable returns a table file of n random chunks, and the chunks.
func builtTable(r *rand.Rand, n int) ([]byte, map[Address][]byte) {
	var b TableBuilder
	want := map[Address][]byte{}
	for i := 0; i < n; i++ {
		c := randomChunk(r)
		a := Of(c)
		b.Add(a, c)
		want[a] = c
	}
	return b.Finish(), want
}

func writeAll(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// TestAddTable: a table file added whole is read like the store's own,
// through a reopen, a compaction and a collection that keeps what the
// root reaches; Check passes.
func TestAddTable(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	own := map[Address][]byte{}
	for i := 0; i < 50; i++ {
		c := randomChunk(r)
		a, err := s.Put(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		own[a] = c
	}
	file, added := builtTable(r, 1500) // enough for a goroutine per processor to check
	n, err := s.AddTable(ctx, writeAll(file))
	if err != nil || n != len(added) {
		t.Fatalf("AddTable: %d, %v", n, err)
	}
	check := func(when string) {
		t.Helper()
		for _, m := range []map[Address][]byte{own, added} {
			for a, c := range m {
				got, err := s.Get(ctx, a)
				if err != nil || !bytes.Equal(got, c) {
					t.Fatalf("%s: chunk %s: %d bytes, %v", when, a, len(got), err)
				}
			}
		}
		if err := s.Check(ctx); err != nil {
			t.Fatalf("%s: Check: %v", when, err)
		}
	}
	check("after AddTable")
	// A root over one added chunk, committed.
	var some Address
	for a := range added {
		some = a
		break
	}
	if err := s.Commit(ctx, some, Address{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = OpenFileStore(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	check("after a reopen")
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	check("after a compaction")
	if root, _ := s.Root(ctx); root != some {
		t.Fatalf("root %s, want %s", root, some)
	}
}

// TestAddTableRefusesDamage: a file with a flipped byte in a record, a
// cut one, or one that is no table is refused with ErrCorrupt; the store
// gains nothing and keeps no file of it.
func TestAddTableRefusesDamage(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before, _ := os.ReadDir(dir)
	file, want := builtTable(r, 100)
	flipped := bytes.Clone(file)
	flipped[TableHeaderSize+50] ^= 0x10
	for name, b := range map[string][]byte{
		"a flipped byte": flipped,
		"a cut file":     file[:len(file)-100],
		"no table":       []byte("hello, this is not a table file at all, not even close to one"),
		"nothing":        nil,
	} {
		_, err := s.AddTable(ctx, writeAll(b))
		if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
	// A chunk under an address not its own, its record intact.
	var wb TableBuilder
	wb.Add(Of([]byte("the real one")), []byte("an impostor"))
	if _, err := s.AddTable(ctx, writeAll(wb.Finish())); !IsCorrupt(err) || !strings.Contains(err.Error(), "hash to") {
		t.Errorf("a chunk under another address: %v, want a corruption error", err)
	}
	boom := errors.New("the download failed")
	if _, err := s.AddTable(ctx, func(w io.Writer) error { w.Write(file[:1000]); return boom }); !errors.Is(err, boom) {
		t.Errorf("a failed fill: %v", err)
	}
	for a := range want {
		if ok, _ := s.Has(ctx, a); ok {
			t.Fatal("a refused table's chunk is in the store")
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Fatalf("the folder held %d files, now %d", len(before), len(after))
	}
}

// TestAddTableLeftoverRemoved: what an AddTable killed part way left (its
// temporary file, or a table file no manifest names) is removed at the
// next open.
func TestAddTableLeftoverRemoved(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, name := range []string{adoptPrefix + "123456", tableFileName(99)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if s, err = OpenFileStore(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), adoptPrefix) || e.Name() == tableFileName(99) {
			t.Errorf("%s left in the folder", e.Name())
		}
	}
}

// TestAddTableConcurrent: tables added while other goroutines put and
// commit chunks and compactions run: every chunk, put or added, is read
// back, and after a reopen too.
func TestAddTableConcurrent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{MaxTables: 3})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	all := map[Address][]byte{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed(t) + int64(g)))
			for i := 0; i < 40; i++ {
				switch {
				case g == 0:
					file, want := builtTable(r, 20+r.Intn(50))
					if _, err := s.AddTable(ctx, writeAll(file)); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					for a, c := range want {
						all[a] = c
					}
					mu.Unlock()
				case g == 1:
					c := randomChunk(r)
					a, err := s.Put(ctx, c)
					if err == nil {
						root, _ := s.Root(ctx)
						err = s.Commit(ctx, a, root)
						if errors.Is(err, ErrRootMoved) {
							err = nil
						}
					}
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					all[a] = c
					mu.Unlock()
				default:
					if err := s.Compact(); err != nil {
						errs <- err
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		for a, c := range all {
			got, err := s.Get(ctx, a)
			if err != nil || !bytes.Equal(got, c) {
				t.Fatalf("round %d: chunk %s: %v", round, a, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = OpenFileStore(dir, Options{MaxTables: 3}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
}

// FuzzAddTable: any bytes offered as a table file are refused with a
// corruption error or added whole; nothing panics, and every chunk of a
// table added reads back and hashes to its address.
func FuzzAddTable(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	file, _ := builtTable(r, 5)
	f.Add(file)
	f.Add(file[:len(file)/2])
	f.Add([]byte{})
	store, err := OpenFileStore(f.TempDir(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		n, err := store.AddTable(ctx, writeAll(b))
		if err != nil {
			if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
				t.Fatalf("refused with an error that is no corruption: %v", err)
			}
			return
		}
		tf, err := openTable(filepath.Join(store.dir, tableFileName(store.man.tables[len(store.man.tables)-1])), 0, &store.z)
		if err != nil {
			t.Fatal(err)
		}
		defer tf.close()
		if tf.count != n {
			t.Fatalf("added %d chunks, the file holds %d", n, tf.count)
		}
		for i := 0; i < tf.count; i++ {
			a, _, _ := tf.entry(i)
			data, err := store.Get(ctx, a)
			if err != nil || Of(data) != a {
				t.Fatalf("chunk %s of a table added: %d bytes, %v", a, len(data), err)
			}
		}
	})
}
