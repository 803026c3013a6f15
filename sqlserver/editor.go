package sqlserver

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/tables"
)

// tableWriter holds a transaction's pending writes to one table: one
// tables.Editor shared by every engine editor of the table (INSERT ... ON
// DUPLICATE KEY UPDATE uses an inserter and an updater at once). Its
// edits are written into the transaction's root at the end of each
// statement (flush).
type tableWriter struct {
	db    *Database // the database the writer was made through
	name  string
	ed    *tables.Editor
	base  chunks.Address // the stored table the editor's flushed state equals
	sp    tables.Savepoint
	dirty bool
	// deferred: the edits of the statement that ended last were left in
	// ed for the commit that follows it (deferWrites).
	deferred bool
	// adopted holds the keys of rows adopted (rowlocks.go) since the
	// statement began, whose adoption its rollback undoes.
	adopted map[string]bool
}

// writer returns the transaction's writer for the table name, starting
// from the table as the transaction's root holds it.
func (d *txDB) writer(ctx *sql.Context, st *Database, name string) (*tableWriter, error) {
	if !st.temp {
		if err := refuseReplicaWrite(d.st); err != nil {
			return nil, err
		}
	}
	exact, addr, ok, err := verso.FindTable(ctx, d.Root(), name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(name)
	}
	key := strings.ToLower(exact)
	if w, ok := d.writers[key]; ok && (w.dirty || w.base == addr) {
		return w, nil
	}
	info, err := st.p.cache.get(ctx, st, exact, addr, chunks.Address{})
	if err != nil {
		return nil, err
	}
	w := &tableWriter{db: st, name: exact, ed: info.t.Edit(), base: addr}
	w.sp = w.ed.Savepoint()
	d.writers[key] = w
	return w, nil
}

// flush writes w's pending edits into the transaction's root.
func (d *txDB) flush(ctx *sql.Context, w *tableWriter) error {
	w.deferred = false
	if !w.dirty {
		return nil
	}
	if d.writers[strings.ToLower(w.name)] != w {
		// The table was dropped, renamed or rebuilt since: an engine
		// editor closing late must not bring the old table back.
		w.dirty = false
		return nil
	}
	t, err := w.ed.Table(ctx)
	if err != nil {
		return err
	}
	addr, err := d.putTable(ctx, w.name, t)
	if err != nil {
		return err
	}
	if err := w.db.p.cache.derive(ctx, w.db, d.Root(), w.name, w.base, addr, t); err != nil {
		return err
	}
	w.base, w.dirty = addr, false
	return nil
}

// endStatement ends a statement's writes to w's table: they go into the
// transaction's root, or stay in w's editor for the commit that follows
// (deferWrites).
func (d *txDB) endStatement(ctx *sql.Context, w *tableWriter) error {
	if w.dirty && !w.db.temp {
		ok, err := d.deferWrites(ctx, w)
		if err != nil {
			return err
		}
		if ok {
			w.deferred, d.deferredBy = true, ctx.Pid()
			return nil
		}
	}
	return d.flush(ctx, w)
}

// deferWrites reports whether the statement's writes to w's table may stay
// in w's editor when it ends, for CommitTransaction to hand to the engine
// as they are (verso.Txn.CommitEdits): the engine then edits the table's
// trees once, in the working root, instead of once here and again when the
// commit meets a working root that moved. That holds when nothing reads
// the transaction's root before the edits are written into it, in a
// database without triggers (a trigger's statements could end and be read
// within it), writing a table with a primary key that the transaction has
// not written into its root before (the engine replays an edit over the
// transaction's snapshot of the table), for
//   - an INSERT, UPDATE, DELETE or REPLACE run on its own under autocommit,
//     whose commit follows it at once;
//   - a direct write (fastwrite.go), in any transaction: the next statement
//     of the transaction writes the edits first (txDatabase), unless it is
//     a direct write too, which reads rows through the writers and goes on
//     from their edits (Transaction.continueDeferred), or the COMMIT, which
//     hands them to the engine. A transaction of single-row writes by key
//     (sysbench's oltp_write_only) so edits each table's trees once, at
//     its commit, instead of once per statement and again there.
func (d *txDB) deferWrites(ctx *sql.Context, w *tableWriter) (bool, error) {
	if w.ed.Schema().Keyless() || !isDirect(ctx) && !(autocommitting(ctx) && plainWrite(ctx.Query())) {
		return false, nil
	}
	b, _, err := d.Base().Get(ctx, tablePrefix+w.name)
	if err != nil || b != w.base {
		return false, err
	}
	triggers, err := d.Root().Entries(ctx, triggerPrefix)
	return err == nil && len(triggers) == 0, err
}

// plainWrite reports whether the query is an INSERT, UPDATE, DELETE or
// REPLACE (its first word).
func plainWrite(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	i := strings.IndexAny(q, " \t\r\n")
	if i < 0 {
		return false
	}
	switch strings.ToLower(q[:i]) {
	case "insert", "update", "delete", "replace":
		return true
	}
	return false
}

