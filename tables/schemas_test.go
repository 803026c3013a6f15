package tables

import (
	"context"
	"fmt"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// TestSchemasLoad checks that a Schemas loads each table as Load does
// (rows, indexes, auto-increment, the address Write gives), shares one
// decoded schema among the tables that store it, keeps a table's own
// schema apart, reports damaged chunks as Load does, and stays bounded.
func TestSchemasLoad(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	c := NewSchemas(testCollations)
	var addrs []chunks.Address
	for i := 0; i < 3; i++ {
		s := testSchema(false)
		if i == 2 {
			s.Columns[3].Name = "remark" // another schema
		}
		tb, err := New(ns, s, testCollations)
		if err != nil {
			t.Fatal(err)
		}
		ed := tb.Edit()
		for k := 0; k <= 10*i; k++ {
			if _, err := ed.Insert(ctx, []Value{prolly.Int(int64(k + 1)), prolly.String(fmt.Sprint("n", k)), prolly.Int(int64(k % 3)), prolly.Null()}); err != nil {
				t.Fatal(err)
			}
		}
		if tb, err = ed.Table(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := tb.Write(ctx)
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	var loaded []*Table
	for _, a := range addrs {
		want, err := Load(ctx, ns, a, testCollations)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ { // a miss, then a hit
			got, err := c.Load(ctx, ns, a)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows().Address() != want.Rows().Address() || got.AutoIncrement() != want.AutoIncrement() ||
				string(EncodeSchema(got.Schema())) != string(EncodeSchema(want.Schema())) {
				t.Fatalf("table %s round %d: loaded through the cache differs from Load", a, round)
			}
			for i := range want.Schema().Indexes {
				if got.IndexMap(i).Address() != want.IndexMap(i).Address() {
					t.Fatalf("table %s: index %d differs", a, i)
				}
			}
			if w, err := got.Write(ctx); err != nil || w != a {
				t.Fatalf("table %s rewritten: %s, %v", a, w, err)
			}
			loaded = append(loaded, got)
		}
	}
	if loaded[0].Schema() != loaded[3].Schema() {
		t.Fatal("two tables of one stored schema hold two decoded copies")
	}
	if loaded[0].Schema() == loaded[4].Schema() || SameSchema(loaded[0], loaded[4]) || !SameSchema(loaded[0], loaded[2]) {
		t.Fatal("tables of different schemas share one")
	}

	// A damaged table chunk fails as Load fails.
	bad, err := ns.Store().Put(ctx, []byte("VRSTABV\nnot a table"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(ctx, ns, bad); !chunks.IsCorrupt(err) {
		t.Fatalf("damaged table: %v, want a corruption error", err)
	}

	// Bounded: past schemasMax schemas it starts afresh.
	for i := 0; len(c.m) < schemasMax; i++ {
		c.m[chunks.Address{byte(i), byte(i >> 8), 1}] = schemaEntry{}
	}
	if _, err := c.decode(ctx, ns, addrs[0], loaded[0].schemaAddr); err != nil {
		t.Fatal(err)
	}
	if len(c.m) > schemasMax {
		t.Fatalf("%d schemas kept, the bound is %d", len(c.m), schemasMax)
	}
}
