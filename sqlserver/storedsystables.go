package sqlserver

import (
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
)

// The system tables that are ordinary tables of the root value, versioned
// with the rest, as Dolt has them: dolt_ignore (ignore.go), dolt_docs
// (docs.go), dolt_tests (testrun.go) and dolt_query_catalog. Until its
// first write such a table does not exist: it reads as a table of its
// columns (with no rows, or dolt_docs' built-in one), and its first row
// written makes it. Like Dolt, SHOW TABLES leaves them out (but with
// @@dolt_show_system_tables on).

// storedSystemTable describes one of them.
type storedSystemTable struct {
	name   string
	schema func() sql.PrimaryKeySchema
	checks []sql.CheckDefinition
	// builtin gives the rows the table shows, where it stores no row of
	// their key, in the session's working root (dolt_docs' AGENT.md): a
	// DELETE of one changes nothing, an UPDATE stores the new row.
	builtin func() []sql.Row
}

// storedSystemTables lists them.
var storedSystemTables = []storedSystemTable{
	{name: verso.IgnoreTable, schema: ignoreSchema},
	{name: docsTableName, schema: docsSchema, builtin: docsBuiltin},
	{name: testsTableName, schema: testsSchema, checks: testsChecks},
	{name: queryCatalogTableName, schema: queryCatalogSchema},
}

// isStoredSystemTable reports whether the stored table name is one of
// them (exactly so: a table's name is stored as created).
func isStoredSystemTable(name string) bool {
	for _, s := range storedSystemTables {
		if s.name == name {
			return true
		}
	}
	return false
}

// openStoredSystemTable serves one of them while the working root lacks
// it, and dolt_docs with its built-in row; the stored table itself
// otherwise (false: the ordinary lookup finds it).
func openStoredSystemTable(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error) {
	var spec *storedSystemTable
	for i := range storedSystemTables {
		if strings.EqualFold(name, storedSystemTables[i].name) {
			spec = &storedSystemTables[i]
		}
	}
	if spec == nil || db.rev != nil {
		return nil, false, nil
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, false, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, d.Root(), spec.name)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return &lazyTable{db: db, spec: spec}, true, nil
	}
	if spec.builtin == nil {
		return nil, false, nil
	}
	t, err := db.openTable(ctx, d.Root(), exact, addr)
	if err != nil {
		return nil, false, err
	}
	return &builtinRowsTable{stored: t, spec: spec}, true, nil
}

// lazyTable is a stored system table before it exists: its built-in rows
// only; the first row written makes the table.
type lazyTable struct {
	db   *Database
	spec *storedSystemTable
}

var (
	_ sql.InsertableTable  = (*lazyTable)(nil)
	_ sql.UpdatableTable   = (*lazyTable)(nil)
	_ sql.DeletableTable   = (*lazyTable)(nil)
	_ sql.ReplaceableTable = (*lazyTable)(nil)
	_ sql.CheckTable       = (*lazyTable)(nil)
)

func (t *lazyTable) Name() string                   { return t.spec.name }
func (t *lazyTable) String() string                 { return t.spec.name }
func (t *lazyTable) Schema(*sql.Context) sql.Schema { return t.spec.schema().Schema }
func (t *lazyTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *lazyTable) IsTemporary() bool              { return false }
func (t *lazyTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}
func (t *lazyTable) PartitionRows(*sql.Context, sql.Partition) (sql.RowIter, error) {
	if t.spec.builtin == nil {
		return sql.RowsToRowIter(), nil
	}
	return sql.RowsToRowIter(t.spec.builtin()...), nil
}

// GetChecks implements sql.CheckTable: the first INSERT is checked too.
func (t *lazyTable) GetChecks(*sql.Context) ([]sql.CheckDefinition, error) { return t.spec.checks, nil }

func (t *lazyTable) Inserter(*sql.Context) sql.RowInserter {
	return &lazyWriter{db: t.db, spec: t.spec}
}
func (t *lazyTable) Updater(*sql.Context) sql.RowUpdater { return &lazyWriter{db: t.db, spec: t.spec} }

// Replacer: REPLACE finds no row to delete, and inserts.
func (t *lazyTable) Replacer(*sql.Context) sql.RowReplacer {
	return &lazyWriter{db: t.db, spec: t.spec}
}

// Deleter: a built-in row cannot be deleted (it shows again), and there
// is nothing else.
func (t *lazyTable) Deleter(*sql.Context) sql.RowDeleter { return noRows{} }

// lazyWriter makes the table at the statement's first row, and writes it
// there (an UPDATE of a built-in row stores the new row); a failed
// statement takes the table back with its rows.
type lazyWriter struct {
	db    *Database
	spec  *storedSystemTable
	inner sql.RowReplacer
}

