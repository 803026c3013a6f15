package sqlserver

import (
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// TestProvidersKeepTheirCaches: two providers in one process, each with a
// database db holding a table t of different contents and history, queried
// in turns (tables, history tables, dolt_log), each see their own rows,
// and each provider's caches hold entries of its own databases only. A
// provider whose table cache fills up and starts over leaves the other's
// entries in place.
func TestProvidersKeepTheirCaches(t *testing.T) {
	envs := []*testEnv{newMemoryEnv(t), newMemoryEnv(t)}
	ctxs := make([]*sql.Context, len(envs))
	for i, env := range envs {
		ctx := setupDB(env)
		ctxs[i] = ctx
		env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(20))")
		env.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (1, 'provider %d')", i))
		env.exec(ctx, fmt.Sprintf("CALL dolt_commit('-Am', 'first of %d')", i))
	}
	for round := range 4 {
		for i, env := range envs {
			ctx := ctxs[i]
			env.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, 'p%d r%d')", round+2, i, round))
			if i == 1 {
				// Provider 1 commits each round; provider 0 only its
				// first commit, so their histories differ.
				env.exec(ctx, fmt.Sprintf("CALL dolt_commit('-am', 'round %d')", round))
			}
		}
		for i, env := range envs {
			ctx := ctxs[i]
			want := fmt.Sprintf("[provider %d]", i)
			for r := range round + 1 {
				want += fmt.Sprintf(" [p%d r%d]", i, r)
			}
			env.check(ctx, "SELECT v FROM t ORDER BY pk", want)
			commits := 2 // the first commit and the initial one
			if i == 1 {
				commits += round + 1
			}
			env.check(ctx, "SELECT count(*) FROM dolt_log", fmt.Sprintf("[%d]", commits))
			env.check(ctx, "SELECT message FROM dolt_log LIMIT 1", map[bool]string{false: "[first of 0]", true: fmt.Sprintf("[round %d]", round)}[i == 1])
			env.check(ctx, "SELECT v FROM dolt_history_t WHERE pk = 1 LIMIT 1", fmt.Sprintf("[provider %d]", i))
			hashes := env.exec(ctx, "SELECT commit_hash FROM dolt_log LIMIT 1")
			env.check(ctx, fmt.Sprintf("SELECT message FROM dolt_commits WHERE commit_hash = '%s'", hashes[0][0]), formatRows(env.exec(ctx, "SELECT message FROM dolt_log LIMIT 1")))
		}
	}
	owns := func(p *Provider) map[*dbState]bool {
		m := map[*dbState]bool{}
		p.mu.RLock()
		defer p.mu.RUnlock()
		for _, st := range p.dbs {
			m[st] = true
		}
		return m
	}
	for i, env := range envs {
		p := env.p
		mine := owns(p)
		p.cache.mu.Lock()
		for k := range p.cache.m {
			if !mine[k.st] {
				t.Errorf("provider %d caches table %s of a database not its own", i, k.name)
			}
		}
		for k := range p.cache.schemas {
			if !mine[k.st] {
				t.Errorf("provider %d caches a history schema of %s of a database not its own", i, k.table)
			}
		}
		p.cache.mu.Unlock()
		tables, schemas := p.cache.len()
		refs, commits := p.sysCache.Len(), 0
		for st := range mine {
			n, _ := st.graph.CommitCacheLen()
			commits += n
		}
		if tables == 0 || schemas == 0 || commits == 0 || refs == 0 {
			t.Errorf("provider %d caches %d tables, %d schemas, %d commits, %d refs snapshots; want some of each", i, tables, schemas, commits, refs)
		}
	}
	if envs[0].p.cache == envs[1].p.cache || envs[0].p.sysCache == envs[1].p.sysCache {
		t.Fatal("the providers share a cache")
	}
	// Fill provider 1's table cache: its next miss starts it over.
	before, _ := envs[0].p.cache.len()
	c := envs[1].p.cache
	c.mu.Lock()
	for n := len(c.m); n < tableCacheSize; n++ {
		c.m[cacheKey{name: fmt.Sprint("filler", n), addr: chunks.Address{byte(n), byte(n >> 8)}}] = &tableInfo{}
	}
	c.mu.Unlock()
	envs[1].exec(ctxs[1], "INSERT INTO t VALUES (100, 'a miss')")
	envs[1].check(ctxs[1], "SELECT v FROM t WHERE pk = 100", "[a miss]")
	if after, _ := c.len(); after >= tableCacheSize {
		t.Fatalf("provider 1's full cache holds %d entries after a miss", after)
	}
	if after, _ := envs[0].p.cache.len(); after != before {
		t.Fatalf("provider 0's cache went from %d to %d entries when provider 1's started over", before, after)
	}
	envs[0].check(ctxs[0], "SELECT v FROM t WHERE pk = 1", "[provider 0]")
}

// TestProviderCacheBytes: the node cache bound a provider is given reaches
// the databases it has open and those it opens later, and a write's table
// value is in the table cache for the next statement.
func TestProviderCacheBytes(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.p.SetCacheBytes(1 << 20)
	env.exec(ctx, "CREATE DATABASE db2")
	for _, name := range []string{"db", "db2"} {
		st, _ := env.p.state(name)
		if got := st.db.CacheBytes(); got > 1<<20 || got < 1<<20-64 {
			t.Fatalf("database %s: node cache of %d bytes, want 1 MiB", name, got)
		}
	}
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v INT)")
	env.exec(ctx, "INSERT INTO t VALUES (1, 1)")
	env.exec(ctx, "UPDATE t SET v = 2 WHERE pk = 1")
	st, _ := env.p.state("db")
	_, _, root, err := st.db.Snapshot(ctx, st.db.DefaultBranch())
	if err != nil {
		t.Fatal(err)
	}
	_, addr, ok, err := verso.FindTable(ctx, root, "t")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	env.p.cache.mu.Lock()
	info := env.p.cache.m[cacheKey{st, "db", "t", addr, chunks.Address{}}]
	env.p.cache.mu.Unlock()
	if info == nil {
		t.Fatal("the table value the UPDATE wrote is not in the table cache")
	}
	if rows := info.t.Count(); rows != 1 {
		t.Fatalf("cached table value holds %d rows", rows)
	}
	env.check(ctx, "SELECT v FROM t", "[2]")
}
