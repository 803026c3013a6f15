package systables

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Constraint violations and schema conflicts over SQL, with Dolt's names
// and columns:
//
//	dolt_constraint_violations       table text, num_violations bigint unsigned
//	dolt_constraint_violations_<t>   from_root_ish varchar(1023),
//	                                 violation_type enum('foreign key',
//	                                 'unique index','check constraint',
//	                                 'not null'), t's columns,
//	                                 violation_info json; the key is
//	                                 (violation_type, t's key, violation_info)
//	dolt_schema_conflicts            table_name, base_schema, our_schema,
//	                                 their_schema, description (text)
//
// They read the transaction's working root (violations/<t> and
// schemaconflicts/<t>, formats in package tablemerge). A DELETE of rows
// of dolt_constraint_violations_<t> marks those violations resolved,
// leaving the table's rows as they are.

// Names of the tables, as Dolt spells them.
const (
	ViolationsName      = "dolt_constraint_violations"
	ViolationsPrefix    = "dolt_constraint_violations_"
	SchemaConflictsName = "dolt_schema_conflicts"
)

var (
	violationsSchema = sql.Schema{
		textCol(ViolationsName, "table", true, false),
		{Name: "num_violations", Type: types.Uint64, Source: ViolationsName, Nullable: false},
	}
	schemaConflictsSchema = sql.Schema{
		textCol(SchemaConflictsName, "table_name", true, false),
		textCol(SchemaConflictsName, "base_schema", false, false),
		textCol(SchemaConflictsName, "our_schema", false, false),
		textCol(SchemaConflictsName, "their_schema", false, false),
		textCol(SchemaConflictsName, "description", false, false),
	}
	violationTypeType = types.MustCreateEnumType(tablemerge.ViolationTypeNames, sql.Collation_Default)
)

func (v *View) violationRows(ctx *sql.Context) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	list, err := tablemerge.ListViolations(ctx, v.Graph.NodeStore(), tx.Root())
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, len(list))
	for i, c := range list {
		rows[i] = sql.Row{c.Table, c.Count}
	}
	return rows, nil
}

func (v *View) schemaConflictRows(ctx *sql.Context) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	list, err := tablemerge.ListSchemaConflicts(ctx, v.Graph.NodeStore().Store(), tx.Root())
	if err != nil {
		return nil, err
	}
	if len(list) > 0 && v.Tables == nil {
		return nil, fmt.Errorf("systables: no table reader for %s", SchemaConflictsName)
	}
	var rows []sql.Row
	for _, c := range list {
		row := sql.Row{c.Table}
		for _, addr := range []struct {
			a  [20]byte
			ok bool
		}{{c.Base, !c.Base.IsEmpty()}, {c.Ours, !c.Ours.IsEmpty()}, {c.Theirs, !c.Theirs.IsEmpty()}} {
			text := ""
			if !addr.ok && len(row) > 1 && !c.Base.IsEmpty() {
				text = "<deleted>" // a side that dropped the table, as Dolt shows it
			}
			if addr.ok {
				root, err := commitgraph.EmptyRoot(v.Graph.NodeStore()).Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + c.Table, Addr: addr.a})
				if err != nil {
					return nil, err
				}
				def, err := v.Tables.Definition(ctx, root, c.Table)
				if err != nil {
					return nil, err
				}
				if def != nil {
					text = def.Create + ";"
				}
			}
			row = append(row, text)
		}
		rows = append(rows, append(row, c.Description))
	}
	return rows, nil
}

// violationsTable is dolt_constraint_violations_<table>.
type violationsTable struct {
	v     *View
	table string // the table's exact name
	name  string
	sch   sql.Schema
	ncols int // the table's columns
}

var (
	_ sql.Table          = (*violationsTable)(nil)
	_ sql.DeletableTable = (*violationsTable)(nil)
)

// openViolationsTable opens dolt_constraint_violations_<table> for an
// existing table: in the schema its violations were recorded in, or the
// table's own.
func (v *View) openViolationsTable(ctx *sql.Context, table string) (sql.Table, bool, error) {
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
	vs, err := tablemerge.GetViolations(ctx, v.Graph.NodeStore(), tx.Root(), exact)
	if err != nil {
		return nil, false, err
	}
	var base sql.Schema
	if vs != nil {
		base, err = v.Tables.Schema(ctx, exact, vs.Schema)
	} else {
		var t *StoredTable
		if t, err = v.Tables.ReadTable(ctx, exact, addr); err == nil {
			base = t.Schema
		}
	}
	if err != nil {
		return nil, false, err
	}
	name := ViolationsPrefix + exact
	sch := sql.Schema{
		col(name, "from_root_ish", diffTextType, true),
		{Name: "violation_type", Type: violationTypeType, Source: name, Nullable: false, PrimaryKey: true},
	}
	for _, c := range base {
		sch = append(sch, &sql.Column{Name: c.Name, Type: c.Type, Source: name, Nullable: c.Nullable, PrimaryKey: c.PrimaryKey})
	}
	sch = append(sch, &sql.Column{Name: "violation_info", Type: types.JSON, Source: name, Nullable: false, PrimaryKey: true})
	return &violationsTable{v: v, table: exact, name: name, sch: sch, ncols: len(base)}, true, nil
}

