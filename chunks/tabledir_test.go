package chunks

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTableSearchDirectory checks a table index's lookup, narrowed by its
// directory, against a scan of the entries: every address held is found
// at its entry and none other is, for tables of 0 to 5,000 entries,
// including runs of addresses that share their first 8 bytes and
// addresses at the ends of the prefix range.
func TestTableSearchDirectory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 5000} {
		var addrs []Address
		seen := map[Address]bool{}
		add := func(a Address) {
			if !seen[a] {
				seen[a] = true
				addrs = append(addrs, a)
			}
		}
		for len(addrs) < n {
			var a Address
			for i := range a {
				a[i] = byte(r.Uint32())
			}
			switch r.IntN(8) {
			case 0: // the same first 8 bytes as one held
				if len(addrs) > 0 {
					copy(a[:8], addrs[r.IntN(len(addrs))][:8])
				}
			case 1:
				clear(a[:8]) // the lowest prefix
			case 2:
				for i := range 8 {
					a[i] = 0xff // the highest
				}
			}
			add(a)
		}
		slices.SortFunc(addrs, func(a, b Address) int { return a.Compare(b) })
		index := make([]byte, len(addrs)*tableEntrySize)
		heads := make([]uint64, len(addrs))
		for i, a := range addrs {
			copy(index[i*tableEntrySize:], a[:])
			heads[i] = binary.BigEndian.Uint64(a[:])
		}
		ti := tableIndex{index: index, count: len(addrs), heads: heads}
		ti.buildDir()
		if len(ti.dir) != 1<<ti.dirBits+1 || int(ti.dir[len(ti.dir)-1]) != n {
			t.Fatalf("n=%d: directory of %d buckets ending at %d", n, len(ti.dir), ti.dir[len(ti.dir)-1])
		}
		for i, a := range addrs {
			if got := ti.search(a); got != i {
				t.Fatalf("n=%d: search of entry %d found %d", n, i, got)
			}
			b := a
			b[AddressSize-1]++ // a neighbour, held or not
			want := slices.IndexFunc(addrs, func(x Address) bool { return x == b })
			if got := ti.search(b); got != want {
				t.Fatalf("n=%d: search of a neighbour of entry %d found %d, want %d", n, i, got, want)
			}
		}
		for range 200 {
			var a Address
			for i := range a {
				a[i] = byte(r.Uint32())
			}
			want := slices.IndexFunc(addrs, func(x Address) bool { return x == a })
			if got := ti.search(a); got != want {
				t.Fatalf("n=%d: search of a random address found %d, want %d", n, got, want)
			}
		}
	}
}
