package tablemerge

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Conflicts of a table.
//
// A merge that leaves rows in conflict records them in the merged root
// value under the name "conflicts/<table>" (ConflictsPrefix), beside the
// table itself, which holds our side of each of those rows. The entry names
// a conflict-set chunk, format version 1:
//
//	+------------------------------------------------------------+
//	| magic "VCONFLT\n" (8) | format version u32 big-endian (1)    |
//	| schema address [20]     the rows' schema (tables.EncodeSchema) |
//	| theirs commit [20]      the commit merged; zero if none        |
//	| conflict map address [20]  a prolly map; never empty            |
//	+------------------------------------------------------------+
//
// The conflict map is keyed by the row's primary key, encoded as in the
// table's row map (EncodeKey of the key columns), and each value is one
// conflict:
//
//	+------------------------------------------------------------+
//	| sides u8: 0x01 base, 0x02 ours, 0x04 theirs present; the     |
//	|           other bits zero; ours or theirs present            |
//	| for each present side, in the order base, ours, theirs:      |
//	|   row length uvarint | row: prolly.EncodeTuple of every      |
//	|   column of the schema, values longer than                   |
//	|   prolly.LargeInlineLimit as Refs (prolly.PutLarge)          |
//	+------------------------------------------------------------+
//
// All three rows are in the one schema of the chunk: the table's schema
// at the merge (a side whose schema differed is migrated to it). A side is
// absent where the row does not exist: base for a row both sides added,
// ours or theirs for a row that side deleted.

const (
	// ConflictsPrefix begins the root value name of a table's conflicts.
	ConflictsPrefix = commitgraph.ConflictsPrefix

	conflictMagic   = "VCONFLT\n"
	conflictVersion = 1
	conflictSize    = 8 + 4 + 3*chunks.AddressSize

	sideBase   = 0x01
	sideOurs   = 0x02
	sideTheirs = 0x04
)

// Conflict is one row in conflict. A side is nil where the row does not
// exist there.
type Conflict struct {
	Key                []byte
	Base, Ours, Theirs []tables.Value
}

// ConflictSet is the conflicts of one table, as stored: immutable.
type ConflictSet struct {
	ns     *prolly.NodeStore
	Schema *tables.Schema
	// Theirs is the commit whose merge made the conflicts (zero if none).
	Theirs chunks.Address
	m      prolly.Map
}

// NewConflictSet returns an empty conflict set of rows of schema s.
func NewConflictSet(ns *prolly.NodeStore, s *tables.Schema, theirs chunks.Address) *ConflictSet {
	return &ConflictSet{ns: ns, Schema: s, Theirs: theirs, m: prolly.NewMap(ns)}
}

// Count returns the number of rows in conflict.
func (cs *ConflictSet) Count() uint64 { return cs.m.Count() }

// Map returns the conflict map (key: row key, value: an encoded conflict).
func (cs *ConflictSet) Map() prolly.Map { return cs.m }

// encodeSet returns the conflict-set chunk.
func encodeSet(schema, theirs, m chunks.Address) []byte {
	b := make([]byte, 0, conflictSize)
	b = append(b, conflictMagic...)
	b = binary.BigEndian.AppendUint32(b, conflictVersion)
	b = append(b, schema[:]...)
	b = append(b, theirs[:]...)
	return append(b, m[:]...)
}

// DecodeConflictSetChunk decodes a conflict-set chunk into the addresses
// it names. It returns an error wrapping ErrCorrupt for bytes that are not
// one; it never panics.
func DecodeConflictSetChunk(b []byte) (schema, theirs, conflicts chunks.Address, err error) {
	if len(b) != conflictSize || string(b[:8]) != conflictMagic {
		return schema, theirs, conflicts, corrupt("not a conflict-set chunk (%d bytes)", len(b))
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != conflictVersion {
		return schema, theirs, conflicts, corrupt("conflict-set format version %d; this build reads version %d", v, conflictVersion)
	}
	p := b[12:]
	copy(schema[:], p)
	copy(theirs[:], p[chunks.AddressSize:])
	copy(conflicts[:], p[2*chunks.AddressSize:])
	if schema.IsEmpty() || conflicts.IsEmpty() {
		return schema, theirs, conflicts, corrupt("conflict-set chunk names no schema or no conflicts")
	}
	return schema, theirs, conflicts, nil
}

// LoadConflictSet reads the conflict set stored at addr.
func LoadConflictSet(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (*ConflictSet, error) {
	b, err := ns.Store().Get(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: conflict set %s: %w", addr, err)
	}
	sa, theirs, ma, err := DecodeConflictSetChunk(b)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: conflict set %s: %w", addr, err)
	}
	sb, err := ns.Store().Get(ctx, sa)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: conflict set %s: schema: %w", addr, err)
	}
	s, err := tables.DecodeSchema(sb)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: conflict set %s: %w", addr, err)
	}
	m, err := prolly.OpenMap(ctx, ns, ma)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: conflict set %s: %w", addr, err)
	}
	return &ConflictSet{ns: ns, Schema: s, Theirs: theirs, m: m}, nil
}

