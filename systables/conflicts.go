package systables

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Merge conflicts over SQL, with Dolt's names and columns:
//
//	dolt_conflicts           table text, num_conflicts bigint unsigned
//	dolt_conflicts_<table>   from_root_ish text, base_<col>..., our_<col>...,
//	                         our_diff_type text, their_<col>...,
//	                         their_diff_type text, dolt_conflict_id text
//	dolt_merge_status        is_merging tinyint, source text,
//	                         source_commit text, target text,
//	                         unmerged_tables text
//
// They read the conflicts of the transaction's working root (written by
// dolt_merge under conflicts/<table>, format in package tablemerge;
// package sqlserver's CALL dolt_conflicts_resolve resolves them too). A
// diff type is "added", "modified" or "removed" (from base to that side).
// dolt_conflict_id is the row's primary key (its stored key, base64): a
// DELETE of rows of dolt_conflicts_<table> marks them resolved, keeping
// the table's rows as they are (ours, or what the user wrote). The table
// t itself holds our side of each conflicting row. from_root_ish is the
// merged commit. dolt_merge_status names as source the revision the
// merge or cherry-pick was given where the working set records it (a
// cherry-pick's), else a branch whose head is the merged commit, or else
// the commit's hash.

var (
	conflictsSchema = sql.Schema{
		textCol(ConflictsName, "table", true, false),
		{Name: "num_conflicts", Type: types.Uint64, Source: ConflictsName, Nullable: false},
	}
	mergeStatusSchema = sql.Schema{
		{Name: "is_merging", Type: types.Boolean, Source: MergeStatusName, Nullable: false},
		textCol(MergeStatusName, "source", false, true),
		textCol(MergeStatusName, "source_commit", false, true),
		textCol(MergeStatusName, "target", false, true),
		textCol(MergeStatusName, "unmerged_tables", false, true),
	}
)

func (v *View) conflictRows(ctx *sql.Context) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	list, err := tx.Conflicts(ctx)
	if err != nil {
		return nil, err
	}
	// A table with a schema conflict is listed too, with its count of
	// rows in conflict (none), as Dolt lists it: while the working root
	// holds it (not one this branch dropped).
	schema, err := verso.SchemaConflictedTables(ctx, tx.Root())
	if err != nil {
		return nil, err
	}
	for _, t := range schema {
		if _, _, held, err := verso.FindTable(ctx, tx.Root(), t); err != nil {
			return nil, err
		} else if !held {
			continue
		}
		if !slices.ContainsFunc(list, func(c verso.TableConflicts) bool { return c.Table == t }) {
			list = append(list, verso.TableConflicts{Table: t})
		}
	}
	slices.SortFunc(list, func(a, b verso.TableConflicts) int { return strings.Compare(a.Table, b.Table) })
	rows := make([]sql.Row, len(list))
	for i, c := range list {
		rows[i] = sql.Row{c.Table, c.Count}
	}
	return rows, nil
}

func (v *View) mergeStatusRows(ctx *sql.Context) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	if tx.ReadOnly() {
		return []sql.Row{{false, nil, nil, nil, nil}}, nil
	}
	g := v.Graph
	ws, err := g.WorkingSet(ctx, v.Branch)
	if err != nil {
		return nil, err
	}
	if ws.Merge == nil {
		return []sql.Row{{false, nil, nil, nil, nil}}, nil
	}
	source := ws.Merge.Source // as given, where the working set records it
	if source == "" {
		source = ws.Merge.Commit.String()
		bs, err := g.Branches(ctx)
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			if b.Head == ws.Merge.Commit {
				source = b.Name
				break
			}
		}
	}
	ts, err := verso.UnmergedTables(ctx, tx.Root())
	if err != nil {
		return nil, err
	}
	unmerged := strings.Join(ts, ", ") // "" once all are resolved, as Dolt's
	return []sql.Row{{true, source, ws.Merge.Commit.String(), "refs/heads/" + v.Branch, unmerged}}, nil
}

// conflictsTable is dolt_conflicts_<table>.
type conflictsTable struct {
	v     *View
	table string // the table's exact name
	name  string // the system table's name
	sch   sql.Schema
}

var (
	_ sql.Table          = (*conflictsTable)(nil)
	_ sql.DeletableTable = (*conflictsTable)(nil)
	_ sql.UpdatableTable = (*conflictsTable)(nil)
)

