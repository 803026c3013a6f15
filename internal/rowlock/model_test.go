package rowlock

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/internal/testseed"
)

// refModel is the reference for TestModel: the rules of the package
// written plainly over maps, with no concern for speed.
type refModel struct {
	holders map[Key]map[uint64]Mode
	queues  map[Key][]refReq
	waiting map[uint64]Key // the key each waiting transaction waits for
	stats   Stats
	seen    *coverage
}

// coverage counts the interesting events of a TestModel run, to show that
// the random operations reach them.
type coverage struct {
	callerVictims, otherVictims, grantedBySearch, queuedUpgrades, runGrants int
	searchesWithVictims, searchesWithTwoVictims                             int
}

type refReq struct {
	txn     uint64
	mode    Mode
	upgrade bool
	first   bool // the first result its Lock returns
}

type result struct {
	first bool
	err   error
}

func (r result) String() string { return fmt.Sprintf("{first %v, %v}", r.first, r.err) }

// refOut is what one operation does.
type refOut struct {
	blocked  bool              // the caller sleeps
	res      result            // else the caller's result
	resolved map[uint64]result // pending Lock calls of other transactions that return
}

func newRefModel(seen *coverage) *refModel {
	return &refModel{
		seen:    seen,
		holders: make(map[Key]map[uint64]Mode),
		queues:  make(map[Key][]refReq),
		waiting: make(map[uint64]Key),
	}
}

func (r *refModel) lock(txn uint64, key Key, mode Mode, p Policy, timeout time.Duration) refOut {
	out := refOut{resolved: make(map[uint64]result)}
	held := r.holders[key][txn]
	if held >= mode {
		out.res = result{false, nil}
		return out
	}
	first := held == 0
	upgrade := !first
	if upgrade && len(r.holders[key]) == 1 || !upgrade && len(r.queues[key]) == 0 && r.compatibleHolders(key, txn, mode) {
		r.hold(key, txn, mode)
		out.res = result{first, nil}
		return out
	}
	if p != Wait {
		out.res = result{first, ErrBusy}
		return out
	}
	if timeout <= 0 {
		r.stats.Timeouts++
		out.res = result{first, ErrTimeout}
		return out
	}
	q := r.queues[key]
	at := len(q)
	if upgrade {
		at = 0
		for at < len(q) && q[at].upgrade {
			at++
		}
	}
	r.queues[key] = slices.Insert(q, at, refReq{txn, mode, upgrade, first})
	if upgrade {
		r.seen.queuedUpgrades++
	}
	r.waiting[txn] = key
	victims := 0
	defer func() {
		if victims > 0 {
			r.seen.searchesWithVictims++
		}
		if victims > 1 {
			r.seen.searchesWithTwoVictims++
		}
	}()
	for r.isWaiting(txn) {
		cycle := r.cycle(txn)
		if cycle == nil {
			break
		}
		victim := slices.Max(cycle)
		victims++
		r.stats.Deadlocks++
		if victim == txn {
			r.seen.callerVictims++
			r.leave(txn, out.resolved)
			out.res = result{first, ErrDeadlock}
			return out
		}
		r.seen.otherVictims++
		vfirst := r.leave(victim, out.resolved)
		out.resolved[victim] = result{vfirst, ErrDeadlock}
	}
	if !r.isWaiting(txn) {
		r.seen.grantedBySearch++
		out.res = out.resolved[txn]
		delete(out.resolved, txn)
		return out
	}
	r.stats.Waits++
	out.blocked = true
	return out
}

func (r *refModel) releaseAll(txn uint64) map[uint64]result {
	resolved := make(map[uint64]result)
	for key, hs := range r.holders {
		if _, ok := hs[txn]; ok {
			delete(hs, txn)
			r.settle(key, resolved)
		}
	}
	return resolved
}

