package chunks

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math/rand"
	"slices"
	"testing"

	"github.com/verso-db/verso/internal/testseed"
)

var (
	flagOps = flag.Int("chunks.ops", 3000, "operations per model-based store test")
)

// seed returns the seed of the randomized tests (see internal/testseed).
func seed(t testing.TB) int64 { return int64(testseed.Seed(t)) }

// randomChunk returns chunk bytes of random size, compressible or not.
func randomChunk(r *rand.Rand) []byte {
	n := r.Intn(9000)
	if r.Intn(10) == 0 {
		n = r.Intn(8)
	}
	b := make([]byte, n)
	if r.Intn(2) == 0 {
		r.Read(b)
	} else {
		for i := range b {
			b[i] = "abcdefgh"[r.Intn(8)]
		}
	}
	return b
}

// harness opens one kind of store for the shared tests.
type harness struct {
	name string
	// open opens the store in dir (ignored by the memory store).
	open func(t testing.TB, dir string) Store
	// durable stores survive reopening and can compact.
	durable bool
}

var testOptions = Options{CompactAt: 256 << 10, MaxTables: 3}

func harnesses() []harness {
	return []harness{
		{name: "memory", open: func(t testing.TB, dir string) Store { return NewMemoryStore() }},
		{name: "file", durable: true, open: func(t testing.TB, dir string) Store {
			s, err := OpenFileStore(dir, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{name: "file-raw", durable: true, open: func(t testing.TB, dir string) Store {
			o := testOptions
			o.DisableCompression = true
			s, err := OpenFileStore(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
}

// model is the reference: what a store must hold.
type model struct {
	committed map[Address][]byte
	pending   map[Address][]byte
	root      Address
}

func (m *model) known() []Address {
	var out []Address
	for a := range m.committed {
		out = append(out, a)
	}
	for a := range m.pending {
		if _, ok := m.committed[a]; !ok {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, Address.Compare)
	return out
}

func (m *model) lookup(a Address) ([]byte, bool) {
	if d, ok := m.committed[a]; ok {
		return d, true
	}
	d, ok := m.pending[a]
	return d, ok
}

// verify compares every chunk the model knows, and some it does not, with
// the store.
func (m *model) verify(t testing.TB, ctx context.Context, s Store, r *rand.Rand) {
	t.Helper()
	root, err := s.Root(ctx)
	if err != nil || root != m.root {
		t.Fatalf("root %s (err %v), model %s", root, err, m.root)
	}
	known := m.known()
	for _, a := range known {
		want, _ := m.lookup(a)
		got, err := s.Get(ctx, a)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("get %s: %d bytes, err %v; want %d bytes", a, len(got), err, len(want))
		}
	}
	var missing []Address
	for i := 0; i < 20; i++ {
		var a Address
		r.Read(a[:])
		missing = append(missing, a)
		if _, err := s.Get(ctx, a); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get of absent %s: err %v, want ErrNotFound", a, err)
		}
	}
	absent, err := s.HasMany(ctx, append(slices.Clone(known), missing...))
	if err != nil {
		t.Fatal(err)
	}
	if len(absent) != len(missing) {
		t.Fatalf("HasMany reports %d absent, want %d", len(absent), len(missing))
	}
	for _, a := range missing {
		if !absent.Has(a) {
			t.Fatalf("HasMany misses absent %s", a)
		}
	}
	n := 0
	err = s.GetMany(ctx, append(slices.Clone(known), missing[:3]...), func(a Address, data []byte) {
		want, ok := m.lookup(a)
		if !ok || !bytes.Equal(data, want) {
			t.Errorf("GetMany gave wrong bytes for %s", a)
		}
		n++
	})
	if err != nil || n != len(known) {
		t.Fatalf("GetMany found %d of %d (err %v)", n, len(known), err)
	}
}

// TestModel runs random puts, gets, commits, reopens and compactions
// against each store and checks them against a map.
func TestModel(t *testing.T) {
	for _, h := range harnesses() {
		t.Run(h.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(seed(t)))
			ctx := context.Background()
			dir := t.TempDir()
			s := h.open(t, dir)
			defer func() { s.Close() }()
			m := &model{committed: map[Address][]byte{}, pending: map[Address][]byte{}}
			var history [][]byte // earlier chunks, to put again
			for op := 0; op < *flagOps; op++ {
				switch k := r.Intn(100); {
				case k < 55: // put
					data := randomChunk(r)
					if len(history) > 0 && r.Intn(8) == 0 {
						data = history[r.Intn(len(history))]
					}
					history = append(history, data)
					a, err := s.Put(ctx, data)
					if err != nil || a != Of(data) {
						t.Fatalf("op %d: put: %s, %v", op, a, err)
					}
					if _, ok := m.committed[a]; !ok {
						m.pending[a] = data
					}
				case k < 70: // get
					known := m.known()
					if len(known) == 0 {
						continue
					}
					a := known[r.Intn(len(known))]
					want, _ := m.lookup(a)
					got, err := s.Get(ctx, a)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("op %d: get %s: err %v", op, a, err)
					}
				case k < 85: // commit
					known := m.known()
					var newRoot Address
					if len(known) > 0 && r.Intn(5) > 0 {
						newRoot = known[r.Intn(len(known))]
					}
					if r.Intn(6) == 0 {
						var stale Address
						r.Read(stale[:])
						if err := s.Commit(ctx, newRoot, stale); !errors.Is(err, ErrRootMoved) {
							t.Fatalf("op %d: commit with a stale root: %v, want ErrRootMoved", op, err)
						}
						continue
					}
					if err := s.Commit(ctx, newRoot, m.root); err != nil {
						t.Fatalf("op %d: commit: %v", op, err)
					}
					for a, d := range m.pending {
						m.committed[a] = d
					}
					clear(m.pending)
					m.root = newRoot
				case k < 88: // commit a root that is not stored
					var bogus Address
					r.Read(bogus[:])
					if err := s.Commit(ctx, bogus, m.root); err == nil {
						t.Fatalf("op %d: commit of an absent root succeeded", op)
					}
				case k < 93: // reopen
					if !h.durable {
						continue
					}
					if err := s.Close(); err != nil {
						t.Fatalf("op %d: close: %v", op, err)
					}
					s = h.open(t, dir)
					clear(m.pending)
				case k < 96: // compact
					if fs, ok := s.(*FileStore); ok {
						if err := fs.Compact(); err != nil {
							t.Fatalf("op %d: compact: %v", op, err)
						}
					}
				default:
					m.verify(t, ctx, s, r)
					if fs, ok := s.(*FileStore); ok {
						if err := fs.Check(ctx); err != nil {
							t.Fatalf("op %d: %v", op, err)
						}
					}
				}
			}
			m.verify(t, ctx, s, r)
			if fs, ok := s.(*FileStore); ok {
				if err := fs.Check(ctx); err != nil {
					t.Fatal(err)
				}
				st := fs.Stats()
				t.Logf("final files: %+v", st)
				if st.Tables == 0 {
					t.Errorf("no compaction happened in %d operations", *flagOps)
				}
			}
		})
	}
}
