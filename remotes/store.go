package remotes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/verso-db/verso/chunks"
)

// Store is a remote as a chunks.Store, so that the commit graph reads and
// writes a remote's refs as it does a local database's
// (commitgraph.New(store)): Get reads a chunk from the table file that
// holds it with one ranged read; Put gathers chunks into a table file of
// its own; Commit uploads that file and then replaces the manifest with a
// conditional write, which fails with chunks.ErrRootMoved when another
// writer replaced it first.
//
// A Store sees the manifest as of its last read: Root reads it again (so
// a compare-and-swap loop starts from the newest state), and so does a
// Commit that lost its race.
type Store struct {
	bs Blobstore
	// parallel bounds the reads and uploads in flight.
	parallel int

	mu      sync.Mutex
	man     manifest
	version string                       // the manifest's version; "" when there is none
	indexes map[chunks.Address]*tableIdx // every table read or written, by name
	named   []*tableIdx                  // the manifest's tables, newest first
	ours    []*tableIdx                  // uploaded, not yet in a manifest we wrote
	pending map[chunks.Address][]byte
	builder chunks.TableBuilder
	closed  bool
}

// tableIdx is a table file's index, read once: table files never change.
type tableIdx struct {
	ref tableRef
	*chunks.TableIndex
}

var _ chunks.Store = (*Store)(nil)

// maxPendingTable is the size at which Put uploads its chunks as a table
// file before the commit, so a big push holds at most this much in memory.
const maxPendingTable = 64 << 20

