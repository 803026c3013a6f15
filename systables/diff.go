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
// to its branch), and a row per table of the uncommitted changes: those
// staged (HEAD's root to the staged root), under the commit_hash STAGED,
// and those not staged (the staged root to the working root), under
// WORKING.
type diffTable struct{ v *View }

func openDiff(v *View) *Table {
	return &Table{name: DiffName, v: v, sch: diffSchema, impl: diffTable{v},
		indexes: []indexSpec{onHash(commitHashColumn, commitHashColumn, false)}}
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

// commitRoots returns the roots a commit's dolt_diff rows compare: its
// first parent's (the empty root for a root commit) and its own.
func (v *View) commitRoots(ctx context.Context, c *commitgraph.Commit) (from, to commitgraph.RootValue, err error) {
	var parent *commitgraph.Commit
	if len(c.Parents) > 0 {
		if parent, err = v.Graph.ReadCommit(ctx, c.Parents[0]); err != nil {
			return from, to, err
		}
	}
	if from, err = v.openRoot(ctx, parent); err != nil {
		return from, to, err
	}
	to, err = v.openRoot(ctx, c)
	return from, to, err
}

// commitMeta returns the committer's name, email, time and message and
// the author's name, email and time of c, as dolt_diff and
// dolt_column_diff show them (nil for STAGED and WORKING).
func commitMeta(c *commitgraph.Commit) (meta, author []any) {
	if c == nil {
		return []any{nil, nil, nil, nil}, []any{nil, nil, nil}
	}
	who := c.Meta.CommitterOrAuthor()
	return []any{who.Name, who.Email, c.Meta.Time, c.Meta.Message}, []any{c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.AuthorWhen()}
}

// rowsOf returns the dolt_diff rows of commit c.
func (d diffTable) rowsOf(ctx *sql.Context, c *commitgraph.Commit) ([]sql.Row, error) {
	from, to, err := d.v.commitRoots(ctx, c)
	if err != nil {
		return nil, err
	}
	return d.changeRows(ctx, c.Addr.String(), c, from, to)
}

// pendingRows returns the dolt_diff rows of the uncommitted changes whose
// commit_hash is name (STAGED or WORKING).
func (d diffTable) pendingRows(ctx *sql.Context, name string, head *commitgraph.Commit) ([]sql.Row, error) {
	p, err := d.v.pending(ctx, head)
	if err != nil {
		return nil, err
	}
	if name == Staged {
		return d.changeRows(ctx, Staged, nil, p.head, p.staged)
	}
	return d.changeRows(ctx, Working, nil, p.staged, p.working)
}

// changeRows returns the dolt_diff rows of the change from root from to
// root to, under hash, with c's metadata (nil: none).
func (d diffTable) changeRows(ctx *sql.Context, hash string, c *commitgraph.Commit, from, to commitgraph.RootValue) ([]sql.Row, error) {
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
	if hash == Working {
		if chs, err = d.v.withoutIgnored(ctx, chs, from, to); err != nil {
			return nil, err
		}
	}
	meta, author := commitMeta(c)
	out := make([]sql.Row, len(chs))
	for i, ch := range chs {
		out[i] = append(append(append(sql.Row{hash, ch.Table}, meta...), boolVal(ch.DataChange), boolVal(ch.SchemaChange)), author...)
	}
	return out, nil
}

// withoutIgnored returns chs without the new tables of the change from
// staged to working that dolt_ignore ignores: no change, as in Dolt.
func (v *View) withoutIgnored(ctx *sql.Context, chs []TableChange, staged, working commitgraph.RootValue) ([]TableChange, error) {
	if v.Session == nil {
		return chs, nil
	}
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	ignored, err := tx.DB().IgnoredNew(ctx, staged, working)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(chs, func(ch TableChange) bool { return slices.Contains(ignored, ch.Table) }), nil
}

func boolVal(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// pendingNames are the names of the uncommitted changes, in the order
// the tables list them.
var pendingNames = []string{Staged, Working}

func (d diffTable) scan(ctx *sql.Context) (sql.RowIter, error) { return scanPerCommit(ctx, d.v, d) }

func (d diffTable) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	return lookupPerCommit(ctx, d.v, d, keys)
}

// perCommit is a table of rows per commit of HEAD's history, after the
// rows of the uncommitted changes (STAGED, WORKING): dolt_diff and
// dolt_column_diff.
type perCommit interface {
	rowsOf(ctx *sql.Context, c *commitgraph.Commit) ([]sql.Row, error)
	pendingRows(ctx *sql.Context, name string, head *commitgraph.Commit) ([]sql.Row, error)
}

// scanPerCommit yields the rows of t: the uncommitted changes', then each
// commit's of HEAD's history, in log order.
func scanPerCommit(ctx *sql.Context, v *View, t perCommit) (sql.RowIter, error) {
	head, err := v.head(ctx)
	if err != nil {
		return nil, err
	}
	it := v.Graph.Log(ctx, head.Addr)
	next := 0
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		if next < len(pendingNames) {
			next++
			return t.pendingRows(ctx, pendingNames[next-1], head)
		}
		if !it.Next(ctx) {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		return t.rowsOf(ctx, it.Commit())
	}}, nil
}

// lookupPerCommit finds the rows of t of the commits keys name (STAGED and
// WORKING too): each commit is read with a chunk read and checked to be
// in HEAD's history through HEAD's closure.
func lookupPerCommit(ctx *sql.Context, v *View, t perCommit, keys []string) (sql.RowIter, error) {
	head, err := v.head(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.Row
	var hashes []string
	for _, k := range uniqueKeys(keys) {
		if k == Working || k == Staged {
			rs, err := t.pendingRows(ctx, k, head)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
			continue
		}
		hashes = append(hashes, k)
	}
	cs, err := lookupCommits(ctx, &scope{v: v, heads: []*commitgraph.Commit{head}}, hashes)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		rs, err := t.rowsOf(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return sql.RowsToRowIter(out...), nil
}

// uniqueKeys returns keys without repeats, in order.
func uniqueKeys(keys []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
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
