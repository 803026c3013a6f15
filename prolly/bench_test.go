package prolly

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// The benchmarks run over maps of 10k, 100k and 1M rows with 9-byte keys
// (EncodeKey of an even Int, so half the probes miss) and value tuples of
// about 20 bytes, in the memory store (nothing is synced). Each has a
// baseline in the same run: a sorted slice of entries with binary search.

var benchSizes = []int{10_000, 100_000, 1_000_000}

func benchKey(i int) []byte { return EncodeKey(nil, Int(int64(2*i))) }

func benchVal(i int) []byte {
	return EncodeTuple(nil, Int(int64(i)), String(fmt.Sprintf("value %07d", i)))
}

type benchFixture struct {
	keys, vals [][]byte
	ns         *NodeStore
	m          Map
}

var benchFixtures = map[int]*benchFixture{}

// fixture returns a map of n rows, built once per process.
func fixture(b *testing.B, n int) *benchFixture {
	if f, ok := benchFixtures[n]; ok {
		return f
	}
	ctx := context.Background()
	f := &benchFixture{ns: NewNodeStore(chunks.NewMemoryStore())}
	bl := NewBuilder(f.ns)
	for i := 0; i < n; i++ {
		f.keys = append(f.keys, benchKey(i))
		f.vals = append(f.vals, benchVal(i))
		if err := bl.Add(ctx, f.keys[i], f.vals[i]); err != nil {
			b.Fatal(err)
		}
	}
	var err error
	if f.m, err = bl.Map(ctx); err != nil {
		b.Fatal(err)
	}
	benchFixtures[n] = f
	return f
}

func rowsPerSec(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkBuild(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		b.Run(fmt.Sprintf("prolly/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bl := NewBuilder(NewNodeStore(chunks.NewMemoryStore()))
				for i := range f.keys {
					if err := bl.Add(ctx, f.keys[i], f.vals[i]); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := bl.Map(ctx); err != nil {
					b.Fatal(err)
				}
			}
			rowsPerSec(b, n)
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				keys, vals := make([][]byte, 0, n), make([][]byte, 0, n)
				for i := range f.keys {
					keys = append(keys, bytes.Clone(f.keys[i]))
					vals = append(vals, bytes.Clone(f.vals[i]))
				}
			}
			rowsPerSec(b, n)
		})
	}
}

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		r := rand.New(rand.NewPCG(1, 2))
		probes := make([][]byte, 4096)
		for i := range probes {
			probes[i] = EncodeKey(nil, Int(int64(r.IntN(2*n))))
		}
		b.Run(fmt.Sprintf("prolly/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := f.m.Get(ctx, probes[i%len(probes)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := probes[i%len(probes)]
				sort.Search(len(f.keys), func(j int) bool { return bytes.Compare(f.keys[j], k) >= 0 })
				i++
			}
		})
	}
}

// BenchmarkGetCacheSmall reads a map of 1M rows through caches that hold
// a fraction of its nodes, keys drawn with a Zipf skew (a hot set), and
// reports the share of node loads the cache missed; the baseline is a
// cache that holds the whole map. Each load that misses decodes a node
// from the store (the memory store here: on disk it is a read too).
func BenchmarkGetCacheSmall(b *testing.B) {
	ctx := context.Background()
	const n = 1_000_000
	f := fixture(b, n)
	z := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 1, 2*n-1)
	probes := make([][]byte, 1<<16)
	for i := range probes {
		// Scatter the hot keys over the key space.
		probes[i] = EncodeKey(nil, Int(int64((z.Uint64()*7919)%(2*n))))
	}
	for _, cacheMB := range []int{4, 16, 256} {
		b.Run(fmt.Sprintf("cache=%dMiB", cacheMB), func(b *testing.B) {
			m, ns := f.throughCache(b, cacheMB)
			for _, k := range probes { // warm
				if _, _, err := m.Get(ctx, k); err != nil {
					b.Fatal(err)
				}
			}
			before := ns.Stats()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := m.Get(ctx, probes[i%len(probes)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			reportMisses(b, ns, before)
		})
	}
}

// throughCache opens the fixture's map through a node store of its own
// with a cache of cacheMB MiB.
func (f *benchFixture) throughCache(b *testing.B, cacheMB int) (Map, *NodeStore) {
	ns := NewNodeStoreCache(f.ns.Store(), cacheMB<<20)
	m, err := OpenMap(context.Background(), ns, f.m.Address())
	if err != nil {
		b.Fatal(err)
	}
	return m, ns
}

// reportMisses reports the share of node loads since before that missed
// ns's cache.
func reportMisses(b *testing.B, ns *NodeStore, before Stats) {
	after := ns.Stats()
	b.ReportMetric(100*float64(after.Reads-before.Reads)/float64(max(after.Loads-before.Loads, 1)), "%miss")
}

// BenchmarkEditCacheSmall applies single-row edits, keys drawn with a
// Zipf skew, to a map of 1M rows through caches that hold a fraction of
// its nodes, and reports the share of node loads the cache missed: an
// edit reads back the nodes the edits before it wrote (see nodeCache).
func BenchmarkEditCacheSmall(b *testing.B) {
	ctx := context.Background()
	const n = 1_000_000
	f := fixture(b, n)
	for _, cacheMB := range []int{4, 16, 256} {
		b.Run(fmt.Sprintf("cache=%dMiB", cacheMB), func(b *testing.B) {
			m, ns := f.throughCache(b, cacheMB)
			var err error
			r := rand.New(rand.NewPCG(1, 2))
			z := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 1, 2*n-1)
			edit := func() {
				k := int64((z.Uint64() * 7919) % (2 * n))
				if m, err = m.Apply(ctx, []Edit{{Key: EncodeKey(nil, Int(k)), Value: benchVal(r.IntN(1000))}}); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < 20000; i++ { // warm
				edit()
			}
			before := ns.Stats()
			for b.Loop() {
				edit()
			}
			reportMisses(b, ns, before)
		})
	}
}

func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		for _, reverse := range []bool{false, true} {
			b.Run(fmt.Sprintf("prolly/n=%d/reverse=%v", n, reverse), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					it := f.m.IterRange(ctx, nil, nil, reverse)
					c := 0
					for it.Next(ctx) {
						c += len(it.Value())
					}
					if it.Err() != nil {
						b.Fatal(it.Err())
					}
				}
				rowsPerSec(b, n)
			})
		}
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				c := 0
				for i := range f.keys {
					c += len(f.vals[i])
				}
			}
			rowsPerSec(b, n)
		})
	}
}