// Open reads the remote's manifest and its tables' indexes. A remote with
// no manifest yet is empty: its root is zero, and the first Commit writes
// one.
func Open(ctx context.Context, bs Blobstore) (*Store, error) {
	s := &Store{bs: bs, parallel: 8, indexes: map[chunks.Address]*tableIdx{}, pending: map[chunks.Address][]byte{}}
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// refresh reads the manifest again and the indexes of tables new to s.
func (s *Store) refresh(ctx context.Context) error {
	data, version, err := s.bs.Get(ctx, manifestName)
	var m manifest
	switch {
	case errors.Is(err, ErrNotExist):
		version = ""
	case err != nil:
		return err
	default:
		if m, err = decodeManifest(data); err != nil {
			return fmt.Errorf("remotes: the remote's manifest: %w", err)
		}
	}
	s.mu.Lock()
	var missing []tableRef
	for _, t := range m.tables {
		if s.indexes[t.name] == nil {
			missing = append(missing, t)
		}
	}
	s.mu.Unlock()
	read := make([]*tableIdx, len(missing))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.parallel)
	for i, t := range missing {
		g.Go(func() error {
			ti, err := s.readIndex(gctx, t)
			read[i] = ti
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ti := range read {
		s.indexes[ti.ref.name] = ti
	}
	s.man, s.version = m, version
	s.named = s.named[:0]
	for i := len(m.tables) - 1; i >= 0; i-- {
		s.named = append(s.named, s.indexes[m.tables[i].name])
	}
	// A table of ours that the new manifest names is no longer ours to add.
	s.ours = slices.DeleteFunc(s.ours, func(t *tableIdx) bool {
		return slices.ContainsFunc(m.tables, func(r tableRef) bool { return r.name == t.ref.name })
	})
	return nil
}

// readIndex reads a table file's header and index.
func (s *Store) readIndex(ctx context.Context, t tableRef) (*tableIdx, error) {
	head, err := s.bs.ReadRange(ctx, t.object(), 0, chunks.TableHeaderSize)
	if err != nil {
		return nil, fmt.Errorf("remotes: table %s: %w", t.name, err)
	}
	v, err := chunks.CheckTableHeader(head)
	if err != nil {
		return nil, fmt.Errorf("remotes: table %s: %w", t.name, err)
	}
	n := chunks.TableTailSize(t.count)
	tail, err := s.bs.ReadRange(ctx, t.object(), t.size-n, n)
	if err != nil {
		return nil, fmt.Errorf("remotes: table %s: %w", t.name, err)
	}
	ti, err := chunks.ParseTableTail(tail, t.size, v)
	if err == nil && ti.Len() != t.count {
		err = fmt.Errorf("%w: %d chunks, the manifest says %d", chunks.ErrCorrupt, ti.Len(), t.count)
	}
	if err != nil {
		return nil, fmt.Errorf("remotes: table %s: %w", t.name, err)
	}
	return &tableIdx{ref: t, TableIndex: ti}, nil
}

// locate returns the table holding a and its entry there, from the
// manifest's tables and ours.
func (s *Store) locate(a chunks.Address) (*tableIdx, int) {
	for _, list := range [][]*tableIdx{s.ours, s.named} {
		for _, t := range list {
			if i := t.Find(a); i >= 0 {
				return t, i
			}
		}
	}
	return nil, -1
}

// Get implements chunks.Reader.
func (s *Store) Get(ctx context.Context, addr chunks.Address) ([]byte, error) {
	var out []byte
	if err := s.GetMany(ctx, []chunks.Address{addr}, func(_ chunks.Address, b []byte) { out = b }); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%w: %s on the remote", chunks.ErrNotFound, addr)
	}
	return out, nil
}

// A read of neighbouring records of one table file is one ranged read
// while the gap between them stays under maxGap and the read under
// maxRead.
const (
	maxGap  = 32 << 10
	maxRead = 4 << 20
)

type rangeRead struct {
	t       *tableIdx
	off, n  int64
	entries []int
}

// GetMany implements chunks.Reader. It groups the records it needs by
// table file and reads neighbouring ones together, several reads at once;
// found may be called from several goroutines at once.
func (s *Store) GetMany(ctx context.Context, addrs []chunks.Address, found func(chunks.Address, []byte)) error {
	type loc struct {
		t *tableIdx
		i int
	}
	var locs []loc
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return chunks.ErrClosed
	}
	local := map[chunks.Address][]byte{}
	for _, a := range addrs {
		if d, ok := s.pending[a]; ok {
			local[a] = d
			continue
		}
		if t, i := s.locate(a); t != nil {
			locs = append(locs, loc{t, i})
		}
	}
	s.mu.Unlock()
	for a, d := range local {
		found(a, slices.Clone(d))
	}
	slices.SortFunc(locs, func(x, y loc) int {
		if c := x.t.ref.name.Compare(y.t.ref.name); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i) // entries are in address order; offsets follow
	})
	var reads []*rangeRead
	for _, l := range locs {
		_, off, size := l.t.Entry(l.i)
		if r := lastOf(reads); r != nil && r.t == l.t && off >= r.off+r.n && off-(r.off+r.n) <= maxGap && off+int64(size)-r.off <= maxRead {
			r.n = off + int64(size) - r.off
			r.entries = append(r.entries, l.i)
			continue
		}
		reads = append(reads, &rangeRead{t: l.t, off: off, n: int64(size), entries: []int{l.i}})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.parallel)
	for _, r := range reads {
		g.Go(func() error {
			buf, err := s.bs.ReadRange(gctx, r.t.ref.object(), r.off, r.n)
			if err != nil {
				return fmt.Errorf("remotes: table %s: %w", r.t.ref.name, err)
			}
			for _, i := range r.entries {
				addr, off, size := r.t.Entry(i)
				data, err := r.t.Decode(i, buf[off-r.off:off-r.off+int64(size)])
				if err != nil {
					return fmt.Errorf("remotes: table %s: %w", r.t.ref.name, err)
				}
				found(addr, data)
			}
			return nil
		})
	}
	return g.Wait()
}

func lastOf(r []*rangeRead) *rangeRead {
	if len(r) == 0 {
		return nil
	}
	return r[len(r)-1]
}

// Has implements chunks.Reader.
func (s *Store) Has(ctx context.Context, addr chunks.Address) (bool, error) {
	absent, err := s.HasMany(ctx, []chunks.Address{addr})
	return len(absent) == 0, err
}

// HasMany implements chunks.Reader: what the remote lacks, from the
// indexes in memory (no read of the remote).
func (s *Store) HasMany(ctx context.Context, addrs []chunks.Address) (chunks.AddressSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, chunks.ErrClosed
	}
	absent := chunks.AddressSet{}
	for _, a := range addrs {
		if _, ok := s.pending[a]; ok {
			continue
		}
		if t, _ := s.locate(a); t == nil {
			absent.Add(a)
		}
	}
	return absent, nil
}

