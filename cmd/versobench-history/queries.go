package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// query is one timed query, against the system tables and the baseline.
type query struct {
	name      string
	sys, base string
	byCommit  bool // its one parameter is a random commit of the history
	count     bool // it returns one count, which the two must agree on
	scan      bool // a full scan: -scaniters runs, printed in ms and per commit
	// ordered: the baseline must return the same rows in the same order
	// (checked once, on the first column, before the timing).
	ordered bool
}

// side is one server under test, with its own baseline.
type side struct {
	name string
	db   *gosql.DB
	// hashes holds the hash, on this server, of each commit of the
	// history (histgen's order).
	hashes []string
	// commits is the number of rows of its dolt_log.
	commits int64
	// strict: an error, or rows that differ in number from the
	// baseline's, fail the run (verso's side). Otherwise (Dolt's) errors
	// and differences are counted and reported: a query the side cannot
	// prepare, or fails on every time, is refused.
	strict bool
}

// timing is one side's figures for one query.
type timing struct {
	sys, base []time.Duration
	err       error // the side refused the query
	// runs counts the executions of the pair (warm-up included), failed
	// those that failed (firstFailed: the first error).
	runs, failed int
	firstFailed  error
	// unlike counts the executions where the system table's rows differ
	// in number (or its count in value) from the baseline's, on a side
	// that is not strict; firstUnlike says how.
	unlike      int
	firstUnlike string
	// differ counts the executions where this side's system table
	// answers otherwise than the first side's, of the of executions of
	// both; firstDiffer says how.
	differ, of  int
	firstDiffer string
}

func (t timing) multiple() float64 { return float64(median(t.sys)) / float64(median(t.base)) }

