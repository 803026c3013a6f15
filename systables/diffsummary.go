package systables

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// DiffSummaryName is the table function of the tables that changed.
const DiffSummaryName = "dolt_diff_summary"

// DiffSummarySchema is dolt_diff_summary's, as Dolt declares it.
var DiffSummarySchema = sql.Schema{
	col(DiffSummaryName, "from_table_name", types.LongText, false),
	col(DiffSummaryName, "to_table_name", types.LongText, false),
	col(DiffSummaryName, "diff_type", types.Text, false),
	col(DiffSummaryName, "data_change", types.Boolean, false),
	col(DiffSummaryName, "schema_change", types.Boolean, false),
}

// Diff types of dolt_diff_summary.
const (
	tableAdded    = "added"
	tableDropped  = "dropped"
	tableRenamed  = "renamed"
	tableModified = "modified"
)

// DiffSummary returns dolt_diff_summary's rows: a row per table that
// differs between a's revisions (a's table only, if it has one, found by
// its name at to, else at from; none if it did not change), ordered by
// the name at to. from_table_name is "" for an added table and
// to_table_name "" for a dropped one. An added or dropped table's
// data_change says whether it holds rows; a renamed table's schema
// changed. A table whose primary key changed is left out with a warning,
// or, named as a's table, is an error. The cost follows the size of the
// change.
func DiffSummary(ctx *sql.Context, v *View, a DiffArgs) ([]sql.Row, error) {
	rf, rt, err := v.revisionEnds(ctx, a)
	if err != nil {
		return nil, err
	}
	ds, err := v.tableDeltas(ctx, rf.root, rt.root)
	if err != nil {
		return nil, err
	}
	sortByToName(ds)
	if a.HasTable {
		d := matchingDelta(ds, a.Table)
		if d == nil {
			return nil, nil
		}
		if d.primaryKeyChanged() {
			return nil, fmt.Errorf("failed to compute diff summary for table %s: primary key set changed", d.name())
		}
		row, err := summaryRow(ctx, d)
		if err != nil {
			return nil, err
		}
		return []sql.Row{row}, nil
	}
	var out []sql.Row
	for _, d := range ds {
		if d.primaryKeyChanged() {
			ctx.Warn(primaryKeyWarning, "cannot render full diff between commits %s and %s due to primary key set change", rf.hash(), rt.hash())
			continue
		}
		row, err := summaryRow(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

func summaryRow(ctx *sql.Context, d *tableDelta) (sql.Row, error) {
	typ := tableModified
	switch {
	case d.isAdd():
		typ = tableAdded
	case d.isDrop():
		typ = tableDropped
	case d.isRename():
		typ = tableRenamed
	}
	data, err := d.dataChanged(ctx)
	if err != nil {
		return nil, err
	}
	return sql.Row{d.fromName, d.toName, typ, boolVal(data), boolVal(d.schema)}, nil
}
