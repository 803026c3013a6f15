package commitgraph

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Root values.
//
// The root value of a commit is a prolly map from names to addresses: each
// table, schema, the event log and each of its indexes is one entry. Keys
// are the names' UTF-8 bytes (so entries sort by bytes), values the 20
// bytes of an address:
//
//	key:   name (1 to prolly.MaxKeySize bytes)
//	value: address [20]
//
// What an address names is the business of the layer that wrote the entry
// (a table's own chunk, a prolly map's root, ...). The empty root value has
// the zero address.

// RootValue is an immutable root value. Methods that change it return a
// new RootValue.
type RootValue struct {
	m prolly.Map
}

// RootEntry is one name of a root value.
type RootEntry struct {
	Name string
	Addr chunks.Address
}

// RootEdit changes one name of a root value: put Name -> Addr, or delete
// Name if Delete.
type RootEdit struct {
	Name   string
	Addr   chunks.Address
	Delete bool
}

// EmptyRoot returns the empty root value.
func EmptyRoot(ns *prolly.NodeStore) RootValue { return RootValue{m: prolly.NewMap(ns)} }

// OpenRoot returns the root value at addr; the zero address is the empty
// root value.
func OpenRoot(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (RootValue, error) {
	m, err := prolly.OpenMap(ctx, ns, addr)
	if err != nil {
		return RootValue{}, fmt.Errorf("commitgraph: open root value %s: %w", addr, err)
	}
	return RootValue{m: m}, nil
}

// OpenRoot returns the root value at addr.
func (db *DB) OpenRoot(ctx context.Context, addr chunks.Address) (RootValue, error) {
	return OpenRoot(ctx, db.ns, addr)
}

// Address returns the root value's address.
func (r RootValue) Address() chunks.Address { return r.m.Address() }

// Map returns the prolly map under the root value.
func (r RootValue) Map() prolly.Map { return r.m }

// Len returns the number of names.
func (r RootValue) Len() int { return int(r.m.Count()) }

// Get returns the address of name.
func (r RootValue) Get(ctx context.Context, name string) (chunks.Address, bool, error) {
	v, ok, err := r.m.Get(ctx, []byte(name))
	if err != nil || !ok {
		return chunks.Address{}, false, err
	}
	a, err := decodeRootValue(name, v)
	return a, err == nil, err
}

func decodeRootValue(name string, v []byte) (chunks.Address, error) {
	var a chunks.Address
	if len(v) != chunks.AddressSize {
		return a, badChunk("root value: %q holds %d bytes, want an address", name, len(v))
	}
	copy(a[:], v)
	return a, nil
}

// Entries returns every entry whose name begins with prefix, sorted by
// name.
func (r RootValue) Entries(ctx context.Context, prefix string) ([]RootEntry, error) {
	var out []RootEntry
	it := r.m.Iter(ctx, prolly.PrefixRange([]byte(prefix)))
	for it.Next(ctx) {
		a, err := decodeRootValue(string(it.Key()), it.Value())
		if err != nil {
			return nil, err
		}
		out = append(out, RootEntry{Name: string(it.Key()), Addr: a})
	}
	return out, it.Err()
}

// Edit returns the root value with edits applied (in any order; the last
// edit of a name wins).
func (r RootValue) Edit(ctx context.Context, edits ...RootEdit) (RootValue, error) {
	byName := map[string]RootEdit{}
	for _, e := range edits {
		if e.Name == "" {
			return RootValue{}, fmt.Errorf("commitgraph: root value: empty name")
		}
		if !e.Delete && e.Addr.IsEmpty() {
			return RootValue{}, fmt.Errorf("commitgraph: root value: %q set to the zero address; delete it instead", e.Name)
		}
		byName[e.Name] = e
	}
	pe := make([]prolly.Edit, 0, len(byName))
	for _, e := range byName {
		if e.Delete {
			pe = append(pe, prolly.Edit{Key: []byte(e.Name), Delete: true})
		} else {
			pe = append(pe, prolly.Edit{Key: []byte(e.Name), Value: bytes.Clone(e.Addr[:])})
		}
	}
	slices.SortFunc(pe, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	m, err := r.m.Apply(ctx, pe)
	if err != nil {
		return RootValue{}, fmt.Errorf("commitgraph: root value: %w", err)
	}
	return RootValue{m: m}, nil
}

// RootChange is one name whose address differs between two root values.
// An address is zero when its In flag is false (the name is absent there).
type RootChange struct {
	Name         string
	From, To     chunks.Address
	InFrom, InTo bool
}

// Diff calls fn for each name whose address differs from r to to, by name.
// Its cost follows the size of the change (see prolly.NewDiffer).
func (r RootValue) Diff(ctx context.Context, to RootValue, fn func(RootChange) error) error {
	return prolly.DiffMaps(ctx, r.m, to.m, func(d prolly.Diff) error {
		c := RootChange{Name: string(d.Key)}
		var err error
		if d.Type != prolly.Added {
			c.InFrom = true
			if c.From, err = decodeRootValue(c.Name, d.From); err != nil {
				return err
			}
		}
		if d.Type != prolly.Removed {
			c.InTo = true
			if c.To, err = decodeRootValue(c.Name, d.To); err != nil {
				return err
			}
		}
		return fn(c)
	})
}

// String lists the entries of small root values, for tests and messages.
func (r RootValue) String() string {
	es, err := r.Entries(context.Background(), "")
	if err != nil {
		return fmt.Sprintf("<root value %s: %v>", r.Address(), err)
	}
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%s", e.Name, e.Addr)
	}
	return b.String()
}
