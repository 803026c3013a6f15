package systables

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// dolt_workspace_<t>, as Dolt's: a row per row of t that differs between
// the branch's head and staged root (staged = 1), then per row that
// differs between the staged and the working root (staged = 0), each in
// key order (a keyless table's copies a row each):
//
//	id          bigint unsigned PRIMARY KEY   the row's place in that order
//	staged      tinyint(1)
//	diff_type   varchar(1023)                 added, modified or removed
//	to_<c>...   the row after (t's columns in the working root)
//	from_<c>... the row before (t's columns in the head)
//
// UPDATE dolt_workspace_<t> SET staged = 1 stages a row's change (the
// staged root takes the working root's row), SET staged = 0 unstages one
// (the staged root takes back the head's); only staged may change ("only
// update of column 'staged' is allowed"). DELETE undoes a change that is
// not staged (the working root takes back the staged root's row); a
// staged one is refused ("cannot delete staged rows from workspace"). A
// statement's edits apply at its end, at once: staging is durable at
// once, as dolt_add's (verso.Txn.StageWorkspace); an undo is a write of
// the transaction (verso.Txn.RevertWorkspace). Neither runs where t's
// columns differ between the roots ("dolt_workspace_t table is not
// modifiable due to schema change"). A name that is no table's, in any of
// the three roots, is an empty table of the first three columns, as
// Dolt's. dolt_workspace_dolt_schemas and dolt_workspace_dolt_procedures
// show the schema objects' rows (objects.go).

const WorkspacePrefix = "dolt_workspace_"

// workspaceBase is the first three columns.
func workspaceBase(name string) sql.Schema {
	return sql.Schema{
		{Name: "id", Type: types.Uint64, PrimaryKey: true, Source: name},
		col(name, "staged", types.Boolean, false),
		col(name, "diff_type", diffTextType, false),
	}
}

// workspaceSchema returns the columns of a workspace of the to and from
// columns given.
func workspaceSchema(name string, to, from sql.Schema) sql.Schema {
	sch := workspaceBase(name)
	for _, side := range []struct {
		p    string
		cols sql.Schema
	}{{"to_", to}, {"from_", from}} {
		for _, c := range side.cols {
			sch = append(sch, &sql.Column{Name: side.p + c.Name, Type: c.Type, Nullable: true, Source: name})
		}
	}
	return sch
}

// workspaceTable is dolt_workspace_<t> of a stored table t.
type workspaceTable struct {
	v        *View
	table    string // t as named in the query
	name     string
	sch      sql.Schema
	to, from sql.Schema // t's columns: the to_ and from_ sides
	empty    bool       // no root holds t
}

var (
	_ sql.UpdatableTable = (*workspaceTable)(nil)
	_ sql.DeletableTable = (*workspaceTable)(nil)
)

// openWorkspace returns dolt_workspace_<table>: its columns are fixed now.
func (v *View) openWorkspace(ctx *sql.Context, table string) (sql.Table, bool, error) {
	if l := strings.ToLower(table); isObjectTable(l) {
		return v.openObjectWorkspace(ctx, l)
	}
	if v.Session == nil || v.Tables == nil {
		return nil, false, errors.New("systables: dolt_workspace_ tables need the session's transaction")
	}
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, false, err
	}
	w, err := tx.WorkspaceColumns(ctx, table)
	if err != nil {
		return nil, false, err
	}
	if w == nil {
		name := WorkspacePrefix + table
		return &workspaceTable{v: v, table: table, name: name, sch: workspaceBase(name), empty: true}, true, nil
	}
	name := WorkspacePrefix + w.Table
	to, err := v.Tables.Schema(ctx, w.Table, w.ToSchema)
	if err != nil {
		return nil, false, err
	}
	from, err := v.Tables.Schema(ctx, w.Table, w.FromSchema)
	if err != nil {
		return nil, false, err
	}
	return &workspaceTable{v: v, table: w.Table, name: name, sch: workspaceSchema(name, to, from), to: to, from: from}, true, nil
}

// workspace reads the table's workspace, the statement's writes flushed.
func (v *View) workspace(ctx *sql.Context, table string) (*verso.Workspace, error) {
	if v.Session == nil || v.Tables == nil {
		return nil, errors.New("systables: dolt_workspace_ tables need the session's transaction")
	}
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	if err := v.Session.Flush(ctx); err != nil {
		return nil, err
	}
	return tx.Workspace(ctx, table)
}

