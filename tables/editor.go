package tables

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso/prolly"
)

// Editor collects inserts, updates and deletes to a table, enforcing the
// primary key, unique indexes, NOT NULL and auto-increment, and keeps every
// secondary index in step with the rows. Its reads see its own writes.
// Table returns the edited table. A failed call changes nothing.
// Savepoint and Rollback undo a group of calls (an SQL statement). An
// Editor is not safe for concurrent use.
type Editor struct {
	t       *Table
	rows    *overlay
	indexes []*overlay
	autoInc uint64
	// keepZero stores an explicit 0 in the auto-increment column as is.
	keepZero bool
	// allowDuplicates lets unique indexes hold a value twice.
	allowDuplicates bool
	// duplicatesOK records, for the -tags invariants check, that the
	// tables this editor makes may break a unique index: it wrote under
	// allowDuplicates, or started from a table that broke one already.
	duplicatesOK bool
}

// Edit starts editing the table.
func (t *Table) Edit() *Editor {
	e := &Editor{t: t, rows: newOverlay(t.rows), autoInc: t.autoInc}
	for _, m := range t.indexes {
		e.indexes = append(e.indexes, newOverlay(m))
	}
	return e
}

// Savepoint is the state of an Editor at one moment.
type Savepoint struct {
	rows    *overlay
	indexes []*overlay
	autoInc uint64
}

// Savepoint returns the editor's current state, to Rollback to. It is O(1).
func (e *Editor) Savepoint() Savepoint {
	sp := Savepoint{rows: e.rows.clone(), autoInc: e.autoInc}
	for _, o := range e.indexes {
		sp.indexes = append(sp.indexes, o.clone())
	}
	return sp
}

// Rollback returns the editor to the state sp. sp stays usable.
func (e *Editor) Rollback(sp Savepoint) {
	e.rows = sp.rows.clone()
	e.indexes = e.indexes[:0]
	for _, o := range sp.indexes {
		e.indexes = append(e.indexes, o.clone())
	}
	e.autoInc = sp.autoInc
}

// Schema returns the schema of the edited table.
func (e *Editor) Schema() *Schema { return e.t.schema }

// NextAutoIncrement returns the value the next insert would take for a NULL
// or 0 auto-increment column.
func (e *Editor) NextAutoIncrement() uint64 { return max(e.autoInc, 1) }

// SetAutoIncrement sets the next auto-increment value (ALTER TABLE ...
// AUTO_INCREMENT = n); it never goes below a value already used. A table
// that never set its counter stores 0, which means 1: setting it to 1
// keeps the 0, so that the same table has one encoding (a merge that
// carries the counter over leaves the table value as it was).
func (e *Editor) SetAutoIncrement(n uint64) {
	if n > 1 {
		e.autoInc = max(e.autoInc, n)
	}
}

// KeepZero sets whether Insert stores an explicit 0 in the auto-increment
// column as 0 (MySQL's NO_AUTO_VALUE_ON_ZERO) instead of taking the next
// counter value; NULL takes it either way. It is off by default and stays
// as set across savepoints.
func (e *Editor) KeepZero(on bool) { e.keepZero = on }

// AllowDuplicates sets whether Insert and Update let a unique index hold a
// value that another row holds already (the primary key stays enforced).
// A merge that records unique-key violations beside the table writes both
// rows with it: the table then breaks its unique index until the
// violations are resolved, and Check reports it. Off by default.
func (e *Editor) AllowDuplicates(on bool) {
	e.allowDuplicates = on
	e.duplicatesOK = e.duplicatesOK || on
}

