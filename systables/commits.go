package systables

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// kind says which commit table a commitTable is.
type kind uint8

const (
	kindLog kind = iota
	kindCommits
	kindAncestors
)

// LogSchema returns the schema of dolt_log (and of the dolt_log() table
// function, under the name source).
func LogSchema(source string) sql.Schema {
	return sql.Schema{
		textCol(source, "commit_hash", true, false),
		textCol(source, "committer", false, false),
		textCol(source, "email", false, false),
		col(source, "date", types.Datetime3, false),
		textCol(source, "message", false, false),
		col(source, "commit_order", types.Uint64, false),
		textCol(source, "parents", false, true),
		textCol(source, "refs", false, false),
		textCol(source, "signature", false, true),
		textCol(source, "author", false, false),
		textCol(source, "author_email", false, false),
		col(source, "author_date", types.Datetime3, false),
	}
}

var (
	logSchema     = LogSchema(LogName)
	commitsSchema = sql.Schema{
		textCol(CommitsName, "commit_hash", true, false),
		textCol(CommitsName, "committer", false, false),
		textCol(CommitsName, "email", false, false),
		col(CommitsName, "date", types.Datetime3, false),
		textCol(CommitsName, "message", false, false),
		textCol(CommitsName, "author", false, false),
		textCol(CommitsName, "author_email", false, false),
		col(CommitsName, "author_date", types.Datetime3, false),
	}
	// Dolt declares parent_hash NOT NULL and part of the key, though a
	// root commit's row holds NULL there.
	ancestorsSchema = sql.Schema{
		textCol(AncestorsName, "commit_hash", true, false),
		textCol(AncestorsName, "parent_hash", true, false),
		{Name: "parent_index", Type: types.Int32, PrimaryKey: true, Source: AncestorsName},
	}
)

// commitHashKeys are the keys of dolt_log and dolt_commits: the primary
// key and, as Dolt declares it beside, a unique key commit_hash.
var commitHashKeys = []indexSpec{onHash("PRIMARY", commitHashColumn, true), onHash(commitHashColumn, commitHashColumn, true)}

// commitTable is dolt_log, dolt_commits or dolt_commit_ancestors.
type commitTable struct {
	kind  kind
	v     *View
	heads []chunks.Address
	refs  *refsInfo // dolt_log's refs column
	// cols are the columns of its rows (positions in the full schema),
	// nil for all (withColumns).
	cols []int
}

var _ columnsImpl = (*commitTable)(nil)

// withColumns implements columnsImpl.
func (ct *commitTable) withColumns(cols []int) impl {
	n := *ct
	n.cols = cols
	return &n
}

func openCommitTable(ctx *sql.Context, name string, v *View) (*Table, bool, error) {
	ct := &commitTable{v: v}
	t := &Table{name: name, v: v, impl: ct}
	switch name {
	case LogName:
		ct.kind, t.sch = kindLog, logSchema
		head, err := v.head(ctx)
		if err != nil {
			return nil, false, err
		}
		ct.heads = []chunks.Address{head.Addr}
		if ct.refs, err = v.info(ctx); err != nil {
			return nil, false, err
		}
		t.indexes = commitHashKeys
	case CommitsName, AncestorsName:
		heads, err := v.allHeads(ctx)
		if err != nil {
			return nil, false, err
		}
		ct.heads = heads
		if name == CommitsName {
			ct.kind, t.sch = kindCommits, commitsSchema
			t.indexes = commitHashKeys
		} else {
			ct.kind, t.sch = kindAncestors, ancestorsSchema
			t.indexes = []indexSpec{onHash(commitHashColumn, commitHashColumn, false)}
		}
	}
	return t, true, nil
}

// logRow returns the dolt_log row of c; refs is its refs column.
func logRow(c *commitgraph.Commit, refs string) sql.Row {
	who := c.Meta.CommitterOrAuthor()
	return sql.Row{c.Addr.String(), who.Name, who.Email, c.Meta.Time, c.Meta.Message, uint64(c.Height),
		parentsText(c), refs, "", c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.AuthorWhen()}
}

// parentsText is the parents column: the parents' hashes, the mainline
// first, separated by ", ".
func parentsText(c *commitgraph.Commit) string {
	ps := make([]string, len(c.Parents))
	for i, p := range c.Parents {
		ps[i] = p.String()
	}
	return strings.Join(ps, ", ")
}