type result struct {
	q     query
	sides []timing
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// queries are the timed queries, system table and baseline.
func queries(limit int) []query {
	return []query{
		{name: "select * from dolt_log where commit_hash = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_log WHERE commit_hash = ?", base: "SELECT " + logCols + " FROM base.log_m WHERE commit_hash = ?"},
		{name: "select * from dolt_commits where commit_hash = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_commits WHERE commit_hash = ?", base: "SELECT * FROM base.commits_m WHERE commit_hash = ?"},
		{name: "select * from dolt_commit_ancestors where commit_hash = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_commit_ancestors WHERE commit_hash = ?", base: "SELECT * FROM base.ancestors_m WHERE commit_hash = ?"},
		{name: "select * from dolt_diff where commit_hash = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_diff WHERE commit_hash = ?", base: "SELECT * FROM base.diff_m WHERE commit_hash = ?"},
		{name: "select * from dolt_diff_t where to_commit = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_diff_t WHERE to_commit = ?", base: "SELECT * FROM base.diff_t_m WHERE to_commit = ?"},
		{name: "select * from dolt_diff_t where from_commit = ?", byCommit: true,
			sys: "SELECT * FROM bench.dolt_diff_t WHERE from_commit = ?", base: "SELECT * FROM base.diff_t_m WHERE from_commit = ?"},
		{name: "select count(*) from dolt_history_t where commit_hash = ?", byCommit: true, count: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_history_t WHERE commit_hash = ?", base: "SELECT COUNT(*) FROM base.history_t_m WHERE commit_hash = ?"},
		{name: fmt.Sprintf("select * from dolt_diff_t join dolt_log ... limit %d", limit),
			sys:  fmt.Sprintf("SELECT * FROM bench.dolt_diff_t JOIN bench.dolt_log ON commit_hash = to_commit LIMIT %d", limit),
			base: fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(diff_t_m, log_m) */ * FROM base.diff_t_m JOIN base.log_m ON commit_hash = to_commit LIMIT %d", limit)},
		{name: fmt.Sprintf("select * from dolt_log limit %d", limit), ordered: true,
			sys:  fmt.Sprintf("SELECT * FROM bench.dolt_log LIMIT %d", limit),
			base: fmt.Sprintf("SELECT %s FROM base.log_m WHERE log_pos <= %d ORDER BY log_pos", logCols, limit)},
		{name: "select count(*) from dolt_log where message like 'c%'", count: true, scan: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_log WHERE message LIKE 'c%'", base: "SELECT COUNT(*) FROM base.log_m WHERE message LIKE 'c%'"},
		// The baseline counts a column that is never NULL, so that it
		// reads every row: a COUNT(*) of an ordinary table is its stored
		// row count (a constant time), in verso's engine as in Dolt's.
		{name: "select count(*) from dolt_diff_t", count: true, scan: true,
			sys: "SELECT COUNT(*) FROM bench.dolt_diff_t", base: "SELECT COUNT(diff_type) FROM base.diff_t_m"},
	}
}

// outcome is what one execution returned: its rows and, for a count, the
// count (else "").
type outcome struct {
	rows int
	val  string
}

func (o outcome) String() string {
	if o.val != "" {
		return "count " + o.val
	}
	return fmt.Sprintf("%d rows", o.rows)
}

// timeQuery runs q on every side in turn, each side's system table then
// its baseline, warm-up first, on the same random commits; within a side
// the results must have the same row counts (and counts). The executions
// themselves take no context (a cancellable one costs the driver a
// hand-off per query); ctx is checked between them.
func timeQuery(ctx context.Context, q query, sides []*side, iters int) (result, error) {
	r := result{q: q, sides: make([]timing, len(sides))}
	type stmts struct{ sys, base *gosql.Stmt }
	st := make([]stmts, len(sides))
	for i, s := range sides {
		var pair [2]*gosql.Stmt
		var err error
		for k, text := range []string{q.sys, q.base} {
			if pair[k], err = s.db.Prepare(text); err != nil {
				err = fmt.Errorf("%s: %w", text, err)
				break
			}
			defer pair[k].Close()
		}
		if err != nil {
			if r.sides[i].err = err; s.strict {
				return r, err
			}
			continue
		}
		st[i] = stmts{pair[0], pair[1]}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	warm := max(iters/4, 10)
	if q.scan {
		warm = max(iters/4, 1)
	}
	got := make([]*outcome, len(sides))
	for it := 0; it < warm+iters; it++ {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		commit := -1
		if q.byCommit {
			commit = rng.IntN(len(sides[0].hashes))
		}
		for k := range sides {
			i := k
			if it%2 == 1 {
				i = len(sides) - 1 - k // the other side first
			}
			got[i] = nil
			if r.sides[i].err != nil {
				continue
			}
			s := sides[i]
			var args []any
			at := ""
			if commit >= 0 {
				args = append(args, s.hashes[commit])
				at = " with " + s.hashes[commit]
			}
			r.sides[i].runs++
			ds, so, err := run(st[i].sys, args, q.count)
			var db time.Duration
			var bo outcome
			if err != nil {
				err = fmt.Errorf("%s%s: %w", q.sys, at, err)
			} else if db, bo, err = run(st[i].base, args, q.count); err != nil {
				err = fmt.Errorf("%s%s: %w", q.base, at, err)
			}
			if err != nil {
				if s.strict {
					return r, err
				}
				if r.sides[i].failed++; r.sides[i].failed == 1 {
					r.sides[i].firstFailed = err
				}
				continue
			}
			if so != bo {
				if s.strict {
					return r, fmt.Errorf("%s: %s%s: %s, the baseline %s", s.name, q.name, at, so, bo)
				}
				if r.sides[i].unlike++; r.sides[i].unlike == 1 {
					r.sides[i].firstUnlike = fmt.Sprintf("%s%s: %s, the baseline %s", q.sys, at, so, bo)
				}
			}
			got[i] = &so
			if it >= warm {
				r.sides[i].sys, r.sides[i].base = append(r.sides[i].sys, ds), append(r.sides[i].base, db)
			}
		}
		for i := 1; i < len(sides); i++ {
			if got[0] == nil || got[i] == nil {
				continue
			}
			r.sides[i].of++
			if *got[i] != *got[0] {
				if r.sides[i].differ++; r.sides[i].differ == 1 {
					at := ""
					if commit >= 0 {
						at = fmt.Sprintf(" with commit %d of the history (%s, %s)", commit, sides[0].hashes[commit], sides[i].hashes[commit])
					}
					r.sides[i].firstDiffer = fmt.Sprintf("%s%s: %s %s, %s %s", q.sys, at, sides[0].name, got[0], sides[i].name, got[i])
				}
			}
		}
	}
	for i := range r.sides {
		if t := &r.sides[i]; t.err == nil && len(t.sys) == 0 {
			t.err = t.firstFailed
		}
	}
	return r, nil
}

// run executes a prepared query and reads every row (and, if count, the
// first row's first value).
func run(st *gosql.Stmt, args []any, count bool) (time.Duration, outcome, error) {
	var o outcome
	start := time.Now()
	rows, err := st.Query(args...)
	if err != nil {
		return 0, o, err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return 0, o, err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(gosql.RawBytes)
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			rows.Close()
			return 0, o, err
		}
		if count && o.rows == 0 {
			o.val = string(*vals[0].(*gosql.RawBytes))
		}
		o.rows++
	}
	if err := rows.Err(); err != nil {
		return 0, o, err
	}
	rows.Close()
	return time.Since(start), o, nil
}
