package verso_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/testseed"
)

// gcModel is the reference of TestGCModel: the rows of table kv in each
// branch's working root and head, and the addresses that must be gone
// after the next collection.
type gcModel struct {
	working, head map[string]map[int64]int64
	// garbage holds chunks only a removed thing reached: a deleted
	// branch's own commits, a head dropped by reset or amend, a table
	// dropped before any commit had it, events removed by retention
	// before any commit had them.
	garbage map[verso.Hash]string
}

func copyRows(m map[int64]int64) map[int64]int64 {
	out := make(map[int64]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestGCModel runs random histories (commits on branches, scratch
// branches deleted, heads reset and amended, tables dropped, events
// removed by retention) and collects at random moments while another
// session commits to branch bg. After each collection: the database
// checks clean, every branch's working rows and head rows are the model's
// (bg's with every row whose commit was acknowledged), everything the
// model says only a removed thing reached is gone, a second collection
// finds nothing more, and DB.Usage's walk of what the refs reach, by
// kind, finds no chunk outside it.
func TestGCModel(t *testing.T) {
	for _, kind := range []string{"file", "memory"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			r := rand.New(rand.NewSource(int64(testseed.Seed(t))))
			var db *verso.DB
			var err error
			if kind == "file" {
				db, err = verso.Init(t.TempDir(), verso.Options{})
			} else {
				db, err = verso.OpenMemory("gc", verso.Options{})
			}
			ok(t, err)
			defer db.Close()
			createKV(t, db, "main", "kv")
			commitAll(t, db, "main", "kv")
			ok(t, db.CreateBranch(ctx, "bg", "main"))
			m := &gcModel{
				working: map[string]map[int64]int64{"main": {}, "bg": {}},
				head:    map[string]map[int64]int64{"main": {}, "bg": {}},
				garbage: map[verso.Hash]string{},
			}
			bgNext := int64(100000)
			scratch, collections, gone, concurrent := 0, 0, 0, 0
			for step := 0; step < 80; step++ {
				branches := make([]string, 0, len(m.working))
				for b := range m.working {
					branches = append(branches, b)
				}
				sort.Strings(branches)
				b := branches[r.Intn(len(branches))]
				switch op := r.Intn(10); {
				case op < 4: // a row, in the working set
					k, v := int64(r.Intn(30)), r.Int63()
					put(t, db, b, "kv", k, v)
					m.working[b][k] = v
				case op < 6: // a commit
					if len(m.working[b]) == len(m.head[b]) && equalRows(m.working[b], m.head[b]) {
						continue
					}
					commitAll(t, db, b, fmt.Sprintf("step %d", step))
					m.head[b] = copyRows(m.working[b])
				case op == 6: // a scratch branch from main's head, with commits of its own
					scratch++
					name := fmt.Sprintf("scratch%d", scratch)
					ok(t, db.CreateBranch(ctx, name, "main"))
					m.working[name], m.head[name] = copyRows(m.head["main"]), copyRows(m.head["main"])
					for i := 0; i < 1+r.Intn(3); i++ {
						k, v := int64(100+r.Intn(30)), r.Int63()
						put(t, db, name, "kv", k, v)
						m.working[name][k] = v
						c := commitAll(t, db, name, "scratch")
						m.head[name] = copyRows(m.working[name])
						_ = c
					}
				case op == 7 && strings.HasPrefix(b, "scratch"): // delete a scratch branch
					c, err := db.Resolve(ctx, b, "")
					ok(t, err)
					for c != nil && len(c.Parents) > 0 {
						onMain, err := db.Graph().IsAncestor(ctx, c.Addr, mustHead(t, db, "main"))
						ok(t, err)
						if onMain {
							break
						}
						m.garbage[c.Addr] = "commit of deleted branch " + b
						if c, err = db.Graph().ReadCommit(ctx, c.Parents[0]); err != nil {
							t.Fatal(err)
						}
					}
					ok(t, db.DeleteBranch(ctx, b, verso.BranchOptions{Force: true}))
					delete(m.working, b)
					delete(m.head, b)
				case op == 8 && strings.HasPrefix(b, "scratch"): // reset --hard HEAD~1, or amend, on a scratch branch
					c, err := db.Resolve(ctx, b, "")
					ok(t, err)
					onMain, err := db.Graph().IsAncestor(ctx, c.Addr, mustHead(t, db, "main"))
					ok(t, err)
					if onMain {
						continue
					}
					m.garbage[c.Addr] = "head replaced on " + b
					txn, err := db.Begin(ctx, b)
					ok(t, err)
					if r.Intn(2) == 0 {
						ok(t, txn.Reset(ctx, verso.ResetOptions{Rev: "HEAD~1", Hard: true}))
						ok(t, txn.Commit(ctx))
						parent, err := db.Resolve(ctx, b, "")
						ok(t, err)
						m.head[b] = rowsAt(t, db, parent)
						m.working[b] = copyRows(m.head[b])
					} else {
						_, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: true, Message: "amended", Author: jane, StageAll: true, AllowEmpty: true})
						ok(t, err)
						m.head[b] = copyRows(m.working[b])
					}
				case op == 9: // a table made and dropped, or events removed, before any commit
					txn, err := db.Begin(ctx, b)
					ok(t, err)
					if r.Intn(2) == 0 {
						name := fmt.Sprintf("tmp%d", step)
						ok(t, txn.CreateTable(ctx, name, kvSchema()))
						for i := 0; i < 20; i++ {
							ok(t, txn.Put(ctx, name, verso.Int(int64(i)), verso.Int(r.Int63())))
						}
						a, found, err := txn.Root().Get(ctx, commitgraph.TablePrefix+name)
						ok(t, err)
						if !found {
							t.Fatal("table not in the root")
						}
						m.garbage[a] = "table dropped before a commit"
						root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + name, Delete: true})
						ok(t, err)
						txn.SetRoot(root)
					} else {
						stream := fmt.Sprintf("gc-%d", step)
						var evs []verso.EventData
						for i := 0; i < 5; i++ {
							evs = append(evs, verso.EventData{Type: "e", Data: []byte(fmt.Sprintf(`{"n":%d}`, r.Int63()))})
						}
						_, err := txn.AppendEvents(ctx, stream, verso.AnyVersion, evs...)
						ok(t, err)
						l, err := txn.Events(ctx)
						ok(t, err)
						before := l.Addresses()
						ok(t, txn.SetStreamMetadata(ctx, stream, verso.StreamMetadata{MaxCount: 1}))
						l, err = txn.Events(ctx)
						ok(t, err)
						kept := map[verso.Hash]bool{}
						for _, a := range l.Addresses() {
							kept[a] = true
						}
						for _, a := range before {
							if !kept[a] {
								m.garbage[a] = "events removed by retention before a commit"
							}
						}
					}
					ok(t, txn.Commit(ctx))
				}
				if r.Intn(6) != 0 {
					continue
				}
				// A session commits rows to bg while the collection runs.
				stop := make(chan struct{})
				done := make(chan error, 1)
				var acked []int64
				go func() {
					for {
						select {
						case <-stop:
							done <- nil
							return
						default:
						}
						txn, err := db.Begin(ctx, "bg")
						if err == nil {
							err = txn.Put(ctx, "kv", verso.Int(bgNext), verso.Int(bgNext*3))
						}
						if err == nil {
							err = txn.Commit(ctx)
						}
						if err != nil {
							done <- err
							return
						}
						acked = append(acked, bgNext)
						bgNext++
					}
				}()
				rep, err := db.GC(ctx, verso.GCOptions{})
				close(stop)
				ok(t, <-done)
				ok(t, err)
				for _, k := range acked {
					m.working["bg"][k] = k * 3
				}
				concurrent += len(acked)
				checkGCModel(t, db, m, step)
				if rep.ChunksAfter > rep.ChunksBefore+rep.Late {
					t.Fatalf("step %d: %d chunks after, %d before and %d late", step, rep.ChunksAfter, rep.ChunksBefore, rep.Late)
				}
				// Quiet now: a second collection drops what the first kept
				// because it was written during it, leaves nothing that the
				// refs do not reach, and a third finds nothing more.
				_, err = db.GC(ctx, verso.GCOptions{})
				ok(t, err)
				u, err := db.Usage(ctx)
				ok(t, err)
				if u.Garbage.Chunks != 0 {
					t.Fatalf("step %d: %d chunks (%d bytes) that nothing reaches survived a quiet collection", step, u.Garbage.Chunks, u.Garbage.Bytes)
				}
				again, err := db.GC(ctx, verso.GCOptions{})
				ok(t, err)
				if again.ChunksAfter != again.ChunksBefore {
					t.Fatalf("step %d: a third collection went from %d to %d chunks", step, again.ChunksBefore, again.ChunksAfter)
				}
				collections++
				gone += len(m.garbage)
				m.garbage = map[verso.Hash]string{}
			}
			if collections == 0 || gone == 0 || concurrent == 0 {
				t.Fatalf("%d collections, %d chunks checked gone, %d concurrent commits: the history exercised nothing", collections, gone, concurrent)
			}
			t.Logf("%d collections; %d chunks checked gone; %d commits during collections", collections, gone, concurrent)
		})
	}
}