func (t *violationsTable) Name() string                   { return t.name }
func (t *violationsTable) String() string                 { return t.name }
func (t *violationsTable) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *violationsTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *violationsTable) IsTemporary() bool              { return false }
func (t *violationsTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// violationSet returns the table's violations in the transaction's root,
// or nil.
func (t *violationsTable) violationSet(ctx *sql.Context) (*verso.Txn, *tablemerge.ViolationSet, error) {
	tx, err := t.v.Session.Txn(ctx)
	if err != nil {
		return nil, nil, err
	}
	vs, err := tablemerge.GetViolations(ctx, t.v.Graph.NodeStore(), tx.Root(), t.table)
	return tx, vs, err
}

// each calls fn with every violation of vs and its row.
func (t *violationsTable) each(ctx *sql.Context, vs *tablemerge.ViolationSet, fn func(tablemerge.Violation, sql.Row)) error {
	if len(vs.Schema.Columns) != t.ncols {
		return fmt.Errorf("the violations of table %q changed while the statement ran; run it again", t.table)
	}
	var convErr error
	err := vs.Each(ctx, func(x tablemerge.Violation) bool {
		var from any
		if !x.From.IsEmpty() {
			from = x.From.String()
		}
		row := sql.Row{from, x.Type.String()}
		for i, val := range x.Row {
			y, err := t.v.Tables.Value(t.sch[2+i].Type, val)
			if err != nil {
				convErr = fmt.Errorf("violations of table %q column %q: %w", t.table, vs.Schema.Columns[i].Name, err)
				return false
			}
			row = append(row, y)
		}
		var info any
		if err := json.Unmarshal([]byte(x.Info), &info); err != nil {
			convErr = fmt.Errorf("%w: violation info %q of table %q: %v", tables.ErrCorrupt, x.Info, t.table, err)
			return false
		}
		fn(x, append(row, types.JSONDocument{Val: info}))
		return true
	})
	if err == nil {
		err = convErr
	}
	return err
}

func (t *violationsTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	_, vs, err := t.violationSet(ctx)
	if err != nil || vs == nil {
		return sql.RowsToRowIter(), err
	}
	var rows []sql.Row
	if err := t.each(ctx, vs, func(_ tablemerge.Violation, r sql.Row) { rows = append(rows, r) }); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// Deleter implements sql.DeletableTable: deleting a violation row marks
// the violation resolved (the table keeps its rows).
func (t *violationsTable) Deleter(*sql.Context) sql.RowDeleter { return &violationDeleter{t: t} }

type violationDeleter struct {
	t    *violationsTable
	rows []string // the deleted rows, as rowText gives them
}

// rowText is a row's identity for a delete: its values as text.
func rowText(r sql.Row) string { return fmt.Sprintf("%#v", []any(r)) }

func (c *violationDeleter) StatementBegin(*sql.Context) { c.rows = nil }

func (c *violationDeleter) DiscardChanges(*sql.Context, error) error {
	c.rows = nil
	return nil
}

func (c *violationDeleter) StatementComplete(ctx *sql.Context) error { return c.apply(ctx) }

func (c *violationDeleter) Close(ctx *sql.Context) error { return c.apply(ctx) }

func (c *violationDeleter) Delete(_ *sql.Context, row sql.Row) error {
	c.rows = append(c.rows, rowText(row))
	return nil
}

// apply removes the deleted violations from the transaction's root.
func (c *violationDeleter) apply(ctx *sql.Context) error {
	if len(c.rows) == 0 {
		return nil
	}
	d, vs, err := c.t.violationSet(ctx)
	if err != nil {
		return err
	}
	if d.ReadOnly() {
		return fmt.Errorf("%s: database %s is a read-only revision", c.t.name, c.t.v.DB)
	}
	if vs == nil {
		c.rows = nil
		return nil
	}
	deleted := map[string]bool{}
	for _, r := range c.rows {
		deleted[r] = true
	}
	var keys [][]byte
	if err := c.t.each(ctx, vs, func(x tablemerge.Violation, r sql.Row) {
		if deleted[rowText(r)] {
			keys = append(keys, x.MapKey())
		}
	}); err != nil {
		return err
	}
	nvs, err := vs.Edit(ctx, nil, keys)
	if err != nil {
		return err
	}
	root, err := tablemerge.SetViolations(ctx, d.Root(), c.t.table, nvs)
	if err != nil {
		return err
	}
	d.SetRoot(root)
	c.rows = nil
	return nil
}

// isViolationsName reports whether l (lower case) names a violations
// table of a table.
func isViolationsName(l string) bool {
	return strings.HasPrefix(l, ViolationsPrefix) && len(l) > len(ViolationsPrefix)
}
