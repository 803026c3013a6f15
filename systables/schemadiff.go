package systables

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// SchemaDiffName is the table function of the tables whose definition
// changed.
const SchemaDiffName = "dolt_schema_diff"

// SchemaDiffSchema is dolt_schema_diff's, as Dolt declares it.
var SchemaDiffSchema = sql.Schema{
	col(SchemaDiffName, "from_table_name", types.LongText, false),
	col(SchemaDiffName, "to_table_name", types.LongText, false),
	col(SchemaDiffName, "from_create_statement", types.Text, false),
	col(SchemaDiffName, "to_create_statement", types.Text, false),
}

// SchemaDiff returns dolt_schema_diff's rows: for each table that differs
// between a's revisions (a's table only, if it has one: named so, in
// exact case, at either side), ordered by the name at to, its CREATE
// TABLE statement on each side ("" where the table is absent), when the
// two differ. A table whose rows alone changed has none. The cost follows
// the size of the change.
func SchemaDiff(ctx *sql.Context, v *View, a DiffArgs) ([]sql.Row, error) {
	rf, rt, err := v.revisionEnds(ctx, a)
	if err != nil {
		return nil, err
	}
	ds, err := v.tableDeltas(ctx, rf.root, rt.root)
	if err != nil {
		return nil, err
	}
	sortByToName(ds)
	var out []sql.Row
	for _, d := range ds {
		if a.HasTable && a.Table != d.toName && a.Table != d.fromName {
			continue
		}
		fromCreate, toCreate := "", ""
		if d.from != nil {
			if fromCreate, err = v.createStatement(ctx, rf.root, d.fromName); err != nil {
				return nil, err
			}
		}
		if d.to != nil {
			if toCreate, err = v.createStatement(ctx, rt.root, d.toName); err != nil {
				return nil, err
			}
		}
		if fromCreate != toCreate {
			out = append(out, sql.Row{d.fromName, d.toName, fromCreate, toCreate})
		}
	}
	return out, nil
}

// createStatement returns the CREATE TABLE statement of table name in
// root, with Dolt's final semicolon.
func (v *View) createStatement(ctx *sql.Context, root commitgraph.RootValue, name string) (string, error) {
	def, err := v.definition(ctx, root, name)
	if err != nil {
		return "", err
	}
	return def.Create + ";", nil
}

// definition returns the SQL definition of table name in root, which
// holds it.
func (v *View) definition(ctx *sql.Context, root commitgraph.RootValue, name string) (*TableDefinition, error) {
	if v.Tables == nil {
		return nil, fmt.Errorf("systables: no table reader for %q", name)
	}
	def, err := v.Tables.Definition(ctx, root, name)
	if err == nil && def == nil {
		err = fmt.Errorf("%w: no table %q", tables.ErrCorrupt, name)
	}
	return def, err
}
