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
	_, addr, ok, err := FindTable(ctx, t.root, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrTableNotFound, name)
	}
	return t.db.tableAt(ctx, addr)
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

// Get returns the row of table whose primary key is key, as the
// transaction's snapshot has it (with its own writes). It takes no lock:
// read for update with GetForUpdate.
func (t *Txn) Get(ctx context.Context, table string, key ...tables.Value) ([]tables.Value, bool, error) {
	tb, err := t.Table(ctx, table)
	if err != nil {
		return nil, false, err
	}
	return tb.Get(ctx, key)
}

// GetForUpdate locks the row of table whose primary key is key for
// writing and returns its latest committed version (or the transaction's
// own), as SELECT ... FOR UPDATE does: computing a new value from it and
// writing it back counts exactly under concurrent writers.
func (t *Txn) GetForUpdate(ctx context.Context, table string, key ...tables.Value) ([]tables.Value, bool, error) {
	var row []tables.Value
	var found bool
	err := t.edit(ctx, table, func(tb *tables.Table, ed *tables.Editor, lk *rowLocker) error {
		if len(key) != len(tb.Schema().PrimaryKey) {
			_, _, err := ed.Get(ctx, key) // its error says what is wrong
			return err
		}
		if err := lk.lock(tb.KeyPrefix(key)); err != nil {
			return err
		}
		var err error
		row, found, err = ed.Get(ctx, key)
		return err
	})
	return row, found, err
}

// Insert adds row to table; a row whose primary key or unique value is
// taken fails with a *tables.DuplicateKeyError. It locks the row's key.
func (t *Txn) Insert(ctx context.Context, table string, row ...tables.Value) error {
	return t.edit(ctx, table, func(tb *tables.Table, ed *tables.Editor, lk *rowLocker) error {
		if err := lk.row(row); err != nil {
			return err
		}
		_, err := ed.Insert(ctx, row)
		return err
	})
}

// Put writes row to table: an insert, or an update of the row with its
// primary key (locked, at its latest committed version).
func (t *Txn) Put(ctx context.Context, table string, row ...tables.Value) error {
	return t.edit(ctx, table, func(tb *tables.Table, ed *tables.Editor, lk *rowLocker) error {
		s := ed.Schema()
		if len(row) != len(s.Columns) {
			return fmt.Errorf("%w: a row of %s has %d values, got %d", tables.ErrRowShape, table, len(s.Columns), len(row))
		}
		if err := lk.row(row); err != nil {
			return err
		}
		pk := make([]tables.Value, len(s.PrimaryKey))
		for i, c := range s.PrimaryKey {
			pk[i] = row[c]
		}
		if len(pk) > 0 {
			old, ok, err := ed.Get(ctx, pk)
			if err != nil {
				return err
			}
			if ok {
				return ed.Update(ctx, old, row)
			}
		}
		_, err := ed.Insert(ctx, row)
		return err
	})
}

// Delete removes the row of table whose primary key is key (locked), and
// reports whether there was one. For a table without a primary key, key is
// the whole row, and one copy of it goes (such rows take no locks).
func (t *Txn) Delete(ctx context.Context, table string, key ...tables.Value) (bool, error) {
	found := false
	err := t.edit(ctx, table, func(tb *tables.Table, ed *tables.Editor, lk *rowLocker) error {
		if ed.Schema().Keyless() {
			err := ed.Delete(ctx, key)
			if errors.Is(err, tables.ErrRowNotFound) {
				return nil
			}
			found = err == nil
			return err
		}
		if len(key) == len(tb.Schema().PrimaryKey) {
			if err := lk.lock(tb.KeyPrefix(key)); err != nil {
				return err
			}
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
// transaction's root. fn's lock locks a row key for writing and, on its
// first lock, brings the row's latest committed version into the editor
// (AdoptRow).
func (t *Txn) edit(ctx context.Context, table string, fn func(tb *tables.Table, ed *tables.Editor, lk *rowLocker) error) error {
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
	tb, err := t.db.tableAt(ctx, addr)
	if err != nil {
		return err
	}
	ed := tb.Edit()
	if err := fn(tb, ed, &rowLocker{ctx: ctx, t: t, table: exact, tb: tb, ed: ed}); err != nil {
		return err
	}
	nt, err := ed.Table(ctx)
	if err != nil {
		return err
	}
	return t.putTable(ctx, exact, nt)
}

// rowLocker takes the typed API's row locks of one table edit.
type rowLocker struct {
	ctx   context.Context
	t     *Txn
	table string
	tb    *tables.Table
	ed    *tables.Editor
}

// lock locks the row under key for writing and, on the
// transaction's first lock of it, brings the row's latest committed
// version into the editor (AdoptRow).
func (l *rowLocker) lock(key []byte) error { return l.lockMode(key, LockExclusive) }

// lockMode locks the row under key in mode, adopting it on the first lock.
func (l *rowLocker) lockMode(key []byte, mode LockMode) error {
	first, err := l.t.owner().Lock(l.ctx, l.t.LockKey(l.table, key), mode, LockWait, l.t.LockTimeout)
	if err != nil || !first {
		return err
	}
	cur, err := rawVersion(l.ctx, l.ed, key)
	if err != nil {
		return err
	}
	_, _, err = l.t.AdoptRow(l.ctx, l.table, l.ed, key, cur, nil)
	return err
}

// row locks the row row takes, and its unique values (LockUnique); rows
// of keyless tables take no locks.
func (l *rowLocker) row(row []tables.Value) error {
	s := l.tb.Schema()
	if s.Keyless() || len(row) != len(s.Columns) {
		return nil // the editor refuses a row of the wrong shape
	}
	key := l.tb.KeyOf(row)
	if err := l.lock(key); err != nil {
		return err
	}
	lock := func(table string, k []byte) (bool, error) {
		return l.t.owner().Lock(l.ctx, l.t.LockKey(table, k), LockExclusive, LockWait, l.t.LockTimeout)
	}
	holder := func(rk []byte) error { return l.lockMode(rk, LockShared) }
	return l.t.LockUnique(l.ctx, l.table, l.tb, l.ed, row, key, lock, holder, nil)
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
