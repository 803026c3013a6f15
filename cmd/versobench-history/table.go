package main

import (
	"fmt"
	"time"
)

// table prints a size's figures as the queries finish: with one side,
// verso's median and p95 and the baseline's, and the multiple; with Dolt,
// each side's median, its baseline's and its multiple, side by side.
type table struct {
	sides []*side
}

func newTable(n int, sides []*side) *table {
	name := fmt.Sprintf("query (%d commits)", n)
	if len(sides) == 1 {
		fmt.Printf("\n%-58s %12s %12s %12s %12s %9s\n", name, "verso p50", "verso p95", "base p50", "base p95", "multiple")
	} else {
		fmt.Printf("\n%-58s", name)
		for _, s := range sides {
			fmt.Printf(" %12s %12s %9s ", s.name+" p50", "base p50", "multiple")
		}
		fmt.Println()
	}
	return &table{sides: sides}
}

func (t *table) row(r result) {
	v := r.sides[0]
	if len(t.sides) == 1 {
		fmt.Printf("%-58s %12s %12s %12s %12s %8.2fx\n", r.q.name, dur(median(v.sys), r.q.scan), dur(pct(v.sys, 95), r.q.scan),
			dur(median(v.base), r.q.scan), dur(pct(v.base, 95), r.q.scan), v.multiple())
		return
	}
	fmt.Printf("%-58s", r.q.name)
	for _, s := range r.sides {
		if s.err != nil {
			fmt.Printf(" %12s %12s %9s ", "refused", "-", "-")
			continue
		}
		mark := " "
		if s.unlike > 0 || s.failed > 0 {
			mark = "!" // see the notes
		}
		fmt.Printf(" %12s %12s %8.2fx%s", dur(median(s.sys), r.q.scan), dur(median(s.base), r.q.scan), s.multiple(), mark)
	}
	fmt.Println()
}

// notes prints the full scans' time per commit, the queries a side
// refused and the commits where its rows differ from verso's.
func (t *table) notes(rs []result) {
	for _, r := range rs {
		if !r.q.scan {
			continue
		}
		fmt.Printf("  per commit, %s:", r.q.name)
		for i, s := range r.sides {
			if s.err != nil {
				continue
			}
			n := t.sides[i].commits
			fmt.Printf(" %s %s (base %s) over %d commits;", t.sides[i].name, perCommit(median(s.sys), n), perCommit(median(s.base), n), n)
		}
		fmt.Println()
	}
	for _, r := range rs {
		for i, s := range r.sides {
			if s.err != nil {
				fmt.Printf("  %s refused %s: %v\n", t.sides[i].name, r.q.name, s.err)
			} else if s.failed > 0 {
				fmt.Printf("  ! %s: %s failed on %d of %d executions (timed on the others); the first: %v\n",
					t.sides[i].name, r.q.name, s.failed, s.runs, s.firstFailed)
			}
			if s.unlike > 0 {
				fmt.Printf("  ! %s: %s: the system table answers otherwise than its baseline on %d of %d executions; the first: %s\n",
					t.sides[i].name, r.q.name, s.unlike, s.runs, s.firstUnlike)
			}
			if s.differ > 0 {
				fmt.Printf("  %s: %s: answers otherwise than %s on %d of %d executions; the first: %s\n",
					t.sides[i].name, r.q.name, t.sides[0].name, s.differ, s.of, s.firstDiffer)
			}
		}
	}
	fmt.Println()
}

// dur prints a median: in µs, or in ms for a full scan.
func dur(d time.Duration, scan bool) string {
	if scan {
		return fmt.Sprintf("%.2fms", float64(d.Nanoseconds())/1e6)
	}
	return fmt.Sprintf("%.1fµs", float64(d.Nanoseconds())/1000)
}

// perCommit prints d over n commits, in µs.
func perCommit(d time.Duration, n int64) string {
	return fmt.Sprintf("%.2fµs", float64(d.Nanoseconds())/1000/float64(max(n, 1)))
}
