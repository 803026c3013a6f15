package server

import (
	"context"
	gosql "database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"
	_ "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/internal/eventload"
	"github.com/verso-db/verso/sqlserver"
)

// BenchmarkEventSQLRead measures reads of the event log by category, by
// event type and by both, in pages of 2000 events, over the MySQL protocol
// (a verso server on a file-backed database, the go-sql-driver client,
// every column read) from a client in the benchmark's process and from a
// client process (this test binary again, see TestMain), through the
// engine in process, and straight from eventindex (Log.Read) as the
// floor. The database holds the load
// (eventindex's BenchmarkEventLoad workload): 10 categories, up to 1,000
// streams per category, 10 event types (T0..T9, each spanning every
// category), batches of 50 events to one stream, ~400-byte JSON, written
// with one commit per 10,000 events. Run it with
//
//	go test -run '^$' -bench BenchmarkEventSQLRead -benchtime 1x ./server/
//
// EVENTINDEX_BENCH_EVENTS sets the number of events (default 1,000,000);
// EVENTINDEX_BENCH_CACHE the node cache of the database in bytes (default
// verso.DefaultCacheBytes; the server's --cache-size). Each iteration
// prints one pass: the first pass of a run reads a cold cache.
func BenchmarkEventSQLRead(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("EVENTINDEX_BENCH_EVENTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	n = n / eventload.BatchSize * eventload.BatchSize
	p, err := sqlserver.NewProvider(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	if s := os.Getenv("EVENTINDEX_BENCH_CACHE"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		p.SetCacheBytes(v)
	}
	e := sqlserver.NewEngine(p)
	b.Cleanup(func() { e.Close() })
	ctx := gms.NewContext(context.Background(), gms.WithSession(p.NewSession(gms.NewBaseSession())))
	exec := func(q string) []gms.Row {
		b.Helper()
		_, iter, _, err := e.Query(ctx, q)
		if err == nil {
			var rows []gms.Row
			if rows, err = gms.RowIterToRows(ctx, iter); err == nil {
				return rows
			}
		}
		b.Fatalf("%s: %v", q, err)
		return nil
	}
	exec("CREATE DATABASE db")
	ctx.SetCurrentDatabase("db")
	g, _ := p.CommitGraph("db")

	start := time.Now()
	store, err := eventindex.OpenStore(ctx, g, "main")
	if err != nil {
		b.Fatal(err)
	}
	work := eventload.Batches(n)
	per := 10_000 / eventload.BatchSize
	for i := 0; i < len(work); i += per {
		if _, err := store.Write(ctx, "load", func(bt *eventindex.Batch) error {
			for j := i; j < min(i+per, len(work)); j++ {
				if _, err := bt.Append(ctx, work[j].Stream, eventindex.Any, sqlLoadEvents(&work[j], j*eventload.BatchSize)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	load := time.Since(start)
	log := store.Log()
	store.Close()
	b.Logf("loaded %d events in %s (%.0f events/s, 1 commit per 10,000 events)", log.Count(), load.Round(time.Millisecond), float64(n)/load.Seconds())

	srv, err := New(p, Config{Address: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	go srv.Start()
	defer srv.Close()
	dsn := fmt.Sprintf("root@tcp(%s)/db?interpolateParams=true", srv.Addr())
	conn, err := gosql.Open("mysql", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)

	type read struct {
		name, filter string
		f            eventindex.Filter
	}
	reads := []read{
		{"category ($idx-ce-cat3)", "$idx-ce-cat3", eventindex.Filter{Category: "cat3"}},
		{"event type ($idx-et-T3)", "$idx-et-T3", eventindex.Filter{Type: "T3"}},
		{"category and type ($idx-ce-cat3&$idx-et-T3)", "$idx-ce-cat3&$idx-et-T3", eventindex.Filter{Category: "cat3", Type: "T3"}},
	}
	b.ResetTimer()
	for range b.N {
		fmt.Printf("\nevent reads in pages of 2000, %d events in the log (events/s)\n", n)
		fmt.Printf("%-46s %10s %14s %14s %14s %14s\n", "read", "events", "MySQL wire", "client process", "engine", "eventindex")
		for _, r := range reads {
			// Over the wire, from this process and from a client process.
			t0 := time.Now()
			wire, err := readAllWire(conn, r.filter)
			if err != nil {
				b.Fatal(err)
			}
			dWire := time.Since(t0)
			proc, dProc, err := readAllProcess(dsn, r.filter)
			if err != nil {
				b.Fatal(err)
			}

			// Through the engine, in process.
			t0 = time.Now()
			engine, from := 0, uint64(1)
			for {
				rs := exec(fmt.Sprintf("SELECT position, stream_id, event_number, event_id, event_type, category, created, data, metadata FROM dolt_read_all('%s', %d, 2000)", r.filter, from))
				engine += len(rs)
				if len(rs) < 2000 {
					break
				}
				from = rs[len(rs)-1][0].(uint64) + 1
			}
			dEngine := time.Since(t0)

			// eventindex alone.
			t0 = time.Now()
			direct, f := 0, r.f
			for {
				evs, next, err := log.Read(ctx, f, 2000)
				if err != nil {
					b.Fatal(err)
				}
				direct += len(evs)
				if len(evs) < 2000 {
					break
				}
				f.From = next
			}
			dDirect := time.Since(t0)
			if wire != engine || wire != direct || wire != proc {
				b.Fatalf("%s: %d events over the wire, %d to a client process, %d through the engine, %d from eventindex", r.name, wire, proc, engine, direct)
			}
			fmt.Printf("%-46s %10d %14.0f %14.0f %14.0f %14.0f\n", r.name, wire,
				float64(wire)/dWire.Seconds(), float64(proc)/dProc.Seconds(), float64(engine)/dEngine.Seconds(), float64(direct)/dDirect.Seconds())
			b.ReportMetric(float64(wire)/dWire.Seconds(), "wire-events/s-"+r.filter)
			b.ReportMetric(float64(proc)/dProc.Seconds(), "process-events/s-"+r.filter)
		}
	}
}

// readEventsQuery reads a page of the event log over the wire.
const readEventsQuery = "SELECT position, stream_id, event_number, event_id, event_type, category, created, data, metadata FROM dolt_read_all(?, ?, 2000)"

// readAllWire reads every event of filter over conn, in pages of 2000,
// scanning every column, and returns how many it read.
func readAllWire(conn *gosql.DB, filter string) (int, error) {
	n, from := 0, uint64(1)
	for {
		rows, err := conn.Query(readEventsQuery, filter, from)
		if err != nil {
			return n, err
		}
		got := 0
		var pos uint64
		var cols [8]gosql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&pos, &cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5], &cols[6], &cols[7]); err != nil {
				rows.Close()
				return n, err
			}
			got++
		}
		if err := rows.Err(); err != nil {
			return n, err
		}
		rows.Close()
		n += got
		if got < 2000 {
			return n, nil
		}
		from = pos + 1
	}
}

// The environment of a client process (TestMain): the DSN to read from
// and the filter to read.
const (
	eventClientDSN    = "VERSO_EVENT_CLIENT_DSN"
	eventClientFilter = "VERSO_EVENT_CLIENT_FILTER"
)

// TestMain runs the package's tests, or, in a process that
// BenchmarkEventSQLRead started with eventClientDSN set, its client: it
// reads one filter with readAllWire, on a connection opened beforehand,
// and prints the events read and the time taken.
func TestMain(m *testing.M) {
	dsn := os.Getenv(eventClientDSN)
	if dsn == "" {
		os.Exit(m.Run())
	}
	conn, err := gosql.Open("mysql", dsn)
	if err == nil {
		conn.SetMaxOpenConns(1)
		err = conn.Ping()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t0 := time.Now()
	n, err := readAllWire(conn, os.Getenv(eventClientFilter))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", n, time.Since(t0).Nanoseconds())
	os.Exit(0)
}

// readAllProcess reads every event of filter from a client process (this
// test binary, see TestMain) and returns how many it read and how long
// the reads took (the process's start and connection not counted).
func readAllProcess(dsn, filter string) (int, time.Duration, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), eventClientDSN+"="+dsn, eventClientFilter+"="+filter)
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("client process: %w: %s", err, out)
	}
	var n int
	var ns int64
	if _, err := fmt.Sscan(string(out), &n, &ns); err != nil {
		return 0, 0, fmt.Errorf("client process printed %q: %w", out, err)
	}
	return n, time.Duration(ns), nil
}

// sqlLoadEvents is the events of one batch of the workload of eventindex's
// BenchmarkEventLoad (package eventload), so both benchmarks read the same
// log.
func sqlLoadEvents(spec *eventload.Batch, base int) []eventindex.EventData {
	evs := make([]eventindex.EventData, eventload.BatchSize)
	for j := range evs {
		evs[j] = eventindex.EventData{Type: spec.Types[j], Data: eventload.Payload(base + j), Metadata: eventload.Metadata}
	}
	return evs
}
