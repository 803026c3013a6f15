package eventindex

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/eventload"
	"github.com/verso-db/verso/prolly"
)

// The load benchmark follows the shape of KurrentDB's secondary-index load
// test, scaled to this machine: 10 categories, up to 1,000 streams per
// category, 10 event types per category (T0..T9, shared names, so a type
// spans every category), appends in batches of 50 events to one stream,
// about 400 bytes of JSON per event. Run it with
//
//	go test -run '^$' -bench BenchmarkEventLoad -benchtime 1x ./eventindex/
//
// EVENTINDEX_BENCH_EVENTS sets the number of events (default 1,000,000).
// It prints one table; every store is a chunks.FileStore in a temporary
// folder, every commit synced. Reads are also rated per CPU second of the
// process (all threads, getrusage), which a busy shared machine disturbs
// less than the wall clock.

// loadBatch is the workload's batch size (package internal/eventload).
const loadBatch = eventload.BatchSize

type loadBatchSpec = eventload.Batch

func loadWorkload(n int) []loadBatchSpec { return eventload.Batches(n) }

func loadPayload(i int) []byte { return eventload.Payload(i) }

func loadEvents(spec *loadBatchSpec, base int) []EventData {
	evs := make([]EventData, loadBatch)
	for j := range evs {
		evs[j] = EventData{Type: spec.Types[j], Data: eventload.Payload(base + j), Metadata: eventload.Metadata}
	}
	return evs
}

