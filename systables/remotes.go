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
// Both read the refs as they are now (remotes are not versioned). As in
// Dolt, dolt_remotes refuses inserts (dolt_remote edits remotes), and
// updates and deletes of either change nothing.

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

// remotesTable is dolt_remotes or dolt_remote_branches.
type remotesTable struct{ rowsTable }

var (
	_ sql.InsertableTable = (*remotesTable)(nil)
	_ sql.DeletableTable  = (*remotesTable)(nil)
	_ sql.UpdatableTable  = (*remotesTable)(nil)
)

func openRemotes(name string, v *View) *remotesTable {
	if name == RemoteBranchesName {
		return &remotesTable{rowsTable{name: name, sch: remoteBranchesSchema, rows: v.remoteBranchRows}}
	}
	return &remotesTable{rowsTable{name: name, sch: remotesSchema, rows: v.remoteRows}}
}

func (v *View) remoteRows(ctx *sql.Context) ([]sql.Row, error) {
	rs, err := v.Graph.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(rs))
	for _, r := range rs {
		specs := make([]any, len(r.FetchSpecs))
		for i, s := range r.FetchSpecs {
			specs[i] = s
		}
		params := make(map[string]any, len(r.Params))
		for k, p := range r.Params {
			params[k] = p
		}
		rows = append(rows, sql.Row{r.Name, r.URL, types.JSONDocument{Val: specs}, types.JSONDocument{Val: params}})
	}
	return rows, nil
}

func (v *View) remoteBranchRows(ctx *sql.Context) ([]sql.Row, error) {
	rbs, err := v.Graph.RemoteBranches(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(rbs))
	for _, rb := range rbs {
		c, err := v.Graph.ReadCommit(ctx, rb.Head)
		if err != nil {
			return nil, err
		}
		who := c.Meta.CommitterOrAuthor()
		rows = append(rows, sql.Row{"remotes/" + rb.Name, c.Addr.String(), who.Name, who.Email, c.Meta.Time, c.Meta.Message,
			c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.AuthorWhen()})
	}
	return rows, nil
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
