package verso

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/tables"
)

// AlterTable changes the schema of table in the transaction's root by
// change (indexes added, dropped or renamed, checks, options of columns
// that keep their stored values) and rebuilds its value: every row copied
// as it is stored, every index built anew, the auto-increment counter
// kept. A change the rows break (a unique index over duplicate values)
// fails with the editor's error (a *tables.DuplicateKeyError) and changes
// nothing. Changes that convert the rows (a column's type, a new primary
// key) are the SQL layer's, which streams converted rows into a new table.
func (t *Txn) AlterTable(ctx context.Context, table string, change func(*tables.Schema) error) (*tables.Table, error) {
	if t.readOnly {
		return nil, fmt.Errorf("%w: cannot alter %s at a commit", ErrReadOnly, table)
	}
	exact, addr, ok, err := FindTable(ctx, t.root, table)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrTableNotFound, table)
	}
	old, err := t.loadTable(ctx, exact, addr)
	if err != nil {
		return nil, err
	}
	s := old.Schema().Clone()
	if err := change(s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	nt, err := tables.New(t.db.graph.NodeStore(), s, t.db.Collations())
	if err != nil {
		return nil, err
	}
	ed := nt.Edit()
	ed.KeepZero(true) // the rows are copied as they are
	ed.SetAutoIncrement(old.AutoIncrement())
	it := old.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		if _, err := ed.Insert(ctx, it.Row()); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if nt, err = ed.Table(ctx); err != nil {
		return nil, err
	}
	if err := t.putTable(ctx, exact, nt); err != nil {
		return nil, err
	}
	return nt, nil
}
