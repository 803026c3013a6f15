package tablemerge

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Side picks one side of a conflict.
type Side int

const (
	// Ours keeps the table's rows as they are (our side).
	Ours Side = iota
	// Theirs writes their rows over the table's.
	Theirs
)

// ResolveConflicts resolves every conflict of table in root with side and
// removes them: Ours keeps the table as it is; Theirs writes their row of
// each conflict in place of the table's (removing it where they deleted
// it), through the table's editor, so indexes follow and a unique key
// broken by their rows fails with a ConstraintError (nothing changes). A
// table changed since the merge gets their rows in its current schema.
// coll are the collations of its string columns (see Options.Collations).
func ResolveConflicts(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue, table string, side Side, coll tables.Collations) (commitgraph.RootValue, error) {
	caddr, ok, err := root.Get(ctx, ConflictsPrefix+table)
	if err != nil {
		return root, err
	}
	if !ok {
		return root, fmt.Errorf("tablemerge: table %q has no conflicts", table)
	}
	if side == Theirs {
		taddr, ok, err := root.Get(ctx, TablePrefix+table)
		if err != nil {
			return root, err
		}
		if !ok {
			return root, fmt.Errorf("tablemerge: table %q has conflicts but no longer exists; drop its conflicts with --ours", table)
		}
		cs, err := LoadConflictSet(ctx, ns, caddr)
		if err != nil {
			return root, err
		}
		t, err := tables.Load(ctx, ns, taddr, coll)
		if err != nil {
			return root, err
		}
		if t, err = takeTheirs(ctx, table, t, cs); err != nil {
			return root, err
		}
		a, err := t.Write(ctx)
		if err != nil {
			return root, err
		}
		if root, err = root.Edit(ctx, commitgraph.RootEdit{Name: TablePrefix + table, Addr: a}); err != nil {
			return root, err
		}
	}
	return root.Edit(ctx, commitgraph.RootEdit{Name: ConflictsPrefix + table, Delete: true})
}

// takeTheirs writes their row of every conflict of cs into t.
func takeTheirs(ctx context.Context, name string, t *tables.Table, cs *ConflictSet) (*tables.Table, error) {
	if pkSignature(t.Schema()) != pkSignature(cs.Schema) {
		return nil, fmt.Errorf("%w: the primary key of table %q changed since the merge; resolve its conflicts with --ours and edit the rows by hand", ErrSchemaConflict, name)
	}
	mig := newMigrator(name, cs.Schema, t.Schema(), LiteralDefault)
	var edits []rowEdit
	var failed error
	err := cs.Each(ctx, func(c Conflict) bool {
		e := rowEdit{key: c.Key}
		row, ok, err := t.GetByKey(ctx, c.Key)
		if err == nil && ok {
			e.old = row
		}
		if err == nil {
			e.new, err = mig.row(c.Theirs)
		}
		edits, failed = append(edits, e), err
		return err == nil
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	ed := t.Edit()
	ed.KeepZero(true)
	return applyEdits(ctx, ed, name, edits, nil)
}