// Write stores the conflict set and returns its address. An empty set
// cannot be stored: its table has no conflicts, and no root entry.
func (cs *ConflictSet) Write(ctx context.Context) (chunks.Address, error) {
	if cs.m.Count() == 0 {
		return chunks.Address{}, fmt.Errorf("tablemerge: an empty conflict set is not stored; delete the table's %s entry instead", ConflictsPrefix)
	}
	sa, err := cs.ns.Store().Put(ctx, tables.EncodeSchema(cs.Schema))
	if err != nil {
		return chunks.Address{}, err
	}
	return cs.ns.Store().Put(ctx, encodeSet(sa, cs.Theirs, cs.m.Address()))
}

// EncodeConflict returns the stored value of c (its Key is not part of
// it), writing values too long to keep inline to ns.
func EncodeConflict(ctx context.Context, ns *prolly.NodeStore, c Conflict) ([]byte, error) {
	var sides byte
	var rows [][]tables.Value
	for i, r := range [][]tables.Value{c.Base, c.Ours, c.Theirs} {
		if r != nil {
			sides |= 1 << i
			rows = append(rows, r)
		}
	}
	if sides&(sideOurs|sideTheirs) == 0 {
		return nil, fmt.Errorf("tablemerge: a conflict needs our row or theirs")
	}
	b := []byte{sides}
	for _, r := range rows {
		stored := make([]tables.Value, len(r))
		for i, v := range r {
			switch k := v.Kind(); k {
			case prolly.KindString, prolly.KindBytes, prolly.KindJSON:
				lv, err := prolly.PutLarge(ctx, ns, k, v.AsBytes())
				if err != nil {
					return nil, err
				}
				v = lv
			}
			stored[i] = v
		}
		t := prolly.EncodeTuple(nil, stored...)
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	if len(b) > prolly.MaxValueSize {
		return nil, fmt.Errorf("tablemerge: the conflict's three rows take %d bytes, at most %d", len(b), prolly.MaxValueSize)
	}
	return b, nil
}

// DecodeConflict decodes a stored conflict value with ncols columns per
// row. Refs stay Refs (see LoadRow). It returns an error wrapping
// ErrCorrupt for bytes that are not a canonical conflict; it never panics.
func DecodeConflict(b []byte, ncols int) (Conflict, error) {
	var c Conflict
	if len(b) == 0 {
		return c, corrupt("empty conflict")
	}
	sides := b[0]
	if sides&^(sideBase|sideOurs|sideTheirs) != 0 || sides&(sideOurs|sideTheirs) == 0 {
		return c, corrupt("conflict sides %#x", sides)
	}
	p := b[1:]
	out := []*[]tables.Value{&c.Base, &c.Ours, &c.Theirs}
	for i := range 3 {
		if sides&(1<<i) == 0 {
			continue
		}
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return Conflict{}, corrupt("conflict row %d: bad length", i)
		}
		if w != len(binary.AppendUvarint(nil, n)) {
			return Conflict{}, corrupt("conflict row %d: non-canonical length", i)
		}
		row, err := prolly.DecodeTuple(p[w : w+int(n)])
		if err != nil {
			return Conflict{}, fmt.Errorf("%w: conflict row %d: %w", ErrCorrupt, i, err)
		}
		if len(row) != ncols {
			return Conflict{}, corrupt("conflict row %d has %d values for %d columns", i, len(row), ncols)
		}
		*out[i] = row
		p = p[w+int(n):]
	}
	if len(p) != 0 {
		return Conflict{}, corrupt("%d bytes after the conflict's rows", len(p))
	}
	return c, nil
}

// decode decodes one stored conflict of the set, loading large values.
func (cs *ConflictSet) decode(ctx context.Context, key, val []byte) (Conflict, error) {
	c, err := DecodeConflict(val, len(cs.Schema.Columns))
	if err != nil {
		return Conflict{}, err
	}
	c.Key = append([]byte(nil), key...)
	for _, r := range []*[]tables.Value{&c.Base, &c.Ours, &c.Theirs} {
		if *r != nil {
			if *r, err = tables.LoadLarge(ctx, cs.ns, *r); err != nil {
				return Conflict{}, err
			}
		}
	}
	return c, nil
}

