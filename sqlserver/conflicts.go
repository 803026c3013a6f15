package sqlserver

import (
	"encoding/base64"
	"fmt"
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
//	CALL dolt_conflicts_resolve('--ours' | '--theirs', <table>... | '.')
//
// They read the conflicts of the transaction's working root (written by
// dolt_merge under conflicts/<table>, format in package tablemerge). A
// diff type is "added", "modified" or "removed" (from base to that side).
// dolt_conflict_id is the row's primary key (its stored key, base64): a
// DELETE of rows of dolt_conflicts_<table> marks them resolved, keeping
// the table's rows as they are (ours, or what the user wrote). The table
// t itself holds our side of each conflicting row. from_root_ish is the
// merged commit. dolt_merge_status names as source a branch whose head is
// the merged commit, or else the commit's hash.

const (
	conflictsName     = "dolt_conflicts"
	conflictsTablePfx = "dolt_conflicts_"
	mergeStatusName   = "dolt_merge_status"
	diffAdded         = "added"
	diffModified      = "modified"
	diffRemoved       = "removed"
)

// conflictProcedures are the procedures of merge conflicts.
var conflictProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_conflicts_resolve", Schema: statusSchema, Function: doltConflictsResolve},
}

var (
	conflictsSchema = sql.Schema{
		textCol(conflictsName, "table", true, false),
		{Name: "num_conflicts", Type: types.Uint64, Source: conflictsName, Nullable: false},
	}
	mergeStatusSchema = sql.Schema{
		{Name: "is_merging", Type: types.Boolean, Source: mergeStatusName, Nullable: false},
		textCol(mergeStatusName, "source", false, true),
		textCol(mergeStatusName, "source_commit", false, true),
		textCol(mergeStatusName, "target", false, true),
		textCol(mergeStatusName, "unmerged_tables", false, true),
	}
)

func openConflictTables(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error) {
	lower := strings.ToLower(name)
	switch {
	case lower == conflictsName:
		return &rowsTable{name: conflictsName, db: db, sch: conflictsSchema, rows: db.conflictRows}, true, nil
	case lower == mergeStatusName:
		return &rowsTable{name: mergeStatusName, db: db, sch: mergeStatusSchema, rows: db.mergeStatusRows}, true, nil
	case strings.HasPrefix(lower, conflictsTablePfx):
		return db.openConflictsTable(ctx, name[len(conflictsTablePfx):])
	}
	return nil, false, nil
}

func (db *Database) conflictRows(ctx *sql.Context) ([]sql.Row, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	list, err := tablemerge.ListConflicts(ctx, db.st.graph.NodeStore(), d.Root())
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, len(list))
	for i, c := range list {
		rows[i] = sql.Row{c.Table, c.Count}
	}
	return rows, nil
}

func (db *Database) mergeStatusRows(ctx *sql.Context) ([]sql.Row, error) {
	if db.rev != nil {
		return []sql.Row{{false, nil, nil, nil, nil}}, nil
	}
	g := db.st.graph
	ws, err := g.WorkingSet(ctx, db.branch)
	if err != nil {
		return nil, err
	}
	if ws.Merge == nil {
		return []sql.Row{{false, nil, nil, nil, nil}}, nil
	}
	source := ws.Merge.Commit.String()
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
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := verso.ConflictedTables(ctx, d.Root())
	if err != nil {
		return nil, err
	}
	var unmerged any
	if len(ts) > 0 {
		unmerged = strings.Join(ts, ", ")
	}
	return []sql.Row{{true, source, ws.Merge.Commit.String(), "refs/heads/" + db.branch, unmerged}}, nil
}

// conflictsTable is dolt_conflicts_<table>.
type conflictsTable struct {
	db    *Database
	table string // the table's exact name
	name  string // the system table's name
	sch   sql.Schema
	ncols int
}

var (
	_ sql.Table          = (*conflictsTable)(nil)
	_ sql.DeletableTable = (*conflictsTable)(nil)
)

