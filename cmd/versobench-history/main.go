// Command versobench-history times verso's commit-indexed system tables
// against a materialized baseline over the MySQL protocol.
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
// history.)
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
//	go run ./cmd/versobench-history -n 1000,10000,100000
//
// Flags: -n (history lengths), -iters (timed queries per query and side),
// -scaniters (timed runs of each full scan), -rows (rows of t), -limit (the
// LIMIT of the join and of the log read), -dir (where the stores go;
// a temporary folder by default, removed at the end). VERSO_CPUPROFILE=file
// writes a CPU profile of the timed queries.
package main

import (
	"context"
	gosql "database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	_ "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
)

func main() {
	ns := flag.String("n", "1000,10000,100000", "history lengths, comma-separated")
	iters := flag.Int("iters", 300, "timed executions of each query, per side")
	scanIters := flag.Int("scaniters", 20, "timed executions of each full scan, per side (at most -iters)")
	rows := flag.Int("rows", 8, "rows of the table t")
	limit := flag.Int("limit", 100, "LIMIT of the join query and of the log read")
	dir := flag.String("dir", "", "folder for the stores (default: a temporary one, removed at the end)")
	flag.Parse()
	*scanIters = max(min(*scanIters, *iters), 1)
	var sizes []int
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 10 {
			fmt.Fprintf(os.Stderr, "versobench-history: bad -n %q\n", s)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	root := *dir
	if root == "" {
		d, err := os.MkdirTemp("", "versobench-history")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		root = d
	}
	fmt.Printf("versobench-history: %s/%s, %d CPUs, GOMAXPROCS %d, %s; %d timed queries per query and side (full scans: %d)\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339), *iters, *scanIters)
	multiples := map[int]map[string]float64{}
	var names []string
	for _, n := range sizes {
		res, err := runSize(fmt.Sprintf("%s/n%d", root, n), n, *iters, *scanIters, *rows, *limit)
		if err != nil {
			fail(err)
		}
		multiples[n] = map[string]float64{}
		names = names[:0]
		for _, r := range res {
			multiples[n][r.q.name] = r.multiple()
			names = append(names, r.q.name)
		}
	}
	if len(sizes) > 1 {
		lo, hi := sizes[0], sizes[len(sizes)-1]
		fmt.Printf("\ngrowth of the multiple from %d to %d commits (goal: at most 1.20)\n", lo, hi)
		for _, name := range names {
			fmt.Printf("  %-58s %5.2f\n", name, multiples[hi][name]/multiples[lo][name])
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "versobench-history:", err)
	os.Exit(1)
}

// query is one timed query, against the system tables and the baseline.
type query struct {
	name      string
	sys, base string
	arg       func(rng *rand.Rand) string // its parameter, if any
	count     bool                        // it returns one count, which the two must agree on
	scan      bool                        // a full scan: -scaniters runs, printed in ms and per commit
	// ordered: the baseline must return the same rows in the same order
	// (checked once, on the first column, before the timing).
	ordered bool
}

type result struct {
	q         query
	sys, base []time.Duration
}

func (r result) multiple() float64 { return float64(median(r.sys)) / float64(median(r.base)) }

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// runSize builds the databases for a history of n commits, serves them and
// times the queries.
func runSize(dir string, n, iters, scanIters, rows, limit int) ([]result, error) {
	ctx := context.Background()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p, err := sqlserver.NewProvider(dir)
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
	exec := func(q string) ([]sql.Row, error) {
		_, it, _, err := srv.Engine.Query(sctx, q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		return sql.RowIterToRows(sctx, it)
	}
	for _, q := range []string{"CREATE DATABASE bench", "CREATE DATABASE base"} {
		if _, err := exec(q); err != nil {
			return nil, err
		}
	}
	g, _ := p.CommitGraph("bench")
	start := time.Now()
	h, err := histgen.Build(ctx, g, histgen.Options{Commits: n, Rows: rows, Seed: 1, BranchEvery: 50, BranchLen: 3, RefsEvery: 10000})
	if err != nil {
		return nil, err
	}
	built := time.Since(start)

	start = time.Now()
	if err := materialize(exec); err != nil {
		return nil, err
	}
	copied := time.Since(start)
	counts, err := exec("SELECT (SELECT COUNT(*) FROM base.log_m), (SELECT COUNT(*) FROM base.diff_t_m), (SELECT COUNT(*) FROM base.history_t_m)")
	if err != nil {
		return nil, err
	}
	fmt.Printf("%d commits: history written in %s (%.0f commits/s); baseline copied in %s (%v log rows, %v dolt_diff_t rows, %v dolt_history_t rows)\n",
		n, built.Round(time.Millisecond), float64(n)/built.Seconds(), copied.Round(time.Millisecond), counts[0][0], counts[0][1], counts[0][2])

	// Parameters: random commits of main's history (and of the side
	// branches merged into it).
	var hashes []string
	for _, c := range h.Commits {
		hashes = append(hashes, c.Addr.String())
	}
	hash := func(rng *rand.Rand) string { return hashes[rng.IntN(len(hashes))] }
	qs := []query{
		{name: "select * from dolt_log where commit_hash = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_log WHERE commit_hash = ?", base: "SELECT " + logCols + " FROM base.log_m WHERE commit_hash = ?"},
		{name: "select * from dolt_commits where commit_hash = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_commits WHERE commit_hash = ?", base: "SELECT * FROM base.commits_m WHERE commit_hash = ?"},
		{name: "select * from dolt_commit_ancestors where commit_hash = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_commit_ancestors WHERE commit_hash = ?", base: "SELECT * FROM base.ancestors_m WHERE commit_hash = ?"},
		{name: "select * from dolt_diff where commit_hash = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_diff WHERE commit_hash = ?", base: "SELECT * FROM base.diff_m WHERE commit_hash = ?"},
		{name: "select * from dolt_diff_t where to_commit = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_diff_t WHERE to_commit = ?", base: "SELECT * FROM base.diff_t_m WHERE to_commit = ?"},
		{name: "select * from dolt_diff_t where from_commit = ?", arg: hash,
			sys: "SELECT * FROM bench.dolt_diff_t WHERE from_commit = ?", base: "SELECT * FROM base.diff_t_m WHERE from_commit = ?"},
		{name: "select count(*) from dolt_history_t where commit_hash = ?", arg: hash, count: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_history_t WHERE commit_hash = ?", base: "SELECT COUNT(*) FROM base.history_t_m WHERE commit_hash = ?"},
		{name: fmt.Sprintf("select * from dolt_diff_t join dolt_log ... limit %d", limit),
			sys:  fmt.Sprintf("SELECT * FROM bench.dolt_diff_t JOIN bench.dolt_log ON commit_hash = to_commit LIMIT %d", limit),
			base: fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(diff_t_m, log_m) */ * FROM base.diff_t_m JOIN base.log_m ON commit_hash = to_commit LIMIT %d", limit)},
		{name: fmt.Sprintf("select * from dolt_log limit %d", limit), ordered: true,
			sys:  fmt.Sprintf("SELECT * FROM bench.dolt_log LIMIT %d", limit),
			base: fmt.Sprintf("SELECT %s FROM base.log_m WHERE log_pos <= %d ORDER BY log_pos", logCols, limit)},
		{name: "select count(*) from dolt_log where message like 'c%'", count: true, scan: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_log WHERE message LIKE 'c%'", base: "SELECT COUNT(*) FROM base.log_m WHERE message LIKE 'c%'"},
		{name: "select count(*) from dolt_diff_t", count: true, scan: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_diff_t", base: "SELECT COUNT(*) FROM base.diff_t_m"},
	}
	for _, q := range qs {
		if q.ordered {
			if err := sameOrder(exec, q); err != nil {
				return nil, err
			}
		}
	}
	// The copy left garbage behind: collect it before timing.
	runtime.GC()
	db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
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
	fmt.Printf("\n%-58s %12s %12s %12s %12s %9s\n", fmt.Sprintf("query (%d commits)", n), "verso p50", "verso p95", "base p50", "base p95", "multiple")
	for _, q := range qs {
		it := iters
		if q.scan {
			it = scanIters
		}
		r, err := timeQuery(db, q, it)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		fmt.Printf("%-58s %12s %12s %12s %12s %8.2fx\n", q.name, dur(median(r.sys), q.scan), dur(pct(r.sys, 95), q.scan),
			dur(median(r.base), q.scan), dur(pct(r.base, 95), q.scan), r.multiple())
	}
	for _, r := range out {
		if r.q.scan {
			fmt.Printf("  per commit, %s: verso %s (base %s) over %v commits\n", r.q.name,
				perCommit(median(r.sys), n+1), perCommit(median(r.base), n+1), n+1)
		}
	}
	fmt.Println()
	return out, nil
}

// dur prints a median: in µs, or in ms for a full scan.
func dur(d time.Duration, scan bool) string {
	if scan {
		return fmt.Sprintf("%.2fms", float64(d.Nanoseconds())/1e6)
	}
	return fmt.Sprintf("%.1fµs", float64(d.Nanoseconds())/1000)
}

// perCommit prints d over n commits, in µs.
func perCommit(d time.Duration, n int) string {
	return fmt.Sprintf("%.2fµs", float64(d.Nanoseconds())/1000/float64(max(n, 1)))
}

// sameOrder checks that the system table and the baseline of q return the
// same commits in the same order (their first column).
func sameOrder(exec func(string) ([]sql.Row, error), q query) error {
	var got [2][]string
	for i, text := range []string{q.sys, q.base} {
		rows, err := exec(text)
		if err != nil {
			return err
		}
		for _, r := range rows {
			got[i] = append(got[i], fmt.Sprint(r[0]))
		}
	}
	if !slices.Equal(got[0], got[1]) {
		return fmt.Errorf("%s: the baseline returns other rows or another order", q.name)
	}
	return nil
}

// timeQuery runs q against both sides in turn, warm-up first, with the
// same random parameters; results must have the same row counts (and
// counts).
func timeQuery(db *gosql.DB, q query, iters int) (result, error) {
	r := result{q: q}
	ss, err := db.Prepare(q.sys)
	if err != nil {
		return r, fmt.Errorf("%s: %w", q.sys, err)
	}
	defer ss.Close()
	bs, err := db.Prepare(q.base)
	if err != nil {
		return r, fmt.Errorf("%s: %w", q.base, err)
	}
	defer bs.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	warm := max(iters/4, 10)
	if q.scan {
		warm = max(iters/4, 1)
	}
	for i := 0; i < warm+iters; i++ {
		var args []any
		if q.arg != nil {
			args = append(args, q.arg(rng))
		}
		ds, ns, vs, err := run(ss, args, q.count)
		if err != nil {
			return r, fmt.Errorf("%s: %w", q.sys, err)
		}
		db, nb, vb, err := run(bs, args, q.count)
		if err != nil {
			return r, fmt.Errorf("%s: %w", q.base, err)
		}
		if ns != nb || vs != vb {
			return r, fmt.Errorf("%s with %v: %d rows (%q), the baseline %d (%q)", q.name, args, ns, vs, nb, vb)
		}
		if i >= warm {
			r.sys, r.base = append(r.sys, ds), append(r.base, db)
		}
	}
	return r, nil
}

// run executes a prepared query and reads every row (and, if count, the
// first row's first value).
func run(st *gosql.Stmt, args []any, count bool) (time.Duration, int, string, error) {
	start := time.Now()
	rows, err := st.Query(args...)
	if err != nil {
		return 0, 0, "", err
	}
	cols, err := rows.Columns()
	if err != nil {
		return 0, 0, "", err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(gosql.RawBytes)
	}
	n, val := 0, ""
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return 0, 0, "", err
		}
		if count && n == 0 {
			val = string(*vals[0].(*gosql.RawBytes))
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, 0, "", err
	}
	rows.Close()
	return time.Since(start), n, val, nil
}

// materialize copies the system tables of bench into ordinary tables of
// base, commit batch by commit batch (index lookups on the system tables).
// log_m also gets log_pos, each commit's place in dolt_log (1 for the
// first row), indexed: the baseline of a read of the log in its order.
func materialize(exec func(string) ([]sql.Row, error)) error {
	for _, q := range []string{
		`CREATE TABLE base.log_m (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(6),
			message text, commit_order bigint unsigned, parents text, refs text, signature text, author text,
			author_email text, author_date datetime(6), log_pos bigint, UNIQUE INDEX log_pos (log_pos))`,
		`CREATE TABLE base.commits_m (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(6), message text)`,
		`CREATE TABLE base.ancestors_m (commit_hash varchar(32), parent_hash varchar(32), parent_index int,
			PRIMARY KEY (commit_hash, parent_index))`,
		`CREATE TABLE base.diff_m (commit_hash varchar(32), table_name varchar(64), committer text, email text,
			date datetime(6), message text, data_change tinyint, schema_change tinyint, PRIMARY KEY (commit_hash, table_name))`,
		`CREATE TABLE base.diff_t_m (to_pk bigint, to_v bigint, to_s varchar(64), to_f double, to_commit varchar(32),
			to_commit_date datetime(6), from_pk bigint, from_v bigint, from_s varchar(64), from_f double,
			from_commit varchar(32), from_commit_date datetime(6), diff_type varchar(16), row_pk bigint,
			PRIMARY KEY (to_commit, from_commit, row_pk), INDEX from_commit (from_commit))`,
		`CREATE TABLE base.history_t_m (pk bigint, v bigint, s varchar(64), f double, commit_hash varchar(32),
			committer text, commit_date datetime(6), PRIMARY KEY (commit_hash, pk))`,
	} {
		if _, err := exec(q); err != nil {
			return err
		}
	}
	rows, err := exec("SELECT commit_hash FROM bench.dolt_commits")
	if err != nil {
		return err
	}
	var all []string
	for _, r := range rows {
		all = append(all, r[0].(string))
	}
	const batch = 2000
	for i := 0; i < len(all); i += batch {
		in := "'" + strings.Join(all[i:min(i+batch, len(all))], "','") + "'"
		for _, q := range []string{
			"INSERT INTO base.log_m (" + logCols + ") SELECT " + logCols + " FROM bench.dolt_log WHERE commit_hash IN (%s)",
			"INSERT INTO base.commits_m SELECT * FROM bench.dolt_commits WHERE commit_hash IN (%s)",
			"INSERT INTO base.ancestors_m SELECT * FROM bench.dolt_commit_ancestors WHERE commit_hash IN (%s)",
			"INSERT INTO base.diff_m SELECT * FROM bench.dolt_diff WHERE commit_hash IN (%s)",
			"INSERT INTO base.diff_t_m SELECT *, COALESCE(to_pk, from_pk) FROM bench.dolt_diff_t WHERE to_commit IN (%s)",
			"INSERT INTO base.history_t_m SELECT * FROM bench.dolt_history_t WHERE commit_hash IN (%s)",
		} {
			if _, err := exec(fmt.Sprintf(q, in)); err != nil {
				return err
			}
		}
	}
	if rows, err = exec("SELECT commit_hash FROM bench.dolt_log"); err != nil {
		return err
	}
	for i := 0; i < len(rows); i += batch {
		var vals []string
		for j, r := range rows[i:min(i+batch, len(rows))] {
			vals = append(vals, fmt.Sprintf("('%s', %d)", r[0], i+j+1))
		}
		if _, err := exec("INSERT INTO base.log_m (commit_hash, log_pos) VALUES " + strings.Join(vals, ", ") +
			" ON DUPLICATE KEY UPDATE log_pos = VALUES(log_pos)"); err != nil {
			return err
		}
	}
	return nil
}

// logCols are dolt_log's columns.
const logCols = "commit_hash, committer, email, date, message, commit_order, parents, refs, signature, author, author_email, author_date"
