package tablemerge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Row merge.
//
// The two diffs from base (to ours, to theirs) are walked together in key
// order, skipping every subtree they share, so the cost follows the size
// of the changes. For each key:
//
//   - changed on one side only: that side's row;
//   - changed the same way on both sides: that row;
//   - present on all three sides and changed in different columns: the
//     row with each side's changed columns (a cell-wise merge);
//   - otherwise (the same column changed to different values, deleted on
//     one side and changed on the other, added on both with different
//     rows): a conflict. The merged table keeps our row, and the conflict
//     (base, ours, theirs) is recorded in the table's ConflictSet.
//
// The merged table starts from the side whose schema is the merged one (or
// from ours rewritten into it) and the other side's changes are applied
// through a tables.Editor, so every secondary index follows the rows. The
// edits run in two passes, every changed row removed first and the new
// rows inserted after, so that rows that swapped unique values do not
// collide, while two merged rows with one unique value do: the merge fails
// with a ConstraintError that names them.

// rowsEqual reports whether two rows (nil: absent) are equal.
func rowsEqual(a, b []tables.Value) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mergeRow merges one key's rows; conflict reports a clash, where row is
// meaningless.
func mergeRow(b, o, t []tables.Value) (row []tables.Value, conflict bool) {
	switch {
	case rowsEqual(o, t), rowsEqual(b, t):
		return o, false
	case rowsEqual(b, o):
		return t, false
	case b == nil || o == nil || t == nil:
		return nil, true
	}
	out := make([]tables.Value, len(b))
	for i := range b {
		switch {
		case o[i] == t[i], b[i] == t[i]:
			out[i] = o[i]
		case b[i] == o[i]:
			out[i] = t[i]
		default:
			return nil, true
		}
	}
	return out, false
}

// pkSignature describes how a schema's rows are keyed.
func pkSignature(s *tables.Schema) string {
	var b strings.Builder
	for _, p := range s.PrimaryKey {
		c := s.Columns[p]
		fmt.Fprintf(&b, "%s/%d/%s;", strings.ToLower(c.Name), c.Kind, strings.ToLower(c.Collation))
	}
	return b.String()
}

type rowEdit struct {
	key      []byte
	old, new []tables.Value // in the merged schema; nil: absent
}

// tableMerge merges one table that both sides changed. base is nil for a
// table both sides created.
type tableMerge struct {
	name               string
	ns                 *prolly.NodeStore
	opts               *Options
	base, ours, theirs *tables.Table
	schema             *tables.Schema
	mb, mo, mt, ms     *migrator
	start              *tables.Table
	startIsOurs        bool
	conflicts          []Conflict
	violations         []Violation
}