// openConflictsTable opens dolt_conflicts_<table> for an existing table:
// in the schema the conflicts were recorded in, or, without conflicts,
// the table's own (and no rows).
func (db *Database) openConflictsTable(ctx *sql.Context, table string) (sql.Table, bool, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, false, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, d.Root(), table)
	if err != nil || !ok {
		return nil, false, err
	}
	ns := db.st.graph.NodeStore()
	var cs *tablemerge.ConflictSet
	if caddr, ok, err := d.Root().Get(ctx, tablemerge.ConflictsPrefix+exact); err != nil {
		return nil, false, err
	} else if ok {
		if cs, err = tablemerge.LoadConflictSet(ctx, ns, caddr); err != nil {
			return nil, false, err
		}
	}
	schema := func() (*sql.Schema, error) {
		if cs != nil {
			ps, err := engineSchema(ctx, db.name, exact, cs.Schema)
			return &ps.Schema, err
		}
		t, err := db.openTable(ctx, d.Root(), exact, addr)
		if err != nil {
			return nil, err
		}
		s := t.Schema(ctx)
		return &s, nil
	}
	base, err := schema()
	if err != nil {
		return nil, false, err
	}
	name := conflictsTablePfx + exact
	sch := sql.Schema{textCol(name, "from_root_ish", false, true)}
	add := func(prefix string) {
		for _, c := range *base {
			sch = append(sch, &sql.Column{Name: prefix + c.Name, Type: c.Type, Source: name, Nullable: true})
		}
	}
	add("base_")
	add("our_")
	sch = append(sch, textCol(name, "our_diff_type", false, true))
	add("their_")
	sch = append(sch, textCol(name, "their_diff_type", false, true), textCol(name, "dolt_conflict_id", false, false))
	return &conflictsTable{db: db, table: exact, name: name, sch: sch, ncols: len(*base)}, true, nil
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
func (t *conflictsTable) conflictSet(ctx *sql.Context) (*txDB, *tablemerge.ConflictSet, error) {
	d, err := t.db.tx(ctx)
	if err != nil {
		return nil, nil, err
	}
	addr, ok, err := d.Root().Get(ctx, tablemerge.ConflictsPrefix+t.table)
	if err != nil || !ok {
		return d, nil, err
	}
	cs, err := tablemerge.LoadConflictSet(ctx, t.db.st.graph.NodeStore(), addr)
	return d, cs, err
}

func diffType(inBase, inSide bool) any {
	switch {
	case !inSide && inBase:
		return diffRemoved
	case inSide && !inBase:
		return diffAdded
	case inSide:
		return diffModified
	}
	return nil
}

func (t *conflictsTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	_, cs, err := t.conflictSet(ctx)
	if err != nil || cs == nil {
		return sql.RowsToRowIter(), err
	}
	if len(cs.Schema.Columns) != t.ncols {
		return nil, fmt.Errorf("the conflicts of table %q changed while the statement ran; run it again", t.table)
	}
	from := cs.Theirs.String()
	if cs.Theirs.IsEmpty() {
		from = ""
	}
	var rows []sql.Row
	var convErr error
	err = cs.Each(ctx, func(c tablemerge.Conflict) bool {
		row := sql.Row{from}
		side := func(vals []tables.Value) []any {
			out := make([]any, t.ncols)
			if vals == nil {
				return out
			}
			for i, v := range vals {
				x, err := fromValue(t.sch[1+i].Type, v)
				if err != nil && convErr == nil {
					convErr = fmt.Errorf("conflicts of table %q column %q: %w", t.table, cs.Schema.Columns[i].Name, err)
				}
				out[i] = x
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
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
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
		return fmt.Errorf("%s: database %s is a read-only revision", c.t.name, c.t.db.name)
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

var resolveSpec = optSpec{proc: "dolt_conflicts_resolve", opts: map[string]bool{"ours": false, "theirs": false}}

// doltConflictsResolve resolves every conflict of the named tables ('.'
// for all) with our rows (the table as it is) or theirs.
func doltConflictsResolve(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := resolveSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if a.has("ours") == a.has("theirs") {
		return nil, fmt.Errorf("dolt_conflicts_resolve: give one of '--ours' or '--theirs', then the tables ('.' for all)")
	}
	if len(a.pos) == 0 {
		return nil, fmt.Errorf("dolt_conflicts_resolve: name the tables to resolve, or '.' for all")
	}
	side := tablemerge.Ours
	if a.has("theirs") {
		side = tablemerge.Theirs
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if db.rev != nil {
		return nil, fmt.Errorf("dolt_conflicts_resolve: database %s is a read-only revision", db.name)
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	have, err := verso.ConflictedTables(ctx, d.Root())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range a.pos {
		if n == "." {
			names = append(names, have...)
			continue
		}
		found := ""
		for _, h := range have {
			if strings.EqualFold(h, n) {
				found = h
			}
		}
		if found == "" {
			if _, _, ok, err := verso.FindTable(ctx, d.Root(), n); err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("dolt_conflicts_resolve: no table %q; SHOW TABLES lists the tables", n)
			}
			return nil, fmt.Errorf("dolt_conflicts_resolve: table %q has no conflicts; SELECT * FROM dolt_conflicts lists the tables that do", n)
		}
		names = append(names, found)
	}
	before := d.Root() // all the tables or none
	for _, n := range names {
		if err := d.ResolveConflicts(ctx, n, side); err != nil {
			d.SetRoot(before)
			return nil, fmt.Errorf("dolt_conflicts_resolve: %w", err)
		}
		delete(d.writers, strings.ToLower(n))
	}
	return statusRow(0), nil
}
