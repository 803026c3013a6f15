package tables

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Table chunk format, version 1.
//
// A table value is one chunk naming the schema chunk and the maps; integers
// are big-endian.
//
//	+-------------------------------------------------------------+
//	| magic "VRSTABV\n" (8) | format version u32                  |
//	| schema address [20]                                         |
//	| row map address [20]               (zero: an empty map)     |
//	| next auto-increment value u64      (0: never set)           |
//	| index count u16 | index map address [20] ...                |  in schema order
//	+-------------------------------------------------------------+

const (
	tableMagic   = "VRSTABV\n"
	tableVersion = 1
	tableFixed   = 8 + 4 + 2*chunks.AddressSize + 8 + 2
)

// Table is an immutable table value: a schema, the row map and one map per
// secondary index. Edit it with Edit; store it with Write.
type Table struct {
	ns      *prolly.NodeStore
	schema  *Schema
	c       *rowCodec
	rows    prolly.Map
	indexes []prolly.Map
	autoInc uint64
	// schemaAddr is the stored schema's address when the table was
	// loaded (Load), so that Write does not encode and put it again;
	// zero for a table made by New.
	schemaAddr chunks.Address
}

// New returns an empty table with schema s. cs gives the collations its
// string columns may name besides the binary ones (nil: none); a column in
// another fails with ErrUnknownCollation.
func New(ns *prolly.NodeStore, s *Schema, cs Collations) (*Table, error) {
	c, err := newRowCodec(s, cs)
	if err != nil {
		return nil, err
	}
	t := &Table{ns: ns, schema: s, c: c, rows: prolly.NewMap(ns)}
	for range s.Indexes {
		t.indexes = append(t.indexes, prolly.NewMap(ns))
	}
	return t, nil
}

// Load reads the table value stored at addr, with the collations of cs (as
// New).
func Load(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address, cs Collations) (*Table, error) {
	return LoadLike(ctx, ns, addr, cs, nil)
}

// LoadLike is Load, reusing like's decoded schema and row codec when the
// table value at addr has the same stored schema (the same schema address)
// instead of reading and decoding it again: the table values of one
// table's history mostly share their schema. like must have been loaded
// with the same collations cs; a nil like, or one of another schema,
// makes it Load.
func LoadLike(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address, cs Collations, like *Table) (*Table, error) {
	schemaAddr, rowsAddr, autoInc, idx, err := readTable(ctx, ns, addr)
	if err != nil {
		return nil, err
	}
	if like != nil && !like.schemaAddr.IsEmpty() && like.schemaAddr == schemaAddr && like.ns == ns {
		return open(ctx, ns, addr, like.schema, like.c, schemaAddr, rowsAddr, autoInc, idx)
	}
	s, err := loadSchema(ctx, ns, addr, schemaAddr)
	if err != nil {
		return nil, err
	}
	c, err := newRowCodec(s, cs)
	if err != nil {
		return nil, fmt.Errorf("tables: table %s: %w", addr, err)
	}
	return open(ctx, ns, addr, s, c, schemaAddr, rowsAddr, autoInc, idx)
}

// SchemaAddress returns the address of the table's stored schema: zero
// for a table made by New and not loaded.
func (t *Table) SchemaAddress() chunks.Address { return t.schemaAddr }

// SameSchema reports whether a and b have the same schema: the same
// stored schema or, failing that, equal encodings.
func SameSchema(a, b *Table) bool {
	if a.schema == b.schema || (!a.schemaAddr.IsEmpty() && a.schemaAddr == b.schemaAddr) {
		return true
	}
	return bytes.Equal(EncodeSchema(a.schema), EncodeSchema(b.schema))
}