// Get returns the row with primary-key values pk, pending edits included.
func (e *Editor) Get(ctx context.Context, pk []Value) ([]Value, bool, error) {
	if err := e.t.checkPK(pk); err != nil {
		return nil, false, err
	}
	key := e.t.KeyPrefix(pk)
	val, ok, err := e.rows.get(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	row, _, err := e.t.c.decode(key, val)
	if err == nil {
		row, err = load(ctx, e.t.ns, row)
	}
	return row, err == nil, err
}

// Insert adds a row. A NULL or 0 in the auto-increment column takes the
// next counter value (a NULL only, with KeepZero); the row as stored is
// returned. A duplicate primary
// key or unique value fails with a *DuplicateKeyError.
func (e *Editor) Insert(ctx context.Context, row []Value) ([]Value, error) {
	row, err := e.assignAutoIncrement(row)
	if err != nil {
		return nil, err
	}
	if err := e.t.c.checkRow(row); err != nil {
		return nil, err
	}
	stored, err := e.t.c.storeValues(ctx, e.t.ns, row)
	if err != nil {
		return nil, err
	}
	c := e.t.c
	if c.s.Keyless() {
		return row, e.insertKeyless(ctx, row, stored)
	}
	key, val := c.encode(stored, 1)
	iks, err := e.indexKeys(row, key, val)
	if err != nil {
		return nil, err
	}
	if old, ok, err := e.rows.get(ctx, key); err != nil {
		return nil, err
	} else if ok {
		return nil, e.duplicate(ctx, PrimaryIndexName, pkValues(c.s, row), key, old)
	}
	if err := e.checkUnique(ctx, row, key); err != nil {
		return nil, err
	}
	e.rows.put(key, val)
	for i, ik := range iks {
		e.indexes[i].put(ik, key)
	}
	e.noteAutoIncrement(row)
	return row, nil
}

func (e *Editor) insertKeyless(ctx context.Context, row, stored []Value) error {
	c := e.t.c
	key, val := c.encode(stored, 1)
	iks, err := e.indexKeys(row, key, val)
	if err != nil {
		return err
	}
	count := uint64(0)
	if old, ok, err := e.rows.get(ctx, key); err != nil {
		return err
	} else if ok {
		_, count, err = c.decode(key, old)
		if err != nil {
			return err
		}
	}
	if count == 0 {
		if err := e.checkUnique(ctx, row, key); err != nil {
			return err
		}
		for i, ik := range iks {
			e.indexes[i].put(ik, key)
		}
	} else if err := e.checkUniqueCopy(row); err != nil {
		return err
	}
	_, val = c.encode(stored, count+1)
	e.rows.put(key, val)
	e.noteAutoIncrement(row)
	return nil
}

// checkUniqueCopy refuses a second copy of a keyless row when a unique index
// covers it with no NULL: the copy would duplicate the unique value.
func (e *Editor) checkUniqueCopy(row []Value) error {
	for i := range e.t.schema.Indexes {
		ix := &e.t.schema.Indexes[i]
		if _, hasNull := e.t.c.indexPrefix(ix, row); ix.Unique && !hasNull {
			return &DuplicateKeyError{Index: ix.Name, Key: formatKey(indexValues(ix, row)), Existing: row}
		}
	}
	return nil
}

// Delete removes the row with the primary key of row (for a keyless table,
// one copy of an equal row). It fails with ErrRowNotFound if there is none.
func (e *Editor) Delete(ctx context.Context, row []Value) error {
	c := e.t.c
	var key []byte
	if c.s.Keyless() {
		if err := c.checkRow(row); err != nil {
			return err
		}
		stored, err := c.storeValues(ctx, e.t.ns, row)
		if err != nil {
			return err
		}
		key, _ = c.encode(stored, 1)
	} else {
		if len(row) != len(c.s.Columns) {
			return fmt.Errorf("%w: %d values for %d columns", ErrRowShape, len(row), len(c.s.Columns))
		}
		key = c.rowKey(row)
	}
	val, ok, err := e.rows.get(ctx, key)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no row with key %s", ErrRowNotFound, formatKey(pkValues(c.s, row)))
	}
	old, count, err := c.decode(key, val)
	if err != nil {
		return err
	}
	if count > 1 {
		_, v := c.encode(old, count-1)
		e.rows.put(key, v)
		return nil
	}
	if old, err = load(ctx, e.t.ns, old); err != nil {
		return err
	}
	e.rows.del(key)
	for i := range c.s.Indexes {
		ik, _ := c.indexKey(&c.s.Indexes[i], old, key)
		e.indexes[i].del(ik)
	}
	return nil
}