// takeEdits sets d.edits to the writes the statement that ended last left
// in their editors (endStatement), and flushes the other writers.
func (d *txDB) takeEdits(ctx *sql.Context) error {
	d.edits = nil
	for _, w := range d.writers {
		if w.dirty && w.deferred {
			d.edits = append(d.edits, verso.TableEdit{Name: w.name, Editor: w.ed})
			w.dirty, w.deferred = false, false
			continue
		}
		if err := d.flush(ctx, w); err != nil {
			return err
		}
	}
	d.deferredBy = 0
	return nil
}

// cacheEdited leaves in the table cache, after the commit of d.edits, each
// table value the commit wrote from an edit as it was
// (TableEdit.Committed): the next
// statement reads it without loading it, as after a flush (derive). It is
// a cache's work after a durable commit: a failure is logged, not
// returned.
func (d *txDB) cacheEdited(ctx *sql.Context) {
	for _, e := range d.edits {
		if e.Committed == nil {
			continue
		}
		w := d.writers[strings.ToLower(e.Name)]
		addr, _, err := d.Root().Get(ctx, tablePrefix+e.Name) // the committed root holds e.Committed
		if err == nil {
			err = w.db.p.cache.derive(ctx, w.db, d.Root(), e.Name, w.base, addr, e.Committed)
		}
		if err != nil {
			ctx.GetLogger().Warnf("caching table %s after its commit: %v", e.Name, err)
		}
	}
}

