package tables

import (
	"context"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// TestLoadLikeOtherSchema loads a table value like one of another schema,
// and like one of another node store: LoadLike must decode the value's
// own schema then, not reuse the one it was given.
func TestLoadLikeOtherSchema(t *testing.T) {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	write := func(ns *prolly.NodeStore, s *Schema) (*Table, chunks.Address) {
		tb, err := New(ns, s, testCollations)
		if err != nil {
			t.Fatal(err)
		}
		ed := tb.Edit()
		if _, err := ed.Insert(ctx, []Value{prolly.Int(1), prolly.String("a"), prolly.Int(2), prolly.String("n")}); err != nil {
			t.Fatal(err)
		}
		if tb, err = ed.Table(ctx); err != nil {
			t.Fatal(err)
		}
		addr, err := tb.Write(ctx)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(ctx, ns, addr, testCollations)
		if err != nil {
			t.Fatal(err)
		}
		return loaded, addr
	}
	keyed, _ := write(ns, testSchema(false))
	keyless, keylessAddr := write(ns, testSchema(true))
	got, err := LoadLike(ctx, ns, keylessAddr, testCollations, keyed)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema() == keyed.Schema() || !got.Schema().Keyless() || got.SchemaAddress() != keyless.SchemaAddress() {
		t.Fatalf("LoadLike of a keyless value like a keyed one: schema %+v", got.Schema())
	}
	other := prolly.NewNodeStore(chunks.NewMemoryStore())
	_, otherAddr := write(other, testSchema(true))
	got, err = LoadLike(ctx, other, otherAddr, testCollations, keyless)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema() == keyless.Schema() {
		t.Fatal("LoadLike reused the schema of a table of another node store")
	}
	if got, err = LoadLike(ctx, ns, keylessAddr, testCollations, keyless); err != nil || got.Schema() != keyless.Schema() {
		t.Fatalf("LoadLike of the same schema: %v, shared %v", err, got.Schema() == keyless.Schema())
	}
}
