package systables

import (
	"bytes"
	"context"
	"io"
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

// RowDiff describes the rows of a table diff: the table's current columns
// (those of the session's working root) twice, to_ and from_, with the
// commit and date of each side and the diff type.
type RowDiff struct {
	name   string
	cols   sql.Schema // the table's current columns
	schema sql.Schema
}

// NewRowDiff returns the shape of a diff of the table whose current
// columns are cols, for the table (or table function) named source.
func NewRowDiff(source string, cols sql.Schema) *RowDiff {
	d := &RowDiff{name: source, cols: cols}
	side := func(p string) {
		for _, c := range cols {
			d.schema = append(d.schema, &sql.Column{Name: p + c.Name, Type: c.Type, Nullable: true, Source: source})
		}
		d.schema = append(d.schema, col(source, p+"commit", diffTextType, true), col(source, p+"commit_date", types.DatetimeMaxPrecision, true))
	}
	side("to_")
	side("from_")
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
// A keyless table keeps equal rows as one entry with a count: a change of
// the count is that many rows added or removed, and a changed row is a
// row removed and a row added, never modified. A row whose stored values
// differ only because columns were added since, NULL in it, did not
// change: its stored form follows the schema (verso rewrites the rows),
// its values do not (Dolt leaves them as they are, and so does its diff).
func (d *RowDiff) Rows(ctx *sql.Context, from, to Side) ([]sql.Row, error) {
	if from.Table == nil && to.Table == nil {
		return nil, nil
	}
	fm, tm := emptyRows(from, to), emptyRows(from, to)
	var fmap, tmap []int
	if from.Table != nil {
		fm, fmap = from.Table.Table.Rows(), d.mapping(from.Table)
	}
	if to.Table != nil {
		tm, tmap = to.Table.Table.Rows(), d.mapping(to.Table)
	}
	grown := grownColumns(from.Table, to.Table)
	var out []sql.Row
	n := len(d.cols)
	emit := func(typ string, fvals, tvals []tables.Value) error {
		row := make(sql.Row, 2*n+5)
		row[n], row[n+1] = to.Commit, to.Date
		row[2*n+2], row[2*n+3] = from.Commit, from.Date
		row[2*n+4] = typ
		if fvals != nil {
			if err := d.fill(ctx, row[n+2:], from.Table, fmap, fvals); err != nil {
				return err
			}
		}
		if tvals != nil {
			if err := d.fill(ctx, row[:n], to.Table, tmap, tvals); err != nil {
				return err
			}
		}
		out = append(out, row)
		return nil
	}
	err := prolly.DiffMaps(ctx, fm, tm, func(df prolly.Diff) error {
		var fvals, tvals []tables.Value
		var fn, tn uint64
		var err error
		if df.Type != prolly.Added {
			if fvals, fn, err = from.Table.Table.DecodeCopies(ctx, df.Key, df.From); err != nil {
				return err
			}
		}
		if df.Type != prolly.Removed {
			if tvals, tn, err = to.Table.Table.DecodeCopies(ctx, df.Key, df.To); err != nil {
				return err
			}
		}
		if df.Type == prolly.Modified && !keyless(from.Table) && !keyless(to.Table) {
			if grown != nil && grown.same(fvals, tvals) {
				return nil
			}
			return emit(DiffModified, fvals, tvals)
		}
		for ; tn > fn; tn-- {
			if err := emit(DiffAdded, nil, tvals); err != nil {
				return err
			}
		}
		for ; fn > tn; fn-- {
			if err := emit(DiffRemoved, fvals, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func keyless(t *StoredTable) bool { return t != nil && t.Table.Schema().Keyless() }

// grown says how a table's columns map back to an older version that had
// only some of them, each with the same name and type: of each newer
// column, the older column's position, or -1 for a column added since.
type grown []int

// grownColumns returns how to's columns map to from's when to only added
// columns to from's, nil otherwise (or if the schemas are the same).
func grownColumns(from, to *StoredTable) grown {
	if from == nil || to == nil {
		return nil
	}
	fs, ts := from.Table.Schema(), to.Table.Schema()
	if bytes.Equal(tables.EncodeSchema(fs), tables.EncodeSchema(ts)) {
		return nil
	}
	g := make(grown, len(ts.Columns))
	found := 0
	for i, c := range ts.Columns {
		g[i] = fs.ColumnIndex(c.Name)
		if g[i] < 0 {
			continue
		}
		if fc := fs.Columns[g[i]]; fc.Type != c.Type || fc.Kind != c.Kind {
			return nil
		}
		found++
	}
	if found != len(fs.Columns) {
		return nil
	}
	return g
}

// same reports whether the stored values of a row are the same in both
// versions: equal in the older columns, NULL in the added ones.
func (g grown) same(fvals, tvals []tables.Value) bool {
	for i, j := range g {
		if j < 0 {
			if !tvals[i].IsNull() {
				return false
			}
		} else if prolly.CompareValues(fvals[j], tvals[i]) != 0 {
			return false
		}
	}
	return true
}

func emptyRows(from, to Side) prolly.Map {
	if from.Table != nil {
		return prolly.NewMap(from.Table.Table.NodeStore())
	}
	return prolly.NewMap(to.Table.Table.NodeStore())
}

// mapping returns, for each current column, the index of the column of
// the same name in t's schema, or -1.
func (d *RowDiff) mapping(t *StoredTable) []int {
	m := make([]int, len(d.cols))
	for i, c := range d.cols {
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

// fill converts a stored row of t and writes its values, mapped to the
// current columns, into dst. A value of a column whose type has changed
// since is converted to the current type, NULL if it does not convert.
func (d *RowDiff) fill(ctx *sql.Context, dst sql.Row, t *StoredTable, m []int, vals []tables.Value) error {
	row, err := t.Row(vals)
	if err != nil {
		return err
	}
	return mapRow(ctx, dst, d.cols, row, t.Schema, m)
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
	return &Table{name: tn, v: v, sch: rp.d.Schema(), impl: td, indexes: diffKeys(cur)}, true, nil
}

// diffKeys returns the keys of dolt_diff_<t> for t's current version, as
// Dolt declares them: to_pks and from_pks on t's key columns of each side,
// then to_commit and from_commit (hash lookups). Dolt declares to_pks and
// from_pks UNIQUE, which they are not (a row changes in many commits):
// they are plain keys here. A keyless t has no key in Dolt: the hash
// lookups are still made, from literal filters, without being declared.
func diffKeys(cur *StoredTable) []indexSpec {
	commits := []indexSpec{onHash("to_commit", "to_commit", false), onHash("from_commit", "from_commit", false)}
	s := cur.Table.Schema()
	if s.Keyless() {
		for i := range commits {
			commits[i].kind = hiddenHashIndex
		}
		return commits
	}
	to, from := indexSpec{id: "to_pks", kind: rowKeyIndex}, indexSpec{id: "from_pks", kind: rowKeyIndex}
	for _, p := range s.PrimaryKey {
		to.columns = append(to.columns, "to_"+s.Columns[p].Name)
		from.columns = append(from.columns, "from_"+s.Columns[p].Name)
	}
	return append([]indexSpec{to, from}, commits...)
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
