package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// dolt_ignore, as Dolt's: the patterns of tables that staging leaves out
// (verso.IgnoreTable has the rules). It is an ordinary table of the root
// value, versioned with the rest, hidden from SHOW TABLES; until its first
// write it does not exist, and reads as an empty table of its columns
// whose first INSERT makes it.

// ignoreSchema is dolt_ignore's: pattern text PRIMARY KEY, ignored
// tinyint(1) NOT NULL.
func ignoreSchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(sql.Schema{
		{Name: "pattern", Type: types.Text, PrimaryKey: true, Nullable: false, Source: verso.IgnoreTable},
		{Name: "ignored", Type: types.Boolean, Nullable: false, Source: verso.IgnoreTable},
	})
}

// openIgnoreTable serves dolt_ignore while the working root lacks it.
func openIgnoreTable(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error) {
	if !strings.EqualFold(name, verso.IgnoreTable) || db.rev != nil {
		return nil, false, nil
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, false, err
	}
	if _, _, ok, err := verso.FindTable(ctx, d.Root(), verso.IgnoreTable); err != nil || ok {
		return nil, false, err // the table itself
	}
	return &ignoreTable{db: db}, true, nil
}

// ignoreTable is dolt_ignore before it exists: no rows; an INSERT makes
// the table and writes to it.
type ignoreTable struct{ db *Database }

var (
	_ sql.InsertableTable = (*ignoreTable)(nil)
	_ sql.UpdatableTable  = (*ignoreTable)(nil)
	_ sql.DeletableTable  = (*ignoreTable)(nil)
)

func (t *ignoreTable) Name() string                   { return verso.IgnoreTable }
func (t *ignoreTable) String() string                 { return verso.IgnoreTable }
func (t *ignoreTable) Schema(*sql.Context) sql.Schema { return ignoreSchema().Schema }
func (t *ignoreTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *ignoreTable) IsTemporary() bool              { return false }
func (t *ignoreTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}
func (t *ignoreTable) PartitionRows(*sql.Context, sql.Partition) (sql.RowIter, error) {
	return sql.RowsToRowIter(), nil
}

// Updater and Deleter: there are no rows to change.
func (t *ignoreTable) Updater(*sql.Context) sql.RowUpdater { return noRows{} }
func (t *ignoreTable) Deleter(*sql.Context) sql.RowDeleter { return noRows{} }

// Inserter makes dolt_ignore when the statement begins, and inserts into
// it; a failed statement takes the table back with its rows.
func (t *ignoreTable) Inserter(ctx *sql.Context) sql.RowInserter {
	return &ignoreInserter{db: t.db}
}

type ignoreInserter struct {
	db    *Database
	inner sql.RowInserter
	err   error
}

func (in *ignoreInserter) StatementBegin(ctx *sql.Context) {
	if err := in.db.CreateTable(ctx, verso.IgnoreTable, ignoreSchema(), sql.Collation_Default, ""); err != nil {
		in.err = err
		return
	}
	tb, ok, err := in.db.GetTableInsensitive(ctx, verso.IgnoreTable)
	if err == nil && !ok {
		err = sql.ErrTableNotFound.New(verso.IgnoreTable)
	}
	if err != nil {
		in.err = err
		return
	}
	in.inner = tb.(sql.InsertableTable).Inserter(ctx)
	in.inner.StatementBegin(ctx)
}

func (in *ignoreInserter) Insert(ctx *sql.Context, row sql.Row) error {
	if in.err != nil {
		return in.err
	}
	return in.inner.Insert(ctx, row)
}

func (in *ignoreInserter) DiscardChanges(ctx *sql.Context, err error) error {
	if in.inner != nil {
		in.inner.DiscardChanges(ctx, err)
	}
	if in.err == nil {
		return in.db.DropTable(ctx, verso.IgnoreTable)
	}
	return nil
}

func (in *ignoreInserter) StatementComplete(ctx *sql.Context) error {
	if in.err != nil {
		return in.err
	}
	return in.inner.StatementComplete(ctx)
}

func (in *ignoreInserter) Close(ctx *sql.Context) error {
	if in.inner != nil {
		return in.inner.Close(ctx)
	}
	return nil
}

// noRows edits a table with no rows: nothing reaches it.
type noRows struct{}

func (noRows) StatementBegin(*sql.Context)                 {}
func (noRows) DiscardChanges(*sql.Context, error) error    { return nil }
func (noRows) StatementComplete(*sql.Context) error        { return nil }
func (noRows) Update(*sql.Context, sql.Row, sql.Row) error { return nil }
func (noRows) Delete(*sql.Context, sql.Row) error          { return nil }
func (noRows) Close(*sql.Context) error                    { return nil }
