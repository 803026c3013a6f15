package verso

import (
	"bytes"
	"context"

	"github.com/verso-db/verso/tables"
)

// Unique values are locked like rows, as InnoDB locks a unique index
// entry: a second transaction taking a value waits for the first. On the
// first lock of a value, the rows that hold it in the latest committed
// table or in the transaction's view are locked (shared) and adopted
// (AdoptRow), so that the editor's unique check sees the latest: a value
// another transaction took and committed is a duplicate, one it freed is
// free.

// LockUnique locks, for writing, the values row (stored under key) takes
// in the unique indexes of table, whose value tb is and whose editor ed
// the transaction writes with. lock takes an exclusive lock of a key of a
// table (the lock key is LockKey's); lockHolder takes a shared lock of
// the row under a row key and adopts it into ed; load opens tables (nil:
// tables.Load).
func (t *Txn) LockUnique(ctx context.Context, table string, tb *tables.Table, ed *tables.Editor, row []Value, key []byte,
	lock func(table string, key []byte) (bool, error), lockHolder func(rowKey []byte) error, load TableLoader) error {
	sch := ed.Schema()
	for _, u := range tb.UniqueKeys(row) {
		first, err := lock(table+"\x00unique\x00"+sch.Indexes[u.Index].Name, u.Prefix)
		if err != nil {
			return err
		}
		if !first {
			continue
		}
		holders, err := t.uniqueHolders(ctx, table, ed, u, load)
		if err != nil {
			return err
		}
		for _, rk := range holders {
			if bytes.Equal(rk, key) {
				continue
			}
			if err := lockHolder(rk); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniqueHolders returns the keys of the rows holding the unique value u in
// the transaction's view of the table (ed) or in the latest committed
// table (read only when something was committed since the snapshot).
func (t *Txn) uniqueHolders(ctx context.Context, table string, ed *tables.Editor, u tables.UniqueKey, load TableLoader) ([][]byte, error) {
	if load == nil {
		load = t.loadTable
	}
	own, err := ed.IndexRowKeys(ctx, u.Index, u.Prefix)
	if err != nil {
		return nil, err
	}
	_, _, latestRoot, err := t.db.Snapshot(ctx, t.branch)
	if err != nil {
		return nil, err
	}
	if latestRoot.Address() == t.base.Address() && !t.HasAdopted() {
		return own, nil
	}
	_, addr, ok, err := FindTable(ctx, latestRoot, table)
	if err != nil || !ok {
		return nil, err
	}
	latest, err := load(ctx, table, addr)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(tables.EncodeSchema(latest.Schema()), tables.EncodeSchema(ed.Schema())) {
		return own, nil // the commit fails on the schema change
	}
	keys, err := latest.IndexRowKeys(ctx, u.Index, u.Prefix)
	if err != nil {
		return nil, err
	}
	for _, k := range own {
		dup := false
		for _, x := range keys {
			dup = dup || bytes.Equal(x, k)
		}
		if !dup {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// loadTable opens a table value of the database (a TableLoader).
func (t *Txn) loadTable(ctx context.Context, _ string, addr Hash) (*tables.Table, error) {
	return t.db.tableAt(ctx, addr)
}