func (m *merger) mergeTable(ctx context.Context, name string, base, ours, theirs *tables.Table) (*tables.Table, *ConflictSet, *ViolationSet, error) {
	if base == nil {
		if !sameSchema(ours.Schema(), theirs.Schema()) {
			return nil, nil, nil, fmt.Errorf("%w: both branches created table %q, with different schemas; drop or rename it on one branch, then merge again", ErrTableConflict, name)
		}
		var err error
		if base, err = tables.New(m.ns, ours.Schema(), ours.Collations()); err != nil {
			return nil, nil, nil, err
		}
	}
	s, err := mergeSchemas(name, base.Schema(), ours.Schema(), theirs.Schema())
	if err != nil {
		return nil, nil, nil, err
	}
	tm := &tableMerge{name: name, ns: m.ns, opts: &m.opts, base: base, ours: ours, theirs: theirs, schema: s}
	if s.Keyless() || base.Schema().Keyless() || ours.Schema().Keyless() || theirs.Schema().Keyless() {
		if !sameSchema(base.Schema(), ours.Schema()) || !sameSchema(base.Schema(), theirs.Schema()) {
			return nil, nil, nil, fmt.Errorf("%w: table %q has no primary key and its schema changed on a branch while the other branch changed its rows; rows without a key cannot be matched across schemas", ErrSchemaConflict, name)
		}
		t, err := tm.mergeKeyless(ctx)
		return t, nil, nil, err
	}
	if sig := pkSignature(base.Schema()); sig != pkSignature(ours.Schema()) || sig != pkSignature(theirs.Schema()) {
		return nil, nil, nil, fmt.Errorf("%w: table %q: the primary key changed on a branch while the other branch changed rows; rows cannot be matched across primary keys", ErrSchemaConflict, name)
	}
	def := m.opts.Default
	if def == nil {
		def = LiteralDefault
	}
	tm.mb = newMigrator(name, base.Schema(), s, def)
	tm.mo = newMigrator(name, ours.Schema(), s, def)
	tm.mt = newMigrator(name, theirs.Schema(), s, def)
	tm.ms = newMigrator(name, s, s, def)
	switch {
	case sameSchema(s, ours.Schema()):
		tm.start, tm.startIsOurs = ours, true
	case sameSchema(s, theirs.Schema()):
		tm.start = theirs
	default:
		if tm.start, err = rewrite(ctx, name, ours, s, tm.mo); err != nil {
			return nil, nil, nil, err
		}
		tm.startIsOurs = true
	}
	edits, err := tm.walk(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	merged, err := tm.apply(ctx, edits)
	if err != nil {
		return nil, nil, nil, err
	}
	var cs *ConflictSet
	var vs *ViolationSet
	if len(tm.conflicts) > 0 {
		if cs, err = NewConflictSet(m.ns, s, m.opts.Theirs).Edit(ctx, tm.conflicts, nil); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(tm.violations) > 0 {
		if vs, err = NewViolationSet(m.ns, s).Edit(ctx, tm.violations, nil); err != nil {
			return nil, nil, nil, err
		}
	}
	return merged, cs, vs, nil
}

// rewrite returns t's rows in schema s, as a new table.
func rewrite(ctx context.Context, name string, t *tables.Table, s *tables.Schema, mig *migrator) (*tables.Table, error) {
	nt, err := tables.New(t.NodeStore(), s, t.Collations())
	if err != nil {
		return nil, err
	}
	ed := nt.Edit()
	ed.KeepZero(true)
	ed.SetAutoIncrement(t.AutoIncrement())
	it := t.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		row, err := mig.row(it.Row())
		if err != nil {
			return nil, err
		}
		if _, err := ed.Insert(ctx, row); err != nil {
			return nil, &ConstraintError{Table: name, Key: tables.KeyText(t.KeyOf(it.Row())), Err: err}
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return ed.Table(ctx)
}

// get returns the row of t at key in the merged schema, or nil.
func get(ctx context.Context, t *tables.Table, mig *migrator, key []byte) ([]tables.Value, error) {
	row, ok, err := t.GetByKey(ctx, key)
	if err != nil || !ok {
		return nil, err
	}
	return mig.row(row)
}

// walk walks the two diffs and returns the edits to the start table.
func (tm *tableMerge) walk(ctx context.Context) ([]rowEdit, error) {
	do, dt := prolly.NewDiffer(tm.base.Rows(), tm.ours.Rows()), prolly.NewDiffer(tm.base.Rows(), tm.theirs.Rows())
	okO, okT := do.Next(ctx), dt.Next(ctx)
	var edits []rowEdit
	for okO || okT {
		var c int
		switch {
		case !okO:
			c = 1
		case !okT:
			c = -1
		default:
			c = bytes.Compare(do.Diff().Key, dt.Diff().Key)
		}
		var key []byte
		var want []tables.Value
		var err error
		switch {
		case c < 0: // ours only
			key = do.Diff().Key
			okO = do.Next(ctx)
			if tm.startIsOurs {
				continue
			}
			want, err = get(ctx, tm.ours, tm.mo, key)
		case c > 0: // theirs only
			key = dt.Diff().Key
			okT = dt.Next(ctx)
			if !tm.startIsOurs {
				continue
			}
			want, err = get(ctx, tm.theirs, tm.mt, key)
		default:
			key = do.Diff().Key
			want, err = tm.both(ctx, key)
			okO, okT = do.Next(ctx), dt.Next(ctx)
		}
		if err != nil {
			return nil, err
		}
		key = bytes.Clone(key)
		old, err := get(ctx, tm.start, tm.ms, key)
		if err != nil {
			return nil, err
		}
		if !rowsEqual(old, want) {
			edits = append(edits, rowEdit{key: key, old: old, new: want})
		}
	}
	if err := do.Err(); err != nil {
		return nil, err
	}
	return edits, dt.Err()
}

// both merges a key both sides changed; a conflict keeps our row.
func (tm *tableMerge) both(ctx context.Context, key []byte) ([]tables.Value, error) {
	b, err := get(ctx, tm.base, tm.mb, key)
	if err != nil {
		return nil, err
	}
	o, err := get(ctx, tm.ours, tm.mo, key)
	if err != nil {
		return nil, err
	}
	t, err := get(ctx, tm.theirs, tm.mt, key)
	if err != nil {
		return nil, err
	}
	row, conflict := mergeRow(b, o, t)
	if conflict {
		tm.conflicts = append(tm.conflicts, Conflict{Key: bytes.Clone(key), Base: b, Ours: o, Theirs: t})
		return o, nil
	}
	return row, nil
}

// apply writes the edits to the start table in two passes (see above).
func (tm *tableMerge) apply(ctx context.Context, edits []rowEdit) (*tables.Table, error) {
	ed := tm.start.Edit()
	ed.KeepZero(true) // rows keep the values their branch gave them
	ed.SetAutoIncrement(max(tm.ours.AutoIncrement(), tm.theirs.AutoIncrement()))
	var record func(*tables.DuplicateKeyError, rowEdit) bool
	if tm.opts.RecordViolations {
		record = tm.recordDuplicate
	}
	return applyEdits(ctx, ed, tm.name, edits, record)
}

// recordDuplicate records a merged row that takes a unique value another
// row holds as a unique-key violation of both rows (as Dolt records
// them), and reports whether it did: not for the primary key.
func (tm *tableMerge) recordDuplicate(dup *tables.DuplicateKeyError, e rowEdit) bool {
	var ix *tables.Index
	for i := range tm.schema.Indexes {
		if tm.schema.Indexes[i].Name == dup.Index && tm.schema.Indexes[i].Unique {
			ix = &tm.schema.Indexes[i]
		}
	}
	if ix == nil || dup.Existing == nil {
		return false
	}
	cols := make([]string, len(ix.Columns))
	for i, c := range ix.Columns {
		cols[i] = tm.schema.Columns[c].Name
	}
	info := ViolationInfo(InfoField{"Name", ix.Name}, InfoField{"Columns", cols})
	tm.violations = append(tm.violations,
		Violation{Type: UniqueViolation, Key: e.key, Info: info, From: tm.opts.Theirs, Row: e.new},
		Violation{Type: UniqueViolation, Key: tm.start.KeyOf(dup.Existing), Info: info, From: tm.opts.Theirs, Row: dup.Existing})
	return true
}

// applyEdits writes edits to table name through ed in two passes: every
// delete, then every insert (so that a row may take a unique key another
// row gave up), and returns the table. An insert that duplicates a unique
// value is written all the same when record (if set) records it.
func applyEdits(ctx context.Context, ed *tables.Editor, name string, edits []rowEdit, record func(*tables.DuplicateKeyError, rowEdit) bool) (*tables.Table, error) {
	for _, e := range edits {
		if e.old != nil {
			if err := ed.Delete(ctx, e.old); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range edits {
		if e.new != nil {
			_, err := ed.Insert(ctx, e.new)
			var dup *tables.DuplicateKeyError
			if err != nil && record != nil && errors.As(err, &dup) && record(dup, e) {
				ed.AllowDuplicates(true)
				_, err = ed.Insert(ctx, e.new)
				ed.AllowDuplicates(false)
			}
			if err != nil {
				if isConstraint(err) {
					return nil, &ConstraintError{Table: name, Key: tables.KeyText(e.key), Err: err}
				}
				return nil, err
			}
		}
	}
	return ed.Table(ctx)
}

func isConstraint(err error) bool {
	return errors.Is(err, tables.ErrDuplicateKey) || errors.Is(err, tables.ErrNotNull) ||
		errors.Is(err, tables.ErrRowShape) || errors.Is(err, tables.ErrTooLarge)
}

// mergeKeyless merges a table without a primary key: its rows are a bag,
// so each side's added and removed copies of a row add up (a row both
// sides removed is removed once).
func (tm *tableMerge) mergeKeyless(ctx context.Context) (*tables.Table, error) {
	ed := tm.ours.Edit()
	ed.KeepZero(true)
	ed.SetAutoIncrement(tm.theirs.AutoIncrement())
	d := prolly.NewDiffer(tm.base.Rows(), tm.theirs.Rows())
	for d.Next(ctx) {
		key := d.Diff().Key
		nb, _, err := tm.base.Copies(ctx, key)
		if err != nil {
			return nil, err
		}
		nt, row, err := tm.theirs.Copies(ctx, key)
		if err != nil {
			return nil, err
		}
		no, orow, err := tm.ours.Copies(ctx, key)
		if err != nil {
			return nil, err
		}
		if row == nil {
			row = orow
		}
		want := max(no+nt-nb, 0)
		for ; no < want; no++ {
			if _, err := ed.Insert(ctx, row); err != nil {
				if isConstraint(err) {
					return nil, &ConstraintError{Table: tm.name, Key: tables.KeyText(key), Err: err}
				}
				return nil, err
			}
		}
		for ; no > want; no-- {
			if err := ed.Delete(ctx, orow); err != nil {
				return nil, err
			}
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return ed.Table(ctx)
}
