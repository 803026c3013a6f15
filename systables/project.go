package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// Column pruning (sql.ProjectedTable). The analyzer calls WithProjections
// with the columns a query reads; the table then reports only those
// columns in Schema, and its rows hold only them, in that order. A table
// whose impl builds its rows column by column (columnsImpl: dolt_log,
// dolt_commits) builds only those: `SELECT COUNT(*) FROM dolt_log WHERE
// message LIKE 'c%'` neither formats commit hashes nor looks up refs.
// The others build whole rows, which the table cuts to the projection.
//
// Index lookups are unaffected: a lookup's keys come from the engine's
// ranges, never from the rows, and a range filter over rows
// (rowKeyIndex) runs on whole rows before the cut.

var _ sql.ProjectedTable = (*Table)(nil)

// projection is the columns a projected Table yields.
type projection struct {
	names []string   // as the engine named them
	cols  []int      // their positions in the full schema
	sch   sql.Schema // their columns
	// narrow: the table's impl yields rows of cols itself.
	narrow bool
}

// columnsImpl is an impl that can build rows of some of its columns only.
type columnsImpl interface {
	impl
	// withColumns returns the impl yielding, for each row, the values of
	// the columns cols (positions in the full schema) in that order.
	withColumns(cols []int) impl
}

// WithProjections implements sql.ProjectedTable. An empty list (a query
// that counts rows but reads no column) leaves the table unprojected, so
// rows keep their full shape and Projections stays nil.
func (t *Table) WithProjections(_ *sql.Context, names []string) (sql.Table, error) {
	nt := *t
	nt.proj, nt.impl = nil, t.fullImpl()
	nt.full = nil
	if len(names) == 0 {
		return &nt, nil
	}
	cols, sch, err := ProjectColumns(t.name, t.sch, names)
	if err != nil {
		return nil, err
	}
	p := &projection{names: append([]string(nil), names...), cols: cols, sch: sch}
	if ci, ok := nt.impl.(columnsImpl); ok && !t.filtersRows() {
		nt.full, nt.impl, p.narrow = nt.impl, ci.withColumns(p.cols), true
	}
	nt.proj = p
	return &nt, nil
}

// ProjectColumns resolves the columns names of a projection
// (sql.ProjectedTable.WithProjections) of table, whose full schema is
// full: their positions in full and their columns, in the order named.
func ProjectColumns(table string, full sql.Schema, names []string) (cols []int, sch sql.Schema, err error) {
	cols, sch = make([]int, len(names)), make(sql.Schema, len(names))
	for i, name := range names {
		c := full.IndexOfColName(name)
		if c < 0 {
			return nil, nil, sql.ErrTableColumnNotFound.New(table, name)
		}
		cols[i], sch[i] = c, full[c]
	}
	return cols, sch, nil
}

// Projections implements sql.ProjectedTable: nil when every column is read.
func (t *Table) Projections() []string {
	if t.proj == nil {
		return nil
	}
	return t.proj.names
}

// fullImpl returns the impl of whole rows.
func (t *Table) fullImpl() impl {
	if t.full != nil {
		return t.full
	}
	return t.impl
}

// filtersRows reports whether one of t's indexes filters whole rows
// (rowKeyIndex), which needs the impl's whole rows.
func (t *Table) filtersRows() bool {
	for _, s := range t.indexes {
		if s.kind == rowKeyIndex {
			return true
		}
	}
	return false
}

// project returns it cut to t's projection (it itself when the rows are
// already cut, or there is none).
func (t *Table) project(it sql.RowIter) sql.RowIter {
	if t.proj == nil || t.proj.narrow {
		return it
	}
	return &projectIter{it: it, cols: t.proj.cols}
}

// projectIter yields the columns cols of the rows of it.
type projectIter struct {
	it   sql.RowIter
	cols []int
}

func (p *projectIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := p.it.Next(ctx)
	if err != nil {
		return nil, err
	}
	return cutRow(r, p.cols), nil
}

// cutRow returns a new row of the columns cols of r.
func cutRow(r sql.Row, cols []int) sql.Row {
	out := make(sql.Row, len(cols))
	for i, c := range cols {
		out[i] = r[c]
	}
	return out
}

func (p *projectIter) Close(ctx *sql.Context) error { return p.it.Close(ctx) }

var _ sql.PrimaryKeyTable = (*Table)(nil)

// PrimaryKeySchema implements sql.PrimaryKeyTable: the full schema, key
// included, whatever the projection (the analyzer builds the statistics of
// the table's indexes from it).
func (t *Table) PrimaryKeySchema(*sql.Context) sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(t.sch)
}
