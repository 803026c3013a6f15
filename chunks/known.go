package chunks

// Known is a set of addresses numbered in the order they were added, with
// a scan that finds them inside a chunk's bytes: the reference walk that
// a collection's mark uses (mark.go) and that a transfer between stores
// uses to find what a chunk refers to, without knowing its format.
//
// The scan looks at every byte offset of the bytes it is given. A bitmap
// over the first three bytes of every address of the set (2 MiB) turns
// away nearly every offset before the map lookup of the whole 20 bytes.
//
// A Known is not safe for concurrent use.
type Known struct {
	ids    map[Address]int32
	addrs  []Address
	filter []uint64 // bit k: some address begins with the three bytes k
}

const filterBits = 1 << 24

// NewKnown returns an empty set with room for sizeHint addresses.
func NewKnown(sizeHint int) *Known {
	return &Known{
		ids:    make(map[Address]int32, sizeHint),
		addrs:  make([]Address, 0, sizeHint),
		filter: make([]uint64, filterBits/64),
	}
}

// Add adds a and returns its number; an address already held keeps its
// number.
func (k *Known) Add(a Address) int32 {
	if id, ok := k.ids[a]; ok {
		return id
	}
	id := int32(len(k.addrs))
	k.ids[a] = id
	k.addrs = append(k.addrs, a)
	p := uint32(a[0])<<16 | uint32(a[1])<<8 | uint32(a[2])
	k.filter[p/64] |= 1 << (p % 64)
	return id
}

// ID returns a's number, and whether the set holds a.
func (k *Known) ID(a Address) (int32, bool) {
	id, ok := k.ids[a]
	return id, ok
}

// Len returns the number of addresses held.
func (k *Known) Len() int { return len(k.addrs) }

// At returns the address numbered id.
func (k *Known) At(id int32) Address { return k.addrs[id] }

// Scan calls fn with the number of every address of the set that data
// holds as its 20 raw bytes, at any offset, once for each place it is
// found.
func (k *Known) Scan(data []byte, fn func(id int32)) {
	var a Address
	for i := 0; i+AddressSize <= len(data); i++ {
		p := uint32(data[i])<<16 | uint32(data[i+1])<<8 | uint32(data[i+2])
		if k.filter[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		copy(a[:], data[i:i+AddressSize])
		if id, ok := k.ids[a]; ok {
			fn(id)
		}
	}
}
