package tables

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Row encoding.
//
// A table with a primary key stores each row in its row map as
//
//	key:   EncodeKey(primary-key values)                 ordered by the key
//	value: EncodeTuple(other columns..., lossy key columns...)
//
// where a key column in a non-binary collation is keyed by its collation's
// sort key (as a Bytes field) and, since the sort key loses the original,
// also stored at the end of the value tuple ("lossy" key columns). A keyless
// table stores
//
//	key:   EncodeKey(Bytes(address of EncodeTuple(row...)))
//	value: EncodeTuple(Uint(count), row...)
//
// so equal rows share one entry with a count. String, Bytes and JSON values
// longer than prolly.LargeInlineLimit are stored out of line (prolly.PutLarge)
// and the tuple holds a Ref.
//
// A secondary index is a map from EncodeKey(index values..., primary-key
// fields...) to the row's key in the row map; index values in a non-binary
// collation are keyed by their sort key. A column indexed on a prefix
// (Index.Prefix) is cut to its first n characters (String) or bytes
// (Bytes) before that.

type rowCodec struct {
	s       *Schema
	cs      Collations            // where collate came from
	collate []func(string) []byte // per column; nil for binary order
	valCols []int                 // the columns of the value tuple, in order
}

func newRowCodec(s *Schema, cs Collations) (*rowCodec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := &rowCodec{s: s, cs: cs, collate: make([]func(string) []byte, len(s.Columns))}
	for i, col := range s.Columns {
		f, err := collationKeyFunc(cs, col.Collation)
		if err != nil {
			return nil, fmt.Errorf("%w: column %q: %w", ErrBadSchema, col.Name, err)
		}
		if col.Kind == prolly.KindString {
			c.collate[i] = f
		}
	}
	inKey := make([]bool, len(s.Columns))
	for _, p := range s.PrimaryKey {
		inKey[p] = true
	}
	for i := range s.Columns {
		if !inKey[i] {
			c.valCols = append(c.valCols, i)
		}
	}
	for _, p := range s.PrimaryKey {
		if c.collate[p] != nil {
			c.valCols = append(c.valCols, p)
		}
	}
	return c, nil
}

// checkRow verifies a row's shape: its length, NULLs and value kinds.
func (c *rowCodec) checkRow(row []Value) error {
	if len(row) != len(c.s.Columns) {
		return fmt.Errorf("%w: %d values for %d columns", ErrRowShape, len(row), len(c.s.Columns))
	}
	for i, v := range row {
		col := &c.s.Columns[i]
		if v.IsNull() {
			if !col.Nullable {
				return fmt.Errorf("%w: column %q", ErrNotNull, col.Name)
			}
			continue
		}
		if v.Kind() != col.Kind {
			return fmt.Errorf("%w: column %q holds %s values, not %s", ErrRowShape, col.Name, col.Kind, v.Kind())
		}
	}
	return nil
}

// keyField returns the key form of column p's value v.
func (c *rowCodec) keyField(p int, v Value) Value {
	if f := c.collate[p]; f != nil && v.Kind() == prolly.KindString {
		return prolly.Bytes(f(v.AsString()))
	}
	return v
}

// rowKey returns the row map key of a row with a primary key. For a keyless
// table it needs the stored value tuple (see keylessKey).
func (c *rowCodec) rowKey(row []Value) []byte {
	var k []byte
	for _, p := range c.s.PrimaryKey {
		k = prolly.AppendKeyField(k, c.keyField(p, row[p]))
	}
	return k
}

// keylessKey returns the key of a keyless row from its stored tuple.
func keylessKey(stored []byte) []byte {
	a := chunks.Of(stored)
	return prolly.EncodeKey(nil, prolly.Bytes(a[:]))
}

// storeValues returns the row with large values moved out of line.
func (c *rowCodec) storeValues(ctx context.Context, ns *prolly.NodeStore, row []Value) ([]Value, error) {
	out := row
	for i, v := range row {
		switch v.Kind() {
		case prolly.KindString, prolly.KindBytes, prolly.KindJSON:
			if len(v.AsString()) <= prolly.LargeInlineLimit {
				continue
			}
			large, err := prolly.PutLarge(ctx, ns, v.Kind(), v.AsBytes())
			if err != nil {
				return nil, err
			}
			if &out[0] == &row[0] {
				out = append([]Value(nil), row...)
			}
			out[i] = large
		}
	}
	return out, nil
}

// encode returns the row map key and value of a row whose large values are
// already stored (see storeValues). count is the keyless row count.
func (c *rowCodec) encode(stored []Value, count uint64) (key, val []byte) {
	if c.s.Keyless() {
		t := prolly.EncodeTuple(nil, stored...)
		vals := append([]Value{prolly.Uint(count)}, stored...)
		return keylessKey(t), prolly.EncodeTuple(nil, vals...)
	}
	vals := make([]Value, len(c.valCols))
	for i, p := range c.valCols {
		vals[i] = stored[p]
	}
	return c.rowKey(stored), prolly.EncodeTuple(nil, vals...)
}