// Update replaces the row old (found by its primary key) with row. The
// primary key may change. Constraints are checked as for Insert.
func (e *Editor) Update(ctx context.Context, old, row []Value) error {
	c := e.t.c
	if c.s.Keyless() {
		sp := e.Savepoint()
		if err := e.Delete(ctx, old); err != nil {
			return err
		}
		if _, err := e.Insert(ctx, row); err != nil {
			e.Rollback(sp)
			return err
		}
		return nil
	}
	if err := c.checkRow(row); err != nil {
		return err
	}
	oldKey := c.rowKey(old)
	oldVal, ok, err := e.rows.get(ctx, oldKey)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no row with key %s", ErrRowNotFound, formatKey(pkValues(c.s, old)))
	}
	stored, err := c.storeValues(ctx, e.t.ns, row)
	if err != nil {
		return err
	}
	key, val := c.encode(stored, 1)
	iks, err := e.indexKeys(row, key, val)
	if err != nil {
		return err
	}
	if !bytes.Equal(key, oldKey) {
		if existing, ok, err := e.rows.get(ctx, key); err != nil {
			return err
		} else if ok {
			return e.duplicate(ctx, PrimaryIndexName, pkValues(c.s, row), key, existing)
		}
	}
	if err := e.checkUniqueExcept(ctx, row, key, oldKey); err != nil {
		return err
	}
	prev, _, err := c.decode(oldKey, oldVal)
	if err == nil {
		prev, err = load(ctx, e.t.ns, prev)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(key, oldKey) {
		e.rows.del(oldKey)
	}
	e.rows.put(key, val)
	samePK := bytes.Equal(key, oldKey)
	for i, newIK := range iks {
		oldIK, _ := c.indexKey(&c.s.Indexes[i], prev, oldKey)
		sameIK := bytes.Equal(oldIK, newIK)
		if sameIK && samePK {
			// The entry stands as it is (key and value): putting it
			// again would rewrite its leaf, unchanged, at every commit.
			continue
		}
		if !sameIK {
			e.indexes[i].del(oldIK)
		}
		e.indexes[i].put(newIK, key)
	}
	e.noteAutoIncrement(row)
	return nil
}

// indexKeys returns the row's key in each secondary index, and refuses a
// row whose key, value or index keys are larger than a map takes, before
// anything is written.
func (e *Editor) indexKeys(row []Value, key, val []byte) ([][]byte, error) {
	if len(key) > prolly.MaxKeySize {
		return nil, fmt.Errorf("%w: the primary key takes %d bytes, at most %d", ErrTooLarge, len(key), prolly.MaxKeySize)
	}
	if len(val) > prolly.MaxValueSize {
		return nil, fmt.Errorf("%w: the row takes %d bytes inline, at most %d; long values go out of line, so this row has too many columns of about %d bytes", ErrTooLarge, len(val), prolly.MaxValueSize, prolly.LargeInlineLimit)
	}
	iks := make([][]byte, len(e.t.schema.Indexes))
	for i := range e.t.schema.Indexes {
		ix := &e.t.schema.Indexes[i]
		ik, _ := e.t.c.indexKey(ix, row, key)
		if len(ik) > prolly.MaxKeySize {
			return nil, fmt.Errorf("%w: index %q would take a key of %d bytes, at most %d", ErrTooLarge, ix.Name, len(ik), prolly.MaxKeySize)
		}
		iks[i] = ik
	}
	return iks, nil
}

// checkUnique fails if a unique index already holds row's values for a row
// other than the one at key.
func (e *Editor) checkUnique(ctx context.Context, row []Value, key []byte) error {
	return e.checkUniqueExcept(ctx, row, key, key)
}

func (e *Editor) checkUniqueExcept(ctx context.Context, row []Value, key, self []byte) error {
	if e.allowDuplicates {
		return nil
	}
	c := e.t.c
	for i := range c.s.Indexes {
		ix := &c.s.Indexes[i]
		if !ix.Unique {
			continue
		}
		prefix, hasNull := c.indexPrefix(ix, row)
		if hasNull {
			continue
		}
		var other []byte
		err := e.indexes[i].scan(ctx, prefix, PrefixEnd(prefix), func(_, rowKey []byte) bool {
			if bytes.Equal(rowKey, key) || bytes.Equal(rowKey, self) {
				return true
			}
			other = append([]byte(nil), rowKey...)
			return false
		})
		if err != nil {
			return err
		}
		if other != nil {
			val, ok, err := e.rows.get(ctx, other)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: index %q names row %x, which the table does not hold", ErrCorrupt, ix.Name, other)
			}
			return e.duplicate(ctx, ix.Name, indexValues(ix, row), other, val)
		}
	}
	return nil
}

