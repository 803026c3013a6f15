package systables

import "github.com/dolthub/go-mysql-server/sql"

// refusingTable is a read-only table whose INSERT, UPDATE and DELETE fail
// with err, which names what verso lacks (a table of a feature verso does
// not have: it shows what is true of verso, and stores nothing).
type refusingTable struct {
	rowsTable
	err error
}

var (
	_ sql.InsertableTable = (*refusingTable)(nil)
	_ sql.UpdatableTable  = (*refusingTable)(nil)
	_ sql.DeletableTable  = (*refusingTable)(nil)
)

func (t *refusingTable) Inserter(*sql.Context) sql.RowInserter { return refusal{t.err} }
func (t *refusingTable) Updater(*sql.Context) sql.RowUpdater   { return refusal{t.err} }
func (t *refusingTable) Deleter(*sql.Context) sql.RowDeleter   { return refusal{t.err} }

// refusal fails every row it is given, and the statement with it.
type refusal struct{ err error }

func (r refusal) StatementBegin(*sql.Context)                 {}
func (r refusal) DiscardChanges(*sql.Context, error) error    { return nil }
func (r refusal) StatementComplete(*sql.Context) error        { return nil }
func (r refusal) Insert(*sql.Context, sql.Row) error          { return r.err }
func (r refusal) Update(*sql.Context, sql.Row, sql.Row) error { return r.err }
func (r refusal) Delete(*sql.Context, sql.Row) error          { return r.err }
func (r refusal) Close(*sql.Context) error                    { return nil }