func (w *lazyWriter) StatementBegin(*sql.Context) {}

// create makes the table and opens its inserter.
func (w *lazyWriter) create(ctx *sql.Context) error {
	if w.inner != nil {
		return nil
	}
	if err := w.db.CreateTable(ctx, w.spec.name, w.spec.schema(), sql.Collation_Default, ""); err != nil {
		return err
	}
	tb, ok, err := w.db.GetTableInsensitive(ctx, w.spec.name)
	if err == nil && !ok {
		err = sql.ErrTableNotFound.New(w.spec.name)
	}
	if err != nil {
		return err
	}
	if len(w.spec.checks) > 0 {
		for i := range w.spec.checks {
			if err := storedOf(tb).CreateCheck(ctx, &w.spec.checks[i]); err != nil {
				return err
			}
		}
		if tb, _, err = w.db.GetTableInsensitive(ctx, w.spec.name); err != nil {
			return err
		}
	}
	w.inner = storedOf(tb).Replacer(ctx)
	w.inner.StatementBegin(ctx)
	return nil
}

func (w *lazyWriter) Insert(ctx *sql.Context, row sql.Row) error {
	if err := w.create(ctx); err != nil {
		return err
	}
	return w.inner.Insert(ctx, row)
}

func (w *lazyWriter) Update(ctx *sql.Context, _, row sql.Row) error { return w.Insert(ctx, row) }

// Delete is REPLACE's: the table stores no row yet (a built-in one it
// does not store stays).
func (w *lazyWriter) Delete(ctx *sql.Context, row sql.Row) error {
	if w.inner != nil {
		return w.inner.Delete(ctx, row)
	}
	return sql.ErrDeleteRowNotFound.New()
}

func (w *lazyWriter) DiscardChanges(ctx *sql.Context, err error) error {
	if w.inner == nil {
		return nil
	}
	w.inner.DiscardChanges(ctx, err)
	w.inner.Close(ctx)
	w.inner = nil
	return w.db.DropTable(ctx, w.spec.name)
}

func (w *lazyWriter) StatementComplete(ctx *sql.Context) error {
	if w.inner == nil {
		return nil
	}
	return w.inner.StatementComplete(ctx)
}

func (w *lazyWriter) Close(ctx *sql.Context) error {
	if w.inner != nil {
		return w.inner.Close(ctx)
	}
	return nil
}

// builtinRowsTable is a stored system table as it stands, with its
// built-in rows where it stores none of their key. It shows no indexes
// (the table is small): every read is a scan, in key order.
type builtinRowsTable struct {
	stored *Table
	spec   *storedSystemTable
}

var (
	_ sql.InsertableTable  = (*builtinRowsTable)(nil)
	_ sql.UpdatableTable   = (*builtinRowsTable)(nil)
	_ sql.DeletableTable   = (*builtinRowsTable)(nil)
	_ sql.ReplaceableTable = (*builtinRowsTable)(nil)
)

func (t *builtinRowsTable) Name() string                       { return t.stored.Name() }
func (t *builtinRowsTable) String() string                     { return t.stored.String() }
func (t *builtinRowsTable) Schema(ctx *sql.Context) sql.Schema { return t.stored.Schema(ctx) }
func (t *builtinRowsTable) Collation() sql.CollationID         { return t.stored.Collation() }
func (t *builtinRowsTable) IsTemporary() bool                  { return false }
func (t *builtinRowsTable) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return t.stored.Partitions(ctx)
}
func (t *builtinRowsTable) Inserter(ctx *sql.Context) sql.RowInserter { return t.stored.Inserter(ctx) }

// Replacer: REPLACE deletes the stored row of the key, if any (a
// built-in row it replaces is not stored), and inserts.
func (t *builtinRowsTable) Replacer(ctx *sql.Context) sql.RowReplacer { return t.stored.Replacer(ctx) }