// duplicate builds the error for a key already held by the row at key.
func (e *Editor) duplicate(ctx context.Context, index string, vals []Value, key, val []byte) error {
	err := &DuplicateKeyError{Index: index, Key: formatKey(vals)}
	if row, _, derr := e.t.c.decode(key, val); derr == nil {
		if row, derr = load(ctx, e.t.ns, row); derr == nil {
			err.Existing = row
		}
	}
	return err
}

func (e *Editor) assignAutoIncrement(row []Value) ([]Value, error) {
	p := e.t.schema.AutoIncrementColumn()
	if p < 0 || p >= len(row) {
		return row, nil
	}
	v := row[p]
	zero := v.Kind() == prolly.KindInt && v.AsInt() == 0 || v.Kind() == prolly.KindUint && v.AsUint() == 0
	if !v.IsNull() && (!zero || e.keepZero) {
		return row, nil
	}
	next := max(e.autoInc, 1)
	row = append([]Value(nil), row...)
	if e.t.schema.Columns[p].Kind == prolly.KindUint {
		row[p] = prolly.Uint(next)
	} else {
		if next > 1<<63-1 {
			return nil, fmt.Errorf("tables: auto-increment column %q is out of values", e.t.schema.Columns[p].Name)
		}
		row[p] = prolly.Int(int64(next))
	}
	return row, nil
}

// noteAutoIncrement moves the counter past an explicit value.
func (e *Editor) noteAutoIncrement(row []Value) {
	p := e.t.schema.AutoIncrementColumn()
	if p < 0 {
		return
	}
	var n uint64
	switch v := row[p]; v.Kind() {
	case prolly.KindInt:
		if v.AsInt() <= 0 {
			return
		}
		n = uint64(v.AsInt())
	case prolly.KindUint:
		n = v.AsUint()
	default:
		return
	}
	if n < ^uint64(0) {
		e.autoInc = max(e.autoInc, n+1)
	}
}

// Table writes the pending edits and returns the new table value. The
// editor stays usable: its later edits build on the stored result.
func (e *Editor) Table(ctx context.Context) (*Table, error) {
	t := *e.t
	var err error
	if t.rows, err = e.rows.apply(ctx); err != nil {
		return nil, err
	}
	t.indexes = make([]prolly.Map, len(e.indexes))
	for i, o := range e.indexes {
		if t.indexes[i], err = o.apply(ctx); err != nil {
			return nil, err
		}
	}
	t.autoInc = e.autoInc
	nt := &t
	if prolly.InvariantsEnabled {
		// -tags invariants: every table an editor makes is verified
		// whole (keys, rows against the schema, every index entry
		// against its row and every row indexed). Unique indexes may hold
		// a value twice only where duplicates were let in on purpose: by
		// AllowDuplicates, or before this editor began.
		if err := e.checkInvariants(ctx, e.t, nt); err != nil {
			return nil, fmt.Errorf("tables: invariants: the table an editor made: %w", err)
		}
	}
	e.t = nt
	e.rows = newOverlay(nt.rows)
	for i := range e.indexes {
		e.indexes[i] = newOverlay(nt.indexes[i])
	}
	return nt, nil
}

// checkInvariants checks nt, made from base, whole for Table under -tags
// invariants.
func (e *Editor) checkInvariants(ctx context.Context, base, nt *Table) error {
	err := nt.check(ctx, !e.duplicatesOK)
	if errors.Is(err, ErrDuplicateUnique) {
		// A table with recorded unique-key violations is edited further
		// (the user resolving them, say): its duplicates predate us.
		if berr := base.check(ctx, true); errors.Is(berr, ErrDuplicateUnique) {
			e.duplicatesOK = true
			err = nt.check(ctx, false)
		}
	}
	return err
}

