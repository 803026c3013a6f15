package chunks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Adopting table files.
//
// A table file made elsewhere in this format (a remote's, package
// remotes, whose table files are local table files: see its doc.go) can
// join a store whole, instead of chunk by chunk through Put: AddTable
// writes it into a temporary file in the store's folder, checks it (the
// header, the index and its checksum, the bounds of every record, every
// record's checksum, and that every chunk decodes and hashes to its
// address), syncs it, gives it the
// store's next file number and names it in the manifest, in that order.
// A crash before the manifest names it leaves a file that the next open
// removes (removeLeftovers). The root does not change: the caller
// commits one that reaches the new chunks. Chunks the store already
// holds may be in the file too; reads find either copy, and a collection
// keeps one.

// adoptPrefix begins the name of a table file being written by AddTable.
const adoptPrefix = "adopt-"

// AddTable adds the table file that fill writes to the store and returns
// how many chunks it holds. A file that is not a whole, intact table
// fails with an error wrapping ErrCorrupt (or ErrVersion), and nothing is
// added. It waits for a running compaction or collection.
func (s *FileStore) AddTable(ctx context.Context, fill func(w io.Writer) error) (n int, err error) {
	s.mu.RLock()
	err = s.writable()
	s.mu.RUnlock()
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(s.dir, adoptPrefix+"*")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fill(bw); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n, err = checkTableFile(tmp, &s.z); err != nil {
		return 0, err
	}

	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	num := s.man.nextFile
	s.man.nextFile++
	s.mu.Unlock()
	path := filepath.Join(s.dir, tableFileName(num))
	if err := os.Rename(tmp, path); err != nil {
		return 0, err
	}
	tmp = path // removed on a failure below: no manifest names it
	if err := syncDir(s.dir); err != nil {
		return 0, err
	}
	t, err := openTable(path, num, &s.z)
	if err != nil {
		return 0, err
	}
	s.mu.RLock()
	m := manifest{root: s.rootAddr(), nextFile: s.man.nextFile, journals: slices.Clone(s.man.journals),
		tables: append(slices.Clone(s.man.tables), num)}
	filter := s.filter.with(append(slices.Clone(s.tables), t))
	s.mu.RUnlock()
	if err := writeManifest(s.dir, &m); err != nil {
		t.close()
		return 0, fmt.Errorf("chunks: add table: write manifest: %w", err)
	}
	s.mu.Lock()
	s.man = m
	s.useTables(append(s.tables, t), filter)
	s.mu.Unlock()
	return n, nil
}

// checkTableFile checks the table file at path as AddTable says, and
// returns how many chunks it holds. The records are checked on every
// processor at once, each range of entries by one goroutine.
func checkTableFile(path string, z *zstdCodec) (int, error) {
	t, err := openTable(path, 0, z)
	if err != nil {
		return 0, err
	}
	defer t.close()
	workers := min(runtime.GOMAXPROCS(0), max(1, t.count/256))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * t.count / workers; i < (w+1)*t.count/workers; i++ {
				if errs[w] = checkAdoptedRecord(t, i); errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, fmt.Errorf("table file: %w", err)
	}
	return t.count, nil
}

// checkAdoptedRecord checks entry i of a table to adopt: its record's
// checksum, and that its chunk decodes and hashes to its address. A table
// from elsewhere is not trusted with an address: a chunk stored under an
// address not its own would stand in for the real one in every history
// that shares it later.
func checkAdoptedRecord(t *table, i int) error {
	addr, off, size := t.entry(i)
	codec, stored, err := t.checkTableRecord(addr, off, t.data[off:off+int64(size)])
	if err != nil {
		return err
	}
	data, err := decodeChunk(codec, stored, t.z)
	if err != nil {
		return fmt.Errorf("%w: chunk %s: %v", ErrCorrupt, addr, err)
	}
	if Of(data) != addr {
		return fmt.Errorf("%w: chunk %s: its bytes hash to %s", ErrCorrupt, addr, Of(data))
	}
	return nil
}

// isAdoptLeftover reports whether a file of the store's folder is an
// AddTable's that a crash interrupted.
func isAdoptLeftover(name string) bool { return strings.HasPrefix(name, adoptPrefix) }

// TableFile is one of a store's table files.
type TableFile struct {
	Path  string
	Size  int64
	Count int // chunks
}

// WithTableFiles calls fn with the store's table files (oldest first),
// which no compaction or collection removes or replaces until fn returns
// (both wait for it); reads and writes go on. A push to an empty remote
// uploads them whole (package remotes).
func (s *FileStore) WithTableFiles(fn func([]TableFile) error) error {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	files := make([]TableFile, len(s.tables))
	for i, t := range s.tables {
		files[i] = TableFile{Path: t.path, Size: int64(len(t.data)), Count: t.count}
	}
	s.mu.RUnlock()
	return fn(files)
}