// flushAll flushes every writer of the transaction.
func (d *txDB) flushAll(ctx *sql.Context) error {
	d.deferredBy = 0
	for _, w := range d.writers {
		if err := d.flush(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// editor is the engine's editor of a table for one statement: inserts,
// updates, deletes and replaces, on the table's shared writer.
type editor struct {
	t *Table
	d *txDB
	w *tableWriter
	// err is set when the writer could not be had; every call returns it.
	err error
	// open marks an editor of a statement (an inserter, updater, deleter
	// or replacer), target an updater or deleter: while the statement holds
	// it, the transaction's reads of the table lock their rows
	// (lockplan.go).
	open, target bool
}

var (
	_ sql.TableEditor         = (*editor)(nil)
	_ sql.AutoIncrementSetter = (*editor)(nil)
)

func (t *Table) editor(ctx *sql.Context) *editor {
	e := &editor{t: t}
	e.d, e.err = t.db.tx(ctx)
	if e.err == nil {
		e.w, e.err = e.d.writer(ctx, t.db, t.name)
	}
	return e
}

// Inserter implements sql.InsertableTable.
func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter { return t.openEditor(ctx, false) }

// Updater implements sql.UpdatableTable.
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater { return t.openEditor(ctx, true) }

// Deleter implements sql.DeletableTable.
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter { return t.openEditor(ctx, true) }

// openEditor returns an editor for a statement, counted in the
// transaction's editing until it is closed; a target (an updater or
// deleter) also makes the statement's reads of the table lock their rows
// (lockplan.go).
func (t *Table) openEditor(ctx *sql.Context, target bool) *editor {
	e := t.editor(ctx)
	if e.err == nil && !t.db.temp && !e.d.ReadOnly() {
		k := strings.ToLower(t.name)
		if e.d.editing == nil {
			e.d.editing, e.d.targets = map[string]int{}, map[string]int{}
		}
		e.d.editing[k]++
		e.open = true
		if target {
			e.d.targets[k]++
			e.target = true
		}
	}
	return e
}

// untarget ends the editor's counting (see openEditor).
func (e *editor) untarget() {
	k := strings.ToLower(e.t.name)
	if e.open {
		e.open = false
		if e.d.editing[k]--; e.d.editing[k] <= 0 {
			delete(e.d.editing, k)
		}
	}
	if e.target {
		e.target = false
		if e.d.targets[k]--; e.d.targets[k] <= 0 {
			delete(e.d.targets, k)
		}
	}
}

// Replacer implements sql.ReplaceableTable.
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer { return t.openEditor(ctx, false) }

// AutoIncrementSetter implements sql.AutoIncrementTable.
func (t *Table) AutoIncrementSetter(ctx *sql.Context) sql.AutoIncrementSetter { return t.editor(ctx) }

// PeekNextAutoIncrementValue implements sql.AutoIncrementGetter.
func (t *Table) PeekNextAutoIncrementValue(ctx *sql.Context) (uint64, error) {
	e := t.editor(ctx)
	if e.err != nil {
		return 0, e.err
	}
	return t.db.peekAutoIncrement(t.name, e.w.ed.NextAutoIncrement()), nil
}

// GetNextAutoIncrementValue implements sql.AutoIncrementTable: the value
// for an insert of insertVal into the auto-increment column, from the
// table's counter shared by every session (verso.DB.NextAutoIncrement).
func (t *Table) GetNextAutoIncrementValue(ctx *sql.Context, insertVal any) (uint64, error) {
	e := t.editor(ctx)
	if e.err != nil {
		return 0, e.err
	}
	var given uint64
	if insertVal != nil {
		if v, _, err := types.Uint64.Convert(ctx, insertVal); err == nil {
			given, _ = v.(uint64)
		}
	}
	return t.db.nextAutoIncrement(t.name, e.w.ed.NextAutoIncrement(), given), nil
}

// StatementBegin implements sql.EditOpenerCloser: it marks the writer's
// state for DiscardChanges.
func (e *editor) StatementBegin(*sql.Context) {
	if e.err == nil {
		e.w.sp = e.w.ed.Savepoint()
		e.w.adopted = nil
	}
}

// DiscardChanges implements sql.EditOpenerCloser: the statement's edits are
// undone.
func (e *editor) DiscardChanges(ctx *sql.Context, _ error) error {
	if e.err != nil {
		return nil
	}
	// Part of the statement may have been flushed already (a foreign key
	// check reads the pending rows): write the rolled-back state.
	e.untarget()
	e.w.ed.Rollback(e.w.sp)
	e.d.dropAdopted(e.w)
	e.w.dirty = true
	return e.d.flush(ctx, e.w)
}

// StatementComplete implements sql.EditOpenerCloser: the statement's edits
// go into the transaction's root, or to its commit (endStatement).
func (e *editor) StatementComplete(ctx *sql.Context) error {
	if e.err != nil {
		return e.err
	}
	e.untarget()
	return e.d.endStatement(ctx, e.w)
}

// Close implements sql.Closer.
func (e *editor) Close(ctx *sql.Context) error {
	if e.err != nil {
		return nil
	}
	e.untarget()
	return e.d.endStatement(ctx, e.w)
}

// Insert implements sql.RowInserter.
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	vals, err := e.t.toStored(ctx, row)
	if err != nil {
		return err
	}
	if err := e.lockStored(ctx, vals, false); err != nil {
		return err
	}
	if err := e.lockUnique(ctx, vals, e.storedKey(vals)); err != nil {
		return err
	}
	e.w.dirty = true
	e.w.ed.KeepZero(sql.LoadSqlMode(ctx).ModeEnabled(sql.NoAutoValueOnZero))
	_, err = e.w.ed.Insert(ctx, vals)
	return e.t.editError(ctx, err)
}

// Update implements sql.RowUpdater.
func (e *editor) Update(ctx *sql.Context, old, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	ov, err := e.t.toStored(ctx, old)
	if err != nil {
		return err
	}
	nv, err := e.t.toStored(ctx, row)
	if err != nil {
		return err
	}
	if ok := e.storedKey(ov); ok != nil {
		if err := e.lockKey(ctx, ok, true); err != nil {
			return err
		}
		nk := e.storedKey(nv)
		if nk != nil && !bytes.Equal(nk, ok) {
			if err := e.lockKey(ctx, nk, false); err != nil {
				return err
			}
		}
		if err := e.lockUnique(ctx, nv, nk); err != nil {
			return err
		}
	}
	e.w.dirty = true
	return e.t.editError(ctx, e.w.ed.Update(ctx, ov, nv))
}

// Delete implements sql.RowDeleter.
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	vals, err := e.t.toStored(ctx, row)
	if err != nil {
		return err
	}
	if err := e.lockStored(ctx, vals, true); err != nil {
		return err
	}
	e.w.dirty = true
	return e.t.editError(ctx, e.w.ed.Delete(ctx, vals))
}

// SetAutoIncrementValue implements sql.AutoIncrementSetter.
func (e *editor) SetAutoIncrementValue(ctx *sql.Context, n uint64) error {
	if e.err != nil {
		return e.err
	}
	e.w.dirty = true
	e.w.ed.SetAutoIncrement(n)
	e.t.db.setAutoIncrement(e.t.name, n)
	return nil
}

// AcquireAutoIncrementLock implements sql.AutoIncrementSetter. A
// transaction's counter is its own (conflicting values fail at commit), so
// there is nothing to lock.
func (e *editor) AcquireAutoIncrementLock(*sql.Context) (func(), error) { return func() {}, nil }

// editError converts a storage error to the engine's.
func (t *Table) editError(ctx *sql.Context, err error) error {
	if err == nil {
		return nil
	}
	var dup *tables.DuplicateKeyError
	switch {
	case errors.As(err, &dup):
		existing, cerr := t.toRow(dup.Existing)
		if cerr != nil {
			existing = nil
		}
		return sql.NewUniqueKeyErr(fmt.Sprintf("[%s]", dup.Key), dup.Index == tables.PrimaryIndexName, existing)
	case errors.Is(err, tables.ErrRowNotFound):
		return sql.ErrDeleteRowNotFound.New()
	}
	return err
}
