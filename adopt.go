package verso

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/verso-db/verso/tables"
)

// Reading the latest version of a locked row ("adopting" it): when a
// transaction first locks a row, the row as the branch's working root
// holds it now (L) is compared with the row as the transaction's snapshot
// holds it (B, its base). If they differ, another transaction committed
// the row since the snapshot; as the lock was free, that transaction has
// ended. The transaction then takes L into its own root (through its
// table editor, so indexes follow) and records L as the row's base
// (Adopt), so that at commit its change of the row is replayed from L,
// not from the snapshot, and is no conflict. A row the transaction has
// written since its base and that another writer changed anyway (a writer
// that takes no locks) is a serialization failure, as is any row that both
// the transaction and the working root changed since the transaction's
// base, whatever the values (merge.go).

// TableLoader opens a table value by address, for AdoptRow: the SQL layer
// passes its cache; nil is tables.Load.
type TableLoader func(ctx context.Context, name string, addr Hash) (*tables.Table, error)

// AdoptRow brings the latest committed version of the row under key of
// table into ed (the transaction's editor of the table, holding version
// cur of the row), if it differs from the transaction's base of the row,
// and records it as the row's base. It returns the version the
// transaction holds now and whether it changed. The caller holds the
// row's lock and writes ed's table into the transaction's root.
func (t *Txn) AdoptRow(ctx context.Context, table string, ed *tables.Editor, key []byte, cur RowVersion, load TableLoader) (RowVersion, bool, error) {
	if load == nil {
		load = t.loadTable
	}
	name := strings.ToLower(table)
	_, _, latestRoot, err := t.db.Snapshot(ctx, t.branch)
	if err != nil {
		return RowVersion{}, false, err
	}
	if latestRoot.Address() == t.base.Address() && !t.HasAdopted() {
		return cur, false, nil // nothing committed since the snapshot
	}
	_, latestAddr, inLatest, err := FindTable(ctx, latestRoot, table)
	if err != nil || !inLatest {
		return cur, false, err // dropped meanwhile: the commit fails on it
	}
	_, baseAddr, inBase, err := FindTable(ctx, t.base, table)
	if err != nil || !inBase {
		return cur, false, err // created by this transaction, or concurrently: no rows to adopt
	}
	adopted, hasBase := t.Adopted(name, string(key))
	if latestAddr == baseAddr && !hasBase {
		return cur, false, nil // the table has not changed since the snapshot
	}
	latest, err := load(ctx, table, latestAddr)
	if err != nil {
		return RowVersion{}, false, err
	}
	lv, lok, err := latest.Rows().Get(ctx, key)
	if err != nil {
		return RowVersion{}, false, err
	}
	l := RowVersion{Val: lv, OK: lok}
	if !hasBase && l.Equal(cur) {
		// A first lock: the transaction has not written the row, so cur
		// is its snapshot's version, and nobody changed it since.
		return cur, false, nil
	}
	base := adopted
	if !hasBase {
		bt, err := load(ctx, table, baseAddr)
		if err != nil {
			return RowVersion{}, false, err
		}
		bv, bok, err := bt.Rows().Get(ctx, key)
		if err != nil {
			return RowVersion{}, false, err
		}
		base = RowVersion{Val: bv, OK: bok}
	}
	if l.Equal(base) {
		return cur, false, nil
	}
	if !cur.Equal(base) {
		return RowVersion{}, false, errSerialization("the row with key %s in table %q was changed by a writer that takes no row locks", tables.KeyText(key), table)
	}
	if !bytes.Equal(tables.EncodeSchema(latest.Schema()), tables.EncodeSchema(ed.Schema())) {
		return RowVersion{}, false, errSerialization("the schema of table %q changed", table)
	}
	if err := applyVersion(ctx, ed, latest, key, cur, l); err != nil {
		var dup *tables.DuplicateKeyError
		if errors.As(err, &dup) {
			return RowVersion{}, false, errSerialization("the latest version of the row with key %s in table %q takes key %s of index %s that this transaction holds", tables.KeyText(key), table, dup.Key, dup.Index)
		}
		return RowVersion{}, false, err
	}
	t.Adopt(name, string(key), l)
	return l, true, nil
}

// applyVersion changes the editor's row under key from version from to
// version to, decoding both with tb (a table of the editor's schema).
func applyVersion(ctx context.Context, ed *tables.Editor, tb *tables.Table, key []byte, from, to RowVersion) error {
	var old, row []tables.Value
	var err error
	if from.OK {
		if old, err = tb.Decode(ctx, key, from.Val); err != nil {
			return err
		}
	}
	if to.OK {
		if row, err = tb.Decode(ctx, key, to.Val); err != nil {
			return err
		}
	}
	ed.KeepZero(true) // the row keeps the values it was stored with
	switch {
	case from.OK && to.OK:
		return ed.Update(ctx, old, row)
	case to.OK:
		_, err = ed.Insert(ctx, row)
		return err
	case from.OK:
		return ed.Delete(ctx, old)
	}
	return nil
}

// rawVersion returns the editor's version of the row under key.
func rawVersion(ctx context.Context, ed *tables.Editor, key []byte) (RowVersion, error) {
	v, ok, err := ed.GetRaw(ctx, key)
	if err != nil {
		return RowVersion{}, err
	}
	return RowVersion{Val: v, OK: ok}, nil
}
