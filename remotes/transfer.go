package remotes

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/verso-db/verso/chunks"
)

// Enumerable is a store that can list what it holds: chunks.FileStore,
// chunks.MemoryStore and Store.
type Enumerable interface {
	chunks.Reader
	EachRecord(fn func(a chunks.Address, bytes int))
}

// Progress is what a transfer has done so far.
type Progress struct {
	Chunks int   // chunks copied
	Bytes  int64 // their bytes, uncompressed
	// Done is true on the last call.
	Done bool
}

// CopyOptions tunes Copy.
type CopyOptions struct {
	// Progress, if set, hears how the transfer goes, after each round of
	// reads and at the end.
	Progress func(Progress)
	// TempDir holds the spool of chunks read and not yet put ("" for the
	// system's).
	TempDir string
}

// Copy puts into dst every chunk that roots reach in src and dst does not
// hold, and returns what it copied. What a chunk reaches is found as the
// collector's mark finds it (chunks.Known.Scan): every address of src
// that its bytes hold. A chunk dst holds is taken to hold its history
// too (every store here keeps that invariant), so the walk stops there:
// the cost follows what dst lacks, not what src holds.
//
// The walk reads a level at a time, each level's chunks in one GetMany.
// What it reads goes to a spool file; the chunks are then put into dst
// each after all it refers to, so that a dst whose pending puts another
// writer commits meanwhile never holds a chunk without its history.
func Copy(ctx context.Context, src Enumerable, dst chunks.Store, roots []chunks.Address, opts CopyOptions) (Progress, error) {
	known := chunks.NewKnown(0)
	src.EachRecord(func(a chunks.Address, _ int) { known.Add(a) })
	var p Progress
	seen := make([]bool, known.Len())
	var frontier []int32
	for _, r := range roots {
		if r.IsEmpty() {
			continue
		}
		id, ok := known.ID(r)
		if !ok {
			return p, fmt.Errorf("remotes: the source holds no chunk %s", r)
		}
		if !seen[id] {
			seen[id] = true
			frontier = append(frontier, id)
		}
	}
	sp, err := newSpool(opts.TempDir)
	if err != nil {
		return p, err
	}
	defer sp.close()
	children := map[int32][]int32{} // chunks read -> what they refer to
	var order []int32               // chunks read, in the order read
	var mu sync.Mutex
	for len(frontier) > 0 {
		addrs := make([]chunks.Address, len(frontier))
		for i, id := range frontier {
			addrs[i] = known.At(id)
		}
		absent, err := dst.HasMany(ctx, addrs)
		if err != nil {
			return p, err
		}
		want := addrs[:0]
		for _, a := range addrs {
			if absent.Has(a) {
				want = append(want, a)
			}
		}
		var next []int32
		var werr error
		got := 0
		err = src.GetMany(ctx, want, func(a chunks.Address, data []byte) {
			mu.Lock()
			defer mu.Unlock()
			if werr != nil {
				return
			}
			id, _ := known.ID(a)
			if werr = sp.write(id, data); werr != nil {
				return
			}
			got++
			order = append(order, id)
			p.Chunks++
			p.Bytes += int64(len(data))
			var kids []int32
			known.Scan(data, func(c int32) {
				if c == id {
					return
				}
				kids = append(kids, c)
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			})
			children[id] = kids
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return p, err
		}
		if got != len(want) {
			for _, a := range want {
				if id, _ := known.ID(a); !hasKey(children, id) {
					return p, fmt.Errorf("%w: chunk %s, listed by the source, cannot be read from it", chunks.ErrNotFound, a)
				}
			}
		}
		if opts.Progress != nil {
			opts.Progress(p)
		}
		frontier = next
	}
	// Put each chunk after everything it refers to (a depth-first
	// post-order over what was read).
	done := map[int32]bool{}
	type frame struct {
		id   int32
		next int
	}
	for _, root := range order {
		if done[root] {
			continue
		}
		stack := []frame{{root, 0}}
		done[root] = true
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			kids := children[f.id]
			if f.next < len(kids) {
				c := kids[f.next]
				f.next++
				if hasKey(children, c) && !done[c] {
					done[c] = true
					stack = append(stack, frame{c, 0})
				}
				continue
			}
			data, err := sp.read(f.id)
			if err != nil {
				return p, err
			}
			a, err := dst.Put(ctx, data)
			if err != nil {
				return p, err
			}
			if want := known.At(f.id); a != want {
				return p, fmt.Errorf("%w: chunk %s read from the source hashes to %s", chunks.ErrCorrupt, want, a)
			}
			stack = stack[:len(stack)-1]
		}
	}
	p.Done = true
	if opts.Progress != nil {
		opts.Progress(p)
	}
	return p, nil
}

func hasKey(m map[int32][]int32, k int32) bool {
	_, ok := m[k]
	return ok
}

// spool keeps the chunks a transfer read in a temporary file, which is
// removed when the transfer ends.
type spool struct {
	f   *os.File
	off int64
	at  map[int32][2]int64 // offset, length
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "verso-transfer-*")
	if err != nil {
		return nil, fmt.Errorf("remotes: a spool file for the transfer: %w", err)
	}
	return &spool{f: f, at: map[int32][2]int64{}}, nil
}

func (s *spool) write(id int32, data []byte) error {
	if _, err := s.f.Write(data); err != nil {
		return fmt.Errorf("remotes: spool: %w", err)
	}
	s.at[id] = [2]int64{s.off, int64(len(data))}
	s.off += int64(len(data))
	return nil
}

func (s *spool) read(id int32) ([]byte, error) {
	loc := s.at[id]
	buf := make([]byte, loc[1])
	if _, err := s.f.ReadAt(buf, loc[0]); err != nil && err != io.EOF {
		return nil, fmt.Errorf("remotes: spool: %w", err)
	}
	return buf, nil
}

func (s *spool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
