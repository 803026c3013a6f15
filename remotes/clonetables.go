package remotes

import (
	"context"
	"fmt"
	"io"
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
// in the local table format), checked record by record as dst adds them;
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
