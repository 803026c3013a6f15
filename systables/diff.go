package systables

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// diffSchema is Dolt's, which declares every column NOT NULL though the
// WORKING and STAGED rows hold NULL for the commit's metadata.
var diffSchema = sql.Schema{
	textCol(DiffName, "commit_hash", true, false),
	textCol(DiffName, "table_name", true, false),
	textCol(DiffName, "committer", false, false),
	textCol(DiffName, "email", false, false),
	col(DiffName, "date", types.DatetimeMaxPrecision, false),
	textCol(DiffName, "message", false, false),
	col(DiffName, "data_change", types.Boolean, false),
	col(DiffName, "schema_change", types.Boolean, false),
	textCol(DiffName, "author", false, false),
	textCol(DiffName, "author_email", false, false),
	col(DiffName, "author_date", types.DatetimeMaxPrecision, false),
}

// diffTable is dolt_diff: a row per table that a commit of HEAD's history
// changed against its first parent (the mainline: what the commit brought
// to its branch), and a row per table the working root changed against
// HEAD, under the commit_hash WORKING.
type diffTable struct{ v *View }

func openDiff(v *View) *Table {
	return &Table{name: DiffName, v: v, sch: diffSchema, impl: diffTable{v},
		indexes: []indexSpec{{id: commitHashColumn, column: commitHashColumn}}}
}

// TableChange is one table that differs between two root values (the
// engine's).
type TableChange = verso.TableChange

// RootChanges returns the tables that differ from root from to root to,
// by name: a SQL table whose rows (data) or schema or options (schema)
// differ, or that one root lacks; and dolt_events when any entry of the
// event log differs (verso.ChangedTables). Its cost follows the size of
// the change.
func RootChanges(ctx context.Context, g *commitgraph.DB, from, to commitgraph.RootValue) ([]TableChange, error) {
	return verso.ChangedTables(ctx, from, to)
}

// rowsOf returns the dolt_diff rows of commit c (nil: the working root).
func (d diffTable) rowsOf(ctx *sql.Context, c, head *commitgraph.Commit) ([]sql.Row, error) {
	var from, to commitgraph.RootValue
	var err error
	hash := Working
	var meta, author []any
	if c == nil {
		if from, err = d.v.openRoot(ctx, head); err != nil {
			return nil, err
		}
		to = d.v.Working
		meta = []any{nil, nil, nil, nil}
		author = []any{nil, nil, nil}
	} else {
		hash = c.Addr.String()
		var parent *commitgraph.Commit
		if len(c.Parents) > 0 {
			if parent, err = d.v.readCommit(ctx, c.Parents[0]); err != nil {
				return nil, err
			}
		}
		if from, err = d.v.openRoot(ctx, parent); err != nil {
			return nil, err
		}
		if to, err = d.v.openRoot(ctx, c); err != nil {
			return nil, err
		}
		who := c.Meta.CommitterOrAuthor()
		meta = []any{who.Name, who.Email, c.Meta.Time, c.Meta.Message}
		author = []any{c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.Time}
	}
	chs, err := RootChanges(ctx, d.v.Graph, from, to)
	if err != nil {
		return nil, err
	}
	// The schema objects are rows of dolt_schemas and dolt_procedures to
	// Dolt, tables of its root: they are tables of dolt_diff too.
	objs, err := verso.ChangedObjects(ctx, from, to)
	if err != nil {
		return nil, err
	}
	if len(objs) > 0 {
		chs = append(chs, objs...)
		slices.SortFunc(chs, func(a, b TableChange) int { return strings.Compare(a.Table, b.Table) })
	}
	if c == nil && d.v.Session != nil {
		// The working set's new tables that dolt_ignore ignores are no
		// change, as in Dolt.
		tx, err := d.v.Session.Txn(ctx)
		if err != nil {
			return nil, err
		}
		ignored, err := tx.DB().IgnoredNew(ctx, from, to)
		if err != nil {
			return nil, err
		}
		chs = slices.DeleteFunc(chs, func(ch TableChange) bool { return slices.Contains(ignored, ch.Table) })
	}
	out := make([]sql.Row, len(chs))
	for i, ch := range chs {
		out[i] = append(append(append(sql.Row{hash, ch.Table}, meta...), boolVal(ch.DataChange), boolVal(ch.SchemaChange)), author...)
	}
	return out, nil
}

func boolVal(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

func (d diffTable) scan(ctx *sql.Context) (sql.RowIter, error) {
	head, err := d.v.head(ctx)
	if err != nil {
		return nil, err
	}
	it := d.v.Graph.Log(ctx, head.Addr)
	working := true
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		if working {
			working = false
			return d.rowsOf(ctx, nil, head)
		}
		if !it.Next(ctx) {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		return d.rowsOf(ctx, it.Commit(), nil)
	}}, nil
}

func (d diffTable) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	head, err := d.v.head(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.Row
	var hashes []string
	for _, k := range keys {
		if k == Working {
			rs, err := d.rowsOf(ctx, nil, head)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
			continue
		}
		hashes = append(hashes, k)
	}
	cs, err := lookupCommits(ctx, &scope{v: d.v, heads: []*commitgraph.Commit{head}}, hashes)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		rs, err := d.rowsOf(ctx, c, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return sql.RowsToRowIter(out...), nil
}

// rowCount estimates a row per commit of HEAD's history.
func (d diffTable) rowCount(ctx *sql.Context) (uint64, bool, error) {
	return headCount(ctx, d.v)
}

// headCount returns the number of commits in HEAD's history.
func headCount(ctx *sql.Context, v *View) (uint64, bool, error) {
	head, err := v.head(ctx)
	if err != nil {
		return 0, false, err
	}
	cl, err := v.Graph.Closure(ctx, head)
	if err != nil {
		return 0, false, err
	}
	n, err := cl.Count(ctx)
	if err != nil {
		return 0, false, err
	}
	return n + 1, false, nil
}
