package systables

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// DiffStatName is the table function of row and cell counts per table.
const DiffStatName = "dolt_diff_stat"

// DiffStatSchema is dolt_diff_stat's, as Dolt declares it.
var DiffStatSchema = sql.Schema{
	col(DiffStatName, "table_name", types.LongText, false),
	col(DiffStatName, "rows_unmodified", types.Int64, true),
	col(DiffStatName, "rows_added", types.Int64, true),
	col(DiffStatName, "rows_deleted", types.Int64, true),
	col(DiffStatName, "rows_modified", types.Int64, true),
	col(DiffStatName, "cells_added", types.Int64, true),
	col(DiffStatName, "cells_deleted", types.Int64, true),
	col(DiffStatName, "cells_modified", types.Int64, true),
	col(DiffStatName, "old_row_count", types.Int64, true),
	col(DiffStatName, "new_row_count", types.Int64, true),
	col(DiffStatName, "old_cell_count", types.Int64, true),
	col(DiffStatName, "new_cell_count", types.Int64, true),
}

// primaryKeyWarning is the code of Dolt's warning for a table whose
// primary key changed, which the diff functions cannot pair rows of.
const primaryKeyWarning = 1105

// DiffStat returns dolt_diff_stat's rows: for each table that differs
// between a's revisions (a's table only, if it has one, named as given),
// its rows added, deleted and modified and its cells, counted as Dolt
// counts them:
//
//   - old_row_count and new_row_count are the rows on each side, the cell
//     counts those times the side's columns; rows_unmodified is the old
//     rows less those modified and deleted.
//   - A modified row's cells_modified are its non-key columns (of the from
//     side) dropped, of another kind or of another value, plus the non-key
//     columns the to side has beyond the from side's count.
//   - cells_added and cells_deleted are the added and deleted rows times
//     the to side's columns, corrected by the change of the cell count
//     where columns were added or dropped.
//   - A keyless table has only rows_added and rows_deleted (copies of its
//     rows); the rest are NULL.
//
// A table whose only change is one that moves no rows and no cells (a
// rename, a new index) has no row. A table whose primary key changed has
// a row of zeros and a warning, or, named as a's table, an error. The
// cost follows the size of the change.
func DiffStat(ctx *sql.Context, v *View, a DiffArgs) ([]sql.Row, error) {
	rf, rt, err := v.revisionEnds(ctx, a)
	if err != nil {
		return nil, err
	}
	ds, err := v.tableDeltas(ctx, rf.root, rt.root)
	if err != nil {
		return nil, err
	}
	if a.HasTable {
		ft, err := v.readTable(ctx, rf.root, a.Table)
		if err != nil {
			return nil, err
		}
		tt, err := v.readTable(ctx, rt.root, a.Table)
		if err != nil {
			return nil, err
		}
		if ft == nil && tt == nil {
			return nil, sql.ErrTableNotFound.New(a.Table)
		}
		d := matchingDelta(ds, a.Table)
		if d == nil {
			return nil, nil
		}
		if d.primaryKeyChanged() {
			return nil, fmt.Errorf("failed to compute diff stat for table %s: primary key set changed", d.name())
		}
		row, ok, err := statRow(ctx, a.Table, d, columnCount(tt))
		if err != nil || !ok {
			return nil, err
		}
		return []sql.Row{row}, nil
	}
	var out []sql.Row
	for _, d := range ds {
		name := d.name()
		if d.primaryKeyChanged() {
			ctx.Warn(primaryKeyWarning, "stat for table %s cannot be determined. Primary key set changed.", name)
			out = append(out, sql.Row{name, int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)})
			continue
		}
		row, ok, err := statRow(ctx, name, d, columnCount(d.to))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

func columnCount(t *StoredTable) int {
	if t == nil {
		return 0
	}
	return len(t.Table.Schema().Columns)
}

// diffStat holds the counts of one table's change.
type diffStat struct {
	adds, removes, changes, cellChanges  uint64
	oldRows, newRows, oldCells, newCells uint64
}

// statRow returns the dolt_diff_stat row of delta d under name, newCols
// being the to side's columns, and whether the table has one.
func statRow(ctx *sql.Context, name string, d *tableDelta, newCols int) (sql.Row, bool, error) {
	st, keyless, err := statOf(ctx, d)
	if err != nil {
		return nil, false, err
	}
	if st.adds+st.removes+st.changes == 0 && st.oldCells == st.newCells {
		return nil, false, nil
	}
	if keyless {
		return sql.Row{name, nil, int64(st.adds), int64(st.removes), nil, nil, nil, nil, nil, nil, nil, nil}, true, nil
	}
	added, deleted := cellsAddedDeleted(st, newCols)
	return sql.Row{name, int64(st.oldRows) - int64(st.changes) - int64(st.removes), int64(st.adds), int64(st.removes),
		int64(st.changes), added, deleted, int64(st.cellChanges), int64(st.oldRows), int64(st.newRows),
		int64(st.oldCells), int64(st.newCells)}, true, nil
}

// cellsAddedDeleted returns the cells added and deleted: the rows added
// and deleted times the columns, with the change of the cell count (a
// column added or dropped) on top, as Dolt reckons them.
func cellsAddedDeleted(st diffStat, newCols int) (added, deleted int64) {
	ins, del := int64(st.adds)*int64(newCols), int64(st.removes)*int64(newCols)
	switch diff := int64(st.newCells) - int64(st.oldCells); {
	case diff > 0:
		return diff + del, del
	case diff < 0:
		return ins, -diff + ins
	case ins != del:
		return max(ins, del), max(ins, del)
	}
	return ins, del
}

// statOf counts the rows and cells of delta d, and reports whether the
// table is keyless.
func statOf(ctx *sql.Context, d *tableDelta) (diffStat, bool, error) {
	var st diffStat
	keyless := (d.from == nil || d.from.Table.Schema().Keyless()) && (d.to == nil || d.to.Table.Schema().Keyless())
	if !keyless {
		if d.from != nil {
			st.oldRows = d.from.Table.Count()
			st.oldCells = st.oldRows * uint64(len(d.from.Table.Schema().Columns))
		}
		if d.to != nil {
			st.newRows = d.to.Table.Count()
			st.newCells = st.newRows * uint64(len(d.to.Table.Schema().Columns))
		}
	}
	var cm *columnMatch
	if d.from != nil && d.to != nil {
		cm = matchColumns(d.from.Table.Schema(), d.to.Table.Schema())
	}
	err := diffRows(ctx, d.from, d.to, func(c rowChange) error {
		switch c.diffType() {
		case DiffAdded:
			st.adds += uint64(c.copies)
		case DiffRemoved:
			st.removes += uint64(c.copies)
		default:
			st.changes++
			st.cellChanges += cm.cellChanges(c.from, c.to)
		}
		return nil
	})
	return st, keyless, err
}

// cellChanges counts the cells of a modified row as Dolt does: the from
// side's non-key columns dropped, of another kind or of another value,
// and the non-key columns the to side has beyond the from side's count.
func (m *columnMatch) cellChanges(from, to []tables.Value) uint64 {
	fromVals, toVals := valueColumns(m.from), valueColumns(m.to)
	var n uint64
	for i := range m.from.Columns {
		if !fromVals[i] {
			continue
		}
		j := m.toOf[i]
		if j < 0 || !toVals[j] || from[i].Kind() != to[j].Kind() || prolly.CompareValues(from[i], to[j]) != 0 {
			n++
		}
	}
	if extra := count(toVals) - count(fromVals); extra > 0 {
		n += uint64(extra)
	}
	return n
}

// valueColumns marks the columns of s that are not in its primary key.
func valueColumns(s *tables.Schema) []bool {
	out := make([]bool, len(s.Columns))
	for i := range out {
		out[i] = true
	}
	for _, p := range s.PrimaryKey {
		out[p] = false
	}
	return out
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
