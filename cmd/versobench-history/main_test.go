package main

import (
	"context"
	"testing"
)

// TestRunSize runs the benchmark on a small history, verso alone: every
// query against its baseline, with the row count checks (the Dolt side
// runs only by hand, with -dolt).
func TestRunSize(t *testing.T) {
	res, err := runSize(context.Background(), t.TempDir(), 120, config{iters: 2, scanIters: 1, rows: 4, limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(queries(10)) {
		t.Fatalf("%d results, want %d", len(res), len(queries(10)))
	}
	for _, r := range res {
		want := 2
		if r.q.scan {
			want = 1
		}
		if len(r.sides) != 1 || len(r.sides[0].sys) != want || len(r.sides[0].base) != want {
			t.Fatalf("%s: %d sides, %+v; want one with %d timings of each", r.q.name, len(r.sides), r.sides, want)
		}
	}
}
