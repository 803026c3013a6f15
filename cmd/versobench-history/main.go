// Command versobench-history times verso's commit-indexed system tables
// against a materialized baseline over the MySQL protocol and, given a
// Dolt binary, Dolt's system tables on the same history in the same run.
//
// For each history length N it builds a database "bench" of N commits
// (package histgen: one table t; each commit changes a few rows; a side
// branch is started and merged back every 50 commits), written through
// the Go API with one store commit per 10,000 commits. It copies the
// system tables' rows into ordinary tables with primary keys (and an index
// on from_commit) in a second database, "base": the materialized baseline.
// The copy of dolt_log, log_m, also holds each commit's place in the log
// (log_pos, indexed), for the baseline of a read of the log in its order:
// log_pos <= LIMIT, a range of the index. (ORDER BY log_pos LIMIT would
// be a TopN over all of log_m in verso's engine, whose table indexes do
// not offer their order to the planner: a baseline growing with the
// history. Dolt reads its index for either.)
// Then it starts the server and, from one client connection with prepared
// statements, times each query against both, interleaved, on random
// commits of the history, and prints the median and p95 latency of each
// and the multiple of the baseline (verso's median over the baseline's).
// Two queries are full scans (of dolt_log, and the walk of every commit's
// diff, dolt_diff_t): they run -scaniters times and are printed in
// milliseconds, with the time per commit of the history.
//
// The baseline's join carries the hint LOOKUP_JOIN(diff_t_m, log_m):
// without it the engine's coster picks a hash join for the materialized
// tables (their exact row counts make the lookup join look dearer), which
// reads all of log_m before the first row (435 ms at 10,000 commits). The
// system tables need no hint (see package systables).
//
// With -dolt PATH (a Dolt binary), each size's history is also written
// into Dolt: dolt init in a temporary folder (with its own HOME for
// Dolt's global config), dolt sql-server on a free loopback port, and the
// steps histgen recorded replayed through SQL (histgen.SQL: the same
// table, row changes, branches and merges; many statements per round
// trip), checked by sums over t's rows at every commit. The baseline is
// copied there too (by full scans), and each query is timed on both
// servers, verso's pair and Dolt's pair in every iteration (which goes
// first alternates), so that the machine's load falls on both alike. The
// table then shows, per query, each server's median, its baseline's and
// the multiple, side by side.
//
// On verso's side, an error or a system table whose rows differ in number
// from its baseline's fails the run. On Dolt's they are counted and
// reported under the table, and its multiple is marked "!": a query Dolt
// cannot prepare, or fails on every execution, is refused; one it fails
// now and then is timed on the other executions. Executions where Dolt's
// rows differ in number (or its counts in value) from verso's are
// reported too.
//
//	go run ./cmd/versobench-history -n 1000,10000,100000
//	go run ./cmd/versobench-history -n 1000,10000 -dolt path/to/dolt
//
// Flags: -n (history lengths), -iters (timed queries per query and side),
// -scaniters (timed runs of each full scan), -rows (rows of t), -limit (the
// LIMIT of the join and of the log read), -dolt (a Dolt binary), -dir
// (where the stores go; a temporary folder by default, removed at the
// end). VERSO_CPUPROFILE=file writes a CPU profile of the timed queries
// (verso's side: Dolt runs in its own process).
package main

import (
	"context"
	gosql "database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	_ "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
)

// config holds the flags that shape a size's run.
type config struct {
	iters, scanIters, rows, limit int
	dolt                          string
}