func equalRows(a, b map[int64]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func mustHead(t *testing.T, db *verso.DB, branch string) verso.Hash {
	t.Helper()
	c, err := db.Resolve(context.Background(), branch, "")
	ok(t, err)
	return c.Addr
}

// rowsAt returns the rows of kv at commit c.
func rowsAt(t *testing.T, db *verso.DB, c *verso.Commit) map[int64]int64 {
	t.Helper()
	ctx := context.Background()
	txn, err := db.BeginAt(ctx, c)
	ok(t, err)
	defer txn.Rollback()
	return rowsOf(t, txn)
}

func rowsOf(t *testing.T, txn *verso.Txn) map[int64]int64 {
	t.Helper()
	ctx := context.Background()
	tb, err := txn.Table(ctx, "kv")
	ok(t, err)
	out := map[int64]int64{}
	it := tb.Rows().IterAll(ctx)
	for it.Next(ctx) {
		row, err := tb.Decode(ctx, it.Key(), it.Value())
		ok(t, err)
		out[row[0].AsInt()] = row[1].AsInt()
	}
	ok(t, it.Err())
	return out
}

func checkGCModel(t *testing.T, db *verso.DB, m *gcModel, step int) {
	t.Helper()
	ctx := context.Background()
	rep, err := db.Check(ctx, verso.CheckOptions{})
	ok(t, err)
	if !rep.OK() {
		t.Fatalf("step %d: check after the collection: %v", step, rep.Problems)
	}
	for b, want := range m.working {
		txn, err := db.Begin(ctx, b)
		ok(t, err)
		if got := rowsOf(t, txn); !equalRows(got, want) {
			t.Fatalf("step %d: branch %s working rows %v, want %v", step, b, got, want)
		}
		txn.Rollback()
		head, err := db.Resolve(ctx, b, "")
		ok(t, err)
		if got := rowsAt(t, db, head); !equalRows(got, m.head[b]) {
			t.Fatalf("step %d: branch %s head rows %v, want %v", step, b, got, m.head[b])
		}
		log, err := db.Log(ctx, b, 0)
		ok(t, err)
		if len(log) == 0 {
			t.Fatalf("step %d: branch %s has no history", step, b)
		}
	}
	for a, why := range m.garbage {
		has, err := db.Store().Has(ctx, a)
		ok(t, err)
		if has {
			t.Fatalf("step %d: %s (%s) survived the collection", step, a, why)
		}
		// Nor may the graph's cache of decoded commits still hold it
		// (the model read the dropped commits before their collection).
		if _, err := db.Graph().ReadCommit(ctx, a); !errors.Is(err, commitgraph.ErrNotCommit) {
			t.Fatalf("step %d: %s (%s) still reads after the collection: %v", step, a, why, err)
		}
	}
}

// TestGCConcurrent collects again and again while four writers increment
// counters (GetForUpdate, Put, Commit): each counter ends equal to the
// increments acknowledged, and the database checks clean.
func TestGCConcurrent(t *testing.T) {
	ctx := context.Background()
	db, err := verso.Init(t.TempDir(), verso.Options{})
	ok(t, err)
	defer db.Close()
	createKV(t, db, "main", "c")
	for k := int64(0); k < 4; k++ {
		put(t, db, "main", "c", k, 0)
	}
	commitAll(t, db, "main", "counters")
	var acked [4]atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				k := int64((w + i) % 4)
				txn, err := db.Begin(ctx, "")
				if err != nil {
					errc <- err
					return
				}
				row, _, err := txn.GetForUpdate(ctx, "c", verso.Int(k))
				if err == nil {
					err = txn.Put(ctx, "c", verso.Int(k), verso.Int(row[1].AsInt()+1))
				}
				if err == nil {
					err = txn.Commit(ctx)
				} else {
					txn.Rollback()
				}
				var se *verso.SerializationError
				switch {
				case err == nil:
					acked[k].Add(1)
				case errors.As(err, &se), errors.Is(err, verso.ErrDeadlock), errors.Is(err, verso.ErrLockTimeout):
				default:
					errc <- err
					return
				}
				if i%50 == 0 && w == 0 {
					commitAll(t, db, "main", "more")
				}
			}
		}(w)
	}
	var pauses []time.Duration
	for i := 0; i < 8; i++ {
		rep, err := db.GC(ctx, verso.GCOptions{})
		ok(t, err)
		pauses = append(pauses, rep.Pause)
		time.Sleep(20 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	txn, err := db.Begin(ctx, "")
	ok(t, err)
	defer txn.Rollback()
	for k := int64(0); k < 4; k++ {
		row, _, err := txn.Get(ctx, "c", verso.Int(k))
		ok(t, err)
		if got, want := row[1].AsInt(), acked[k].Load(); got != want {
			t.Fatalf("counter %d is %d, %d increments were acknowledged", k, got, want)
		}
	}
	rep, err := db.Check(ctx, verso.CheckOptions{})
	ok(t, err)
	if !rep.OK() {
		t.Fatal(rep.Problems)
	}
	t.Logf("finish pauses: %v", pauses)
}

// TestGCWaitsForOlderTransactions: a transaction that began before the
// collection, with writes no root reaches yet, is waited for (and its
// commit then lands whole); one that stays open past GCOptions.Wait fails
// the collection, which changes nothing. The caller's own transaction is
// kept instead of waited for.
func TestGCWaitsForOlderTransactions(t *testing.T) {
	ctx := context.Background()
	db, err := verso.Init(t.TempDir(), verso.Options{})
	ok(t, err)
	defer db.Close()
	createKV(t, db, "main", "kv")
	commitAll(t, db, "main", "kv")

	older, err := db.Begin(ctx, "")
	ok(t, err)
	for k := int64(0); k < 50; k++ {
		ok(t, older.Put(ctx, "kv", verso.Int(k), verso.Int(k*k)))
	}
	fs := db.Store().(*chunks.FileStore)
	before := fs.Stats()
	_, err = db.GC(ctx, verso.GCOptions{Wait: 100 * time.Millisecond})
	if !errors.Is(err, verso.ErrGCWait) {
		t.Fatalf("collection beside an open transaction: %v, want ErrGCWait", err)
	}
	if after := fs.Stats(); after != before {
		t.Fatalf("a failed collection changed the store: %+v, then %+v", before, after)
	}

	done := make(chan error)
	go func() {
		_, err := db.GC(ctx, verso.GCOptions{Wait: 10 * time.Second})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the collection ended (%v) while an older transaction was open", err)
	default:
	}
	ok(t, older.Commit(ctx))
	ok(t, <-done)

	self, err := db.Begin(ctx, "")
	ok(t, err)
	ok(t, self.Put(ctx, "kv", verso.Int(999), verso.Int(1)))
	start := time.Now()
	_, err = db.GC(ctx, verso.GCOptions{Txns: []*verso.Txn{self}})
	ok(t, err)
	if time.Since(start) > 5*time.Second {
		t.Fatal("the collection waited for the caller's own transaction")
	}
	ok(t, self.Commit(ctx))

	txn, err := db.Begin(ctx, "")
	ok(t, err)
	defer txn.Rollback()
	rows := rowsOf(t, txn)
	if len(rows) != 51 || rows[7] != 49 || rows[999] != 1 {
		t.Fatalf("rows after the collections: %v", rows)
	}
	rep, err := db.Check(ctx, verso.CheckOptions{})
	ok(t, err)
	if !rep.OK() {
		t.Fatal(rep.Problems)
	}
}

// TestGCDroppedTransaction: a transaction the program forgets (neither
// committed nor rolled back) does not hold up collections for ever: Go's
// collector ends it. One the program still holds, open, makes a
// collection fail with ErrGCWait after GCOptions.Wait, changing nothing;
// once it ends, collections work again, and ending it twice (its cleanup
// and Rollback) counts once.
func TestGCDroppedTransaction(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "kv")
	func() {
		txn, err := db.Begin(ctx, "")
		ok(t, err)
		ok(t, txn.Put(ctx, "kv", verso.Int(1), verso.Int(1)))
	}()
	_, err := db.GC(ctx, verso.GCOptions{Wait: 5 * time.Second})
	ok(t, err)

	txn, err := db.Begin(ctx, "")
	ok(t, err)
	ok(t, txn.Put(ctx, "kv", verso.Int(2), verso.Int(2)))
	if _, err := db.GC(ctx, verso.GCOptions{Wait: 100 * time.Millisecond}); !errors.Is(err, verso.ErrGCWait) {
		t.Fatalf("collection beside an open transaction: %v, want ErrGCWait", err)
	}
	txn.Rollback()
	txn.Rollback()
	runtime.GC()
	held, err := db.Begin(ctx, "")
	ok(t, err)
	if _, err := db.GC(ctx, verso.GCOptions{Wait: 100 * time.Millisecond}); !errors.Is(err, verso.ErrGCWait) {
		t.Fatalf("collection beside a held transaction after a double rollback: %v, want ErrGCWait", err)
	}
	held.Rollback()
	_, err = db.GC(ctx, verso.GCOptions{Wait: time.Second})
	ok(t, err)
}

