package systables_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// TestCachesApart: views given different caches fill only their own (and
// each graph its cache of decoded commits), for
// two graphs with the same history shape (the same branch, messages and
// times, so overlapping addresses where they agree), read in turns; each
// sees its own log. A view without a cache keeps one of its own.
func TestCachesApart(t *testing.T) {
	ctx := context.Background()
	graph := func(who string) *commitgraph.DB {
		g := commitgraph.New(chunks.NewMemoryStore())
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		meta := func(msg string) commitgraph.Meta {
			at = at.Add(time.Minute)
			return commitgraph.Meta{Author: commitgraph.Signature{Name: who, Email: who + "@example.com"}, Time: at, Message: msg}
		}
		c, err := g.Init(ctx, "main", meta("init"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if c, err = g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", Root: c.Root, ExpectedHead: c.Addr, Meta: meta(fmt.Sprint("c", i))}); err != nil {
				t.Fatal(err)
			}
		}
		return g
	}
	gs := []*commitgraph.DB{graph("ann"), graph("bob")}
	caches := []*systables.Cache{systables.NewCache(), systables.NewCache()}
	log := func(i int) string {
		v, err := systables.NewView(ctx, "db", gs[i], "main", nil)
		if err != nil {
			t.Fatal(err)
		}
		v.Cache = caches[i]
		tb, ok, err := systables.Open(sql.NewContext(ctx), "dolt_log", v)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		// The row count decodes the head through the cache.
		if n, exact, err := tb.(sql.StatisticsTable).RowCount(sql.NewContext(ctx)); err != nil || !exact || n != 4 {
			t.Fatalf("row count %d, %v, %v", n, exact, err)
		}
		out := ""
		for _, r := range readRows(t, tb, 100) {
			out += fmt.Sprint(r[1], ":", r[4], " ")
		}
		return out
	}
	for round := range 3 {
		for i, who := range []string{"ann", "bob"} {
			want := fmt.Sprintf("%s:c2 %s:c1 %s:c0 %s:init ", who, who, who, who)
			if got := log(i); got != want {
				t.Fatalf("round %d, graph %d: log %q, want %q", round, i, got, want)
			}
		}
	}
	for i, c := range caches {
		commits, _ := gs[i].CommitCacheLen()
		if refs := c.Len(); commits == 0 || refs != 1 {
			t.Errorf("graph %d caches %d commits, cache %d %d refs snapshots; want some, and one", i, commits, i, refs)
		}
	}
	// A cache used by one graph only holds entries of that graph: reading
	// more of graph 0 changes nothing in cache 1 or in graph 1's commits.
	before := caches[1].Len()
	beforeCommits, _ := gs[1].CommitCacheLen()
	log(0)
	if after := caches[1].Len(); after != before {
		t.Errorf("cache 1 went from %d to %d refs snapshots on a read of graph 0", before, after)
	}
	if after, _ := gs[1].CommitCacheLen(); after != beforeCommits {
		t.Errorf("graph 1's cache went from %d to %d commits on a read of graph 0", beforeCommits, after)
	}
}