// BenchmarkEdit applies a batch of k puts (half updates, half inserts at
// odd keys) to an n-row map and writes the new nodes; it reports the new
// chunks and bytes written per batch. The baseline merges the batch into a
// copy of the sorted slice (a persistent slice has to copy).
func BenchmarkEdit(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		for _, k := range []int{1, 100, 10_000} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(k)))
			batches := make([][]Edit, 8)
			for bi := range batches {
				seen := map[int]bool{}
				for len(seen) < k {
					seen[r.IntN(2*n)] = true
				}
				for j := range seen {
					batches[bi] = append(batches[bi], Edit{Key: EncodeKey(nil, Int(int64(j))), Value: benchVal(j + 1)})
				}
				slices.SortFunc(batches[bi], func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
			}
			b.Run(fmt.Sprintf("prolly/n=%d/k=%d", n, k), func(b *testing.B) {
				b.ReportAllocs()
				before := f.ns.Stats()
				i := 0
				for b.Loop() {
					if _, err := f.m.Apply(ctx, batches[i%len(batches)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				after := f.ns.Stats()
				b.ReportMetric(float64(after.Writes-before.Writes)/float64(b.N), "chunks/op")
				b.ReportMetric(float64(after.BytesWritten-before.BytesWritten)/float64(b.N), "bytes-written/op")
			})
			b.Run(fmt.Sprintf("slice/n=%d/k=%d", n, k), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					batch := batches[i%len(batches)]
					out := make([][]byte, 0, n+k)
					j := 0
					for _, e := range batch {
						p := sort.Search(len(f.keys), func(x int) bool { return bytes.Compare(f.keys[x], e.Key) >= 0 })
						out = append(out, f.keys[j:p]...)
						out = append(out, e.Key)
						j = p
						if j < len(f.keys) && bytes.Equal(f.keys[j], e.Key) {
							j++
						}
					}
					out = append(out, f.keys[j:]...)
					i++
				}
			})
		}
	}
}

// BenchmarkDiff diffs two maps that differ in 10 keys and reports the
// nodes loaded per diff against the tree height.
func BenchmarkDiff(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		r := rand.New(rand.NewPCG(7, uint64(n)))
		var edits []Edit
		seen := map[int]bool{}
		for len(seen) < 10 {
			seen[r.IntN(n)] = true
		}
		for j := range seen {
			edits = append(edits, Edit{Key: benchKey(j), Value: []byte("changed")})
		}
		slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
		other, err := f.m.Apply(ctx, edits)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("prolly/n=%d/changed=10", n), func(b *testing.B) {
			b.ReportAllocs()
			before := f.ns.Stats().Loads
			for b.Loop() {
				c := 0
				if err := DiffMaps(ctx, f.m, other, func(Diff) error { c++; return nil }); err != nil || c != 10 {
					b.Fatalf("%d differences, %v", c, err)
				}
			}
			b.ReportMetric(float64(f.ns.Stats().Loads-before)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(f.m.Height()), "height")
		})
	}
}

// BenchmarkLeafSizes reports the mean and standard deviation of the leaf
// sizes against the 4096-byte target, and of the internal nodes.
func BenchmarkLeafSizes(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		f := fixture(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var leaves, inner []float64
			for b.Loop() {
				leaves, inner = leaves[:0], inner[:0]
				var walk func(nd *node) error
				walk = func(nd *node) error {
					if nd.leaf() {
						leaves = append(leaves, float64(len(nd.data)))
						return nil
					}
					inner = append(inner, float64(len(nd.data)))
					for i := 0; i < nd.n; i++ {
						c, err := f.ns.read(ctx, nd.child(i))
						if err != nil {
							return err
						}
						if err := walk(c); err != nil {
							return err
						}
					}
					return nil
				}
				if err := walk(f.m.root); err != nil {
					b.Fatal(err)
				}
			}
			mean, sd := meanSD(leaves)
			b.ReportMetric(mean, "leaf-mean-bytes")
			b.ReportMetric(sd, "leaf-sd-bytes")
			b.ReportMetric(float64(len(leaves)), "leaves")
			if len(inner) > 0 {
				im, _ := meanSD(inner)
				b.ReportMetric(im, "internal-mean-bytes")
			}
			b.ReportMetric(float64(f.m.Height()), "height")
		})
	}
}

func meanSD(xs []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	m := s / float64(len(xs))
	return m, math.Sqrt(max(0, s2/float64(len(xs))-m*m))
}
