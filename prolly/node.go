package prolly

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync/atomic"

	"github.com/verso-db/verso/chunks"
)

// A node is one chunk of a tree. Leaf nodes (level 0) hold keys and values;
// internal nodes hold, per child, the child's last key and a 28-byte value:
// the child's address and its subtree count (the number of leaf entries
// below it). Node format version 1, integers little-endian:
//
//	offset        size        field
//	0             2           magic "vp" (76 70)
//	2             1           version (01)
//	3             1           level: 0 for a leaf, at most 32
//	4             2           n, the number of entries, 1..65535
//	6             2*(n+1)     koff[0..n]: start of key i in the key region;
//	                          koff[0] = 0, non-decreasing, koff[n] = its size
//	..            2*(n+1)     voff[0..n]: the same for the value region
//	..            koff[n]     key region: the keys, concatenated
//	..            voff[n]     value region: the values, concatenated
//
// An internal value is the 20-byte child address then its subtree count as
// a uint64 (little-endian); the count is at least 1.
//
// The chunk is exactly this long. Keys are strictly ascending. There is one
// byte form per list of entries. Which entries share a node is fixed by the
// boundary rule (chunker.go); the decoder does not check it, Check does.
// The empty map has no node: its address is the zero Address.
const (
	nodeMagic0    = 'v'
	nodeMagic1    = 'p'
	nodeVersion   = 1
	nodeHeader    = 6
	maxLevel      = 32
	refValueSize  = chunks.AddressSize + 8
	maxNodeBytes  = math.MaxUint16
	entryOverhead = 4 // one key offset and one value offset
)

// Limits on entries, chosen so that every node fits its 16-bit offsets:
// a node closes before maxNodeSize bytes plus one entry.
const (
	// MaxKeySize is the longest key a map accepts.
	MaxKeySize = 2048
	// MaxValueSize is the longest value a map accepts; store larger values
	// with PutLarge.
	MaxValueSize = 32 * 1024
)

// node is a decoded node. Its byte slices point into data, which is never
// modified.
type node struct {
	addr  chunks.Address
	data  []byte
	level uint8
	n     int
	kbase int         // start of the key region
	vbase int         // start of the value region
	cum   []uint64    // internal nodes: cum[i] = subtree counts of children 0..i
	ref   atomic.Bool // the node cache's referenced bit (CLOCK), see cache.go
}

func (nd *node) koff(i int) int {
	return int(binary.LittleEndian.Uint16(nd.data[nodeHeader+2*i:]))
}

func (nd *node) voff(i int) int {
	return int(binary.LittleEndian.Uint16(nd.data[nodeHeader+2*(nd.n+1)+2*i:]))
}

func (nd *node) key(i int) []byte {
	return nd.data[nd.kbase+nd.koff(i) : nd.kbase+nd.koff(i+1)]
}

func (nd *node) value(i int) []byte {
	return nd.data[nd.vbase+nd.voff(i) : nd.vbase+nd.voff(i+1)]
}

func (nd *node) leaf() bool { return nd.level == 0 }

// child returns the address of child i of an internal node.
func (nd *node) child(i int) chunks.Address {
	var a chunks.Address
	copy(a[:], nd.value(i))
	return a
}

// childCount returns the subtree count of child i of an internal node.
func (nd *node) childCount(i int) uint64 {
	return binary.LittleEndian.Uint64(nd.value(i)[chunks.AddressSize:])
}

// before returns the number of leaf entries before child or entry i.
func (nd *node) before(i int) uint64 {
	if nd.leaf() {
		return uint64(i)
	}
	if i == 0 {
		return 0
	}
	return nd.cum[i-1]
}

// count returns the number of leaf entries under the node.
func (nd *node) count() uint64 {
	if nd.leaf() {
		return uint64(nd.n)
	}
	return nd.cum[nd.n-1]
}

func (nd *node) lastKey() []byte { return nd.key(nd.n - 1) }

// search returns the first i whose key is >= key, or n.
func (nd *node) search(key []byte) int { return nd.searchFrom(0, key) }

// seekFrom returns the first i >= from whose key is >= key, or n. It
// tries from and from+1 first: a cursor seeking ascending keys often
// wants the entry it is at or the next one.
func (nd *node) seekFrom(from int, key []byte) int {
	lo := from
	for ; lo < from+2 && lo < nd.n; lo++ {
		if bytes.Compare(nd.key(lo), key) >= 0 {
			return lo
		}
	}
	return nd.searchFrom(lo, key)
}

