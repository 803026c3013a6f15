package rowlock

import (
	"fmt"
	"slices"
	"strings"
)

// check verifies the manager's invariants, and that each of txns (which
// must not be inside ReleaseAll) holds exactly the locks that name it as
// a holder.
func (m *Manager) check(txns ...*Txn) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	holds := make(map[*Txn]int)
	for key, l := range m.locks {
		if l.key != key {
			return fmt.Errorf("lock %q is filed under %q", l.key, key)
		}
		if len(l.holders) == 0 {
			return fmt.Errorf("%q: in the map with no holder", key)
		}
		exclusive := 0
		for i, h := range l.holders {
			if h.mode == Exclusive {
				exclusive++
			} else if h.mode != Shared {
				return fmt.Errorf("%q: holder %d in mode %v", key, h.txn.id, h.mode)
			}
			for _, g := range l.holders[:i] {
				if g.txn == h.txn {
					return fmt.Errorf("%q: %d holds it twice", key, h.txn.id)
				}
			}
			if !slices.Contains(h.txn.held, l) {
				return fmt.Errorf("%q: holder %d does not list it", key, h.txn.id)
			}
			holds[h.txn]++
		}
		if exclusive > 1 || exclusive == 1 && len(l.holders) > 1 {
			return fmt.Errorf("%q: conflicting holders %s", key, l)
		}
		for i, w := range l.queue {
			switch {
			case w.lock != l:
				return fmt.Errorf("%q: queued request of %d points to another lock", key, w.txn.id)
			case &w.txn.w != w:
				return fmt.Errorf("%q: queued request is not its transaction's", key)
			case w.done:
				return fmt.Errorf("%q: a resolved request of %d is still queued", key, w.txn.id)
			case w.upgrade != (l.modeOf(w.txn) == Shared && w.mode == Exclusive):
				return fmt.Errorf("%q: request of %d: upgrade %v, holds %v, asks %v", key, w.txn.id, w.upgrade, l.modeOf(w.txn), w.mode)
			case !w.upgrade && l.modeOf(w.txn) != 0:
				return fmt.Errorf("%q: holder %d queued for a mode it has", key, w.txn.id)
			case w.upgrade && i > 0 && !l.queue[i-1].upgrade:
				return fmt.Errorf("%q: upgrade of %d queued behind a non-upgrade", key, w.txn.id)
			}
			for _, v := range l.queue[:i] {
				if v.txn == w.txn {
					return fmt.Errorf("%q: %d queued twice", key, w.txn.id)
				}
			}
		}
		if len(l.queue) > 0 && l.compatibleHolders(l.queue[0].txn, l.queue[0].mode) {
			return fmt.Errorf("%q: the front of the queue is grantable: %s", key, l)
		}
	}
	for _, t := range txns {
		if holds[t] != len(t.held) {
			return fmt.Errorf("txn %d lists %d locks, holds %d", t.id, len(t.held), holds[t])
		}
		if t.w.lock != nil && m.locks[t.w.lock.key] != t.w.lock {
			return fmt.Errorf("txn %d waits for a lock that is not in the map", t.id)
		}
	}
	return nil
}

// String describes l for test failures (the caller holds the mutex).
func (l *lock) String() string {
	var b strings.Builder
	b.WriteString("holders")
	for _, h := range l.holders {
		fmt.Fprintf(&b, " %d:%v", h.txn.id, h.mode)
	}
	b.WriteString(" queue")
	for _, w := range l.queue {
		fmt.Fprintf(&b, " %d:%v", w.txn.id, w.mode)
	}
	return b.String()
}

// lockState is the observable state of one key, as the model sees it.
type lockState struct {
	Holders map[uint64]Mode
	Queue   []queued // front first
}

type queued struct {
	Txn  uint64
	Mode Mode
}

// snapshot returns the state of every locked key.
func (m *Manager) snapshot() map[Key]lockState {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := make(map[Key]lockState, len(m.locks))
	for key, l := range m.locks {
		st := lockState{Holders: make(map[uint64]Mode)}
		for _, h := range l.holders {
			st.Holders[h.txn.id] = h.mode
		}
		for _, w := range l.queue {
			st.Queue = append(st.Queue, queued{w.txn.id, w.mode})
		}
		s[key] = st
	}
	return s
}

// dump describes the whole manager for test failures.
func (m *Manager) dump() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.locks))
	for key := range m.locks {
		keys = append(keys, string(key))
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, key := range keys {
		fmt.Fprintf(&b, "%q: %s\n", key, m.locks[Key(key)])
	}
	return b.String()
}
