package systables

import (
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// The rows that differ between two values of a table (diffRows), and
// their layout as dolt_diff_<t> and dolt_diff() show them (RowDiff).

// Diff types, as dolt_diff_<t> spells them.
const (
	DiffAdded    = "added"
	DiffModified = "modified"
	DiffRemoved  = "removed"
)

// diffTextType is the type Dolt gives a diff's commit and diff_type
// columns.
var diffTextType = types.MustCreateStringWithDefaults(sqltypes.VarChar, 1023)

// RowDiff describes the rows of a table diff: the columns of the to side
// (to_), then of the from side (from_), with the commit and date of each
// side and the diff type. dolt_diff_<t> shows the table's current columns
// (those of the session's working root) on both sides; dolt_diff() each
// side's own.
type RowDiff struct {
	name             string
	toCols, fromCols sql.Schema
	schema           sql.Schema
}

// NewRowDiff returns the shape of a diff of the table whose current
// columns are cols, for the table (or table function) named source.
func NewRowDiff(source string, cols sql.Schema) *RowDiff {
	return NewSidesRowDiff(source, cols, cols)
}

// NewSidesRowDiff returns the shape of a diff whose from_ columns are
// fromCols and whose to_ columns are toCols.
func NewSidesRowDiff(source string, fromCols, toCols sql.Schema) *RowDiff {
	d := &RowDiff{name: source, toCols: toCols, fromCols: fromCols}
	side := func(p string, cols sql.Schema) {
		for _, c := range cols {
			d.schema = append(d.schema, &sql.Column{Name: p + c.Name, Type: c.Type, Nullable: true, Source: source})
		}
		d.schema = append(d.schema, col(source, p+"commit", diffTextType, true), col(source, p+"commit_date", types.DatetimeMaxPrecision, true))
	}
	side("to_", toCols)
	side("from_", fromCols)
	d.schema = append(d.schema, col(source, "diff_type", diffTextType, true))
	return d
}

// Schema returns the diff's columns.
func (d *RowDiff) Schema() sql.Schema { return d.schema }

// Side is one end of a diff: a table value (nil where the table does not
// exist) and the commit and date the columns show.
type Side struct {
	Table  *StoredTable
	Commit any // string, or nil
	Date   any // time.Time, or nil
}

// Rows returns the rows that differ from side from to side to, in key
// order. Its cost follows the size of the change (prolly.DiffMaps skips
// the subtrees both row maps share).
//
// A keyless table's equal rows are one entry with a count: each copy
// added or removed is a row of the diff, and an entry whose count changed
// gives as many added or removed rows as the count moved. A row whose
// stored value changed only because the table was rewritten (a column
// added holding NULL) is not a change: the row's values, matched by
// column name, are the same (rowChange).
func (d *RowDiff) Rows(ctx *sql.Context, from, to Side) ([]sql.Row, error) {
	var out []sql.Row
	err := diffRows(ctx, from.Table, to.Table, func(c rowChange) error {
		row := make(sql.Row, len(d.toCols)+len(d.fromCols)+5)
		n := len(d.toCols)
		row[n], row[n+1] = to.Commit, to.Date
		m := n + 2 + len(d.fromCols)
		row[m], row[m+1] = from.Commit, from.Date
		row[m+2] = c.diffType()
		if c.from != nil {
			if err := fillRow(ctx, row[n+2:m], d.fromCols, from.Table, c.from); err != nil {
				return err
			}
		}
		if c.to != nil {
			if err := fillRow(ctx, row[:n], d.toCols, to.Table, c.to); err != nil {
				return err
			}
		}
		out = append(out, row)
		for i := 1; i < c.copies; i++ {
			out = append(out, slices.Clone(row))
		}
		return nil
	})
	return out, err
}

// rowChange is one changed row of a table diff: its stored values on each
// side (nil where absent) and how many copies of it changed that way (a
// keyless table's rows).
type rowChange struct {
	key      []byte // its row map key
	from, to []tables.Value
	copies   int
}

func (c rowChange) diffType() string {
	switch {
	case c.from == nil:
		return DiffAdded
	case c.to == nil:
		return DiffRemoved
	}
	return DiffModified
}

// diffRows calls fn with each row that differs from table from to table to
// (either may be nil: no rows), in key order: prolly.DiffMaps over the two
// row maps, which skips what they share.
func diffRows(ctx *sql.Context, from, to *StoredTable, fn func(rowChange) error) error {
	if from == nil && to == nil {
		return nil
	}
	var fm, tm prolly.Map
	var ft, tt *tables.Table
	if from != nil {
		ft = from.Table
		fm = ft.Rows()
	}
	if to != nil {
		tt = to.Table
		tm = tt.Rows()
	}
	if from == nil {
		fm = prolly.NewMap(tt.NodeStore())
	}
	if to == nil {
		tm = prolly.NewMap(ft.NodeStore())
	}
	if from != nil && to != nil && fm.Address() == tm.Address() {
		return nil
	}
	var cm *columnMatch
	if ft != nil && tt != nil {
		cm = matchColumns(ft.Schema(), tt.Schema())
	}
	return prolly.DiffMaps(ctx, fm, tm, func(df prolly.Diff) error {
		c := rowChange{key: df.Key}
		var fn1, tn uint64
		var err error
		if df.Type != prolly.Added {
			if c.from, fn1, err = ft.DecodeCopies(ctx, df.Key, df.From); err != nil {
				return err
			}
		}
		if df.Type != prolly.Removed {
			if c.to, tn, err = tt.DecodeCopies(ctx, df.Key, df.To); err != nil {
				return err
			}
		}
		switch df.Type {
		case prolly.Added:
			c.copies = int(tn)
		case prolly.Removed:
			c.copies = int(fn1)
		default:
			keyless := ft.Schema().Keyless() && tt.Schema().Keyless()
			switch {
			case keyless && fn1 < tn:
				c.from, c.copies = nil, int(tn-fn1)
			case keyless && fn1 > tn:
				c.to, c.copies = nil, int(fn1-tn)
			case keyless:
				return nil
			case cm.sameRow(c.from, c.to):
				return nil
			default:
				c.copies = 1
			}
		}
		return fn(c)
	})
}

// columnMatch pairs the columns of two schemas of one table by name
// (matched without case).
type columnMatch struct {
	from, to *tables.Schema
	// toOf[i] is the to column of from column i, or -1 (dropped).
	toOf []int
	// added are the to columns no from column has.
	added []int
}

func matchColumns(from, to *tables.Schema) *columnMatch {
	m := &columnMatch{from: from, to: to, toOf: make([]int, len(from.Columns))}
	has := make([]bool, len(to.Columns))
	for i, c := range from.Columns {
		m.toOf[i] = to.ColumnIndex(c.Name)
		if m.toOf[i] >= 0 {
			has[m.toOf[i]] = true
		}
	}
	for j := range to.Columns {
		if !has[j] {
			m.added = append(m.added, j)
		}
	}
	return m
}

// sameRow reports whether a row whose stored value differs between the
// two sides holds the same values: each column both sides have of equal
// value (and kind), each column only one side has NULL. A table rewritten
// by an ALTER stores every row again; only rows whose values changed are
// changes, as in Dolt, whose ALTER keeps a row's stored value when a
// column is added.
func (m *columnMatch) sameRow(from, to []tables.Value) bool {
	for i, j := range m.toOf {
		if j < 0 {
			if !from[i].IsNull() {
				return false
			}
			continue
		}
		if from[i].Kind() != to[j].Kind() || prolly.CompareValues(from[i], to[j]) != 0 {
			return false
		}
	}
	for _, j := range m.added {
		if !to[j].IsNull() {
			return false
		}
	}
	return true
}

// fillRow writes a stored row of table t into dst, in the order of cols
// (matched by name; a column t lacks is NULL). A value of a column whose
// type differs is converted to the type of cols, NULL if it does not
// convert.
func fillRow(ctx *sql.Context, dst sql.Row, cols sql.Schema, t *StoredTable, vals []tables.Value) error {
	row, err := t.Row(vals)
	if err != nil {
		return err
	}
	return mapRow(ctx, dst, cols, row, t.Schema, columnMapping(cols, t))
}

// columnMapping returns, for each column of cols, the index of the column
// of the same name in t's schema, or -1.
func columnMapping(cols sql.Schema, t *StoredTable) []int {
	m := make([]int, len(cols))
	for i, c := range cols {
		m[i] = -1
		for j, tc := range t.Schema {
			if strings.EqualFold(c.Name, tc.Name) {
				m[i] = j
				break
			}
		}
	}
	return m
}

// mapRow writes the values of row (of schema sch) into dst in the order
// of cols, m giving each one's index in row (-1: NULL).
func mapRow(ctx *sql.Context, dst sql.Row, cols sql.Schema, row sql.Row, sch sql.Schema, m []int) error {
	for i, j := range m {
		if j < 0 {
			dst[i] = nil
			continue
		}
		v := row[j]
		if v != nil && !cols[i].Type.Equals(sch[j].Type) {
			cv, _, err := cols[i].Type.Convert(ctx, v)
			if err != nil {
				cv = nil
			}
			v = cv
		}
		dst[i] = v
	}
	return nil
}