// Root implements chunks.Reader: the root of the manifest as read now.
func (s *Store) Root(ctx context.Context) (chunks.Address, error) {
	if err := s.refresh(ctx); err != nil {
		return chunks.Address{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.man.root, nil
}

// Put implements chunks.Writer. The chunk goes up with the next Commit
// (or earlier, in a table file of its own, once maxPendingTable bytes
// wait).
func (s *Store) Put(ctx context.Context, data []byte) (chunks.Address, error) {
	a := chunks.Of(data)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return a, chunks.ErrClosed
	}
	if _, ok := s.pending[a]; ok {
		s.mu.Unlock()
		return a, nil
	}
	if t, _ := s.locate(a); t != nil {
		s.mu.Unlock()
		return a, nil
	}
	s.pending[a] = data
	s.builder.Add(a, data)
	full := s.builder.Size() >= maxPendingTable
	s.mu.Unlock()
	if full {
		return a, s.upload(ctx)
	}
	return a, nil
}

// upload writes the pending chunks as a table file of ours.
func (s *Store) upload(ctx context.Context) error {
	s.mu.Lock()
	if s.builder.Len() == 0 {
		s.mu.Unlock()
		return nil
	}
	file := s.builder.Finish()
	uploaded := s.pending
	s.pending = map[chunks.Address][]byte{}
	s.mu.Unlock()
	t, err := s.putTable(ctx, file)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		for a, d := range uploaded {
			if _, ok := s.pending[a]; !ok {
				s.pending[a] = d
				s.builder.Add(a, d)
			}
		}
		return err
	}
	s.ours = append(s.ours, t)
	return nil
}

// putTable uploads a table file just built (TableBuilder.Finish), named
// by the SHA-256 of its bytes, and records its index.
func (s *Store) putTable(ctx context.Context, file []byte) (*tableIdx, error) {
	v, err := chunks.CheckTableHeader(file)
	var ti *chunks.TableIndex
	if err == nil {
		ti, err = chunks.ParseTableTail(file, int64(len(file)), v)
	}
	if err != nil {
		return nil, fmt.Errorf("remotes: a table file just built does not read back: %w", err)
	}
	ref := tableRef{name: chunks.Of(file), size: int64(len(file)), count: ti.Len()}
	if err := s.bs.Put(ctx, ref.object(), file); err != nil {
		return nil, fmt.Errorf("remotes: upload table %s: %w", ref.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.indexed(ref, ti), nil
}

// indexed returns the index of the table ref, recording ti as it if none
// is yet. Callers hold mu.
func (s *Store) indexed(ref tableRef, ti *chunks.TableIndex) *tableIdx {
	t := s.indexes[ref.name]
	if t == nil {
		t = &tableIdx{ref: ref, TableIndex: ti}
		s.indexes[ref.name] = t
	}
	return t
}

// Commit implements chunks.Writer: it uploads the pending chunks, then
// replaces the manifest with one naming newRoot, the tables of the
// manifest read last and the tables of ours, if the remote's manifest is
// still that one and its root is expected. Otherwise it reads the
// manifest again and returns an error wrapping chunks.ErrRootMoved; the
// tables uploaded stay ours, for the next attempt.
func (s *Store) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	if err := s.upload(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return chunks.ErrClosed
	}
	if s.man.root != expected {
		s.mu.Unlock()
		return fmt.Errorf("%w: the remote's root is %s, not %s", chunks.ErrRootMoved, s.man.root, expected)
	}
	if t, _ := s.locate(newRoot); !newRoot.IsEmpty() && t == nil {
		s.mu.Unlock()
		return fmt.Errorf("remotes: the new root %s names no chunk of the remote; put it before committing it", newRoot)
	}
	next := manifest{root: newRoot, tables: slices.Clone(s.man.tables)}
	for _, t := range s.ours {
		next.tables = append(next.tables, t.ref)
	}
	version := s.version
	s.mu.Unlock()
	if len(next.tables) > maxRemoteTables {
		var err error
		if next.tables, err = s.conjoin(ctx, next.tables); err != nil {
			return err
		}
	}
	nv, err := s.bs.CheckAndPut(ctx, manifestName, version, next.encode())
	if errors.Is(err, ErrPrecondition) {
		if rerr := s.refresh(ctx); rerr != nil {
			return rerr
		}
		return fmt.Errorf("%w: another writer replaced the remote's manifest", chunks.ErrRootMoved)
	}
	if err != nil {
		return fmt.Errorf("remotes: write the manifest: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.man, s.version = next, nv
	s.ours = nil
	s.named = s.named[:0]
	for i := len(next.tables) - 1; i >= 0; i-- {
		s.named = append(s.named, s.indexes[next.tables[i].name])
	}
	return nil
}

// EachRecord calls fn with the address and stored size of every chunk of
// the manifest's tables and of ours, as chunks.FileStore.EachRecord does.
func (s *Store) EachRecord(fn func(a chunks.Address, bytes int)) {
	s.mu.Lock()
	lists := [][]*tableIdx{slices.Clone(s.ours), slices.Clone(s.named)}
	var pend []chunks.Address
	for a := range s.pending {
		pend = append(pend, a)
	}
	s.mu.Unlock()
	for _, a := range pend {
		fn(a, 0)
	}
	for _, list := range lists {
		for _, t := range list {
			for i := 0; i < t.Len(); i++ {
				a, _, size := t.Entry(i)
				fn(a, size)
			}
		}
	}
}

// Tables returns the number of table files the manifest names.
func (s *Store) Tables() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.man.tables)
}

// Close implements chunks.Store. Pending chunks are dropped.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.bs.Close()
}