// Get returns the conflict of the row with key.
func (cs *ConflictSet) Get(ctx context.Context, key []byte) (Conflict, bool, error) {
	v, ok, err := cs.m.Get(ctx, key)
	if err != nil || !ok {
		return Conflict{}, false, err
	}
	c, err := cs.decode(ctx, key, v)
	return c, err == nil, err
}

// Each calls fn for every conflict in key order, until fn returns false.
func (cs *ConflictSet) Each(ctx context.Context, fn func(Conflict) bool) error {
	it := cs.m.IterAll(ctx)
	for it.Next(ctx) {
		c, err := cs.decode(ctx, it.Key(), it.Value())
		if err != nil {
			return err
		}
		if !fn(c) {
			return nil
		}
	}
	return it.Err()
}

// Edit returns the set with conflicts put (by Key) and the keys in del
// deleted.
func (cs *ConflictSet) Edit(ctx context.Context, put []Conflict, del [][]byte) (*ConflictSet, error) {
	ed := cs.m.Edit()
	for _, c := range put {
		v, err := EncodeConflict(ctx, cs.ns, c)
		if err != nil {
			return nil, err
		}
		if err := ed.Put(c.Key, v); err != nil {
			return nil, err
		}
	}
	for _, k := range del {
		ed.Delete(k)
	}
	m, err := ed.Map(ctx)
	if err != nil {
		return nil, err
	}
	n := *cs
	n.m = m
	return &n, nil
}

// TableConflicts is the number of rows in conflict in one table.
type TableConflicts struct {
	Table string
	Count uint64
}

// ListConflicts returns the tables of root with conflicts, by name.
func ListConflicts(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue) ([]TableConflicts, error) {
	ents, err := root.Entries(ctx, ConflictsPrefix)
	if err != nil {
		return nil, err
	}
	var out []TableConflicts
	for _, e := range ents {
		cs, err := LoadConflictSet(ctx, ns, e.Addr)
		if err != nil {
			return nil, err
		}
		out = append(out, TableConflicts{Table: strings.TrimPrefix(e.Name, ConflictsPrefix), Count: cs.Count()})
	}
	return out, nil
}

// HasConflicts reports whether root holds conflicts of any table.
func HasConflicts(ctx context.Context, root commitgraph.RootValue) (bool, error) {
	ents, err := root.Entries(ctx, ConflictsPrefix)
	return len(ents) > 0, err
}

// SetConflicts returns root with table's conflicts set to cs: stored, or
// the entry removed when cs is nil or empty.
func SetConflicts(ctx context.Context, root commitgraph.RootValue, table string, cs *ConflictSet) (commitgraph.RootValue, error) {
	if cs == nil || cs.Count() == 0 {
		return root.Edit(ctx, commitgraph.RootEdit{Name: ConflictsPrefix + table, Delete: true})
	}
	addr, err := cs.Write(ctx)
	if err != nil {
		return root, err
	}
	return root.Edit(ctx, commitgraph.RootEdit{Name: ConflictsPrefix + table, Addr: addr})
}

// Check verifies the conflict set: its map passes prolly's Check, every
// key is a decodable key tuple of as many values as the schema's primary
// key has columns, and every conflict decodes with a row per present side
// of the schema's width, holding those key values. It reads every
// conflict.
func (cs *ConflictSet) Check(ctx context.Context) error {
	if err := cs.m.Check(ctx); err != nil {
		return fmt.Errorf("tablemerge: conflict map: %w", err)
	}
	if cs.m.Count() == 0 {
		return corrupt("an empty conflict set")
	}
	it := cs.m.IterAll(ctx)
	for it.Next(ctx) {
		key, err := prolly.DecodeKey(it.Key())
		if err != nil || len(key) != len(cs.Schema.PrimaryKey) {
			return corrupt("conflict key %x is not a primary key of %d columns (%v)", it.Key(), len(cs.Schema.PrimaryKey), err)
		}
		c, err := DecodeConflict(it.Value(), len(cs.Schema.Columns))
		if err != nil {
			return fmt.Errorf("tablemerge: conflict at key %x: %w", it.Key(), err)
		}
		for _, r := range [][]tables.Value{c.Base, c.Ours, c.Theirs} {
			if r == nil {
				continue
			}
			for i, p := range cs.Schema.PrimaryKey {
				if r[p] != key[i] {
					return corrupt("conflict at key %x holds a row with key value %v", it.Key(), r[p])
				}
			}
		}
	}
	return it.Err()
}