func main() {
	ns := flag.String("n", "1000,10000,100000", "history lengths, comma-separated")
	var c config
	flag.IntVar(&c.iters, "iters", 300, "timed executions of each query, per side")
	flag.IntVar(&c.scanIters, "scaniters", 20, "timed executions of each full scan, per side (at most -iters)")
	flag.IntVar(&c.rows, "rows", 8, "rows of the table t")
	flag.IntVar(&c.limit, "limit", 100, "LIMIT of the join query and of the log read")
	flag.StringVar(&c.dolt, "dolt", "", "path of a Dolt binary: time Dolt too, on the same histories")
	dir := flag.String("dir", "", "folder for the stores (default: a temporary one, removed at the end)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (verso's server runs in this process) to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	// An interrupt stops the run at its next step, so that the servers
	// close (Dolt's process too); a second one kills it at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	c.scanIters = max(min(c.scanIters, c.iters), 1)
	var sizes []int
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 10 {
			fmt.Fprintf(os.Stderr, "versobench-history: bad -n %q\n", s)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	if c.dolt != "" {
		abs, err := filepath.Abs(c.dolt)
		if err != nil {
			fail(err)
		}
		if c.dolt, err = execPath(abs); err != nil {
			fail(err)
		}
	}
	root, cleanup := *dir, func() {}
	if root == "" {
		d, err := os.MkdirTemp("", "versobench-history")
		if err != nil {
			fail(err)
		}
		root, cleanup = d, func() { os.RemoveAll(d) }
	}
	err := runAll(ctx, root, sizes, c)
	cleanup()
	if ctx.Err() != nil {
		err = errors.New("interrupted")
	}
	if err != nil {
		fail(err)
	}
}

// runAll runs every size in turn, then prints the growth of the
// multiples.
func runAll(ctx context.Context, root string, sizes []int, c config) error {
	fmt.Printf("versobench-history: %s/%s, %d CPUs, GOMAXPROCS %d, %s; %d timed queries per query and side (full scans: %d)\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339), c.iters, c.scanIters)
	fmt.Println()
	results := map[int][]result{}
	for _, n := range sizes {
		res, err := runSize(ctx, fmt.Sprintf("%s/n%d", root, n), n, c)
		if err != nil {
			return err
		}
		results[n] = res
	}
	if len(sizes) > 1 {
		lo, hi := results[sizes[0]], results[sizes[len(sizes)-1]]
		fmt.Printf("\ngrowth of the multiple from %d to %d commits (goal: at most 1.20)", sizes[0], sizes[len(sizes)-1])
		if c.dolt != "" {
			fmt.Printf(": verso, dolt")
		}
		fmt.Println()
		for i, r := range hi {
			fmt.Printf("  %-58s %5.2f", r.q.name, r.sides[0].multiple()/lo[i].sides[0].multiple())
			if len(r.sides) > 1 {
				if r.sides[1].err != nil || lo[i].sides[1].err != nil {
					fmt.Printf("     -")
				} else {
					fmt.Printf(" %5.2f", r.sides[1].multiple()/lo[i].sides[1].multiple())
				}
			}
			fmt.Println()
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "versobench-history:", err)
	os.Exit(1)
}

// runSize builds the databases for a history of n commits (and the same
// history in Dolt, with -dolt), serves them and times the queries.
func runSize(ctx context.Context, dir string, n int, c config) ([]result, error) {
	if err := os.MkdirAll(dir+"/verso", 0o755); err != nil {
		return nil, err
	}
	p, err := sqlserver.NewProvider(dir + "/verso")
	if err != nil {
		return nil, err
	}
	defer p.Close()
	srv, err := server.New(p, server.Config{Address: "127.0.0.1:0"})
	if err != nil {
		return nil, err
	}
	go srv.Start()
	defer srv.Close()
	// The in-process session is the server's superuser (the server checks
	// privileges of every session).
	base := sql.NewBaseSession()
	base.SetClient(sql.Client{User: sqlserver.DefaultUser, Address: "localhost"})
	sctx := sql.NewContext(ctx, sql.WithSession(p.NewSession(base)))
	for _, q := range []string{"CREATE DATABASE bench", "CREATE DATABASE base"} {
		_, it, _, err := srv.Engine.Query(sctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(sctx, it)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	g, _ := p.CommitGraph("bench")
	start := time.Now()
	h, err := histgen.Build(ctx, g, histgen.Options{Commits: n, Rows: c.rows, Seed: 1, BranchEvery: 50, BranchLen: 3, RefsEvery: 10000})
	if err != nil {
		return nil, err
	}
	built := time.Since(start)

	db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	verso := &side{name: "verso", db: db, strict: true}
	for _, c := range h.Commits {
		verso.hashes = append(verso.hashes, c.Addr.String())
	}
	if err := copyBaseline(ctx, verso, versoDialect, fmt.Sprintf("%d commits: history written in %s (%.0f commits/s)",
		n, built.Round(time.Millisecond), float64(n)/built.Seconds())); err != nil {
		return nil, err
	}
	sides := []*side{verso}

	if c.dolt != "" {
		ds, err := startDolt(ctx, c.dolt, dir+"/dolt")
		if err != nil {
			return nil, err
		}
		defer ds.Close()
		msgs := make([]string, len(h.Commits))
		for i, c := range h.Commits {
			msgs[i] = c.Meta.Message
		}
		start := time.Now()
		hashes, err := ds.replay(ctx, h.Ops, msgs)
		if err != nil {
			return nil, err
		}
		built := time.Since(start)
		ddb, err := ds.open("")
		if err != nil {
			return nil, err
		}
		defer ddb.Close()
		ddb.SetMaxOpenConns(1)
		dolt := &side{name: "dolt", db: ddb, hashes: hashes}
		var version string
		if err := ddb.QueryRow("SELECT dolt_version()").Scan(&version); err != nil {
			return nil, err
		}
		if _, err := ddb.Exec("CREATE DATABASE base"); err != nil {
			return nil, err
		}
		if err := copyBaseline(ctx, dolt, doltDialect, fmt.Sprintf("  dolt %s: history written over SQL in %s (%.0f commits/s)",
			version, built.Round(time.Millisecond), float64(n)/built.Seconds())); err != nil {
			return nil, err
		}
		if err := sameHistory(ctx, verso, dolt); err != nil {
			return nil, err
		}
		sides = append(sides, dolt)
	}
	h.Ops = nil

	qs := queries(c.limit)
	for _, q := range qs {
		if q.ordered {
			for _, s := range sides {
				if err := sameOrder(ctx, s, q); err != nil {
					return nil, err
				}
			}
		}
	}
	// The copy left garbage behind: collect it before timing.
	runtime.GC()
	if path := os.Getenv("VERSO_CPUPROFILE"); path != "" {
		// Profiles the timed queries of the last size (both sides: the
		// system tables' own costs are the systables functions).
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	var out []result
	tw := newTable(n, sides)
	for _, q := range qs {
		iters := c.iters
		if q.scan {
			iters = c.scanIters
		}
		r, err := timeQuery(ctx, q, sides, iters)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		tw.row(r)
	}
	tw.notes(out)
	return out, nil
}

// execPath checks that path is a file this process can run.
func execPath(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("-dolt: %w", err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("-dolt: %s is not an executable file", path)
	}
	return path, nil
}

// copyBaseline fills the side's baseline and prints what was written,
// after head.
func copyBaseline(ctx context.Context, s *side, d dialect, head string) error {
	start := time.Now()
	if err := materialize(ctx, s.db, d); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	copied := time.Since(start)
	log, diff, hist, err := counts(s.db)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.commits = log
	fmt.Printf("%s; baseline copied in %s (%d log rows, %d dolt_diff_t rows, %d dolt_history_t rows)\n",
		head, copied.Round(time.Millisecond), log, diff, hist)
	return nil
}

// sameHistory checks that t holds the same rows at every commit of
// main's history on both sides (the replay made the same history), by
// sums over their copies of dolt_history_t.
func sameHistory(ctx context.Context, a, b *side) error {
	const q = "SELECT CONCAT_WS(' ', COUNT(*), SUM(pk), SUM(v), SUM(CRC32(s)), SUM(f), SUM(f IS NULL)) FROM base.history_t_m"
	var got [2][]string
	for i, s := range []*side{a, b} {
		var err error
		if got[i], err = column(ctx, s.db, q); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if !slices.Equal(got[0], got[1]) {
		return fmt.Errorf("t's rows over the history differ after the replay: %s has %v, %s %v", a.name, got[0], b.name, got[1])
	}
	return nil
}

// sameOrder checks that the system table and the baseline of q return the
// same commits in the same order (their first column).
func sameOrder(ctx context.Context, s *side, q query) error {
	sys, err := column(ctx, s.db, q.sys)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	base, err := column(ctx, s.db, q.base)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if !slices.Equal(sys, base) {
		return fmt.Errorf("%s: %s: the baseline returns other rows or another order", s.name, q.name)
	}
	return nil
}
