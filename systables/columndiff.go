package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/commitgraph"
)

// columnDiffSchema is Dolt's: every column declared NOT NULL, though the
// STAGED and WORKING rows hold NULL for the commit's metadata; its dates
// are to the second.
var columnDiffSchema = sql.Schema{
	textCol(ColumnDiffName, "commit_hash", true, false),
	textCol(ColumnDiffName, "table_name", true, false),
	textCol(ColumnDiffName, "column_name", true, false),
	textCol(ColumnDiffName, "committer", false, false),
	textCol(ColumnDiffName, "email", false, false),
	col(ColumnDiffName, "date", types.Datetime, false),
	textCol(ColumnDiffName, "message", false, false),
	textCol(ColumnDiffName, "diff_type", false, false),
	textCol(ColumnDiffName, "author", false, false),
	textCol(ColumnDiffName, "author_email", false, false),
	col(ColumnDiffName, "author_date", types.Datetime, false),
}

// columnDiff is dolt_column_diff: for each change dolt_diff lists (each
// commit of HEAD's history against its first parent, STAGED and WORKING),
// a row per column the change touched in each table: every column of a
// table made (added) or dropped (removed), the columns added to or
// dropped from a table's schema, and the columns whose value differs in
// one of the rows that differ (modified). Its cost per change follows
// the size of the change: the rows that differ are diffed.
type columnDiff struct{ v *View }

func openColumnDiff(v *View) *Table {
	// The lookups by commit_hash go through the primary key's first
	// column.
	return &Table{name: ColumnDiffName, v: v, sch: columnDiffSchema, impl: columnDiff{v},
		indexes: []indexSpec{onHash(primaryKeyIndexID, commitHashColumn, false)}}
}

// columnChange is a column a change touched, and how.
type columnChange struct {
	column, diffType string
}

// rowsOf returns the rows of commit c.
func (cd columnDiff) rowsOf(ctx *sql.Context, c *commitgraph.Commit) ([]sql.Row, error) {
	from, to, err := cd.v.commitRoots(ctx, c)
	if err != nil {
		return nil, err
	}
	return cd.changeRows(ctx, c.Addr.String(), c, from, to)
}

// pendingRows returns the rows of the uncommitted changes named name
// (STAGED or WORKING).
func (cd columnDiff) pendingRows(ctx *sql.Context, name string, head *commitgraph.Commit) ([]sql.Row, error) {
	p, err := cd.v.pending(ctx, head)
	if err != nil {
		return nil, err
	}
	if name == Staged {
		return cd.changeRows(ctx, Staged, nil, p.head, p.staged)
	}
	return cd.changeRows(ctx, Working, nil, p.staged, p.working)
}

// changeRows returns the rows of the change from root from to root to,
// under hash, with c's metadata (nil: none).
func (cd columnDiff) changeRows(ctx *sql.Context, hash string, c *commitgraph.Commit, from, to commitgraph.RootValue) ([]sql.Row, error) {
	chs, err := RootChanges(ctx, cd.v.Graph, from, to)
	if err != nil {
		return nil, err
	}
	if hash == Working {
		if chs, err = cd.v.withoutIgnored(ctx, chs, from, to); err != nil {
			return nil, err
		}
	}
	meta, author := commitMeta(c)
	var out []sql.Row
	for _, ch := range chs {
		cols, err := cd.columns(ctx, ch.Table, from, to)
		if err != nil {
			return nil, err
		}
		for _, cc := range cols {
			row := append(append(sql.Row{hash, ch.Table, cc.column}, meta...), cc.diffType)
			out = append(out, append(row, author...))
		}
	}
	return out, nil
}

