package chunks

import (
	"context"
	"fmt"
)

// The mark of a collection (collect.go) is conservative: a chunk is kept
// if its address, as its 20 raw bytes, appears anywhere in a kept chunk's
// bytes. Every layer above writes the addresses it refers to that way (a
// prolly node's children, a commit's root, parents and closure, a root
// value's tables, a working set's roots, a Ref value's tree), so the mark
// needs to know no chunk's format, and a kind of chunk added later cannot
// be forgotten by the collector. What it costs: a chunk whose address
// appears by chance in another's bytes is kept too, which for 160 bits
// of SHA-256 is chance only where a user stores chunk addresses as data;
// and every kept chunk is read.
//
// The scan looks at every byte offset of a chunk (Known.Scan).

// marker holds the addresses of a store and which of them are marked.
type marker struct {
	Known
	marked []bool
	stack  []int32
	count  int // marked chunks
	get    func(ctx context.Context, a Address) ([]byte, error)
	// progress, if set, hears of the chunks read (CollectOptions).
	progress func(phase string, done, total int)
}

func newMarker(get func(context.Context, Address) ([]byte, error), sizeHint int) *marker {
	return &marker{
		Known:  *NewKnown(sizeHint),
		marked: make([]bool, 0, sizeHint),
		get:    get,
	}
}

// add registers an address the store holds.
func (m *marker) add(a Address) {
	if _, ok := m.ids[a]; ok {
		return
	}
	m.Add(a)
	m.marked = append(m.marked, false)
}

// keep marks a, if the store holds it and it is not marked yet, to be
// scanned by run. It reports whether the store holds a.
func (m *marker) keep(a Address) bool {
	id, ok := m.ids[a]
	if ok {
		m.keepID(id)
	}
	return ok
}

func (m *marker) keepID(id int32) {
	if !m.marked[id] {
		m.marked[id] = true
		m.count++
		m.stack = append(m.stack, id)
	}
}

// markFrom marks roots and everything they reach.
func (m *marker) markFrom(ctx context.Context, roots ...Address) error {
	for _, a := range roots {
		m.keep(a)
	}
	return m.run(ctx)
}

// run scans every chunk marked and not yet scanned, marking what their
// bytes name, until none is left.
func (m *marker) run(ctx context.Context) error {
	for n := 0; len(m.stack) > 0; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if m.progress != nil {
				m.progress("mark", n, len(m.addrs))
			}
		}
		id := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		data, err := m.get(ctx, m.addrs[id])
		if err != nil {
			return fmt.Errorf("chunks: collection: read %s: %w", m.addrs[id], err)
		}
		m.scan(data)
	}
	return nil
}

// scan marks every address of the store that data holds.
func (m *marker) scan(data []byte) {
	m.Scan(data, func(id int32) { m.keepID(id) })
}
