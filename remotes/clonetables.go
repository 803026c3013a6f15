package remotes

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/verso-db/verso/chunks"
)

// TableAdder is a store that takes table files whole
// (chunks.FileStore.AddTable).
type TableAdder interface {
	chunks.Store
	AddTable(ctx context.Context, fill func(io.Writer) error) (int, error)
}

// maxWholeTables is how many of a remote's table files CopyTables copies
// whole: the largest. A remote that many pushes made holds many small
// files, and a store reads slower the more table files it has until a
// compaction merges them; the chunks of the others are put one by one.
const maxWholeTables = 4

// rangeSize is the size of each ranged read of a table file.
const rangeSize = 8 << 20

// CopyTables copies every table file of the remote into dst, which is
// to hold none of their chunks yet (a clone's new store): the largest
// maxWholeTables files whole, as they are (the remote's table files are
// in the local table format), each chunk checked against its address as
// dst adds them;
// the chunks of the others through Put. It copies what the remote holds,
// which its manifest names: everything its root reaches, and what it no
// longer reaches (a collection of dst drops that). Progress counts the
// chunks, and the bytes of the files copied whole as they lie (the
// others' chunks uncompressed). The caller commits a root.
func CopyTables(ctx context.Context, r *Store, dst TableAdder, opts CopyOptions) (Progress, error) {
	r.mu.Lock()
	tables := slices.Clone(r.named)
	r.mu.Unlock()
	slices.SortStableFunc(tables, func(a, b *tableIdx) int { return int(b.ref.size - a.ref.size) })
	whole := tables[:min(len(tables), maxWholeTables)]
	rest := tables[len(whole):]

	var (
		mu   sync.Mutex
		prog Progress
	)
	report := func(chunks int, bytes int64) { // one call of opts.Progress at a time
		mu.Lock()
		defer mu.Unlock()
		prog.Chunks += chunks
		prog.Bytes += bytes
		if opts.Progress != nil {
			opts.Progress(prog)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.parallel)
	for _, t := range whole {
		g.Go(func() error {
			n, err := dst.AddTable(gctx, func(w io.Writer) error {
				for off := int64(0); off < t.ref.size; off += rangeSize {
					b, err := r.bs.ReadRange(gctx, t.ref.object(), off, min(rangeSize, t.ref.size-off))
					if err != nil {
						return err
					}
					if _, err := w.Write(b); err != nil {
						return err
					}
					report(0, int64(len(b)))
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("remotes: table %s: %w", t.ref.name, err)
			}
			if n != t.ref.count {
				return fmt.Errorf("remotes: table %s: %w: %d chunks, the manifest says %d", t.ref.name, chunks.ErrCorrupt, n, t.ref.count)
			}
			report(n, 0)
			return nil
		})
	}
	for _, t := range rest {
		g.Go(func() error {
			addrs := make([]chunks.Address, t.Len())
			for i := range addrs {
				addrs[i], _, _ = t.Entry(i)
			}
			var (
				putMu  sync.Mutex
				putErr error
			)
			err := r.GetMany(gctx, addrs, func(a chunks.Address, b []byte) { // called concurrently
				if _, err := dst.Put(gctx, b); err != nil {
					putMu.Lock()
					putErr = err
					putMu.Unlock()
					return
				}
				report(1, int64(len(b)))
			})
			if err == nil {
				err = putErr
			}
			if err != nil {
				return fmt.Errorf("remotes: table %s: %w", t.ref.name, err)
			}
			return nil
		})
	}
	err := g.Wait()
	mu.Lock()
	prog.Done = err == nil
	p := prog
	mu.Unlock()
	if err == nil && opts.Progress != nil {
		opts.Progress(p)
	}
	return p, err
}

// TableFileSource is a store whose table files a push to an empty remote
// uploads whole (chunks.FileStore.WithTableFiles).
type TableFileSource interface {
	WithTableFiles(fn func([]chunks.TableFile) error) error
}

// empty reports whether the remote holds nothing: no root, no table file
// named or uploaded.
func (s *Store) empty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.man.root.IsEmpty() && len(s.man.tables) == 0 && len(s.ours) == 0 && len(s.pending) == 0
}

// uploadTableFiles uploads src's table files whole, as tables of ours
// (named by the next Commit's manifest), several at a time, and returns
// what they hold: their chunks, and their bytes as they lie.
func (s *Store) uploadTableFiles(ctx context.Context, src TableFileSource, progress func(Progress)) (Progress, error) {
	var (
		mu   sync.Mutex
		prog Progress
	)
	err := src.WithTableFiles(func(files []chunks.TableFile) error {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.parallel)
		for _, f := range files {
			g.Go(func() error {
				if err := s.uploadTableFile(gctx, f); err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				prog.Chunks += f.Count
				prog.Bytes += f.Size
				if progress != nil {
					progress(prog)
				}
				return nil
			})
		}
		return g.Wait()
	})
	return prog, err
}

// uploadTableFile uploads one table file of the local format, named by
// the SHA-256 of its bytes as every table file of a remote is.
func (s *Store) uploadTableFile(ctx context.Context, tf chunks.TableFile) error {
	f, err := os.Open(tf.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, tf.Size)); err != nil {
		return fmt.Errorf("remotes: read %s: %w", filepath.Base(tf.Path), err)
	}
	var name chunks.Address
	copy(name[:], h.Sum(nil))
	head := make([]byte, chunks.TableHeaderSize)
	tail := make([]byte, chunks.TableTailSize(tf.Count))
	_, err = f.ReadAt(head, 0)
	if err == nil {
		_, err = f.ReadAt(tail, tf.Size-int64(len(tail)))
	}
	if err != nil {
		return fmt.Errorf("remotes: read %s: %w", filepath.Base(tf.Path), err)
	}
	v, err := chunks.CheckTableHeader(head)
	var ti *chunks.TableIndex
	if err == nil {
		ti, err = chunks.ParseTableTail(tail, tf.Size, v)
	}
	if err == nil && ti.Len() != tf.Count {
		err = fmt.Errorf("%w: %d chunks, the store says %d", chunks.ErrCorrupt, ti.Len(), tf.Count)
	}
	if err != nil {
		return fmt.Errorf("remotes: table file %s: %w", filepath.Base(tf.Path), err)
	}
	ref := tableRef{name: name, size: tf.Size, count: tf.Count}
	if err := s.bs.PutFrom(ctx, ref.object(), f, tf.Size); err != nil {
		return fmt.Errorf("remotes: upload table %s: %w", ref.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexes[name] == nil {
		s.ours = append(s.ours, s.indexed(ref, ti))
	}
	return nil
}