// openConflictsTable opens dolt_conflicts_<table> for an existing table:
// in the schema the conflicts were recorded in, or, without conflicts,
// the table's own (and no rows).
func (v *View) openConflictsTable(ctx *sql.Context, table string) (sql.Table, bool, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, false, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, tx.Root(), table)
	if err != nil || !ok {
		return nil, false, err
	}
	if v.Tables == nil {
		return nil, false, fmt.Errorf("systables: no table reader for %q", table)
	}
	ns := v.Graph.NodeStore()
	var cs *tablemerge.ConflictSet
	if caddr, ok, err := tx.Root().Get(ctx, tablemerge.ConflictsPrefix+exact); err != nil {
		return nil, false, err
	} else if ok {
		if cs, err = tablemerge.LoadConflictSet(ctx, ns, caddr); err != nil {
			return nil, false, err
		}
	}
	schema := func() (*sql.Schema, error) {
		if cs != nil {
			s, err := v.Tables.Schema(ctx, exact, cs.Schema)
			return &s, err
		}
		t, err := v.Tables.ReadTable(ctx, exact, addr)
		if err != nil {
			return nil, err
		}
		return &t.Schema, nil
	}
	base, err := schema()
	if err != nil {
		return nil, false, err
	}
	name := ConflictsPrefix + exact
	sch := conflictSchema(name, *base)
	return &conflictsTable{v: v, table: exact, name: name, sch: sch}, true, nil
}

// conflictSchema returns the columns of dolt_conflicts_<table> (named
// name) for a table of the columns base. Dolt's types: varchar(1023) for
// the text columns, and our key columns declared NOT NULL (though a row we
// deleted has NULL there).
func conflictSchema(name string, base sql.Schema) sql.Schema {
	sch := sql.Schema{col(name, "from_root_ish", diffTextType, true)}
	add := func(prefix string) {
		for _, c := range base {
			notNull := prefix == "our_" && c.PrimaryKey
			sch = append(sch, &sql.Column{Name: prefix + c.Name, Type: c.Type, Source: name, Nullable: !notNull})
		}
	}
	add("base_")
	add("our_")
	sch = append(sch, col(name, "our_diff_type", diffTextType, true))
	add("their_")
	return append(sch, col(name, "their_diff_type", diffTextType, true), col(name, "dolt_conflict_id", diffTextType, true))
}