// readTable reads and decodes the table chunk at addr.
func readTable(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (schema, rows chunks.Address, autoInc uint64, idx []chunks.Address, err error) {
	b, err := ns.Store().Get(ctx, addr)
	if err != nil {
		return schema, rows, 0, nil, fmt.Errorf("tables: load table %s: %w", addr, err)
	}
	if schema, rows, autoInc, idx, err = decodeTable(b); err != nil {
		return schema, rows, 0, nil, fmt.Errorf("tables: table %s: %w", addr, err)
	}
	return schema, rows, autoInc, idx, nil
}

// loadSchema reads and decodes the schema at schemaAddr, of the table at
// addr.
func loadSchema(ctx context.Context, ns *prolly.NodeStore, addr, schemaAddr chunks.Address) (*Schema, error) {
	sb, err := ns.Store().Get(ctx, schemaAddr)
	if err != nil {
		return nil, fmt.Errorf("tables: table %s: schema: %w", addr, err)
	}
	s, err := DecodeSchema(sb)
	if err != nil {
		return nil, fmt.Errorf("tables: table %s: %w", addr, err)
	}
	return s, nil
}

// open makes the table value at addr from its decoded parts.
func open(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address, s *Schema, c *rowCodec, schemaAddr, rowsAddr chunks.Address, autoInc uint64, idx []chunks.Address) (*Table, error) {
	if len(idx) != len(s.Indexes) {
		return nil, fmt.Errorf("tables: table %s: %w: %d index maps for %d indexes", addr, ErrCorrupt, len(idx), len(s.Indexes))
	}
	t := &Table{ns: ns, schema: s, c: c, autoInc: autoInc, schemaAddr: schemaAddr, indexes: make([]prolly.Map, len(idx))}
	var err error
	if t.rows, err = openMap(ctx, ns, rowsAddr); err != nil {
		return nil, err
	}
	for i, a := range idx {
		if t.indexes[i], err = openMap(ctx, ns, a); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func openMap(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (prolly.Map, error) {
	if addr.IsEmpty() {
		return prolly.NewMap(ns), nil
	}
	return prolly.OpenMap(ctx, ns, addr)
}

func decodeTable(b []byte) (schema, rows chunks.Address, autoInc uint64, idx []chunks.Address, err error) {
	if len(b) < tableFixed || string(b[:8]) != tableMagic {
		return schema, rows, 0, nil, fmt.Errorf("%w: not a table chunk", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != tableVersion {
		return schema, rows, 0, nil, fmt.Errorf("%w: table format version %d; this build reads version %d", ErrCorrupt, v, tableVersion)
	}
	p := b[12:]
	copy(schema[:], p)
	copy(rows[:], p[chunks.AddressSize:])
	p = p[2*chunks.AddressSize:]
	autoInc = binary.BigEndian.Uint64(p)
	n := int(binary.BigEndian.Uint16(p[8:]))
	p = p[10:]
	if len(p) != n*chunks.AddressSize {
		return schema, rows, 0, nil, fmt.Errorf("%w: table chunk holds %d bytes for %d index maps", ErrCorrupt, len(p), n)
	}
	for i := 0; i < n; i++ {
		var a chunks.Address
		copy(a[:], p[i*chunks.AddressSize:])
		idx = append(idx, a)
	}
	if schema.IsEmpty() {
		return schema, rows, 0, nil, fmt.Errorf("%w: table chunk names no schema", ErrCorrupt)
	}
	return schema, rows, autoInc, idx, nil
}

// Write stores the table value (its maps are already stored) and returns
// its address. Equal tables have equal addresses.
func (t *Table) Write(ctx context.Context) (chunks.Address, error) {
	sa := t.schemaAddr
	if sa.IsEmpty() {
		var err error
		if sa, err = t.ns.Store().Put(ctx, EncodeSchema(t.schema)); err != nil {
			return chunks.Address{}, err
		}
	}
	b := make([]byte, 0, tableFixed+len(t.indexes)*chunks.AddressSize)
	b = append(b, tableMagic...)
	b = binary.BigEndian.AppendUint32(b, tableVersion)
	b = append(b, sa[:]...)
	ra := t.rows.Address()
	b = append(b, ra[:]...)
	b = binary.BigEndian.AppendUint64(b, t.autoInc)
	b = binary.BigEndian.AppendUint16(b, uint16(len(t.indexes)))
	for _, m := range t.indexes {
		a := m.Address()
		b = append(b, a[:]...)
	}
	return t.ns.Store().Put(ctx, b)
}

// Collations returns the collations the table was opened with, for
// opening tables derived from it.
func (t *Table) Collations() Collations { return t.c.cs }

// Schema returns the table's schema. Do not modify it.
func (t *Table) Schema() *Schema { return t.schema }

// Rows returns the row map (see the row encoding in rowcodec.go).
func (t *Table) Rows() prolly.Map { return t.rows }

// IndexMap returns the map of secondary index i.
func (t *Table) IndexMap(i int) prolly.Map { return t.indexes[i] }

// NodeStore returns the node store the table reads from.
func (t *Table) NodeStore() *prolly.NodeStore { return t.ns }

// AutoIncrement returns the next auto-increment value the table will hand
// out (at least 1).
func (t *Table) AutoIncrement() uint64 { return max(t.autoInc, 1) }

// Count returns the number of entries in the row map: the number of rows of
// a table with a primary key, of distinct rows of a keyless one.
func (t *Table) Count() uint64 { return t.rows.Count() }

// KeyOf returns the row map key of a full row of a table with a primary key.
func (t *Table) KeyOf(row []Value) []byte { return t.c.rowKey(row) }

// KeyPrefix encodes the first len(vals) primary-key columns' values as a key
// prefix, for range scans (see PrefixEnd).
func (t *Table) KeyPrefix(vals []Value) []byte {
	var k []byte
	for i, v := range vals {
		k = prolly.AppendKeyField(k, t.c.keyField(t.schema.PrimaryKey[i], v))
	}
	return k
}

// IndexPrefix encodes values of the first len(vals) columns of index i as a
// key prefix, for range scans of the index. A value of a column indexed on
// a prefix is cut to it first, so the key prefix of a value v covers every
// row whose prefix equals v's; since cutting keeps order, the key prefixes
// of two values bound every row between them (inclusively).
func (t *Table) IndexPrefix(i int, vals []Value) []byte {
	ix := &t.schema.Indexes[i]
	var k []byte
	for j, v := range vals {
		k = prolly.AppendKeyField(k, t.c.keyField(ix.Columns[j], truncate(v, ix.PrefixOf(j))))
	}
	return k
}

// Get returns the row with the primary-key values pk.
func (t *Table) Get(ctx context.Context, pk []Value) ([]Value, bool, error) {
	if err := t.checkPK(pk); err != nil {
		return nil, false, err
	}
	return t.GetByKey(ctx, t.KeyPrefix(pk))
}

// checkPK returns ErrRowShape unless pk holds one value per primary-key
// column (a keyless table has none: its rows are found by their values).
func (t *Table) checkPK(pk []Value) error {
	if n := len(t.schema.PrimaryKey); n == 0 || len(pk) != n {
		if n == 0 {
			return fmt.Errorf("%w: the table has no primary key to look a row up by", ErrRowShape)
		}
		return fmt.Errorf("%w: %d primary-key values for a key of %d columns", ErrRowShape, len(pk), n)
	}
	return nil
}

// GetByKey returns the row stored under the row map key.
func (t *Table) GetByKey(ctx context.Context, key []byte) ([]Value, bool, error) {
	val, ok, err := t.rows.Get(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	row, _, err := t.c.decode(key, val)
	if err == nil {
		row, err = load(ctx, t.ns, row)
	}
	return row, err == nil, err
}

// Decode returns the row stored under the row map key with value val (as
// a row map lookup or RowIter.Value gives it), large values loaded.
func (t *Table) Decode(ctx context.Context, key, val []byte) ([]Value, error) {
	row, _, err := t.DecodeCopies(ctx, key, val)
	return row, err
}

// DecodeCopies is Decode with the number of copies the entry stands for:
// a keyless table keeps equal rows in one entry with their count; a row
// of a table with a primary key is one copy.
func (t *Table) DecodeCopies(ctx context.Context, key, val []byte) ([]Value, uint64, error) {
	row, n, err := t.c.decode(key, val)
	if err == nil {
		row, err = load(ctx, t.ns, row)
	}
	return row, n, err
}

// InIndexSpan reports whether row, stored under the row map key, has its
// entry of secondary index i in the key range lo <= k < hi (nil bounds
// open).
func (t *Table) InIndexSpan(i int, row []Value, key, lo, hi []byte) bool {
	ik, _ := t.c.indexKey(&t.schema.Indexes[i], row, key)
	return (lo == nil || bytes.Compare(ik, lo) >= 0) && (hi == nil || bytes.Compare(ik, hi) < 0)
}

// UniqueKey is a row's entry prefix in a unique index: the index's
// position in the schema and the encoded values.
type UniqueKey struct {
	Index  int
	Prefix []byte
}

// UniqueKeys returns row's values in each unique index of the table, but
// for the indexes where one of them is NULL (a unique index does not
// compare those).
func (t *Table) UniqueKeys(row []Value) []UniqueKey {
	var out []UniqueKey
	for i := range t.schema.Indexes {
		ix := &t.schema.Indexes[i]
		if !ix.Unique {
			continue
		}
		if p, hasNull := t.c.indexPrefix(ix, row); !hasNull {
			out = append(out, UniqueKey{Index: i, Prefix: p})
		}
	}
	return out
}

// IndexRowKeys returns the row keys of the entries of index i that begin
// with prefix.
func (t *Table) IndexRowKeys(ctx context.Context, i int, prefix []byte) ([][]byte, error) {
	var out [][]byte
	it := t.indexes[i].IterRange(ctx, prefix, PrefixEnd(prefix), false)
	for it.Next(ctx) {
		out = append(out, bytes.Clone(it.Value()))
	}
	return out, it.Err()
}
