package chunks

import (
	"context"
	"errors"
	"testing"
)

// TestOverlay: an overlay reads its own chunks and the base's, keeps its
// puts from the base, refuses to commit, and works over a read-only base.
func TestOverlay(t *testing.T) {
	ctx := context.Background()
	base := NewMemoryStore()
	a, err := base.Put(ctx, []byte("in the base"))
	if err != nil {
		t.Fatal(err)
	}
	if err := base.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	o := NewOverlay(readerOnly{base})
	b, err := o.Put(ctx, []byte("in the overlay"))
	if err != nil {
		t.Fatal(err)
	}
	missing := Of([]byte("nowhere"))
	for _, c := range []struct {
		addr Address
		want string
	}{{a, "in the base"}, {b, "in the overlay"}} {
		got, err := o.Get(ctx, c.addr)
		if err != nil || string(got) != c.want {
			t.Errorf("Get %s: %q, %v; want %q", c.addr, got, err, c.want)
		}
		if ok, err := o.Has(ctx, c.addr); !ok || err != nil {
			t.Errorf("Has %s: %v, %v", c.addr, ok, err)
		}
	}
	if _, err := o.Get(ctx, missing); !IsNotFound(err) {
		t.Errorf("Get of a missing chunk: %v, want ErrNotFound", err)
	}
	got := map[Address]string{}
	if err := o.GetMany(ctx, []Address{a, b, missing}, func(x Address, data []byte) { got[x] = string(data) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[a] != "in the base" || got[b] != "in the overlay" {
		t.Errorf("GetMany: %v", got)
	}
	absent, err := o.HasMany(ctx, []Address{a, b, missing})
	if err != nil || len(absent) != 1 || !absent.Has(missing) {
		t.Errorf("HasMany: %v, %v; want only the missing chunk", absent, err)
	}
	if ok, _ := base.Has(ctx, b); ok {
		t.Error("the overlay's put reached the base")
	}
	if root, err := o.Root(ctx); err != nil || root != a {
		t.Errorf("Root: %s, %v; want the base's %s", root, err, a)
	}
	if err := o.Commit(ctx, b, a); err == nil {
		t.Error("an overlay committed a root")
	}
	if o.Len() != 1 {
		t.Errorf("Len %d, want 1", o.Len())
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := base.Get(ctx, a); err != nil {
		t.Errorf("closing the overlay closed the base: %v", err)
	}
	if _, err := o.Get(ctx, b); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
}

// readerOnly hides every method of a store but Reader's.
type readerOnly struct{ Reader }
