package systables

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_remotes and dolt_remote_branches, with Dolt's columns:
//
//	dolt_remotes         name text PRIMARY KEY, url text, fetch_specs
//	                     json, params json: the database's remotes
//	dolt_remote_branches name text PRIMARY KEY, hash text,
//	                     latest_committer, latest_committer_email text,
//	                     latest_commit_date datetime(3),
//	                     latest_commit_message, latest_author,
//	                     latest_author_email text, latest_author_date
//	                     datetime(3): the remote-tracking branches
//
// verso has no remotes yet, so both are empty. As in Dolt, dolt_remotes
// refuses writes (dolt_remote edits remotes) and a DELETE of
// dolt_remote_branches has nothing to delete.

const (
	RemotesName        = "dolt_remotes"
	RemoteBranchesName = "dolt_remote_branches"
)

var (
	remotesSchema = sql.Schema{
		textCol(RemotesName, "name", true, false),
		textCol(RemotesName, "url", false, false),
		col(RemotesName, "fetch_specs", types.JSON, true),
		col(RemotesName, "params", types.JSON, true),
	}
	remoteBranchesSchema = sql.Schema{
		textCol(RemoteBranchesName, "name", true, false),
		textCol(RemoteBranchesName, "hash", false, false),
		textCol(RemoteBranchesName, "latest_committer", false, true),
		textCol(RemoteBranchesName, "latest_committer_email", false, true),
		col(RemoteBranchesName, "latest_commit_date", types.Datetime3, true),
		textCol(RemoteBranchesName, "latest_commit_message", false, true),
		textCol(RemoteBranchesName, "latest_author", false, true),
		textCol(RemoteBranchesName, "latest_author_email", false, true),
		col(RemoteBranchesName, "latest_author_date", types.Datetime3, true),
	}
	errRemotesReadOnly = errors.New("the dolt_remotes table is read-only; use the dolt_remote stored procedure to edit remotes")
)

// remotesTable is dolt_remotes or dolt_remote_branches: no rows.
type remotesTable struct{ rowsTable }

var (
	_ sql.InsertableTable = (*remotesTable)(nil)
	_ sql.DeletableTable  = (*remotesTable)(nil)
	_ sql.UpdatableTable  = (*remotesTable)(nil)
)

func openRemotes(name string) *remotesTable {
	sch := remotesSchema
	if name == RemoteBranchesName {
		sch = remoteBranchesSchema
	}
	return &remotesTable{rowsTable{name: name, sch: sch, rows: func(*sql.Context) ([]sql.Row, error) { return nil, nil }}}
}

func (t *remotesTable) Inserter(*sql.Context) sql.RowInserter { return noEdits{t.name} }
func (t *remotesTable) Updater(*sql.Context) sql.RowUpdater   { return noEdits{t.name} }
func (t *remotesTable) Deleter(*sql.Context) sql.RowDeleter   { return noEdits{t.name} }

// noEdits edits a table without rows: an insert into dolt_remotes is
// refused; nothing else reaches a row.
type noEdits struct{ table string }

func (noEdits) StatementBegin(*sql.Context)                 {}
func (noEdits) DiscardChanges(*sql.Context, error) error    { return nil }
func (noEdits) StatementComplete(*sql.Context) error        { return nil }
func (noEdits) Update(*sql.Context, sql.Row, sql.Row) error { return nil }
func (noEdits) Delete(*sql.Context, sql.Row) error          { return nil }
func (noEdits) Close(*sql.Context) error                    { return nil }
func (e noEdits) Insert(*sql.Context, sql.Row) error {
	if e.table == RemotesName {
		return errRemotesReadOnly
	}
	return errors.New("the " + e.table + " table is read-only")
}
