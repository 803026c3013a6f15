package systables_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/sqlserver"
)

// env is an engine over a memory provider with one database, "d", whose
// commit graph the tests write directly.
type env struct {
	tb    testing.TB
	p     *sqlserver.Provider
	e     *sqle.Engine
	graph *commitgraph.DB
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	return newEnvOn(tb, sqlserver.NewMemoryProvider())
}

// newFileEnv is newEnv over a provider of database folders (file stores).
func newFileEnv(tb testing.TB) *env {
	tb.Helper()
	p, err := sqlserver.NewProvider(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return newEnvOn(tb, p)
}

func newEnvOn(tb testing.TB, p *sqlserver.Provider) *env {
	tb.Helper()
	en := &env{tb: tb, p: p, e: sqlserver.NewEngine(p)}
	tb.Cleanup(func() { en.e.Close() })
	en.exec(en.session(""), "CREATE DATABASE d")
	g, ok := p.CommitGraph("d")
	if !ok {
		tb.Fatal("no commit graph for d")
	}
	en.graph = g
	return en
}

func (en *env) session(db string) *sql.Context {
	ctx := sql.NewContext(context.Background(), sql.WithSession(en.p.NewSession(sql.NewBaseSession())))
	if db != "" {
		ctx.SetCurrentDatabase(db)
	}
	return ctx
}

func (en *env) query(ctx *sql.Context, q string) ([]sql.Row, error) {
	_, iter, _, err := en.e.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return sql.RowIterToRows(ctx, iter)
}

func (en *env) exec(ctx *sql.Context, q string) []sql.Row {
	en.tb.Helper()
	rows, err := en.query(ctx, q)
	if err != nil {
		en.tb.Fatalf("%s: %v", q, err)
	}
	return rows
}

// formatRow prints a row with times in UTC to the second.
func formatRow(r sql.Row) string {
	parts := make([]string, len(r))
	for i, v := range r {
		switch v := v.(type) {
		case time.Time:
			parts[i] = v.UTC().Format("2006-01-02 15:04:05.000")
		case nil:
			parts[i] = "NULL"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, "|")
}

func formatRows(rows []sql.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = formatRow(r)
	}
	return out
}

// history is a generated commit graph: branches, commits and merges.
type history struct {
	all []chunks.Address // every commit written, reachable or not
}

// build writes n commits to g from seed: commits on random branches, new
// branches at random commits, and merges between branches. Times repeat
// (several commits share a second) so that log order's ties show.
func build(tb testing.TB, g *commitgraph.DB, seed uint64, n int) *history {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 0))
	h := &history{}
	main, err := g.Head(ctx, "main")
	if err != nil {
		tb.Fatal(err)
	}
	h.all = append(h.all, main)
	branches := []string{"main"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	meta := func(i int) commitgraph.Meta {
		m := commitgraph.Meta{
			Author:  commitgraph.Signature{Name: fmt.Sprintf("author%d", i%3), Email: fmt.Sprintf("a%d@x", i%3)},
			Time:    base.Add(time.Duration(i/3) * time.Second),
			Message: fmt.Sprintf("commit %d", i),
		}
		if i%4 == 0 {
			m.Committer = commitgraph.Signature{Name: "bot", Email: "bot@x"}
		}
		return m
	}
	for i := 0; i < n; {
		switch r := rng.IntN(100); {
		case r < 10 && len(branches) < 6:
			name := fmt.Sprintf("b%d", len(branches))
			if err := g.CreateBranch(ctx, name, h.all[rng.IntN(len(h.all))]); err != nil {
				tb.Fatal(err)
			}
			branches = append(branches, name)
		case r < 30 && len(branches) > 1:
			a, b := branches[rng.IntN(len(branches))], branches[rng.IntN(len(branches))]
			ha, _ := g.Head(ctx, a)
			hb, _ := g.Head(ctx, b)
			if ok, _ := g.IsAncestor(ctx, hb, ha); ok {
				continue
			}
			if ok, _ := g.IsAncestor(ctx, ha, hb); ok {
				continue
			}
			c, err := g.ReadCommit(ctx, ha)
			if err != nil {
				tb.Fatal(err)
			}
			nc, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: a, Root: c.Root, ExpectedHead: ha, MergeParents: []chunks.Address{hb}, Meta: meta(i)})
			if err != nil {
				tb.Fatal(err)
			}
			h.all = append(h.all, nc.Addr)
			i++
		default:
			a := branches[rng.IntN(len(branches))]
			ha, _ := g.Head(ctx, a)
			c, err := g.ReadCommit(ctx, ha)
			if err != nil {
				tb.Fatal(err)
			}
			nc, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: a, Root: c.Root, ExpectedHead: ha, Meta: meta(i)})
			if err != nil {
				tb.Fatal(err)
			}
			h.all = append(h.all, nc.Addr)
			i++
		}
	}
	// A history that only a tag reaches: a branch, two commits, a tag at
	// its head, and the branch deleted.
	if err := g.CreateBranch(ctx, "tagged", h.all[rng.IntN(len(h.all))]); err != nil {
		tb.Fatal(err)
	}
	for j := 0; j < 2; j++ {
		ha, _ := g.Head(ctx, "tagged")
		c, err := g.ReadCommit(ctx, ha)
		if err != nil {
			tb.Fatal(err)
		}
		nc, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "tagged", Root: c.Root, ExpectedHead: ha, Meta: meta(n + j)})
		if err != nil {
			tb.Fatal(err)
		}
		h.all = append(h.all, nc.Addr)
	}
	ht, _ := g.Head(ctx, "tagged")
	if _, err := g.CreateTag(ctx, "v1", ht, commitgraph.TagMeta{Tagger: commitgraph.Signature{Name: "t", Email: "t@x"}, Message: "v1"}); err != nil {
		tb.Fatal(err)
	}
	if _, err := g.CreateTag(ctx, "v0", h.all[len(h.all)/2], commitgraph.TagMeta{Tagger: commitgraph.Signature{Name: "t", Email: "t@x"}, Message: "v0"}); err != nil {
		tb.Fatal(err)
	}
	if err := g.DeleteBranch(ctx, "tagged"); err != nil {
		tb.Fatal(err)
	}
	return h
}

