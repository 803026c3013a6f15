package systables

import (
	"context"
	"io"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

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
		pc, err := td.v.Graph.ReadCommit(ctx, p)
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
		c, err := v.Graph.ReadCommit(ctx, a)
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