// searchFrom returns the first i >= from whose key is >= key, or n.
func (nd *node) searchFrom(from int, key []byte) int {
	lo, hi := from, nd.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(nd.key(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// refValue encodes the value of an internal entry.
func refValue(addr chunks.Address, count uint64) []byte {
	v := make([]byte, refValueSize)
	copy(v, addr[:])
	binary.LittleEndian.PutUint64(v[chunks.AddressSize:], count)
	return v
}

// encodeNode returns the bytes of a node holding the given entries. The
// caller guarantees the invariants decodeNode checks.
func encodeNode(level uint8, keys, vals [][]byte) []byte {
	n := len(keys)
	ksize, vsize := 0, 0
	for i := range keys {
		ksize += len(keys[i])
		vsize += len(vals[i])
	}
	size := nodeHeader + 4*(n+1) + ksize + vsize
	if n == 0 || n > math.MaxUint16 || ksize > math.MaxUint16 || vsize > math.MaxUint16 || size > maxNodeBytes {
		panic("prolly: node too large or empty (invariant: the chunker closes nodes before 64 KiB)")
	}
	b := make([]byte, 0, size)
	b = append(b, nodeMagic0, nodeMagic1, nodeVersion, level)
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	off := 0
	b = binary.LittleEndian.AppendUint16(b, 0)
	for _, k := range keys {
		off += len(k)
		b = binary.LittleEndian.AppendUint16(b, uint16(off))
	}
	off = 0
	b = binary.LittleEndian.AppendUint16(b, 0)
	for _, v := range vals {
		off += len(v)
		b = binary.LittleEndian.AppendUint16(b, uint16(off))
	}
	for _, k := range keys {
		b = append(b, k...)
	}
	for _, v := range vals {
		b = append(b, v...)
	}
	return b
}

// decodeNode checks data and returns the node it holds. It returns an error
// wrapping ErrBadNode, never panics, for bytes encodeNode cannot produce.
func decodeNode(addr chunks.Address, data []byte) (*node, error) {
	return parseNode(addr, data, true)
}

// parseNode is decodeNode; with validate false it skips the checks of the
// entries (order, sizes, references), for bytes encodeNode just made.
func parseNode(addr chunks.Address, data []byte, validate bool) (*node, error) {
	if len(data) < nodeHeader {
		return nil, badNode("%s: %d bytes, shorter than the header", addr, len(data))
	}
	if data[0] != nodeMagic0 || data[1] != nodeMagic1 {
		return nil, badNode("%s: bad magic %x", addr, data[:2])
	}
	if data[2] != nodeVersion {
		return nil, badNode("%s: unknown version %d", addr, data[2])
	}
	nd := &node{addr: addr, data: data, level: data[3], n: int(binary.LittleEndian.Uint16(data[4:]))}
	if nd.level > maxLevel {
		return nil, badNode("%s: level %d", addr, nd.level)
	}
	if nd.n == 0 {
		return nil, badNode("%s: no entries", addr)
	}
	if len(data) > maxNodeBytes {
		return nil, badNode("%s: %d bytes", addr, len(data))
	}
	nd.kbase = nodeHeader + 4*(nd.n+1)
	if nd.kbase > len(data) {
		return nil, badNode("%s: offsets past the end", addr)
	}
	if nd.koff(0) != 0 || nd.voff(0) != 0 {
		return nil, badNode("%s: first offset not 0", addr)
	}
	for i := 0; i < nd.n; i++ {
		if nd.koff(i+1) < nd.koff(i) || nd.voff(i+1) < nd.voff(i) {
			return nil, badNode("%s: offsets of entry %d decrease", addr, i)
		}
	}
	nd.vbase = nd.kbase + nd.koff(nd.n)
	if nd.vbase+nd.voff(nd.n) != len(data) {
		return nil, badNode("%s: regions end at %d, chunk at %d", addr, nd.vbase+nd.voff(nd.n), len(data))
	}
	for i := 0; i < nd.n && validate; i++ {
		k := nd.key(i)
		if len(k) > MaxKeySize {
			return nil, badNode("%s: key %d has %d bytes", addr, i, len(k))
		}
		if i > 0 && bytes.Compare(nd.key(i-1), k) >= 0 {
			return nil, badNode("%s: keys %d and %d out of order", addr, i-1, i)
		}
		if nd.leaf() {
			if len(nd.value(i)) > MaxValueSize {
				return nil, badNode("%s: value %d has %d bytes", addr, i, len(nd.value(i)))
			}
			continue
		}
		if len(nd.value(i)) != refValueSize {
			return nil, badNode("%s: child %d has a %d-byte reference", addr, i, len(nd.value(i)))
		}
		if nd.child(i).IsEmpty() || nd.childCount(i) == 0 {
			return nil, badNode("%s: child %d has an empty address or count", addr, i)
		}
	}
	if !nd.leaf() {
		nd.cum = make([]uint64, nd.n)
		var sum uint64
		for i := 0; i < nd.n; i++ {
			c := nd.childCount(i)
			if sum+c < sum {
				return nil, badNode("%s: subtree counts overflow", addr)
			}
			sum += c
			nd.cum[i] = sum
		}
	}
	return nd, nil
}