// TestAutoGC: with automatic collection on, a database whose writes are
// mostly garbage (one row rewritten with new text again and again)
// collects by itself, and its files stay within the growth bound.
func TestAutoGC(t *testing.T) {
	ctx := context.Background()
	const min = 256 << 10
	db, err := verso.Init(t.TempDir(), verso.Options{AutoGC: verso.AutoGC{Growth: 1.5, MinBytes: min}})
	ok(t, err)
	defer db.Close()
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		return txn.CreateTable(ctx, "t", &verso.Schema{
			Columns:    []verso.Column{{Name: "id", Type: "int", Kind: verso.KindInt}, {Name: "s", Type: "text", Kind: verso.KindString}},
			PrimaryKey: []int{0},
		})
	})
	r := rand.New(rand.NewSource(1))
	fs := db.Store().(*chunks.FileStore)
	var peak int64
	for i := 0; i < 600; i++ {
		buf := make([]byte, 4000)
		for j := range buf {
			buf[j] = byte('a' + r.Intn(26))
		}
		write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
			return txn.Put(ctx, "t", verso.Int(int64(i%3)), verso.String(string(buf)))
		})
		st := fs.Stats()
		peak = max(peak, st.JournalBytes+st.TableBytes)
	}
	deadline := time.Now().Add(10 * time.Second)
	for db.AutoGCRuns() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if db.AutoGCRuns() == 0 {
		t.Fatal("no automatic collection ran")
	}
	// 600 commits of about 4 KB each, mostly garbage: without collection
	// the files would pass 2.4 MB.
	if peak > 4*min {
		t.Fatalf("the files reached %d bytes", peak)
	}
	rep, err := db.Check(ctx, verso.CheckOptions{})
	ok(t, err)
	if !rep.OK() {
		t.Fatal(rep.Problems)
	}
	t.Logf("%d automatic collections; the files peaked at %d bytes", db.AutoGCRuns(), peak)

	off, err := verso.Init(t.TempDir(), verso.Options{AutoGC: verso.AutoGC{Off: true, MinBytes: 1}})
	ok(t, err)
	defer off.Close()
	createKV(t, off, "main", "kv")
	for i := 0; i < 50; i++ {
		put(t, off, "main", "kv", 1, int64(i))
	}
	if off.AutoGCRuns() != 0 {
		t.Fatal("a database with AutoGC.Off collected")
	}
}