// cancel ends the wait of txn as a canceled context does.
func (r *refModel) cancel(txn uint64) refOut {
	out := refOut{resolved: make(map[uint64]result)}
	first := r.leave(txn, out.resolved)
	out.res = result{first, context.Canceled}
	return out
}

func (r *refModel) isWaiting(txn uint64) bool {
	_, ok := r.waiting[txn]
	return ok
}

func (r *refModel) compatibleHolders(key Key, txn uint64, mode Mode) bool {
	for h, hm := range r.holders[key] {
		if h != txn && !compatible(hm, mode) {
			return false
		}
	}
	return true
}

func (r *refModel) hold(key Key, txn uint64, mode Mode) {
	if r.holders[key] == nil {
		r.holders[key] = make(map[uint64]Mode)
	}
	r.holders[key][txn] = mode
}

// leave takes txn's request out of its queue and returns its first.
func (r *refModel) leave(txn uint64, resolved map[uint64]result) bool {
	key := r.waiting[txn]
	delete(r.waiting, txn)
	q := r.queues[key]
	i := slices.IndexFunc(q, func(q refReq) bool { return q.txn == txn })
	first := q[i].first
	r.queues[key] = slices.Delete(q, i, i+1)
	r.settle(key, resolved)
	return first
}

// settle grants key's queue from the front while it is compatible.
func (r *refModel) settle(key Key, resolved map[uint64]result) {
	granted := 0
	defer func() {
		if granted > 1 {
			r.seen.runGrants++
		}
	}()
	for q := r.queues[key]; len(q) > 0; q = r.queues[key] {
		granted++
		f := q[0]
		if !r.compatibleHolders(key, f.txn, f.mode) {
			break
		}
		r.queues[key] = q[1:]
		r.hold(key, f.txn, f.mode)
		delete(r.waiting, f.txn)
		resolved[f.txn] = result{f.first, nil}
	}
	if len(r.holders[key]) == 0 {
		delete(r.holders, key)
		delete(r.queues, key)
	}
}

