package verso

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// Tables by primary key, without SQL: a transaction creates tables and
// reads and writes their rows as []tables.Value (prolly's typed values:
// tables.Value is prolly.Value). Each write goes into the transaction's
// root at once; the SQL layer batches its writes per statement instead.
//
// These writes take no row locks: two transactions that write one row
// meet at Commit, where the second fails with a SerializationError and can
// be retried. (Row locks for them are to come.)

// ErrTableNotFound is returned for a table the transaction's root does
// not hold.
var ErrTableNotFound = fmt.Errorf("verso: table not found")

// CreateTable adds an empty table of schema s to the transaction's root.
func (t *Txn) CreateTable(ctx context.Context, name string, s *tables.Schema) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot create table %s at a commit", ErrReadOnly, name)
	}
	if _, _, ok, err := FindTable(ctx, t.root, name); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("verso: table %q exists already", name)
	}
	tb, err := tables.New(t.db.graph.NodeStore(), s, t.db.Collations())
	if err != nil {
		return err
	}
	return t.putTable(ctx, name, tb)
}

// Table returns the table name (matched without case) as the
// transaction's root holds it.
func (t *Txn) Table(ctx context.Context, name string) (*tables.Table, error) {
	exact, addr, ok, err := FindTable(ctx, t.root, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrTableNotFound, name)
	}
	_ = exact
	return tables.Load(ctx, t.db.graph.NodeStore(), addr, t.db.Collations())
}

// TableNames returns the names of the transaction's tables, sorted.
func (t *Txn) TableNames(ctx context.Context) ([]string, error) {
	ents, err := t.root.Entries(ctx, commitgraph.TablePrefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = strings.TrimPrefix(e.Name, commitgraph.TablePrefix)
	}
	return out, nil
}

// Get returns the row of table whose primary key is key.
func (t *Txn) Get(ctx context.Context, table string, key ...tables.Value) ([]tables.Value, bool, error) {
	tb, err := t.Table(ctx, table)
	if err != nil {
		return nil, false, err
	}
	return tb.Get(ctx, key)
}

// Insert adds row to table; a row whose primary key or unique value is
// taken fails with a *tables.DuplicateKeyError.
func (t *Txn) Insert(ctx context.Context, table string, row ...tables.Value) error {
	return t.edit(ctx, table, func(ed *tables.Editor) error {
		_, err := ed.Insert(ctx, row)
		return err
	})
}

// Put writes row to table: an insert, or an update of the row with its
// primary key.
func (t *Txn) Put(ctx context.Context, table string, row ...tables.Value) error {
	return t.edit(ctx, table, func(ed *tables.Editor) error {
		s := ed.Schema()
		pk := make([]tables.Value, len(s.PrimaryKey))
		for i, c := range s.PrimaryKey {
			if c >= len(row) {
				return fmt.Errorf("verso: a row of %s needs %d values, got %d", table, len(s.Columns), len(row))
			}
			pk[i] = row[c]
		}
		old, ok, err := ed.Get(ctx, pk)
		if err != nil {
			return err
		}
		if ok && len(pk) > 0 {
			return ed.Update(ctx, old, row)
		}
		_, err = ed.Insert(ctx, row)
		return err
	})
}

// Delete removes the row of table whose primary key is key, and reports
// whether there was one. For a table without a primary key, key is the
// whole row, and one copy of it goes.
func (t *Txn) Delete(ctx context.Context, table string, key ...tables.Value) (bool, error) {
	found := false
	err := t.edit(ctx, table, func(ed *tables.Editor) error {
		if ed.Schema().Keyless() {
			err := ed.Delete(ctx, key)
			if errors.Is(err, tables.ErrRowNotFound) {
				return nil
			}
			found = err == nil
			return err
		}
		old, ok, err := ed.Get(ctx, key)
		if err != nil || !ok {
			return err
		}
		found = true
		return ed.Delete(ctx, old)
	})
	return found, err
}

// edit runs fn on an editor of table and writes the result into the
// transaction's root.
func (t *Txn) edit(ctx context.Context, table string, fn func(*tables.Editor) error) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot write to %s at a commit", ErrReadOnly, table)
	}
	exact, addr, ok, err := FindTable(ctx, t.root, table)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrTableNotFound, table)
	}
	tb, err := tables.Load(ctx, t.db.graph.NodeStore(), addr, t.db.Collations())
	if err != nil {
		return err
	}
	ed := tb.Edit()
	if err := fn(ed); err != nil {
		return err
	}
	nt, err := ed.Table(ctx)
	if err != nil {
		return err
	}
	return t.putTable(ctx, exact, nt)
}

// putTable writes tb into the transaction's root under name.
func (t *Txn) putTable(ctx context.Context, name string, tb *tables.Table) error {
	addr, err := tb.Write(ctx)
	if err != nil {
		return err
	}
	root, err := t.root.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + name, Addr: addr})
	if err != nil {
		return err
	}
	t.root = root
	return nil
}
