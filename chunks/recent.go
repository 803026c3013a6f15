package chunks

import (
	"encoding/binary"
	"sync/atomic"
)

// recentCache keeps the bytes of small chunks a FileStore put or read
// lately, so that reading them again costs no system call. The chunks a
// transaction reads first are small and new: the working set a commit
// just wrote, its root value, the table chunk and schema. Read from the
// journal, each is a pread of a few hundred bytes (three of a commit's
// reads on one connection). Prolly nodes, larger, have the node cache of
// the layer above.
//
// It is direct-mapped: each address has one slot, picked by bits of the
// address (uniform), and a newer chunk replaces whatever held the slot.
// Slots are atomic pointers to immutable entries, so readers take no
// lock. A collection, which drops chunks, clears it (collect.go), so that
// it never serves a chunk the store no longer holds.
type recentCache struct {
	slots [recentSlots]atomic.Pointer[recentEntry]
}

type recentEntry struct {
	addr Address
	data []byte // never modified
}

const (
	recentSlots = 4096 // a power of two
	// recentMax is the largest chunk kept.
	recentMax = 1024
)

func (c *recentCache) slot(a Address) *atomic.Pointer[recentEntry] {
	return &c.slots[binary.LittleEndian.Uint32(a[:4])&(recentSlots-1)]
}

// get returns a copy of the chunk at a, if held.
func (c *recentCache) get(a Address) ([]byte, bool) {
	e := c.slot(a).Load()
	if e == nil || e.addr != a {
		return nil, false
	}
	return append([]byte(nil), e.data...), true
}

// add keeps data, the chunk at a, if it is small: data must not be
// modified afterwards.
func (c *recentCache) add(a Address, data []byte) {
	if len(data) <= recentMax {
		c.slot(a).Store(&recentEntry{addr: a, data: data})
	}
}

// addCopy keeps a copy of data, the chunk at a, if it is small.
func (c *recentCache) addCopy(a Address, data []byte) {
	if len(data) <= recentMax {
		c.add(a, append([]byte(nil), data...))
	}
}

// clear drops every chunk.
func (c *recentCache) clear() {
	for i := range c.slots {
		c.slots[i].Store(nil)
	}
}