func (t *workspaceTable) Name() string                   { return t.name }
func (t *workspaceTable) String() string                 { return t.name }
func (t *workspaceTable) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *workspaceTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *workspaceTable) IsTemporary() bool              { return false }
func (t *workspaceTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// current reads the workspace as it is now, checking that its columns are
// still the table's.
func (t *workspaceTable) current(ctx *sql.Context) (*verso.Workspace, error) {
	if t.empty {
		return nil, nil
	}
	w, err := t.v.workspace(ctx, t.table)
	if err != nil || w == nil {
		return nil, err
	}
	if len(w.ToSchema.Columns) != len(t.to) || len(w.FromSchema.Columns) != len(t.from) {
		return nil, fmt.Errorf("the columns of table %q changed while the statement ran; run it again", t.table)
	}
	return w, nil
}

func (t *workspaceTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	w, err := t.current(ctx)
	if err != nil || w == nil {
		return sql.RowsToRowIter(), err
	}
	rows := make([]sql.Row, len(w.Changes))
	for i, c := range w.Changes {
		row := sql.Row{uint64(i), c.Staged, workspaceDiffType(c.From != nil, c.To != nil)}
		for _, side := range []struct {
			vals []verso.Value
			cols sql.Schema
		}{{w.ToRow(c), t.to}, {w.FromRow(c), t.from}} {
			for j, col := range side.cols {
				if side.vals == nil {
					row = append(row, nil)
					continue
				}
				x, err := t.v.Tables.Value(col.Type, side.vals[j])
				if err != nil {
					return nil, fmt.Errorf("%s column %q: %w", t.name, col.Name, err)
				}
				row = append(row, x)
			}
		}
		rows[i] = row
	}
	return sql.RowsToRowIter(rows...), nil
}

func workspaceDiffType(from, to bool) string {
	switch {
	case !from:
		return DiffAdded
	case !to:
		return DiffRemoved
	}
	return DiffModified
}

// The refusals of edits of a workspace, as Dolt words them.
var (
	errWorkspaceOnlyStaged   = errors.New("only update of column 'staged' is allowed")
	errWorkspaceStagedDelete = errors.New("cannot delete staged rows from workspace")
)

func errWorkspaceSchema(name string) error {
	return fmt.Errorf("%s table is not modifiable due to schema change", name)
}

// Updater implements sql.UpdatableTable: UPDATE ... SET staged.
func (t *workspaceTable) Updater(*sql.Context) sql.RowUpdater {
	return &workspaceEditor{name: t.name, apply: t.apply}
}

// Deleter implements sql.DeletableTable: DELETE undoes changes not staged.
func (t *workspaceTable) Deleter(*sql.Context) sql.RowDeleter {
	return &workspaceEditor{name: t.name, apply: t.apply}
}

// apply stages, unstages (ids to flip) and undoes (ids to revert) the
// changes of the workspace as it is now.
func (t *workspaceTable) apply(ctx *sql.Context, flip, revert []uint64) error {
	w, err := t.current(ctx)
	if err != nil {
		return err
	}
	if w == nil {
		return nil
	}
	if !w.Modifiable {
		return errWorkspaceSchema(t.name)
	}
	pick := func(ids []uint64) ([]verso.WorkspaceChange, error) {
		var out []verso.WorkspaceChange
		for _, id := range ids {
			if id >= uint64(len(w.Changes)) {
				return nil, fmt.Errorf("%s: %w", t.name, verso.ErrWorkspaceMoved)
			}
			out = append(out, w.Changes[id])
		}
		return out, nil
	}
	tx, err := t.v.Session.Txn(ctx)
	if err != nil {
		return err
	}
	if cs, err := pick(revert); err != nil {
		return err
	} else if len(cs) > 0 {
		if err := tx.RevertWorkspace(ctx, t.table, cs); err != nil {
			return workspaceError(t.name, err)
		}
	}
	if cs, err := pick(flip); err != nil {
		return err
	} else if len(cs) > 0 {
		if err := tx.StageWorkspace(ctx, t.table, cs); err != nil {
			return workspaceError(t.name, err)
		}
	}
	return nil
}

func workspaceError(name string, err error) error {
	if errors.Is(err, verso.ErrWorkspaceSchema) {
		return errWorkspaceSchema(name)
	}
	return err
}

// workspaceEditor gathers the rows a statement stages, unstages or
// undoes, and has them applied at its end.
type workspaceEditor struct {
	name         string
	apply        func(ctx *sql.Context, flip, revert []uint64) error
	flip, revert []uint64
}

func (e *workspaceEditor) StatementBegin(*sql.Context) { e.flip, e.revert = nil, nil }

func (e *workspaceEditor) DiscardChanges(*sql.Context, error) error {
	e.flip, e.revert = nil, nil
	return nil
}

func (e *workspaceEditor) StatementComplete(ctx *sql.Context) error {
	flip, revert := e.flip, e.revert
	e.flip, e.revert = nil, nil
	if len(flip) == 0 && len(revert) == 0 {
		return nil
	}
	return e.apply(ctx, flip, revert)
}

func (e *workspaceEditor) Close(*sql.Context) error { return nil }

func (e *workspaceEditor) Update(ctx *sql.Context, old, row sql.Row) error {
	if len(old) != len(row) {
		return errWorkspaceOnlyStaged
	}
	for i := range row {
		if i != 1 && !reflect.DeepEqual(old[i], row[i]) {
			return errWorkspaceOnlyStaged
		}
	}
	was, now := isTrue(old[1]), isTrue(row[1])
	if was != now {
		e.flip = append(e.flip, old[0].(uint64))
	}
	return nil
}

func (e *workspaceEditor) Delete(ctx *sql.Context, row sql.Row) error {
	if isTrue(row[1]) {
		return errWorkspaceStagedDelete
	}
	e.revert = append(e.revert, row[0].(uint64))
	return nil
}

// isTrue reads a boolean column's value.
func isTrue(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int8:
		return x != 0
	case int64:
		return x != 0
	}
	return false
}
