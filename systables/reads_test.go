package systables_test

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// countingStore counts the chunks read from a store.
type countingStore struct {
	chunks.Store
	reads atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	s.reads.Add(1)
	return s.Store.Get(ctx, a)
}

func (s *countingStore) GetMany(ctx context.Context, as []chunks.Address, found func(chunks.Address, []byte)) error {
	s.reads.Add(int64(len(as)))
	return s.Store.GetMany(ctx, as, found)
}

// readRows reads up to n rows of a table's full scan.
func readRows(t *testing.T, tb sql.Table, n int) []sql.Row {
	t.Helper()
	ctx := sql.NewEmptyContext()
	it, err := tb.PartitionRows(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []sql.Row
	for len(out) < n {
		r, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestScanStreams checks that the first rows of a full scan read a few
// chunks, not the whole history.
func TestScanStreams(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	g := commitgraph.New(cs)
	if _, err := g.Init(ctx, "main", commitgraph.Meta{Author: commitgraph.Signature{Name: "a", Email: "a@x"}, Message: "init"}); err != nil {
		t.Fatal(err)
	}
	build(t, g, 5, 2000)
	for _, name := range []string{systables.LogName, systables.CommitsName, systables.AncestorsName} {
		tb, ok, err := openTable(ctx, g, name)
		if err != nil || !ok {
			t.Fatal(name, ok, err)
		}
		before := cs.reads.Load()
		if rows := readRows(t, tb, 10); len(rows) != 10 {
			t.Fatalf("%s: %d rows", name, len(rows))
		}
		n := cs.reads.Load() - before
		t.Logf("%s: 10 rows of a 2001-commit history read %d chunks", name, n)
		if n > 100 {
			t.Fatalf("%s: 10 rows read %d chunks", name, n)
		}
	}
}

// TestLookupReads checks that an index lookup in dolt_log reads the
// commit, the head and the head's closure path: a few chunks.
func TestLookupReads(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	g := commitgraph.New(cs)
	if _, err := g.Init(ctx, "main", commitgraph.Meta{Author: commitgraph.Signature{Name: "a", Email: "a@x"}, Message: "init"}); err != nil {
		t.Fatal(err)
	}
	h := build(t, g, 6, 2000)
	tb, _, err := openTable(ctx, g, "dolt_log")
	if err != nil {
		t.Fatal(err)
	}
	it := tb.(sql.IndexAddressableTable)
	sctx := sql.NewEmptyContext()
	idx, err := it.GetIndexes(sctx)
	if err != nil {
		t.Fatal(err)
	}
	typ := tb.Schema(sctx)[0].Type
	hash := h.all[len(h.all)/2].String()
	lookup := sql.NewIndexLookup(idx[0], sql.MySQLRangeCollection{{sql.ClosedRangeColumnExpr(hash, hash, typ)}}, true, false, false, false)
	ps, err := it.IndexedAccess(sctx, lookup).LookupPartitions(sctx, lookup)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ps.Next(sctx)
	if err != nil {
		t.Fatal(err)
	}
	before := cs.reads.Load()
	rows, err := sql.RowIterToRows(sctx, must(tb.PartitionRows(sctx, p)))
	if err != nil {
		t.Fatal(err)
	}
	n := cs.reads.Load() - before
	t.Logf("lookup of %s: %d rows, %d chunk reads", hash, len(rows), n)
	if n > 12 {
		t.Fatalf("lookup read %d chunks", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// openTable opens a system table of database d on branch main of g, as of
// now, without the engine.
func openTable(ctx context.Context, g *commitgraph.DB, name string) (sql.Table, bool, error) {
	v, err := systables.NewView(ctx, "d", g, "main", nil)
	if err != nil {
		return nil, false, err
	}
	return systables.Open(sql.NewContext(ctx), name, v)
}