// Conjoining. Every push adds a table file to the remote, and a reader
// that opens the remote reads the index of each (a request each, on S3),
// and a clone copies all but the largest chunk by chunk. So a commit that
// would leave the manifest naming more than maxRemoteTables files first
// merges the smallest of them, up to conjoinMaxBytes, into one new table
// file until conjoinTarget remain, and names it instead of them. The
// files merged stay on the remote, named by no manifest: readers that
// read the older manifest still find their chunks there. If the commit
// loses its race, the merged file is left unnamed too, and the next
// attempt merges again from the manifest it then reads.
const (
	maxRemoteTables = 32
	conjoinTarget   = 16
	conjoinMaxBytes = 64 << 20
)

// conjoin returns tables with the smallest merged into one new table file,
// uploaded.
func (s *Store) conjoin(ctx context.Context, tables []tableRef) ([]tableRef, error) {
	bySize := slices.Clone(tables)
	slices.SortStableFunc(bySize, func(a, b tableRef) int { return cmp.Compare(a.size, b.size) })
	var pick []tableRef
	var size int64
	for _, t := range bySize {
		if len(tables)-len(pick)+1 <= conjoinTarget || (len(pick) >= 2 && size+t.size > conjoinMaxBytes) {
			break
		}
		pick = append(pick, t)
		size += t.size
	}
	if len(pick) < 2 {
		return tables, nil
	}
	var addrs []chunks.Address
	s.mu.Lock()
	for _, t := range pick {
		ti := s.indexes[t.name]
		if ti == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("remotes: conjoin: table %s has no index read", t.name)
		}
		for i := 0; i < ti.Len(); i++ {
			a, _, _ := ti.Entry(i)
			addrs = append(addrs, a)
		}
	}
	s.mu.Unlock()
	var (
		mu sync.Mutex
		b  chunks.TableBuilder
	)
	if err := s.GetMany(ctx, addrs, func(a chunks.Address, data []byte) {
		mu.Lock()
		b.Add(a, data)
		mu.Unlock()
	}); err != nil {
		return nil, fmt.Errorf("remotes: conjoin: %w", err)
	}
	t, err := s.putTable(ctx, b.Finish())
	if err != nil {
		return nil, fmt.Errorf("remotes: conjoin: %w", err)
	}
	merged := map[chunks.Address]bool{}
	for _, t := range pick {
		merged[t.name] = true
	}
	out := []tableRef{t.ref} // oldest first: the merged chunks are old
	for _, t := range tables {
		if !merged[t.name] {
			out = append(out, t)
		}
	}
	return out, nil
}