func (t *conflictsTable) Name() string                   { return t.name }
func (t *conflictsTable) String() string                 { return t.name }
func (t *conflictsTable) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *conflictsTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *conflictsTable) IsTemporary() bool              { return false }
func (t *conflictsTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// conflictSet returns the table's conflicts in the transaction's root, or
// nil.
func (t *conflictsTable) conflictSet(ctx *sql.Context) (*verso.Txn, *tablemerge.ConflictSet, error) {
	tx, err := t.v.Session.Txn(ctx)
	if err != nil {
		return nil, nil, err
	}
	addr, ok, err := tx.Root().Get(ctx, tablemerge.ConflictsPrefix+t.table)
	if err != nil || !ok {
		return tx, nil, err
	}
	cs, err := tablemerge.LoadConflictSet(ctx, t.v.Graph.NodeStore(), addr)
	return tx, cs, err
}

func diffType(inBase, inSide bool) any {
	switch {
	case !inSide && inBase:
		return DiffRemoved
	case inSide && !inBase:
		return DiffAdded
	case inSide:
		return DiffModified
	}
	return nil
}

func (t *conflictsTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	_, cs, err := t.conflictSet(ctx)
	if err != nil || cs == nil {
		return sql.RowsToRowIter(), err
	}
	rows, err := t.v.conflictSetRows(ctx, t.table, t.sch, cs)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// conflictSetRows returns the rows of the conflicts cs of table in the
// columns sch (conflictSchema's).
func (v *View) conflictSetRows(ctx *sql.Context, table string, sch sql.Schema, cs *tablemerge.ConflictSet) ([]sql.Row, error) {
	ncols := (len(sch) - 4) / 3
	if len(cs.Schema.Columns) != ncols {
		return nil, fmt.Errorf("the conflicts of table %q changed while the statement ran; run it again", table)
	}
	from := cs.Theirs.String()
	if cs.Theirs.IsEmpty() {
		from = ""
	}
	var rows []sql.Row
	var convErr error
	err := cs.Each(ctx, func(c tablemerge.Conflict) bool {
		row := sql.Row{from}
		side := func(vals []tables.Value) []any {
			out := make([]any, ncols)
			if vals == nil {
				return out
			}
			for i, x := range vals {
				y, err := v.Tables.Value(sch[1+i].Type, x)
				if err != nil && convErr == nil {
					convErr = fmt.Errorf("conflicts of table %q column %q: %w", table, cs.Schema.Columns[i].Name, err)
				}
				out[i] = y
			}
			return out
		}
		b, o, th := side(c.Base), side(c.Ours), side(c.Theirs)
		row = append(row, b...)
		row = append(row, o...)
		row = append(row, diffType(c.Base != nil, c.Ours != nil))
		row = append(row, th...)
		row = append(row, diffType(c.Base != nil, c.Theirs != nil))
		row = append(row, base64.RawURLEncoding.EncodeToString(c.Key))
		rows = append(rows, row)
		return convErr == nil
	})
	if err == nil {
		err = convErr
	}
	return rows, err
}

// Deleter implements sql.DeletableTable: deleting a conflict row marks the
// row resolved (the table keeps what it holds).
func (t *conflictsTable) Deleter(*sql.Context) sql.RowDeleter { return &conflictDeleter{t: t} }

type conflictDeleter struct {
	t    *conflictsTable
	keys [][]byte
}

func (c *conflictDeleter) StatementBegin(*sql.Context) { c.keys = nil }

func (c *conflictDeleter) DiscardChanges(*sql.Context, error) error {
	c.keys = nil
	return nil
}

func (c *conflictDeleter) StatementComplete(ctx *sql.Context) error { return c.apply(ctx) }

func (c *conflictDeleter) Close(ctx *sql.Context) error { return c.apply(ctx) }

func (c *conflictDeleter) Delete(ctx *sql.Context, row sql.Row) error {
	id, ok := row[len(row)-1].(string)
	if !ok {
		return fmt.Errorf("%s: a row without a dolt_conflict_id", c.t.name)
	}
	key, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return fmt.Errorf("%s: dolt_conflict_id %q is not one this table gave: %v", c.t.name, id, err)
	}
	c.keys = append(c.keys, key)
	return nil
}

// apply removes the deleted conflicts from the transaction's root.
func (c *conflictDeleter) apply(ctx *sql.Context) error {
	if len(c.keys) == 0 {
		return nil
	}
	d, cs, err := c.t.conflictSet(ctx)
	if err != nil {
		return err
	}
	if d.ReadOnly() {
		return fmt.Errorf("%s: database %s is a read-only revision", c.t.name, c.t.v.DB)
	}
	if cs == nil {
		c.keys = nil
		return nil
	}
	ncs, err := cs.Edit(ctx, nil, c.keys)
	if err != nil {
		return err
	}
	root, err := tablemerge.SetConflicts(ctx, d.Root(), c.t.table, ncs)
	if err != nil {
		return err
	}
	d.SetRoot(root)
	c.keys = nil
	return nil
}

// Updater implements sql.UpdatableTable, as Dolt allows: an UPDATE of
// the our_ columns of a conflict row writes them through to the table's
// row (the conflict stays, with our row as now written); the other
// columns are not written.
func (t *conflictsTable) Updater(*sql.Context) sql.RowUpdater { return &conflictUpdater{t: t} }

type conflictUpdater struct {
	t    *conflictsTable
	rows []sql.Row // the new rows
}

func (c *conflictUpdater) StatementBegin(*sql.Context) { c.rows = nil }

func (c *conflictUpdater) DiscardChanges(*sql.Context, error) error {
	c.rows = nil
	return nil
}

func (c *conflictUpdater) StatementComplete(ctx *sql.Context) error { return c.apply(ctx) }

func (c *conflictUpdater) Close(ctx *sql.Context) error { return c.apply(ctx) }

func (c *conflictUpdater) Update(_ *sql.Context, _, row sql.Row) error {
	c.rows = append(c.rows, row)
	return nil
}

// apply writes each updated row's our_ values to the table and to its
// conflict.
func (c *conflictUpdater) apply(ctx *sql.Context) error {
	if len(c.rows) == 0 {
		return nil
	}
	rows := c.rows
	c.rows = nil
	d, cs, err := c.t.conflictSet(ctx)
	if err != nil {
		return err
	}
	if d.ReadOnly() {
		return fmt.Errorf("%s: database %s is a read-only revision", c.t.name, c.t.v.DB)
	}
	if cs == nil {
		return nil
	}
	ncols := len(cs.Schema.Columns)
	var put []tablemerge.Conflict
	for _, row := range rows {
		id, ok := row[len(row)-1].(string)
		if !ok {
			return fmt.Errorf("%s: a row without a dolt_conflict_id", c.t.name)
		}
		key, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil {
			return fmt.Errorf("%s: dolt_conflict_id %q is not one this table gave: %v", c.t.name, id, err)
		}
		cf, ok, err := cs.Get(ctx, key)
		if err != nil {
			return err
		}
		if !ok || cf.Ours == nil {
			return fmt.Errorf("%s: the conflict %s has no row of ours to update; write the table itself", c.t.name, id)
		}
		ours := make([]tables.Value, ncols)
		for i := range ncols {
			col := c.t.sch[1+ncols+i]
			if ours[i], err = c.t.v.Tables.Stored(ctx, col.Type, row[1+ncols+i]); err != nil {
				return fmt.Errorf("%s: column %s: %w", c.t.name, col.Name, err)
			}
		}
		if err := c.t.v.Session.ReplaceRow(ctx, c.t.table, cf.Ours, ours); err != nil {
			return err
		}
		cf.Ours = ours
		put = append(put, cf)
	}
	d, cs, err = c.t.conflictSet(ctx) // the table's write moved the root
	if err != nil || cs == nil {
		return err
	}
	ncs, err := cs.Edit(ctx, put, nil)
	if err != nil {
		return err
	}
	root, err := tablemerge.SetConflicts(ctx, d.Root(), c.t.table, ncs)
	if err != nil {
		return err
	}
	d.SetRoot(root)
	return nil
}