// waitsFor returns the transactions the waiting txn waits for, by id.
func (r *refModel) waitsFor(txn uint64) []uint64 {
	key := r.waiting[txn]
	q := r.queues[key]
	i := slices.IndexFunc(q, func(q refReq) bool { return q.txn == txn })
	mode := q[i].mode
	set := make(map[uint64]bool)
	for h, hm := range r.holders[key] {
		if h != txn && !compatible(hm, mode) {
			set[h] = true
		}
	}
	for _, a := range q[:i] {
		if !compatible(a.mode, mode) {
			set[a.txn] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// cycle returns the path of the first cycle through start found depth
// first, successors in id order, or nil.
func (r *refModel) cycle(start uint64) []uint64 {
	visited := map[uint64]bool{start: true}
	var path []uint64
	var dfs func(u uint64) bool
	dfs = func(u uint64) bool {
		path = append(path, u)
		for _, v := range r.waitsFor(u) {
			if v == start {
				return true
			}
			if visited[v] {
				continue
			}
			visited[v] = true
			if r.isWaiting(v) && dfs(v) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if dfs(start) {
		return path
	}
	return nil
}

func (r *refModel) snapshot() map[Key]lockState {
	s := make(map[Key]lockState)
	for key, hs := range r.holders {
		st := lockState{Holders: maps.Clone(hs)}
		for _, q := range r.queues[key] {
			st.Queue = append(st.Queue, queued{q.txn, q.mode})
		}
		s[key] = st
	}
	return s
}

func (r *refModel) held(txn uint64) int {
	n := 0
	for _, hs := range r.holders {
		if _, ok := hs[txn]; ok {
			n++
		}
	}
	return n
}

// sim is one simulated transaction: a goroutine running its calls.
type sim struct {
	txn     *Txn
	cmds    chan func()
	res     chan result
	pending bool               // its Lock sleeps
	cancel  context.CancelFunc // of its current Lock's context
}

// TestModel drives simulated transactions, one step at a time, through
// random Lock, ReleaseAll and cancel operations against the manager and
// refModel, and compares after each step who holds what, who waits where,
// every result (deadlock victims included), the counters and Held.
func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 0x726f776c6f636b))
	rounds, steps := 100, 250
	if testing.Short() {
		rounds = 10
	}
	var seen coverage
	for round := range rounds {
		nTxn, nKey := 2+rng.IntN(5), 1+rng.IntN(4)
		mt := &modelTest{t: t, rng: rng, round: round, nKey: nKey, seen: &seen}
		mt.run(nTxn, steps)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d rounds of %d steps: %+v", rounds, steps, seen)
}

type modelTest struct {
	t       *testing.T
	rng     *rand.Rand
	round   int
	step    int
	nKey    int
	m       *Manager
	ref     *refModel
	sims    []*sim
	byID    map[uint64]*sim
	blocked chan uint64
	log     []string // the operations so far
	seen    *coverage
}

func (mt *modelTest) run(nTxn, steps int) {
	mt.m, mt.ref = New(), newRefModel(mt.seen)
	mt.blocked = make(chan uint64, nTxn)
	mt.m.waitHook = func(tx *Txn) { mt.blocked <- tx.id }
	mt.byID = make(map[uint64]*sim)
	for range nTxn {
		s := &sim{txn: mt.m.Begin(), cmds: make(chan func()), res: make(chan result, 1)}
		go func() {
			for f := range s.cmds {
				f()
			}
		}()
		mt.sims = append(mt.sims, s)
		mt.byID[s.txn.id] = s
	}
	defer func() {
		for _, s := range mt.sims {
			if s.cancel != nil {
				s.cancel()
			}
			close(s.cmds)
		}
	}()
	for mt.step = 0; mt.step < steps && !mt.t.Failed(); mt.step++ {
		var idle, pending []*sim
		for _, s := range mt.sims {
			if s.pending {
				pending = append(pending, s)
			} else {
				idle = append(idle, s)
			}
		}
		switch r := mt.rng.IntN(100); {
		case len(pending) > 0 && (len(idle) == 0 || r < 8):
			mt.cancel(pending[mt.rng.IntN(len(pending))])
		case r < 75:
			mt.lock(idle[mt.rng.IntN(len(idle))])
		case r < 92:
			mt.releaseAll(idle[mt.rng.IntN(len(idle))], false)
		default:
			mt.releaseAll(idle[mt.rng.IntN(len(idle))], true)
		}
		mt.compare()
	}
	// Wind down: every wait ends, every lock goes.
	for _, s := range mt.sims {
		if s.pending && !mt.t.Failed() {
			mt.cancel(s)
			mt.compare()
		}
	}
	for _, s := range mt.sims {
		if !s.pending && !mt.t.Failed() {
			mt.releaseAll(s, false)
			mt.compare()
		}
	}
	if n := len(mt.m.snapshot()); n != 0 && !mt.t.Failed() {
		mt.fail("%d keys still locked after every ReleaseAll", n)
	}
}

func (mt *modelTest) fail(format string, args ...any) {
	mt.t.Helper()
	tail := mt.log
	if len(tail) > 40 {
		tail = tail[len(tail)-40:]
	}
	mt.t.Fatalf("round %d step %d: %s\nlast operations:\n  %s\nmanager:\n%s",
		mt.round, mt.step, fmt.Sprintf(format, args...), strings.Join(tail, "\n  "), mt.m.dump())
}

func (mt *modelTest) lock(s *sim) {
	key := Key(fmt.Sprint("k", mt.rng.IntN(mt.nKey)))
	mode := Shared
	if mt.rng.IntN(2) == 0 {
		mode = Exclusive
	}
	p, timeout := Wait, long
	switch mt.rng.IntN(10) {
	case 0:
		p = NoWait
	case 1:
		p = SkipLocked
	case 2:
		timeout = 0
	}
	mt.log = append(mt.log, fmt.Sprintf("%d: Lock %s %v %v timeout %v", s.txn.id, key, mode, p, timeout))
	want := mt.ref.lock(s.txn.id, key, mode, p, timeout)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	tx := s.txn
	s.cmds <- func() {
		first, err := tx.Lock(ctx, key, mode, p, timeout)
		s.res <- result{first, err}
	}
	select {
	case got := <-s.res:
		if want.blocked {
			mt.fail("Lock returned %v, the model waits", got)
		}
		if got != want.res {
			mt.fail("Lock returned %v, the model %v", got, want.res)
		}
		cancel()
		s.cancel = nil
	case id := <-mt.blocked:
		if id != tx.id || !want.blocked {
			mt.fail("txn %d went to sleep; the model: %+v", id, want)
		}
		s.pending = true
	case <-time.After(5 * time.Second):
		mt.fail("Lock neither returned nor slept")
	}
	mt.collect(want.resolved)
}

func (mt *modelTest) releaseAll(s *sim, restart bool) {
	mt.log = append(mt.log, fmt.Sprintf("%d: ReleaseAll (restart %v)", s.txn.id, restart))
	want := mt.ref.releaseAll(s.txn.id)
	tx := s.txn
	s.cmds <- func() {
		tx.ReleaseAll()
		s.res <- result{}
	}
	mt.receive(s)
	mt.collect(want)
	if restart {
		delete(mt.byID, s.txn.id)
		s.txn = mt.m.Begin()
		mt.byID[s.txn.id] = s
	}
}

func (mt *modelTest) cancel(s *sim) {
	mt.log = append(mt.log, fmt.Sprintf("%d: cancel", s.txn.id))
	want := mt.ref.cancel(s.txn.id)
	s.cancel()
	s.cancel = nil
	s.pending = false
	if got := mt.receive(s); got != want.res {
		mt.fail("canceled Lock returned %v, the model %v", got, want.res)
	}
	mt.collect(want.resolved)
}

func (mt *modelTest) receive(s *sim) result {
	mt.t.Helper()
	select {
	case r := <-s.res:
		return r
	case <-time.After(5 * time.Second):
		mt.fail("txn %d: no result", s.txn.id)
		return result{}
	}
}

// collect receives the results of the pending Lock calls the model says
// returned.
func (mt *modelTest) collect(resolved map[uint64]result) {
	for _, id := range slices.Sorted(maps.Keys(resolved)) {
		want := resolved[id]
		s := mt.byID[id]
		if s == nil || !s.pending {
			mt.fail("the model resolves txn %d, which is not waiting", id)
		}
		if got := mt.receive(s); got != want {
			mt.fail("txn %d's pending Lock returned %v, the model %v", id, got, want)
		}
		mt.log = append(mt.log, fmt.Sprintf("  %d: returned %v", id, want))
		s.pending = false
		s.cancel()
		s.cancel = nil
	}
}

// compare checks the manager against the model.
func (mt *modelTest) compare() {
	if mt.t.Failed() {
		return
	}
	txns := make([]*Txn, len(mt.sims))
	for i, s := range mt.sims {
		txns[i] = s.txn
	}
	if err := mt.m.check(txns...); err != nil {
		mt.fail("invariants: %v", err)
	}
	if got, want := mt.m.snapshot(), mt.ref.snapshot(); !reflect.DeepEqual(got, want) {
		mt.fail("state differs\n  manager %v\n  model   %v", got, want)
	}
	if got, want := mt.m.Stats(), mt.ref.stats; got != want {
		mt.fail("stats %v, the model %v", got, want)
	}
	for _, s := range mt.sims {
		if s.pending {
			continue
		}
		if got, want := s.txn.Held(), mt.ref.held(s.txn.id); got != want {
			mt.fail("txn %d: Held %d, the model %d", s.txn.id, got, want)
		}
	}
}
