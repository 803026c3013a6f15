package systables

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

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
		var c rowChange
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

// tableDiff is dolt_diff_<t>: for each commit of HEAD's history, the rows
// of t that differ from each of its parents (a root commit: from no
// table), and the rows the working root changed against HEAD (to_commit
// WORKING). Its differ gives the rows of one pair: t's rows, or, for
// dolt_diff_dolt_events, the event log's events.
type tableDiff struct {
	v      *View
	differ differ
}

// differ gives the rows of one pair of commits: a table's
// (tableRowsPair), or the event log's (eventsPair).
type differ interface {
	// pair returns the rows of the diff from commit from (nil: the empty
	// root) to commit to (nil: the working root).
	pair(ctx *sql.Context, from, to *commitgraph.Commit) ([]sql.Row, error)
}

func (td *tableDiff) pair(ctx *sql.Context, from, to *commitgraph.Commit) ([]sql.Row, error) {
	return td.differ.pair(ctx, from, to)
}

var (
	_ differ = tableRowsPair{}
	_ differ = eventsPair{}
)

// tableRowsPair diffs the rows of one SQL table.
type tableRowsPair struct {
	v     *View
	table string // the table's name as stored in the working root
	d     *RowDiff
}

func openTableDiff(ctx *sql.Context, v *View, name string) (*Table, bool, error) {
	cur, err := v.readTable(ctx, v.Working, name)
	if err != nil || cur == nil {
		return nil, false, err
	}
	exact, _, _, err := findTable(ctx, v.Working, name)
	if err != nil {
		return nil, false, err
	}
	tn := DiffTablePrefix + exact
	rp := tableRowsPair{v: v, table: exact, d: NewRowDiff(tn, cur.Schema)}
	td := &tableDiff{v: v, differ: rp}
	return &Table{name: tn, v: v, sch: rp.d.Schema(), impl: td, indexes: []indexSpec{
		{id: "to_commit", column: "to_commit"}, {id: "from_commit", column: "from_commit"},
	}}, true, nil
}

// side returns the side of commit c (nil: the working root).
func (td tableRowsPair) side(ctx *sql.Context, c *commitgraph.Commit) (Side, error) {
	if c == nil {
		t, err := td.v.readTable(ctx, td.v.Working, td.table)
		return Side{Table: t, Commit: Working}, err
	}
	root, err := td.v.openRoot(ctx, c)
	if err != nil {
		return Side{}, err
	}
	t, err := td.v.readTable(ctx, root, td.table)
	return Side{Table: t, Commit: c.Addr.String(), Date: c.Meta.Time}, err
}

// pair returns the rows of the diff from commit from (nil: no table) to
// commit to (nil: the working root).
func (td tableRowsPair) pair(ctx *sql.Context, from, to *commitgraph.Commit) ([]sql.Row, error) {
	var fs, ts Side
	var err error
	if from != nil {
		if fs, err = td.side(ctx, from); err != nil {
			return nil, err
		}
	}
	if ts, err = td.side(ctx, to); err != nil {
		return nil, err
	}
	if fs.Table != nil && ts.Table != nil && fs.Table.Table.Rows().Address() == ts.Table.Table.Rows().Address() {
		return nil, nil
	}
	return td.d.Rows(ctx, fs, ts)
}

// commitRows returns the rows of commit c against each of its parents.
func (td *tableDiff) commitRows(ctx *sql.Context, c *commitgraph.Commit) ([]sql.Row, error) {
	if len(c.Parents) == 0 {
		return td.pair(ctx, nil, c)
	}
	var out []sql.Row
	for _, p := range c.Parents {
		pc, err := td.v.readCommit(ctx, p)
		if err != nil {
			return nil, err
		}
		rs, err := td.pair(ctx, pc, c)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func (td *tableDiff) scan(ctx *sql.Context) (sql.RowIter, error) {
	head, err := td.v.head(ctx)
	if err != nil {
		return nil, err
	}
	it := td.v.Graph.Log(ctx, head.Addr)
	working := true
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		if working {
			working = false
			return td.pair(ctx, head, nil)
		}
		if !it.Next(ctx) {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		return td.commitRows(ctx, it.Commit())
	}}, nil
}

// lookup finds the rows whose to_commit or from_commit is one of keys.
//
// to_commit = X reads X, checks that HEAD's closure holds it, and diffs it
// against its parents. from_commit = X reads X, checks the same, and finds
// X's children among HEAD's history by reading the commits at height
// h(X)+1 in HEAD's closure (a range scan: every commit at that height,
// however many) and HEAD itself.
func (td *tableDiff) lookup(ctx *sql.Context, column string, keys []string) (sql.RowIter, error) {
	head, err := td.v.head(ctx)
	if err != nil {
		return nil, err
	}
	s := &scope{v: td.v, heads: []*commitgraph.Commit{head}}
	var out []sql.Row
	var hashes []string
	for _, k := range keys {
		if k == Working && column == "to_commit" {
			rs, err := td.pair(ctx, head, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
			continue
		}
		hashes = append(hashes, k)
	}
	cs, err := lookupCommits(ctx, s, hashes)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		var rs []sql.Row
		if column == "to_commit" {
			rs, err = td.commitRows(ctx, c)
		} else {
			rs, err = td.childRows(ctx, c, head)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return sql.RowsToRowIter(out...), nil
}

// childRows returns the rows whose from_commit is x: the diffs from x to
// each of its children in HEAD's history, and to the working root if x is
// HEAD.
func (td *tableDiff) childRows(ctx *sql.Context, x, head *commitgraph.Commit) ([]sql.Row, error) {
	var out []sql.Row
	if x.Addr == head.Addr {
		return td.pair(ctx, head, nil)
	}
	kids, err := children(ctx, td.v, x, head)
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		rs, err := td.pair(ctx, x, k)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// children returns the children of x among head's history: the commits
// of head's closure that commitgraph's ChildCandidates gives (those at
// h(x)+1 and the merges with an alias there) whose parents include x, and
// head if its parents include x.
func children(ctx context.Context, v *View, x, head *commitgraph.Commit) ([]*commitgraph.Commit, error) {
	var out []*commitgraph.Commit
	cands, err := v.Graph.ChildCandidates(ctx, x, head)
	if err != nil {
		return nil, err
	}
	for _, a := range cands {
		c, err := v.readCommit(ctx, a)
		if err != nil {
			return nil, err
		}
		if hasParent(c, x) {
			out = append(out, c)
		}
	}
	if hasParent(head, x) {
		out = append(out, head)
	}
	return out, nil
}

func hasParent(c, p *commitgraph.Commit) bool {
	for _, a := range c.Parents {
		if a == p.Addr {
			return true
		}
	}
	return false
}

// rowCount estimates a row per commit of HEAD's history. (Commits usually
// change a few rows; the estimate is kept at one per commit so that the
// engine's coster plans joins with dolt_log and dolt_commits as lookup
// joins, which read only the commits they need, rather than hash joins,
// which read the whole history before the first row.)
func (td *tableDiff) rowCount(ctx *sql.Context) (uint64, bool, error) {
	return headCount(ctx, td.v)
}