// rows returns the rows of the commit c (of the columns ct.cols).
func (ct *commitTable) rows(c *commitgraph.Commit) []sql.Row {
	switch ct.kind {
	case kindAncestors:
		hash := c.Addr.String()
		var out []sql.Row
		if len(c.Parents) == 0 {
			out = []sql.Row{{hash, nil, int32(0)}}
		} else {
			out = make([]sql.Row, len(c.Parents))
			for i, p := range c.Parents {
				out[i] = sql.Row{hash, p.String(), int32(i)}
			}
		}
		if ct.cols != nil {
			for i, r := range out {
				out[i] = cutRow(r, ct.cols)
			}
		}
		return out
	case kindLog:
		if ct.cols == nil {
			return []sql.Row{logRow(c, ct.refs.refsColumn(c.Addr, ct.heads[0], decorateShort))}
		}
	}
	cols := ct.cols
	if cols == nil {
		cols = commitsColumns
	}
	r := make(sql.Row, len(cols))
	for j, k := range cols {
		r[j] = ct.value(c, k)
	}
	return []sql.Row{r}
}

// commitsColumns are all the columns of dolt_commits.
var commitsColumns = []int{0, 1, 2, 3, 4, 5, 6, 7}

// value returns column k of c's row in dolt_log or dolt_commits (as
// logRow and rows build it).
func (ct *commitTable) value(c *commitgraph.Commit, k int) any {
	if ct.kind == kindCommits && k >= 5 {
		// dolt_commits lacks commit_order, parents, refs and signature.
		k += 4
	}
	switch k {
	case 0:
		return c.Addr.String()
	case 1:
		return c.Meta.CommitterOrAuthor().Name
	case 2:
		return c.Meta.CommitterOrAuthor().Email
	case 3:
		return c.Meta.Time
	case 4:
		return c.Meta.Message
	case 5:
		return uint64(c.Height)
	case 6:
		return parentsText(c)
	case 7:
		return ct.refs.refsColumn(c.Addr, ct.heads[0], decorateShort)
	case 8:
		return ""
	case 9:
		return c.Meta.Author.Name
	case 10:
		return c.Meta.Author.Email
	default:
		return c.Meta.AuthorWhen()
	}
}

func (ct *commitTable) source(ctx *sql.Context) (commitSource, error) {
	if ct.kind == kindLog {
		return logSource{ct.v.Graph.Log(ctx, ct.heads[0])}, nil
	}
	return newMergedSource(ctx, ct.v.Graph, ct.heads)
}

func (ct *commitTable) scan(ctx *sql.Context) (sql.RowIter, error) {
	src, err := ct.source(ctx)
	if err != nil {
		return nil, err
	}
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		c, err := src.next(ctx)
		if err != nil {
			return nil, err
		}
		return ct.rows(c), nil
	}}, nil
}

// lookup reads the commits named by keys: each is parsed, read with one
// chunk read and checked to be within the table's histories through the
// heads' closures.
func (ct *commitTable) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	s, err := newScope(ctx, ct.v, ct.heads)
	if err != nil {
		return nil, err
	}
	cs, err := lookupCommits(ctx, s, keys)
	if err != nil {
		return nil, err
	}
	var out []sql.Row
	for _, c := range cs {
		out = append(out, ct.rows(c)...)
	}
	return sql.RowsToRowIter(out...), nil
}

// rowCount: dolt_log counts from the head's closure (every strict
// ancestor) plus the head, exact and O(log n) after one chunk read (the
// count of the closure's entries without its aliases). The other
// tables report an estimate from the same closures.
func (ct *commitTable) rowCount(ctx *sql.Context) (uint64, bool, error) {
	var n uint64
	for _, h := range ct.heads {
		c, err := ct.v.Graph.ReadCommit(ctx, h)
		if err != nil {
			return 0, false, err
		}
		cl, err := ct.v.Graph.Closure(ctx, c)
		if err != nil {
			return 0, false, err
		}
		k, err := cl.Count(ctx)
		if err != nil {
			return 0, false, err
		}
		n = max(n, k+1)
	}
	return n, ct.kind == kindLog, nil
}