func benchEvents(b *testing.B) int {
	n := 1_000_000
	if s := os.Getenv("EVENTINDEX_BENCH_EVENTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	return n / loadBatch * loadBatch
}

func openBenchStore(b *testing.B) (*commitgraph.DB, *chunks.FileStore) {
	db, fs, _ := openTimedStore(b)
	return db, fs
}

// openTimedStore is openBenchStore whose chunk store also adds up the
// time spent in its Commit: writing the commit's buffered chunks and the
// root record to the journal, and the fdatasync.
func openTimedStore(b *testing.B) (*commitgraph.DB, *chunks.FileStore, *timedStore) {
	fs, err := chunks.OpenFileStore(b.TempDir(), chunks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ts := &timedStore{Store: fs}
	db := commitgraph.New(ts)
	if _, err := db.Init(ctx, "", commitgraph.Meta{}); err != nil {
		b.Fatal(err)
	}
	ts.commits = 0
	return db, fs, ts
}

type timedStore struct {
	chunks.Store
	commits  time.Duration
	nCommits int
}

func (t *timedStore) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	start := time.Now()
	err := t.Store.Commit(ctx, newRoot, expected)
	t.commits += time.Since(start)
	t.nCommits++
	return err
}

// openMemoryStore is openBenchStore over a memory store: no file and
// no sync, so what is left of a commit is its CPU work.
func openMemoryStore(b *testing.B) *commitgraph.DB {
	db := commitgraph.New(chunks.NewMemoryStore())
	if _, err := db.Init(ctx, "", commitgraph.Meta{}); err != nil {
		b.Fatal(err)
	}
	return db
}

// mapBytes returns the bytes of a map's nodes (uncompressed) and its node
// count.
func mapBytes(b *testing.B, m prolly.Map) (uint64, int) {
	var total uint64
	nodes := 0
	cs := m.NodeStore().Store()
	err := m.WalkNodes(ctx, func(a chunks.Address, level int) (bool, error) {
		c, err := cs.Get(ctx, a)
		total += uint64(len(c))
		nodes++
		return true, err
	})
	if err != nil {
		b.Fatal(err)
	}
	return total, nodes
}

type loadRow struct{ what, ours, linkTo string }

func BenchmarkEventLoad(b *testing.B) {
	n := benchEvents(b)
	work := loadWorkload(n)
	// The events are made before any timer starts (about 450 MB at 1M).
	all := make([][]EventData, len(work))
	for i := range work {
		all[i] = loadEvents(&work[i], i*loadBatch)
	}
	var rows []loadRow
	add := func(what, ours, link string) { rows = append(rows, loadRow{what, ours, link}) }
	rate := func(events int, d time.Duration) string {
		return fmt.Sprintf("%.0f", float64(events)/d.Seconds())
	}
	for b.Loop() {
		rows = rows[:0]
		// 1. One commit per batch of 50 (a prefix of the workload).
		perBatch := min(len(work), 2000)
		db, fs, ts := openTimedStore(b)
		s, err := OpenStore(ctx, db, "main")
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for i := 0; i < perBatch; i++ {
			if _, err := s.Append(ctx, work[i].Stream, Any, all[i]); err != nil {
				b.Fatal(err)
			}
		}
		d1 := time.Since(start)
		s.Close()
		fs.Close()
		ldb, lfs, lts := openTimedStore(b)
		start = time.Now()
		lk := newLinkLog(ldb)
		for i := 0; i < perBatch; i++ {
			lk.append(b, &work[i], all[i])
			lk.commit(b)
		}
		ld1 := time.Since(start)
		lfs.Close()
		inCommit := func(t *timedStore, d time.Duration) string {
			return fmt.Sprintf("%.0f%% (%.2f ms a commit)", 100*t.commits.Seconds()/d.Seconds(), t.commits.Seconds()*1e3/float64(t.nCommits))
		}
		add(fmt.Sprintf("append, 1 commit per batch of 50 (first %d events), events/s", perBatch*loadBatch), rate(perBatch*loadBatch, d1), rate(perBatch*loadBatch, ld1))
		add("of which in the chunk store's Commit (journal write + fdatasync)", inCommit(ts, d1), inCommit(lts, ld1))
		// The same on a memory store: the CPU work of the commits alone.
		mdb := openMemoryStore(b)
		if s, err = OpenStore(ctx, mdb, "main"); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		for i := 0; i < perBatch; i++ {
			if _, err := s.Append(ctx, work[i].Stream, Any, all[i]); err != nil {
				b.Fatal(err)
			}
		}
		md1 := time.Since(start)
		s.Close()
		start = time.Now()
		mlk := newLinkLog(openMemoryStore(b))
		for i := 0; i < perBatch; i++ {
			mlk.append(b, &work[i], all[i])
			mlk.commit(b)
		}
		mld1 := time.Since(start)
		add("append, 1 commit per batch of 50, memory store (no file, no sync), events/s", rate(perBatch*loadBatch, md1), rate(perBatch*loadBatch, mld1))

		// 2. One commit per 10,000 events, the whole workload.
		db, fs, ts = openTimedStore(b)
		s, err = OpenStore(ctx, db, "main")
		if err != nil {
			b.Fatal(err)
		}
		per := 10_000 / loadBatch
		start = time.Now()
		for i := 0; i < len(work); i += per {
			if _, err := s.Write(ctx, "load", func(bt *Batch) error {
				for j := i; j < min(i+per, len(work)); j++ {
					if _, err := bt.Append(ctx, work[j].Stream, Any, all[j]); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		d2 := time.Since(start)
		l := s.Log()
		ldb, lfs, lts = openTimedStore(b)
		lk = newLinkLog(ldb)
		start = time.Now()
		for i := 0; i < len(work); i++ {
			lk.append(b, &work[i], all[i])
			if (i+1)%per == 0 || i == len(work)-1 {
				lk.commit(b)
			}
		}
		ld2 := time.Since(start)
		add(fmt.Sprintf("append, 1 commit per 10,000 events (%d events), events/s", n), rate(n, d2), rate(n, ld2))
		add("of which in the chunk store's Commit (journal write + fdatasync)", inCommit(ts, d2), inCommit(lts, ld2))

		// Sizes and write operations.
		logB, _ := mapBytes(b, l.log)
		catB, _ := mapBytes(b, l.byCat)
		typB, _ := mapBytes(b, l.byType)
		strB, _ := mapBytes(b, l.byStream)
		idB, _ := mapBytes(b, l.byID)
		lLogB, _ := mapBytes(b, lk.log)
		lStrB, _ := mapBytes(b, lk.byStream)
		lIDB, _ := mapBytes(b, lk.byID)
		add("log records per event", "1", fmt.Sprintf("%.0f", float64(lk.log.Count())/float64(n)))
		add("map writes (puts) per event", "5 (log, stream, category, type, id)", fmt.Sprintf("%.0f (3 log, 3 stream, 1 id)", float64(lk.log.Count()*2+lk.byID.Count())/float64(n)))
		add("bytes of the log (events), MB", mb(logB), mb(lLogB)+" (events + links)")
		add("bytes of category + type indexes, MB", fmt.Sprintf("%s + %s = %.1f%% of the log", mb(catB), mb(typB), 100*float64(catB+typB)/float64(logB)),
			fmt.Sprintf("links in the log: %s", mb(lLogB-logB)))
		add("bytes of stream + event-id indexes, MB", fmt.Sprintf("%s + %s", mb(strB), mb(idB)), fmt.Sprintf("%s + %s", mb(lStrB), mb(lIDB)))
		add("bytes per event, all maps", fmt.Sprintf("%.0f", float64(logB+catB+typB+strB+idB)/float64(n)), fmt.Sprintf("%.0f", float64(lLogB+lStrB+lIDB)/float64(n)))
		add("file store on disk (S2-compressed, with garbage), MB", mb(uint64(fs.Stats().JournalBytes+fs.Stats().TableBytes)), mb(uint64(lfs.Stats().JournalBytes+lfs.Stats().TableBytes)))

		// 3. Rebuild the indexes from the log.
		start = time.Now()
		r, err := Rebuild(ctx, l)
		if err != nil {
			b.Fatal(err)
		}
		d3 := time.Since(start)
		if !r.Equal(l) {
			b.Fatal("rebuilt indexes differ")
		}
		add("rebuild all indexes from the log, events/s", rate(n, d3), "-")

		// 4. Reads in pages of 2000, from node stores with a cache big
		// enough for the whole log: the first pass reads the nodes from
		// the file store (cold), the second from the cache (warm).
		rl, err := LoadLog(ctx, prolly.NewNodeStoreCache(fs, 2<<30), mustRoot(b, db))
		if err != nil {
			b.Fatal(err)
		}
		lk.reopen(b, prolly.NewNodeStoreCache(lfs, 2<<30))
		for _, c := range []struct {
			what string
			f    Filter
			link string
		}{
			{"read $idx-ce-cat3", Filter{Category: "cat3"}, "$ce-cat3"},
			{"read $idx-et-T5", Filter{Type: "T5"}, "$et-T5"},
			{"read category cat3 AND type T5", Filter{Category: "cat3", Type: "T5"}, ""},
		} {
			var res [2]string
			var got int
			var d, cpu [2]time.Duration
			for pass := 0; pass < 2; pass++ {
				start = time.Now()
				cpu0 := cpuTime()
				got = 0
				f := c.f
				for {
					page, next, err := rl.Read(ctx, f, 2000)
					if err != nil {
						b.Fatal(err)
					}
					got += len(page)
					if len(page) < 2000 {
						break
					}
					f.From = next
				}
				d[pass] = time.Since(start)
				cpu[pass] = cpuTime() - cpu0
			}
			link := "not possible"
			if c.link != "" {
				var ld, lcpu [2]time.Duration
				for pass := 0; pass < 2; pass++ {
					start = time.Now()
					cpu0 := cpuTime()
					lgot := lk.read(b, c.link)
					ld[pass] = time.Since(start)
					lcpu[pass] = cpuTime() - cpu0
					if lgot != got {
						b.Fatalf("%s: linkTo read %d events, index %d", c.what, lgot, got)
					}
				}
				link = fmt.Sprintf("%s warm (%.1fx slower), %s cold (%.1fx slower); per CPU second %s warm (%.1fx), %s cold (%.1fx)",
					rate(got, ld[1]), ld[1].Seconds()/d[1].Seconds(), rate(got, ld[0]), ld[0].Seconds()/d[0].Seconds(),
					rate(got, lcpu[1]), lcpu[1].Seconds()/cpu[1].Seconds(), rate(got, lcpu[0]), lcpu[0].Seconds()/cpu[0].Seconds())
			}
			res[0] = fmt.Sprintf("%s warm, %s cold; per CPU second %s warm, %s cold", rate(got, d[1]), rate(got, d[0]), rate(got, cpu[1]), rate(got, cpu[0]))
			add(fmt.Sprintf("%s (%d events), events/s", c.what, got), res[0], link)
		}
		lfs.Close()
		s.Close()
		fs.Close()
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n| measure | per-commit indexes | linkTo-style baseline |\n| --- | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", r.what, r.ours, r.linkTo)
	}
	fmt.Print(sb.String())
}

func mb(n uint64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }

// linkLog is the linkTo-style baseline: one log, and for each event two
// more log records, in the streams $ce-<category> and $et-<type>, whose
// data points to the original by stream and number ("n@stream"). A read
// by category follows the link stream's entries, reads each link record,
// then resolves it through the stream index to the original.
type linkLog struct {
	db                  *commitgraph.DB
	log, byStream, byID prolly.Map
	ol, os, oi          overlay
	next                Position
	nums                map[string]EventNumber
	now                 time.Time
}

func newLinkLog(db *commitgraph.DB) *linkLog {
	m := prolly.NewMap(db.NodeStore())
	l := &linkLog{db: db, log: m, byStream: m, byID: m, next: 1, nums: map[string]EventNumber{}, now: time.Now().UTC().Truncate(time.Microsecond)}
	l.ol, l.os, l.oi = newOverlay(m), newOverlay(m), newOverlay(m)
	return l
}

func (l *linkLog) put(stream, typ string, data []byte, meta []byte) {
	id := NewEventID()
	n := l.nums[stream]
	l.nums[stream] = n + 1
	e := Event{Stream: stream, Number: n, ID: id, Type: typ, Data: data, Metadata: meta, Created: l.now}
	l.ol.put(logKey(l.next), encodeEvent(nil, &e))
	l.os.put(streamKey(stream, n), encodePos(l.next))
	l.next++
}

func (l *linkLog) append(b *testing.B, spec *loadBatchSpec, evs []EventData) {
	for j, ev := range evs {
		if err := checkJSON("data", ev.Data); err != nil {
			b.Fatal(err)
		}
		n := l.nums[spec.Stream]
		id := NewEventID()
		e := Event{Stream: spec.Stream, Number: n, ID: id, Type: spec.Types[j], Data: ev.Data, Metadata: ev.Metadata, Created: l.now}
		l.nums[spec.Stream] = n + 1
		p := l.next
		l.next++
		l.ol.put(logKey(p), encodeEvent(nil, &e))
		l.os.put(streamKey(spec.Stream, n), encodePos(p))
		l.oi.put(idKey(spec.Stream, id), encodePos(p))
		link := []byte(fmt.Sprintf("%d@%s", n, spec.Stream))
		l.put("$ce-"+Category(spec.Stream), "$>", link, nil)
		l.put("$et-"+spec.Types[j], "$>", link, nil)
	}
}

func (l *linkLog) commit(b *testing.B) {
	// Written concurrently, as Batch.Log writes its maps.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, p := range []struct {
		o *overlay
		m *prolly.Map
	}{{&l.ol, &l.log}, {&l.os, &l.byStream}, {&l.oi, &l.byID}} {
		wg.Go(func() { *p.m, errs[i] = p.o.apply(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	l.ol, l.os, l.oi = newOverlay(l.log), newOverlay(l.byStream), newOverlay(l.byID)
	head, err := l.db.Head(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	root := commitgraph.EmptyRoot(l.db.NodeStore())
	if root, err = root.Edit(ctx, commitgraph.RootEdit{Name: "link/log", Addr: l.log.Address()},
		commitgraph.RootEdit{Name: "link/by-stream", Addr: l.byStream.Address()},
		commitgraph.RootEdit{Name: "link/by-id", Addr: l.byID.Address()}); err != nil {
		b.Fatal(err)
	}
	if _, err := l.db.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", Root: root.Address(), ExpectedHead: head}); err != nil {
		b.Fatal(err)
	}
}

// reopen reads the baseline's maps through ns.
func (l *linkLog) reopen(b *testing.B, ns *prolly.NodeStore) {
	var err error
	if l.log, err = prolly.OpenMap(ctx, ns, l.log.Address()); err != nil {
		b.Fatal(err)
	}
	if l.byStream, err = prolly.OpenMap(ctx, ns, l.byStream.Address()); err != nil {
		b.Fatal(err)
	}
}

func mustRoot(b *testing.B, db *commitgraph.DB) commitgraph.RootValue {
	c, err := db.HeadCommit(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	r, err := db.OpenRoot(ctx, c.Root)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// read reads a link stream in pages of 2000, resolving every link: the
// link stream's index gives the link records' positions, a log cursor
// reads each link record ("n@stream"), the stream index gives the
// original's position, and a second log cursor reads the original. Both
// cursors are the seeking cursors our own reads use (link and original
// positions both ascend along a link stream), so the comparison is of
// the designs, not of the log readers.
func (l *linkLog) read(b *testing.B, stream string) int {
	got := 0
	from := EventNumber(0)
	lg := Log{log: l.log}
	var links, origs logCursor
	var link, orig Event
	for {
		page := 0
		it := l.byStream.Iter(ctx, prolly.Range{Start: streamKey(stream, from), Stop: prolly.PrefixRange(nameKey(stream)).Stop})
		for page < 2000 && it.Next(ctx) {
			p, err := decodePos(it.Value())
			if err != nil {
				b.Fatal(err)
			}
			if err := links.get(ctx, lg, p, &link); err != nil {
				b.Fatal(err)
			}
			at := strings.IndexByte(string(link.Data), '@')
			num, _ := strconv.ParseUint(string(link.Data[:at]), 10, 64)
			v, ok, err := l.byStream.Get(ctx, streamKey(string(link.Data[at+1:]), EventNumber(num)))
			if err != nil || !ok {
				b.Fatal("dangling link", err)
			}
			op, _ := decodePos(v)
			if err := origs.get(ctx, lg, op, &orig); err != nil {
				b.Fatal(err)
			}
			page++
			from++
		}
		if err := it.Err(); err != nil {
			b.Fatal(err)
		}
		got += page
		if page < 2000 {
			return got
		}
	}
}

var _ = context.Background