// PartitionRows returns the stored rows and the built-in ones the table
// does not store, in key order.
func (t *builtinRowsTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	rows, err := t.storedRows(ctx, p)
	if err != nil {
		return nil, err
	}
	for _, b := range t.spec.builtin() {
		if !hasKey(rows, b[0]) {
			rows = insertSorted(rows, b)
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

// storedRows reads the stored table's rows of partition p.
func (t *builtinRowsTable) storedRows(ctx *sql.Context, p sql.Partition) ([]sql.Row, error) {
	it, err := t.stored.PartitionRows(ctx, p)
	if err != nil {
		return nil, err
	}
	defer it.Close(ctx)
	var rows []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
}

// stores reports whether the stored table holds a row of key k.
func (t *builtinRowsTable) stores(ctx *sql.Context, k any) (bool, error) {
	parts, err := t.stored.Partitions(ctx)
	if err != nil {
		return false, err
	}
	defer parts.Close(ctx)
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		rows, err := t.storedRows(ctx, p)
		if err != nil {
			return false, err
		}
		if hasKey(rows, k) {
			return true, nil
		}
	}
}

// isBuiltin reports whether row is a built-in row the table does not
// store.
func (t *builtinRowsTable) isBuiltin(ctx *sql.Context, row sql.Row) (bool, error) {
	for _, b := range t.spec.builtin() {
		if b[0] == row[0] && b[1] == row[1] {
			stored, err := t.stores(ctx, b[0])
			return !stored, err
		}
	}
	return false, nil
}

// Updater: an UPDATE of a built-in row stores the new row.
func (t *builtinRowsTable) Updater(ctx *sql.Context) sql.RowUpdater {
	return &builtinEditor{t: t, upd: t.stored.Updater(ctx), ins: t.stored.Inserter(ctx)}
}

// Deleter: a DELETE of a built-in row changes nothing (it shows again).
func (t *builtinRowsTable) Deleter(ctx *sql.Context) sql.RowDeleter {
	return &builtinEditor{t: t, del: t.stored.Deleter(ctx)}
}

// builtinEditor passes edits to the stored table, but those of built-in
// rows it does not store.
type builtinEditor struct {
	t   *builtinRowsTable
	upd sql.RowUpdater
	ins sql.RowInserter
	del sql.RowDeleter
}

// rowEditor is what the stored table's editors have in common.
type rowEditor interface {
	sql.EditOpenerCloser
	Close(*sql.Context) error
}

// editors returns the stored table's editors in use.
func (e *builtinEditor) editors() []rowEditor {
	var out []rowEditor
	for _, x := range []rowEditor{e.upd, e.ins, e.del} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

func (e *builtinEditor) StatementBegin(ctx *sql.Context) {
	for _, x := range e.editors() {
		x.StatementBegin(ctx)
	}
}

func (e *builtinEditor) Update(ctx *sql.Context, old, row sql.Row) error {
	if b, err := e.t.isBuiltin(ctx, old); err != nil {
		return err
	} else if b {
		return e.ins.Insert(ctx, row)
	}
	return e.upd.Update(ctx, old, row)
}

func (e *builtinEditor) Delete(ctx *sql.Context, row sql.Row) error {
	if b, err := e.t.isBuiltin(ctx, row); err != nil || b {
		return err
	}
	return e.del.Delete(ctx, row)
}

func (e *builtinEditor) DiscardChanges(ctx *sql.Context, err error) error {
	var first error
	for _, x := range e.editors() {
		if err := x.DiscardChanges(ctx, err); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (e *builtinEditor) StatementComplete(ctx *sql.Context) error {
	for _, x := range e.editors() {
		if err := x.StatementComplete(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (e *builtinEditor) Close(ctx *sql.Context) error {
	var first error
	for _, x := range e.editors() {
		if err := x.Close(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// hasKey reports whether rows hold a row whose first column is k.
func hasKey(rows []sql.Row, k any) bool {
	for _, r := range rows {
		if r[0] == k {
			return true
		}
	}
	return false
}

// insertSorted inserts row among rows sorted by their first column (a
// string, compared as bytes).
func insertSorted(rows []sql.Row, row sql.Row) []sql.Row {
	k, _ := row[0].(string)
	i := 0
	for i < len(rows) {
		if s, _ := rows[i][0].(string); s > k {
			break
		}
		i++
	}
	rows = append(rows, nil)
	copy(rows[i+1:], rows[i:])
	rows[i] = row
	return rows
}

// storedOf returns the stored table of a stored system table as
// GetTableInsensitive gives it.
func storedOf(t sql.Table) *Table {
	if b, ok := t.(*builtinRowsTable); ok {
		return b.stored
	}
	return t.(*Table)
}

// noRows edits a table with no rows: nothing reaches it.
type noRows struct{}

func (noRows) StatementBegin(*sql.Context)                 {}
func (noRows) DiscardChanges(*sql.Context, error) error    { return nil }
func (noRows) StatementComplete(*sql.Context) error        { return nil }
func (noRows) Update(*sql.Context, sql.Row, sql.Row) error { return nil }
func (noRows) Delete(*sql.Context, sql.Row) error          { return nil }
func (noRows) Close(*sql.Context) error                    { return nil }
