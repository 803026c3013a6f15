package chunks

import (
	"encoding/binary"
	"math/bits"
)

// tableFilter is a Bloom filter over the addresses of a store's table
// files, kept in memory beside them (nothing of it is stored): a lookup of
// an address none of the tables holds, which is what every Put of a new
// chunk makes, reads one cache line instead of searching each table (a
// directory bucket and a head each, two cache misses a table, and a store
// under writes keeps a dozen young tables). It never answers "absent" for
// an address a table holds; for 0.3-0.6% of those they lack (12 to 24
// bits an entry) it answers "maybe", and the tables are searched as
// before.
//
// It covers the tables it was built from (covers): whatever changes the
// store's list builds a filter for the new list, and the store takes it
// only if it covers exactly that list (useTables), searching table by
// table otherwise, so a filter built for a list that changed meanwhile
// costs speed, never a wrong answer.
//
// Layout: blocks of 512 bits (8 words, one cache line); the low bits of an
// address's first 8 bytes (big-endian, as the tables' heads) choose the
// block, and four 9-bit fields of its top 36 bits the bits set within it.
// Addresses are hashes, so the two are independent. An address that
// shares its first 8 bytes with a held one answers "maybe": the tables'
// search compares whole addresses.
type tableFilter struct {
	tables []*table
	words  []uint64
	mask   uint64 // blocks - 1
}

const (
	filterBitsPerEntry = 12
	filterProbes       = 4
	// filterMaxBlocks bounds a filter at 32 MiB (2^19 blocks of 64
	// bytes), 12 bits for each of 22 million entries: past that the
	// entries share the bits, and the share of absent addresses that
	// answer "maybe" grows from under 1% to 6% at 45 million entries
	// and 12% at 60 million (the tables are searched for those).
	filterMaxBlocks = 1 << 19
)

// newTableFilter builds the filter of tables; nil when they hold nothing.
func newTableFilter(tables []*table) *tableFilter {
	n := 0
	for _, t := range tables {
		n += t.count
	}
	if n == 0 {
		return nil
	}
	blocks := uint64(1) << bits.Len64(uint64(n*filterBitsPerEntry-1)/512)
	blocks = min(blocks, filterMaxBlocks)
	f := &tableFilter{tables: append([]*table(nil), tables...), words: make([]uint64, blocks*8), mask: blocks - 1}
	for _, t := range tables {
		for _, h := range t.heads {
			f.add(h)
		}
	}
	return f
}

// with returns the filter of tables. When f covers the first of them (a
// young collection adds its tables after the ones it kept) and the rest
// leave it at 8 bits an entry or more, it is f's bits with the new
// entries': a collection builds it while it holds the store's writers,
// and a whole build reads every entry (20 ms a million). Otherwise it is
// built anew.
func (f *tableFilter) with(tables []*table) *tableFilter {
	if f == nil || len(f.tables) > len(tables) || !f.covers(tables[:len(f.tables)]) {
		return newTableFilter(tables)
	}
	n := 0
	for _, t := range tables {
		n += t.count
	}
	if uint64(n)*8 > uint64(len(f.words))*64 {
		return newTableFilter(tables)
	}
	g := &tableFilter{tables: append([]*table(nil), tables...), words: append([]uint64(nil), f.words...), mask: f.mask}
	for _, t := range tables[len(f.tables):] {
		for _, h := range t.heads {
			g.add(h)
		}
	}
	return g
}

func (f *tableFilter) add(h uint64) {
	b := (h & f.mask) * 8
	p := h >> (64 - 9*filterProbes)
	for range filterProbes {
		bit := p & 511
		f.words[b+bit>>6] |= 1 << (bit & 63)
		p >>= 9
	}
}

// mayHold reports whether one of the filter's tables may hold a; false
// means none does.
func (f *tableFilter) mayHold(a Address) bool {
	h := binary.BigEndian.Uint64(a[:8])
	b := (h & f.mask) * 8
	p := h >> (64 - 9*filterProbes)
	for range filterProbes {
		bit := p & 511
		if f.words[b+bit>>6]&(1<<(bit&63)) == 0 {
			return false
		}
		p >>= 9
	}
	return true
}

// covers reports whether f was built from exactly tables, in their order.
func (f *tableFilter) covers(tables []*table) bool {
	if f == nil || len(f.tables) != len(tables) {
		return false
	}
	for i, t := range tables {
		if f.tables[i] != t {
			return false
		}
	}
	return true
}
