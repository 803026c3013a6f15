package chunks

import (
	"context"
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"
)

// randomTables returns n tables (indexes only) of the given sizes, some of
// whose addresses share their first 8 bytes with another's.
func randomTables(r *rand.Rand, sizes ...int) ([]*table, []Address) {
	var ts []*table
	var all []Address
	for _, n := range sizes {
		addrs := make([]Address, 0, n)
		seen := map[Address]bool{}
		for len(addrs) < n {
			var a Address
			r.Read(a[:])
			if k := r.Intn(len(all) + len(addrs) + 1); r.Intn(8) == 0 && k < len(all) {
				copy(a[:8], all[k][:8])
			} else if r.Intn(8) == 0 && k >= len(all) && k-len(all) < len(addrs) {
				copy(a[:8], addrs[k-len(all)][:8])
			}
			if !seen[a] {
				seen[a] = true
				addrs = append(addrs, a)
			}
		}
		slices.SortFunc(addrs, Address.Compare)
		index := make([]byte, len(addrs)*tableEntrySize)
		heads := make([]uint64, len(addrs))
		for i, a := range addrs {
			copy(index[i*tableEntrySize:], a[:])
			heads[i] = binary.BigEndian.Uint64(a[:])
		}
		t := &table{tableIndex: tableIndex{index: index, count: len(addrs), heads: heads}}
		t.buildDir()
		ts = append(ts, t)
		all = append(all, addrs...)
	}
	return ts, all
}

// TestTableFilter checks the filter against the tables it was built from:
// every held address "maybe", every other one "absent" but for a few, and
// covers true only for the same list.
func TestTableFilter(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	for _, sizes := range [][]int{{1}, {3, 0, 5}, {1000}, {40_000, 3_000, 3_000, 500, 7}} {
		ts, held := randomTables(r, sizes...)
		f := newTableFilter(ts)
		for _, a := range held {
			if !f.mayHold(a) {
				t.Fatalf("sizes %v: the filter answers absent for %s, which a table holds", sizes, a)
			}
		}
		isHeld := map[Address]bool{}
		for _, a := range held {
			isHeld[a] = true
		}
		maybes, absent := 0, 0
		for range 20_000 {
			var a Address
			r.Read(a[:])
			if isHeld[a] {
				continue
			}
			absent++
			if f.mayHold(a) {
				maybes++
			}
		}
		// 12 to 24 bits an entry, four bits in one block: well under
		// 1% in theory; 3% allows for the blocks' uneven fill.
		if maybes*100 > absent*3 {
			t.Errorf("sizes %v: %d of %d absent addresses answered maybe", sizes, maybes, absent)
		}
		if !f.covers(ts) || f.covers(ts[:len(ts)-1]) || f.covers(append(slices.Clone(ts), ts[0])) {
			t.Errorf("sizes %v: covers does not match the list exactly", sizes)
		}
		if len(ts) > 1 {
			swapped := slices.Clone(ts)
			swapped[0], swapped[1] = swapped[1], swapped[0]
			if f.covers(swapped) {
				t.Errorf("sizes %v: covers a list in another order", sizes)
			}
		}
	}
	if newTableFilter(nil) != nil || (*tableFilter)(nil).covers(nil) {
		t.Error("a filter of no tables: want nil, covering nothing")
	}
}

// TestTableFilterWith checks a filter extended with a young collection's
// tables against one built anew: the same answers for every held address,
// the old filter untouched, and a new build where the old one does not
// cover the first tables or would fill past 8 bits an entry.
func TestTableFilterWith(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	all, held := randomTables(r, 3_000, 2_000, 1_000, 500, 40, 30_000)
	old := all[:3]
	f := newTableFilter(old)
	before := slices.Clone(f.words)
	g := f.with(all[:5])
	if !g.covers(all[:5]) || len(g.words) != len(f.words) {
		t.Fatalf("extended filter: covers %v, %d words (old %d)", g.covers(all[:5]), len(g.words), len(f.words))
	}
	if !slices.Equal(f.words, before) || !f.covers(old) {
		t.Fatal("extending a filter changed it")
	}
	for _, a := range held[:6_540] { // the first five tables' addresses
		if !g.mayHold(a) {
			t.Fatalf("the extended filter answers absent for %s, which a table holds", a)
		}
	}
	if h := f.with(all); !h.covers(all) || len(h.words) <= len(f.words) {
		t.Errorf("30,000 more entries in %d words: want a larger filter built anew, got %d words", len(f.words), len(h.words))
	}
	if h := f.with(all[1:4]); !h.covers(all[1:4]) {
		t.Error("a list f does not begin: want a filter built anew for it")
	}
	if h := (*tableFilter)(nil).with(all[:2]); !h.covers(all[:2]) {
		t.Error("no filter yet: want one built")
	}
}

// TestTableFilterFollowsTheStore checks that every change of a store's
// table files (compaction, young and full collection, an added table, the
// open, a read-only open) leaves a filter covering them, and that lookups
// answer as the files hold.
func TestTableFilterFollowsTheStore(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed(t)))
	dir := t.TempDir()
	s := openTest(t, dir, Options{CompactAt: -1})
	var held []Address
	var root Address
	put := func(n int) {
		t.Helper()
		for range n {
			a, err := s.Put(ctx, randomChunk(r))
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, a)
		}
		if err := s.Commit(ctx, held[len(held)-1], root); err != nil {
			t.Fatal(err)
		}
		root = held[len(held)-1]
	}
	check := func(s *FileStore, when string, tables int) {
		t.Helper()
		s.mu.RLock()
		n, covered := len(s.tables), s.filter.covers(s.tables)
		s.mu.RUnlock()
		if n != tables || !covered {
			t.Fatalf("after %s: %d tables (want %d), covered by the filter: %v", when, n, tables, covered)
		}
		query := slices.Clone(held)
		var missing []Address
		for range 500 {
			var a Address
			r.Read(a[:])
			missing = append(missing, a)
		}
		absent, err := s.HasMany(ctx, append(query, missing...))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range held {
			if absent.Has(a) {
				t.Fatalf("after %s: %s reported absent", when, a)
			}
		}
		for _, a := range missing {
			if !absent.Has(a) {
				t.Fatalf("after %s: %s, never put, reported present", when, a)
			}
		}
	}
	pins := func() []Address { return held }
	put(200)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	check(s, "a compaction", 1)
	put(200)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	check(s, "a second compaction", 2)
	put(100)
	if _, err := s.Collect(ctx, CollectOptions{Pins: pins, Young: true}); err != nil {
		t.Fatal(err)
	}
	check(s, "a young collection", 3)
	file, added := builtTable(r, 300)
	if _, err := s.AddTable(ctx, writeAll(file)); err != nil {
		t.Fatal(err)
	}
	for a := range added {
		held = append(held, a)
	}
	check(s, "an added table", 4)
	put(100)
	if _, err := s.Collect(ctx, CollectOptions{Pins: pins}); err != nil {
		t.Fatal(err)
	}
	check(s, "a full collection", 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{CompactAt: -1})
	check(s, "the open", 1)
	ro, err := OpenFileStore(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	check(ro, "a read-only open", 1)
}
