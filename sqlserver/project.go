package sqlserver

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/systables"
	"github.com/verso-db/verso/tables"
)

// Column pruning (sql.ProjectedTable). The analyzer's pruneTableCols rule
// calls WithProjections with the columns a query reads; the table then
// reports only those columns in Schema, and its rows hold only them, in
// that order (as GMS's memory table does). The storage reads only those
// fields of each stored row (tables.RowIter.Project), and loads large
// values only for them: `SELECT c FROM sbtest1 WHERE id BETWEEN ...`
// neither decodes pad nor converts k.
//
// Writes never see a projection: editors convert whole rows with the
// table's full schema (Table.toRow, Table.toStored), and the analyzer
// does not prune the tables of UPDATE and DELETE. An index lookup's range
// filter reads columns the query may not project; those are read too,
// after the projected ones, and cut off the row the engine gets.

var _ sql.ProjectedTable = (*Table)(nil)

// projection is the columns a projected Table reads.
type projection struct {
	names []string   // as the engine named them
	cols  []int      // their positions in the full schema
	sch   sql.Schema // their columns
	// stored is the storage projection of cols on the table value the
	// Table was resolved on (info.t), built once for every read of it.
	stored *tables.Projection
}

// WithProjections implements sql.ProjectedTable. An empty list (a query
// that counts rows but reads no column) leaves the table unprojected, so
// rows keep their full shape and Projections stays nil.
func (t *Table) WithProjections(_ *sql.Context, names []string) (sql.Table, error) {
	nt := *t
	if len(names) == 0 {
		nt.proj = nil
		return &nt, nil
	}
	cols, sch, err := systables.ProjectColumns(t.name, t.info.sch.Schema, names)
	if err != nil {
		return nil, err
	}
	p := &projection{names: append([]string(nil), names...), cols: cols, sch: sch}
	if p.stored, err = t.info.t.Project(p.cols); err != nil {
		return nil, err
	}
	nt.proj = p
	return &nt, nil
}

// Projections implements sql.ProjectedTable: nil when every column is read.
func (t *Table) Projections() []string {
	if t.proj == nil {
		return nil
	}
	return t.proj.names
}

// readColumns returns the columns a read of t yields, in order, with extra
// columns the read must also see appended (each at most once), and the
// position of each column of extra in the result. With no projection and
// no extra columns it returns nil: read whole rows.
func (t *Table) readColumns(extra []int) (cols []int, pos []int) {
	if t.proj == nil {
		return nil, extra
	}
	cols = append([]int(nil), t.proj.cols...)
	pos = make([]int, len(extra))
	for i, c := range extra {
		pos[i] = -1
		for j, x := range cols {
			if x == c {
				pos[i] = j
				break
			}
		}
		if pos[i] < 0 {
			pos[i] = len(cols)
			cols = append(cols, c)
		}
	}
	return cols, pos
}

// columnsSchema returns the engine columns at positions cols of t's full
// schema.
func (t *Table) columnsSchema(cols []int) sql.Schema {
	full := t.info.sch.Schema
	out := make(sql.Schema, len(cols))
	for i, c := range cols {
		out[i] = full[c]
	}
	return out
}

// newRowIter returns an iterator over the rows of spans of tbl, yielding
// the columns of t's projection (all columns when it has none). extra are
// columns the iterator's filter reads; pos (from readColumns) gives where
// each is in the rows the filter sees.
func (t *Table) newRowIter(tbl *tables.Table, spans []span, reverse bool, extra []int) (r *rowIter, pos []int, err error) {
	r = &rowIter{t: t, tbl: tbl, spans: spans, reverse: reverse}
	if t.proj != nil && len(extra) == 0 && tbl == t.info.t {
		r.proj, r.sch, r.width = t.proj.stored, t.proj.sch, len(t.proj.cols)
		return r, nil, nil
	}
	cols, pos := t.readColumns(extra)
	if cols == nil {
		return r, pos, nil
	}
	if r.proj, err = tbl.Project(cols); err != nil {
		return nil, nil, err
	}
	r.sch, r.width = t.columnsSchema(cols), len(t.proj.cols)
	return r, pos, nil
}

// toProjectedRow converts the stored values of the columns of sch (the
// table's whole schema for toRow), into into when it has their number
// (nil: a new row).
func (t *Table) toProjectedRow(sch sql.Schema, vals []tables.Value, into sql.Row) (sql.Row, error) {
	if len(vals) != len(sch) {
		return nil, fmt.Errorf("%w: table %q: a stored row has %d values for %d columns", tables.ErrCorrupt, t.name, len(vals), len(sch))
	}
	row := into
	if len(row) != len(vals) {
		row = make(sql.Row, len(vals))
	}
	for i, v := range vals {
		x, err := fromValue(sch[i].Type, v)
		if err != nil {
			return nil, fmt.Errorf("table %q column %q: %w", t.name, sch[i].Name, err)
		}
		row[i] = x
	}
	return row, nil
}