// reachable returns the commits reachable from heads by a naive walk of
// parent pointers.
func reachable(tb testing.TB, g *commitgraph.DB, heads ...chunks.Address) []*commitgraph.Commit {
	tb.Helper()
	ctx := context.Background()
	seen := map[chunks.Address]bool{}
	var out []*commitgraph.Commit
	stack := slices.Clone(heads)
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[a] {
			continue
		}
		seen[a] = true
		c, err := g.ReadCommit(ctx, a)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, c)
		stack = append(stack, c.Parents...)
	}
	return out
}

// modelDeco returns the refs column of each commit a ref names: the
// branches by name, then "tag: t" by tag name, after "HEAD -> " on the
// commit mark.
func modelDeco(tb testing.TB, g *commitgraph.DB, mark chunks.Address) map[chunks.Address]string {
	tb.Helper()
	ctx := context.Background()
	bs, err := g.Branches(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := g.Tags(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	slices.SortFunc(bs, func(a, b commitgraph.Branch) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(ts, func(a, b *commitgraph.Tag) int { return strings.Compare(a.Name, b.Name) })
	names := map[chunks.Address][]string{}
	for _, b := range bs {
		names[b.Head] = append(names[b.Head], b.Name)
	}
	for _, t := range ts {
		names[t.Commit] = append(names[t.Commit], "tag: "+t.Name)
	}
	out := map[chunks.Address]string{}
	for a, n := range names {
		out[a] = strings.Join(n, ", ")
		if a == mark {
			out[a] = "HEAD -> " + out[a]
		}
	}
	return out
}

// modelLogRow is the dolt_log row of c.
func modelLogRow(c *commitgraph.Commit, deco string) string {
	w := c.Meta.CommitterOrAuthor()
	var ps []string
	for _, p := range c.Parents {
		ps = append(ps, p.String())
	}
	return formatRow(sql.Row{c.Addr.String(), w.Name, w.Email, c.Meta.Time, c.Meta.Message, uint64(c.Height),
		strings.Join(ps, ", "), deco, "", c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.Time})
}

// modelLog returns the dolt_log rows of head: its history by descending
// height, then descending time, then ascending address. The refs column
// is that of a session whose HEAD is head.
func modelLog(tb testing.TB, g *commitgraph.DB, head chunks.Address) []string {
	return modelLogMarked(tb, g, head, head)
}

// modelLogMarked is modelLog with "HEAD -> " on the refs of mark (none if
// zero).
func modelLogMarked(tb testing.TB, g *commitgraph.DB, head, mark chunks.Address) []string {
	deco := modelDeco(tb, g, mark)
	cs := reachable(tb, g, head)
	slices.SortFunc(cs, func(a, b *commitgraph.Commit) int {
		if a.Height != b.Height {
			return int(b.Height) - int(a.Height)
		}
		if c := b.Meta.Time.Compare(a.Meta.Time); c != 0 {
			return c
		}
		return a.Addr.Compare(b.Addr)
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = modelLogRow(c, deco[c.Addr])
	}
	return out
}

// modelCommits returns the sorted dolt_commits rows of the branch heads.
func modelCommits(tb testing.TB, g *commitgraph.DB) []string {
	var out []string
	for _, c := range reachable(tb, g, branchHeads(tb, g)...) {
		w := c.Meta.CommitterOrAuthor()
		out = append(out, formatRow(sql.Row{c.Addr.String(), w.Name, w.Email, c.Meta.Time, c.Meta.Message, c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.Time}))
	}
	slices.Sort(out)
	return out
}

// modelAncestors returns the sorted dolt_commit_ancestors rows.
func modelAncestors(tb testing.TB, g *commitgraph.DB) []string {
	var out []string
	for _, c := range reachable(tb, g, branchHeads(tb, g)...) {
		if len(c.Parents) == 0 {
			out = append(out, formatRow(sql.Row{c.Addr.String(), nil, int32(0)}))
		}
		for i, p := range c.Parents {
			out = append(out, formatRow(sql.Row{c.Addr.String(), p.String(), int32(i)}))
		}
	}
	slices.Sort(out)
	return out
}

// branchHeads returns the heads of every branch and the commits of every
// tag: the histories dolt_commits shows.
func branchHeads(tb testing.TB, g *commitgraph.DB) []chunks.Address {
	bs, err := g.Branches(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	var out []chunks.Address
	for _, b := range bs {
		out = append(out, b.Head)
	}
	ts, err := g.Tags(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range ts {
		out = append(out, t.Commit)
	}
	return out
}

// filter returns the rows of rows whose first field is hash.
func filter(rows []string, hash string) []string {
	var out []string
	for _, r := range rows {
		if strings.HasPrefix(r, hash+"|") {
			out = append(out, r)
		}
	}
	return out
}

func parse(s string) (chunks.Address, error) { return chunks.ParseAddress(s) }

// tableRows returns every row of tbl, read from the table itself
// (partitions, then their rows) without the engine above it.
func tableRows(tb testing.TB, ctx *sql.Context, tbl sql.Table) []sql.Row {
	tb.Helper()
	parts, err := tbl.Partitions(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []sql.Row
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			return rows
		}
		if err != nil {
			tb.Fatal(err)
		}
		it, err := tbl.PartitionRows(ctx, p)
		if err != nil {
			tb.Fatal(err)
		}
		rs, err := sql.RowIterToRows(ctx, it)
		if err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, rs...)
	}
}