// gcLog counts the automatic collections a database logs, young and full.
type gcLog struct {
	mu          sync.Mutex
	young, full int
}

func (l *gcLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *gcLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *gcLog) WithGroup(string) slog.Handler            { return l }
func (l *gcLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "automatic garbage collection" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "young" {
			l.mu.Lock()
			if a.Value.Bool() {
				l.young++
			} else {
				l.full++
			}
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

func (l *gcLog) counts() (young, full int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.young, l.full
}

// TestAutoGCYoung writes a stream of small updates over a table of a few
// hundred rows, as a busy server does: the automatic collections are
// mostly young ones (the journal only), with a full one now and then, the
// files stay bounded, nothing reachable is lost (Check), and every row
// reads back its last value, before and after a reopen.
func TestAutoGCYoung(t *testing.T) {
	ctx := context.Background()
	const min = 256 << 10
	dir := t.TempDir()
	log := &gcLog{}
	db, err := verso.Init(dir, verso.Options{AutoGC: verso.AutoGC{MinBytes: min}, Logger: slog.New(log)})
	ok(t, err)
	defer func() { db.Close() }()
	createKV(t, db, "main", "kv")
	const rows = 400
	want := map[int64]int64{}
	for i := range int64(rows) {
		put(t, db, "main", "kv", i, -i)
		want[i] = -i
	}
	r := rand.New(rand.NewSource(int64(testseed.Seed(t))))
	fs := db.Store().(*chunks.FileStore)
	var peak int64
	var maxTables int
	for i := 0; i < 4000; i++ {
		k, v := int64(r.Intn(rows)), int64(i)
		put(t, db, "main", "kv", k, v)
		want[k] = v
		st := fs.Stats()
		peak, maxTables = max(peak, st.JournalBytes+st.TableBytes), max(maxTables, st.Tables)
		if i%1000 == 999 {
			commitAll(t, db, "main", fmt.Sprintf("commit %d", i))
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for young, full := log.counts(); (young == 0 || full == 0) && time.Now().Before(deadline); young, full = log.counts() {
		put(t, db, "main", "kv", 0, want[0])
		time.Sleep(5 * time.Millisecond)
	}
	young, full := log.counts()
	t.Logf("%d young and %d full automatic collections; the files peaked at %d bytes in at most %d table files", young, full, peak, maxTables)
	if young == 0 || full == 0 || young < full {
		t.Fatalf("%d young and %d full collections: want mostly young ones, and some full ones", young, full)
	}
	if maxTables > 20 {
		t.Fatalf("%d table files", maxTables)
	}
	check := func(db *verso.DB) {
		t.Helper()
		rep, err := db.Check(ctx, verso.CheckOptions{})
		ok(t, err)
		if !rep.OK() {
			t.Fatal(rep.Problems)
		}
		for k, v := range want {
			if got := value(t, db, "main", "kv", k); got != v {
				t.Fatalf("row %d: %d, want %d", k, got, v)
			}
		}
	}
	check(db)
	ok(t, db.Close())
	db, err = verso.Open(dir, verso.Options{AutoGC: verso.AutoGC{Off: true}})
	ok(t, err)
	check(db)
}
