package tables

import (
	"bytes"
	"context"
	"fmt"
)

// Check verifies the table: every map passes prolly's Check, every row
// decodes and fits the schema, every row has exactly its entries in every
// index and every index entry names a row, and unique indexes hold no two
// rows with equal non-NULL values. It reads the whole table.
func (t *Table) Check(ctx context.Context) error { return t.check(ctx, true) }

// check is Check; with uniques false it lets unique indexes hold a value
// twice and checks the rest.
func (t *Table) check(ctx context.Context, uniques bool) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if err := t.rows.Check(ctx); err != nil {
		return fmt.Errorf("tables: row map: %w", err)
	}
	for i, m := range t.indexes {
		if err := m.Check(ctx); err != nil {
			return fmt.Errorf("tables: index %q: %w", t.schema.Indexes[i].Name, err)
		}
		if m.Count() != t.rows.Count() {
			return fail("index %q has %d entries for %d rows", t.schema.Indexes[i].Name, m.Count(), t.rows.Count())
		}
	}
	c := t.c
	it := t.rows.IterAll(ctx)
	for it.Next(ctx) {
		key, val := it.Key(), it.Value()
		row, _, err := c.decode(key, val)
		if err != nil {
			return err
		}
		loaded, err := load(ctx, t.ns, append([]Value(nil), row...))
		if err != nil {
			return err
		}
		if err := c.checkRow(loaded); err != nil {
			return fail("row %x: %v", key, err)
		}
		var want []byte
		if c.s.Keyless() {
			want, _ = c.encode(row, 1)
		} else {
			want = c.rowKey(loaded)
		}
		if !bytes.Equal(want, key) {
			return fail("row stored under key %x belongs under %x", key, want)
		}
		for i := range c.s.Indexes {
			ix := &c.s.Indexes[i]
			ik, _ := c.indexKey(ix, loaded, key)
			v, ok, err := t.indexes[i].Get(ctx, ik)
			if err != nil {
				return err
			}
			if !ok || !bytes.Equal(v, key) {
				return fail("row %x has no entry in index %q", key, ix.Name)
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	// Every index entry names a row (the counts match and every row has its
	// entry, so there is none left over); unique indexes have no duplicates.
	for i := range c.s.Indexes {
		ix := &c.s.Indexes[i]
		if !ix.Unique {
			continue
		}
		var prev []byte
		it := t.indexes[i].IterAll(ctx)
		for it.Next(ctx) {
			rowKey := it.Value()
			val, ok, err := t.rows.Get(ctx, rowKey)
			if err != nil {
				return err
			}
			if !ok {
				return fail("index %q names a missing row %x", ix.Name, rowKey)
			}
			row, _, err := c.decode(rowKey, val)
			if err == nil {
				row, err = load(ctx, t.ns, row)
			}
			if err != nil {
				return err
			}
			prefix, hasNull := c.indexPrefix(ix, row)
			if uniques && !hasNull && bytes.Equal(prefix, prev) {
				return fmt.Errorf("%w: %w: unique index %q holds %s twice", ErrCorrupt, ErrDuplicateUnique, ix.Name, formatKey(indexValues(ix, row)))
			}
			if !hasNull {
				prev = prefix
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	}
	return nil
}