func pick(row []Value, cols []int) []Value {
	out := make([]Value, len(cols))
	for i, p := range cols {
		out[i] = row[p]
	}
	return out
}

func pkValues(s *Schema, row []Value) []Value {
	if s.Keyless() {
		return row
	}
	return pick(row, s.PrimaryKey)
}

// GetRaw returns the stored value of the row under the row map key,
// pending edits included. It belongs to the editor.
func (e *Editor) GetRaw(ctx context.Context, key []byte) ([]byte, bool, error) {
	return e.rows.get(ctx, key)
}

// IndexRowKeys returns the row keys of the entries of index i that begin
// with prefix, pending edits included.
func (e *Editor) IndexRowKeys(ctx context.Context, i int, prefix []byte) ([][]byte, error) {
	var out [][]byte
	err := e.indexes[i].scan(ctx, prefix, PrefixEnd(prefix), func(_, rowKey []byte) bool {
		out = append(out, bytes.Clone(rowKey))
		return true
	})
	return out, err
}

// Base returns the table the editor's pending edits are over: the one it
// began from, or its last Table result.
func (e *Editor) Base() *Table { return e.t }

// PendingRows calls fn, in key order, for each row-map key with a pending
// edit: its new stored value, or ok false for a deletion (of a row that
// may never have been stored). val belongs to the editor.
func (e *Editor) PendingRows(fn func(key, val []byte, ok bool) error) error {
	var err error
	e.rows.pend.Ascend(func(p pendEntry) bool {
		err = fn([]byte(p.key), p.val, !p.del)
		return err == nil
	})
	return err
}

// Clone returns an editor with e's table and pending edits that edits
// apart from e from then on (O(1): the edits are copied on write).
func (e *Editor) Clone() *Editor {
	c := *e
	c.rows = e.rows.clone()
	c.indexes = make([]*overlay, len(e.indexes))
	for i, o := range e.indexes {
		c.indexes[i] = o.clone()
	}
	return &c
}

// Edits is an editor's pending state as raw map entries: what Table would
// write into the row map and each index, and the counter. An editor made
// by the table's Edit and given the same Edits (SetEdits) makes the same
// table; a commit log records them so (the root package's redo log).
type Edits struct {
	AutoIncrement uint64 // the counter Table stores (0: never set)
	// Maps holds the row map's entries (Maps[0]) and each index's
	// (Maps[i+1] for index i), each in key order.
	Maps [][]RawEdit
}

// RawEdit is one pending entry of a map: the value to store, or a deletion.
type RawEdit struct {
	Key, Val []byte
	Delete   bool
}

// Edits returns the editor's pending state. The slices belong to the
// editor until its next edit.
func (e *Editor) Edits() Edits {
	ed := Edits{AutoIncrement: e.autoInc, Maps: make([][]RawEdit, 1+len(e.indexes))}
	for i, o := range append([]*overlay{e.rows}, e.indexes...) {
		o.pend.Ascend(func(p pendEntry) bool {
			ed.Maps[i] = append(ed.Maps[i], RawEdit{Key: []byte(p.key), Val: p.val, Delete: p.del})
			return true
		})
	}
	return ed
}

// SetEdits adds ed's entries to the editor's pending ones and sets its
// counter to ed's, as they were in the editor Edits read them from. It
// checks only that ed has the table's number of maps: the entries are
// taken as stored bytes, as that editor made them.
func (e *Editor) SetEdits(ed Edits) error {
	if len(ed.Maps) != 1+len(e.indexes) {
		return fmt.Errorf("%w: edits of %d maps for a table of %d (rows and %d indexes)", ErrCorrupt, len(ed.Maps), 1+len(e.indexes), len(e.indexes))
	}
	for i, o := range append([]*overlay{e.rows}, e.indexes...) {
		for _, x := range ed.Maps[i] {
			if x.Delete {
				o.del(x.Key)
			} else {
				o.put(x.Key, x.Val)
			}
		}
	}
	e.autoInc = ed.AutoIncrement
	return nil
}
