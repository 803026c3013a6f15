package server

import (
	"log/slog"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso/internal/bytesize"
)

// The per-statement memory limit.
//
// Go cannot say which goroutine holds which memory, and the engine's
// operators that hold rows (sorts, GROUP BY, DISTINCT, joins, subquery
// caches, result batches, GROUP_CONCAT and JSON_ARRAYAGG) do not count
// what they hold, so the limit is a watchdog on the live heap: the memory
// the garbage collector found reachable at the end of its last cycle
// (runtime/metrics /gc/heap/live:bytes). While statements run, memoryWatch
// samples it every memoryTick; each statement remembers the lowest value
// seen since it began, and when the live heap has grown past that by more
// than the limit (Config.MaxQueryMemory, default 1 GiB), the
// youngest such statement (the one whose whole life saw the growth) is
// stopped with error 3170 (MySQL's ER_CAPACITY_EXCEEDED) and the event is
// logged. No other statement is stopped until that one has ended and a
// garbage collection has run, so that memory it leaves behind is not
// counted against the others.
//
// What it counts and what it does not:
//
//   - It counts all the heap that grows while a statement runs: the
//     rows it buffers, the values it builds, and what other statements
//     running meanwhile allocate and keep. Two concurrent statements
//     that each stay under the limit can together pass it; the younger
//     is then stopped. A statement alone is measured exactly (up to the
//     caches of the server that it fills: tables and chunks it reads).
//   - It sees growth only when a garbage collection ends, which the
//     growth itself brings about (with GOGC=100, each time the heap
//     doubles): a statement is stopped after its memory passed the
//     limit, by up to about the limit again. With GOGC=off and no memory
//     limit of the runtime's, collections may never run, and neither does
//     this limit.
//   - Memory outside Go's heap (ICU's, for REGEXP) is not counted.
//   - The statement stops when it next looks at its context (see
//     sqlserver's interrupt.go); a value built in one step (REPEAT and
//     the like) is bounded by max_allowed_packet instead (sqlserver's
//     packetlimit.go).

// DefaultMaxQueryMemory is the per-statement memory limit when none is
// configured.
const DefaultMaxQueryMemory = 1 << 30

// memoryTick is how often memoryWatch samples the live heap while
// statements run.
const memoryTick = 20 * time.Millisecond

// liveHeap is the runtime metric memoryWatch samples.
const liveHeap = "/gc/heap/live:bytes"

// memoryWatch stops statements under which the live heap grew by more
// than limit bytes.
type memoryWatch struct {
	limit uint64
	log   *slog.Logger

	mu      sync.Mutex
	running map[*statement]struct{}
	stopped *statement // stopped for memory and still running, or nil

	wake chan struct{} // a statement began (buffered: 1)
	done chan struct{} // closed by close
	exit chan struct{} // closed when loop returns
}

func newMemoryWatch(limit uint64, log *slog.Logger) *memoryWatch {
	w := &memoryWatch{limit: limit, log: log, running: map[*statement]struct{}{},
		wake: make(chan struct{}, 1), done: make(chan struct{}), exit: make(chan struct{})}
	go w.loop()
	return w
}

// close stops the watch.
func (w *memoryWatch) close() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	<-w.exit
}

// readLive returns the live heap in bytes.
func readLive() uint64 {
	s := []metrics.Sample{{Name: liveHeap}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// add watches st from now.
func (w *memoryWatch) add(st *statement) {
	live := readLive()
	w.mu.Lock()
	st.base = live
	w.running[st] = struct{}{}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// remove stops watching st.
func (w *memoryWatch) remove(st *statement) {
	w.mu.Lock()
	delete(w.running, st)
	w.mu.Unlock()
}

// loop samples the heap while statements run, and sleeps while none do.
func (w *memoryWatch) loop() {
	defer close(w.exit)
	t := time.NewTimer(memoryTick)
	defer t.Stop()
	for {
		w.mu.Lock()
		idle := len(w.running) == 0 && w.stopped == nil
		w.mu.Unlock()
		if idle {
			select {
			case <-w.wake:
			case <-w.done:
				return
			}
		}
		t.Reset(memoryTick)
		select {
		case <-t.C:
		case <-w.done:
			return
		}
		w.check()
	}
}

// check stops the youngest statement that saw the live heap grow by more
// than the limit.
func (w *memoryWatch) check() {
	live := readLive()
	w.mu.Lock()
	if st := w.stopped; st != nil {
		_, running := w.running[st]
		if !running {
			w.stopped = nil
		}
		w.mu.Unlock()
		if !running {
			// Let the stopped statement's memory go before judging others.
			runtime.GC()
		}
		return
	}
	var victim *statement
	var grown uint64
	for st := range w.running {
		st.base = min(st.base, live)
		if g := live - st.base; g > w.limit && (victim == nil || st.start.After(victim.start)) {
			victim, grown = st, g
		}
	}
	w.stopped = victim
	w.mu.Unlock()
	if victim == nil {
		return
	}
	if victim.stop(memoryError(w.limit, grown)) {
		w.log.Warn("statement stopped by the memory limit", "conn", victim.conn, "query", truncate(victim.query, 200),
			"limit", w.limit, "heap_growth", grown, "running_for", time.Since(victim.start).Round(time.Millisecond))
	}
}

// memoryError is the error of a statement stopped by the memory limit.
func memoryError(limit, grown uint64) *mysql.SQLError {
	return mysql.NewSQLError(3170, "HY000", "Memory capacity of %d bytes for 'max_query_memory' exceeded. The server's memory grew by %s while the statement ran; narrow it (a WHERE, a LIMIT, fewer or smaller rows to sort or group) or raise the limit (--max-query-memory, or behavior.max_query_memory in the config file)",
		limit, bytesize.Format(grown))
}