// decode returns the stored row (large values still as Refs) and, for a
// keyless table, its count.
func (c *rowCodec) decode(key, val []byte) (row []Value, count uint64, err error) {
	vals, err := prolly.DecodeTuple(val)
	if err != nil {
		return nil, 0, err
	}
	if c.s.Keyless() {
		if len(vals) != len(c.s.Columns)+1 || vals[0].Kind() != prolly.KindUint || vals[0].AsUint() == 0 {
			return nil, 0, fmt.Errorf("%w: keyless row of %d fields for %d columns", ErrCorrupt, len(vals), len(c.s.Columns))
		}
		return vals[1:], vals[0].AsUint(), nil
	}
	if len(vals) != len(c.valCols) {
		return nil, 0, fmt.Errorf("%w: row value of %d fields, want %d", ErrCorrupt, len(vals), len(c.valCols))
	}
	keys, err := prolly.DecodeKey(key)
	if err != nil {
		return nil, 0, err
	}
	if len(keys) != len(c.s.PrimaryKey) {
		return nil, 0, fmt.Errorf("%w: row key of %d fields, want %d", ErrCorrupt, len(keys), len(c.s.PrimaryKey))
	}
	row = make([]Value, len(c.s.Columns))
	for i, p := range c.s.PrimaryKey {
		row[p] = keys[i]
	}
	for i, p := range c.valCols {
		row[p] = vals[i]
	}
	return row, 1, nil
}

// LoadLarge replaces the Refs in a decoded row (values stored out of line,
// prolly.ReadLarge) with the values they name, in place, and returns row.
func LoadLarge(ctx context.Context, ns *prolly.NodeStore, row []Value) ([]Value, error) {
	return load(ctx, ns, row)
}

// load replaces Refs in a stored row with the values they name.
func load(ctx context.Context, ns *prolly.NodeStore, row []Value) ([]Value, error) {
	for i, v := range row {
		if v.Kind() != prolly.KindRef {
			continue
		}
		k, _, _ := v.AsRef()
		b, err := prolly.ReadLarge(ctx, ns, v)
		if err != nil {
			return nil, err
		}
		switch k {
		case prolly.KindString:
			row[i] = prolly.String(string(b))
		case prolly.KindBytes:
			row[i] = prolly.Bytes(b)
		case prolly.KindJSON:
			row[i] = prolly.JSON(b)
		default:
			return nil, fmt.Errorf("%w: a large value of kind %s", ErrCorrupt, k)
		}
	}
	return row, nil
}

// indexKey returns the key of row's entry in index ix, given the row's key
// in the row map, and whether any index value is NULL (a unique index does
// not compare rows with NULLs).
func (c *rowCodec) indexKey(ix *Index, row []Value, rowKey []byte) (key []byte, hasNull bool) {
	prefix, hasNull := c.indexPrefix(ix, row)
	return append(prefix, rowKey...), hasNull
}

// indexPrefix returns the encoded index values of row.
func (c *rowCodec) indexPrefix(ix *Index, row []Value) (prefix []byte, hasNull bool) {
	for j, p := range ix.Columns {
		v := row[p]
		hasNull = hasNull || v.IsNull()
		prefix = prolly.AppendKeyField(prefix, c.keyField(p, truncate(v, ix.PrefixOf(j))))
	}
	return prefix, hasNull
}

// indexValues returns the values row holds in index ix: its columns, each
// cut to its prefix length.
func indexValues(ix *Index, row []Value) []Value {
	out := make([]Value, len(ix.Columns))
	for j, p := range ix.Columns {
		out[j] = truncate(row[p], ix.PrefixOf(j))
	}
	return out
}

// truncate returns the first n characters of a String value or the first n
// bytes of a Bytes value; n == 0 and other kinds keep the whole value.
func truncate(v Value, n int) Value {
	if n <= 0 {
		return v
	}
	switch v.Kind() {
	case prolly.KindString:
		s := v.AsString()
		if len(s) <= n {
			return v // at most n bytes: at most n characters
		}
		chars := 0
		for i := range s {
			if chars == n {
				return prolly.String(s[:i])
			}
			chars++
		}
	case prolly.KindBytes:
		if b := v.AsBytes(); len(b) > n {
			return prolly.Bytes(b[:n])
		}
	}
	return v
}

// PrefixEnd returns the smallest key greater than every key that starts
// with the encoded fields prefix: a key's next field begins with a tag byte
// below 0xFF, so prefix + FF bounds them all.
func PrefixEnd(prefix []byte) []byte {
	return append(append([]byte(nil), prefix...), 0xFF)
}

// formatKey renders values for a duplicate-key message, as MySQL does:
// joined with '-'.
func formatKey(vals []Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v.Kind() {
		case prolly.KindNull:
			parts[i] = "NULL"
		case prolly.KindInt:
			parts[i] = strconv.FormatInt(v.AsInt(), 10)
		case prolly.KindUint, prolly.KindEnum, prolly.KindSet:
			parts[i] = strconv.FormatUint(v.AsUint(), 10)
		case prolly.KindString, prolly.KindBytes:
			parts[i] = v.AsString()
		case prolly.KindDecimal:
			parts[i] = v.AsDecimal().String()
		case prolly.KindFloat32, prolly.KindFloat64:
			parts[i] = strconv.FormatFloat(v.AsFloat64(), 'g', -1, 64)
		default:
			s := v.String()
			if _, rest, ok := strings.Cut(s, ":"); ok {
				s = rest
			}
			parts[i] = s
		}
	}
	return strings.Join(parts, "-")
}