// columns returns the columns of table that the change from root from to
// root to touched: added ones (in the newer column order), removed ones
// (in the older), then modified ones (in the newer).
func (cd columnDiff) columns(ctx *sql.Context, table string, from, to commitgraph.RootValue) ([]columnChange, error) {
	if table == EventsTable {
		return cd.eventColumns(ctx, from, to)
	}
	ft, err := cd.v.readTable(ctx, from, table)
	if err != nil {
		return nil, err
	}
	tt, err := cd.v.readTable(ctx, to, table)
	if err != nil {
		return nil, err
	}
	var out []columnChange
	switch {
	case ft == nil && tt == nil:
		return nil, nil
	case ft == nil:
		return allColumns(tt.Schema, DiffAdded), nil
	case tt == nil:
		return allColumns(ft.Schema, DiffRemoved), nil
	}
	for _, c := range tt.Schema {
		if ft.Schema.IndexOfColName(c.Name) < 0 {
			out = append(out, columnChange{c.Name, DiffAdded})
		}
	}
	for _, c := range ft.Schema {
		if tt.Schema.IndexOfColName(c.Name) < 0 {
			out = append(out, columnChange{c.Name, DiffRemoved})
		}
	}
	d := NewRowDiff(table, tt.Schema)
	rows, err := d.Rows(ctx, Side{Table: ft}, Side{Table: tt})
	if err != nil {
		return nil, err
	}
	common := make([]bool, len(tt.Schema))
	for i, c := range tt.Schema {
		common[i] = ft.Schema.IndexOfColName(c.Name) >= 0
	}
	modified, err := changedColumns(ctx, tt.Schema, common, rows)
	if err != nil {
		return nil, err
	}
	for _, i := range modified {
		out = append(out, columnChange{tt.Schema[i].Name, DiffModified})
	}
	return out, nil
}

// eventColumns returns the columns of dolt_events that the change of the
// event log from root from to root to touched.
func (cd columnDiff) eventColumns(ctx *sql.Context, from, to commitgraph.RootValue) ([]columnChange, error) {
	fl, err := cd.v.eventLog(ctx, from)
	if err != nil {
		return nil, err
	}
	tl, err := cd.v.eventLog(ctx, to)
	if err != nil {
		return nil, err
	}
	rows, err := NewEventDiff(EventsTable).Rows(ctx, EventSide{Log: fl}, EventSide{Log: tl})
	if err != nil {
		return nil, err
	}
	common := make([]bool, len(eventsSchema))
	for i := range common {
		common[i] = true
	}
	modified, err := changedColumns(ctx, eventsSchema, common, rows)
	if err != nil {
		return nil, err
	}
	out := make([]columnChange, len(modified))
	for j, i := range modified {
		out[j] = columnChange{eventsSchema[i].Name, DiffModified}
	}
	return out, nil
}

func allColumns(sch sql.Schema, diffType string) []columnChange {
	out := make([]columnChange, len(sch))
	for i, c := range sch {
		out[i] = columnChange{c.Name, diffType}
	}
	return out
}

// changedColumns returns the positions of the columns of sch (those
// marked common) whose to_ and from_ values differ in one of the diff
// rows (RowDiff's layout over sch).
func changedColumns(ctx *sql.Context, sch sql.Schema, common []bool, rows []sql.Row) ([]int, error) {
	n := len(sch)
	changed := make([]bool, n)
	left := 0
	for _, c := range common {
		if c {
			left++
		}
	}
	for _, r := range rows {
		if left == 0 {
			break
		}
		for i := range n {
			if !common[i] || changed[i] {
				continue
			}
			cmp, err := sch[i].Type.Compare(ctx, r[i], r[n+2+i])
			if err != nil {
				return nil, err
			}
			if cmp != 0 {
				changed[i] = true
				left--
			}
		}
	}
	var out []int
	for i, c := range changed {
		if c {
			out = append(out, i)
		}
	}
	return out, nil
}

func (cd columnDiff) scan(ctx *sql.Context) (sql.RowIter, error) { return scanPerCommit(ctx, cd.v, cd) }

// lookup finds the rows of the commits keys name (lookupPerCommit).
func (cd columnDiff) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	return lookupPerCommit(ctx, cd.v, cd, keys)
}

// rowCount estimates a row per commit of HEAD's history.
func (cd columnDiff) rowCount(ctx *sql.Context) (uint64, bool, error) {
	return headCount(ctx, cd.v)
}
