package tables

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/prolly"
)

// RowIter yields the rows of a range of the row map or of an index. A
// keyless row stored with count n is yielded n times. It is not safe for
// concurrent use.
type RowIter struct {
	t     *Table
	it    *prolly.Iter
	index bool
	proj  *Projection // nil: every column
	row   []Value
	reuse bool   // ReuseRow: row's array is reused by the next row
	left  uint64 // further copies of row to yield
	err   error
	// key and val are the current row's row map entry.
	key, val []byte
}

// Scan iterates over the rows whose row map keys k satisfy lo <= k < hi (nil
// bounds are open), in key order or reversed.
func (t *Table) Scan(ctx context.Context, lo, hi []byte, reverse bool) *RowIter {
	return &RowIter{t: t, it: t.rows.IterRange(ctx, lo, hi, reverse)}
}

// ScanIndex iterates over the rows whose index i keys k satisfy
// lo <= k < hi, in index order or reversed.
func (t *Table) ScanIndex(ctx context.Context, i int, lo, hi []byte, reverse bool) *RowIter {
	return &RowIter{t: t, it: t.indexes[i].IterRange(ctx, lo, hi, reverse), index: true}
}

// Project makes the iterator yield only the columns of p, in p's order,
// decoding (and loading out of line) only those. Call it before the first
// Next; p must come from the same table's Project. It returns r.
func (r *RowIter) Project(p *Projection) *RowIter {
	r.proj = p
	return r
}

// ReuseRow makes the iterator decode each projected row into the array of
// the one before: a Row is then valid only until the next call of Next.
// Call it before the first Next; it returns r.
func (r *RowIter) ReuseRow() *RowIter {
	r.reuse = true
	return r
}

// Next advances to the next row and reports whether there is one.
func (r *RowIter) Next(ctx context.Context) bool {
	if r.err != nil {
		return false
	}
	if r.left > 0 {
		r.left--
		if !r.reuse {
			r.row = append([]Value(nil), r.row...)
		}
		return true
	}
	if !r.it.Next(ctx) {
		r.err = r.it.Err()
		return false
	}
	key, val := r.it.Key(), r.it.Value()
	if r.index {
		key = val
		v, ok, err := r.t.rows.Get(ctx, key)
		if err == nil && !ok {
			err = fmt.Errorf("%w: an index entry names row %x, which the table does not hold", ErrCorrupt, key)
		}
		if err != nil {
			r.err = err
			return false
		}
		val = v
	}
	var row []Value
	var count uint64
	var err error
	if r.proj != nil {
		var into []Value
		if r.reuse {
			into = r.row
		}
		row, count, err = r.t.c.decodeProjected(r.proj, key, val, into)
	} else {
		row, count, err = r.t.c.decode(key, val)
	}
	if err == nil {
		row, err = load(ctx, r.t.ns, row)
	}
	if err != nil {
		r.err = err
		return false
	}
	// A keyless row has one index entry per distinct row, so the index
	// yields its copies too.
	r.row, r.left = row, count-1
	r.key, r.val = key, val
	return true
}

// Row returns the current row. It belongs to the caller, unless ReuseRow
// was called: then it is valid until the next call of Next.
func (r *RowIter) Row() []Value { return r.row }

// Err returns the error that ended the iteration, if any.
func (r *RowIter) Err() error { return r.err }

// Copies counts the stored copies of the keyless row whose key is key (a
// keyless table stores a row once per copy, under keys that start with
// its content hash) and returns one of them.
func (t *Table) Copies(ctx context.Context, key []byte) (int, []Value, error) {
	it := t.Scan(ctx, key, append(bytes.Clone(key), 0), false)
	n := 0
	var row []Value
	for it.Next(ctx) {
		n++
		row = it.Row()
	}
	return n, row, it.Err()
}

// KeyText prints a row or index key as its values, for messages:
// "(1, abc)"; a key that does not decode prints as hex.
func KeyText(key []byte) string {
	vals, err := prolly.DecodeKey(key)
	if err != nil {
		return fmt.Sprintf("%x", key)
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		s := v.String()
		if _, rest, ok := strings.Cut(s, ":"); ok {
			s = rest
		}
		parts[i] = s
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Key returns the row map key of the current row (for an index scan, the
// row's key, not the index entry's). It belongs to the iterator until the
// next call of Next.
func (r *RowIter) Key() []byte { return r.key }

// Value returns the stored row map value of the current row. It belongs to
// the iterator until the next call of Next.
func (r *RowIter) Value() []byte { return r.val }
