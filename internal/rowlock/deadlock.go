package rowlock

import (
	"cmp"
	"slices"
)

// The waits-for graph is not stored: its edges are read off the queues
// when a transaction is about to wait. A queued request of transaction u
// for key k in mode M waits for
//
//   - every holder of k other than u whose mode conflicts with M, and
//   - every request queued ahead of u's for k whose mode conflicts with M.
//
// Only waiting transactions have edges out, so a cycle is made of waiting
// transactions only.

// detector is the scratch space of the deadlock search, kept between
// searches so that a wait does not allocate (guarded by Manager.mu).
type detector struct {
	epoch uint64  // the current search; Txn.visit == epoch marks a visited transaction
	stack []frame // the path from the new waiter to the transaction being expanded
	succ  []*Txn  // the successors of the transactions on the stack, frame after frame
}

type frame struct {
	txn       *Txn
	start     int // txn's successors are succ[start:end]
	next, end int // the next one to follow
}

// breakCycles resolves the deadlocks that t, just queued, closes. While a
// cycle goes through t, the youngest transaction of the cycle found
// (largest id) is the victim: if it is t, t leaves the queue and
// breakCycles returns ErrDeadlock; otherwise the victim's request leaves
// its queue, its Lock returns ErrDeadlock, and the search runs again (the
// victim's departure may have granted t, or t may be on another cycle).
func (m *Manager) breakCycles(t *Txn) error {
	for t.w.lock != nil {
		v := m.findCycle(t)
		if v == nil {
			return nil
		}
		m.stats.Deadlocks++
		if v == t {
			m.dequeue(&t.w)
			return ErrDeadlock
		}
		m.dequeue(&v.w)
		v.w.resolve(ErrDeadlock)
	}
	return nil
}

// findCycle searches depth first from the waiting transaction start for a
// path back to it, following each transaction's successors in increasing
// id order, and returns the youngest transaction on the first cycle found,
// or nil if no cycle goes through start.
func (m *Manager) findCycle(start *Txn) *Txn {
	d := &m.dl
	d.epoch++
	start.visit = d.epoch
	d.push(start)
	var victim *Txn
	for len(d.stack) > 0 {
		f := &d.stack[len(d.stack)-1]
		if f.next == f.end {
			d.succ = d.succ[:f.start]
			d.stack = d.stack[:len(d.stack)-1]
			continue
		}
		v := d.succ[f.next]
		f.next++
		if v == start {
			victim = start
			for _, f := range d.stack {
				if f.txn.id > victim.id {
					victim = f.txn
				}
			}
			break
		}
		if v.visit == d.epoch {
			continue
		}
		v.visit = d.epoch
		if v.w.lock != nil {
			d.push(v)
		}
	}
	clear(d.stack[:cap(d.stack)])
	clear(d.succ[:cap(d.succ)])
	d.stack, d.succ = d.stack[:0], d.succ[:0]
	return victim
}

// push puts the waiting transaction u on the stack with its successors.
func (d *detector) push(u *Txn) {
	w := &u.w
	l := w.lock
	start := len(d.succ)
	for _, h := range l.holders {
		if h.txn != u && !compatible(h.mode, w.mode) {
			d.succ = append(d.succ, h.txn)
		}
	}
	for _, q := range l.queue {
		if q == w {
			break
		}
		if !compatible(q.mode, w.mode) {
			d.succ = append(d.succ, q.txn)
		}
	}
	s := d.succ[start:]
	slices.SortFunc(s, func(a, b *Txn) int { return cmp.Compare(a.id, b.id) })
	s = slices.Compact(s)
	d.succ = d.succ[:start+len(s)]
	d.stack = append(d.stack, frame{txn: u, start: start, next: start, end: len(d.succ)})
}
