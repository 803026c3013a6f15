package systables

import (
	"fmt"
	"sort"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// The rows of Dolt's merge preview table functions, from a
// verso.MergePreview (what a merge of two revisions would meet, computed
// without changing anything):
//
//	dolt_preview_merge_conflicts_summary('ours', 'theirs')
//	    table text, num_data_conflicts bigint unsigned,
//	    num_schema_conflicts bigint unsigned
//	dolt_preview_merge_conflicts('ours', 'theirs', 'table')
//	    the columns of dolt_conflicts_<table>
//
// The summary has a row per table the merge would leave with rows in
// conflict (num_schema_conflicts 0) or could not merge for its schema
// (num_data_conflicts NULL: the rows are not compared then; verso counts
// one schema conflict per table, and a second where the table's options
// conflict too). The conflicts are the rows dolt_conflicts_<table> would
// show after the merge, from_root_ish naming theirs.

// PreviewSummaryName and PreviewConflictsName are the table functions'
// names.
const (
	PreviewSummaryName   = "dolt_preview_merge_conflicts_summary"
	PreviewConflictsName = "dolt_preview_merge_conflicts"
)

// PreviewSummarySchema is the columns of
// dolt_preview_merge_conflicts_summary.
var PreviewSummarySchema = sql.Schema{
	{Name: "table", Type: types.Text, Source: PreviewSummaryName, Nullable: false},
	{Name: "num_data_conflicts", Type: types.Uint64, Source: PreviewSummaryName, Nullable: true},
	{Name: "num_schema_conflicts", Type: types.Uint64, Source: PreviewSummaryName, Nullable: true},
}

// PreviewSummaryRows returns the rows of
// dolt_preview_merge_conflicts_summary for p, by table name.
func PreviewSummaryRows(p *verso.MergePreview) []sql.Row {
	schema := map[string]uint64{}
	for _, c := range p.SchemaConflicts {
		schema[c.Table]++
	}
	var rows []sql.Row
	for t, n := range schema {
		rows = append(rows, sql.Row{t, nil, n})
	}
	for _, c := range p.Conflicts {
		if _, ok := schema[c.Table]; !ok {
			rows = append(rows, sql.Row{c.Table, c.Count, uint64(0)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(string) < rows[j][0].(string) })
	return rows
}

// PreviewConflicts is dolt_preview_merge_conflicts of one table.
type PreviewConflicts struct {
	v     *View
	table string // its exact name in ours
	sch   sql.Schema
}

// NewPreviewConflicts returns dolt_preview_merge_conflicts of the table
// named table (any case) in the merge p, read through v's table reader. The
// table must exist on both sides (sql.ErrTableNotFound otherwise). Its
// columns are those dolt_conflicts_<table> would have after the merge.
func NewPreviewConflicts(ctx *sql.Context, v *View, p *verso.MergePreview, table string) (*PreviewConflicts, error) {
	ours, err := v.Graph.OpenRoot(ctx, p.Ours.Root)
	if err != nil {
		return nil, err
	}
	theirs, err := v.Graph.OpenRoot(ctx, p.Theirs.Root)
	if err != nil {
		return nil, err
	}
	exact, addr, ok, err := findTable(ctx, ours, table)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(table)
	}
	if _, _, ok, err := findTable(ctx, theirs, table); err != nil || !ok {
		if err == nil {
			err = sql.ErrTableNotFound.New(table)
		}
		return nil, err
	}
	if v.Tables == nil {
		return nil, fmt.Errorf("systables: no table reader for %q", table)
	}
	cs, err := p.ConflictSet(ctx, exact)
	if err != nil {
		return nil, err
	}
	var base sql.Schema
	if cs != nil {
		base, err = v.Tables.Schema(ctx, exact, cs.Schema)
	} else {
		var t *StoredTable
		if t, err = v.Tables.ReadTable(ctx, exact, addr); err == nil {
			base = t.Schema
		}
	}
	if err != nil {
		return nil, err
	}
	return &PreviewConflicts{v: v, table: exact, sch: conflictSchema(PreviewConflictsName, base)}, nil
}

// Schema returns the columns.
func (pc *PreviewConflicts) Schema() sql.Schema { return pc.sch }

// Rows returns the rows of the table's conflicts in the merge p, which
// must be a preview of the same table's merge (the one given to
// NewPreviewConflicts, or one of the same commits). A table whose schemas
// conflict has none to show: that is an error, as Dolt's.
func (pc *PreviewConflicts) Rows(ctx *sql.Context, p *verso.MergePreview) ([]sql.Row, error) {
	n := 0
	for _, c := range p.SchemaConflicts {
		if c.Table == pc.table {
			n++
		}
	}
	if n > 0 {
		return nil, fmt.Errorf("schema conflicts found: %d", n)
	}
	cs, err := p.ConflictSet(ctx, pc.table)
	if err != nil || cs == nil {
		return nil, err
	}
	return pc.v.conflictSetRows(ctx, pc.table, pc.sch, cs)
}
