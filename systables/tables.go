package systables

import (
	"context"
	"errors"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Names of the system tables, as Dolt spells them.
const (
	LogName       = "dolt_log"
	CommitsName   = "dolt_commits"
	AncestorsName = "dolt_commit_ancestors"
)

// Names returns the names of the system tables this package serves.
func Names() []string { return []string{LogName, CommitsName, AncestorsName} }

// IsName reports whether name (in any case) is a system table's name.
func IsName(name string) bool {
	for _, n := range Names() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// kind says which system table a Table is.
type kind uint8

const (
	kindLog kind = iota
	kindCommits
	kindAncestors
)

// Table is a commit-indexed system table: dolt_log, dolt_commits or
// dolt_commit_ancestors. It reads the commit graph as it was when the table
// was opened (the heads are resolved then); it is read-only.
type Table struct {
	kind  kind
	name  string
	db    string
	graph *commitgraph.DB
	// heads are the commits whose histories the table shows: the session
	// branch's head for dolt_log, every branch's head for the others.
	heads []chunks.Address
}

var (
	_ sql.Table                 = (*Table)(nil)
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.IndexedTable          = (*Table)(nil)
	_ sql.StatisticsTable       = (*Table)(nil)
)

// Open returns the system table named name (any case) of the database
// dbName, whose commit graph is graph, for a session on branch; ok is false
// if name is no system table's.
func Open(ctx context.Context, name, dbName string, graph *commitgraph.DB, branch string) (t *Table, ok bool, err error) {
	t = &Table{db: dbName, graph: graph}
	switch strings.ToLower(name) {
	case LogName:
		t.kind, t.name = kindLog, LogName
		head, err := graph.Head(ctx, branch)
		if err != nil {
			return nil, false, err
		}
		t.heads = []chunks.Address{head}
	case CommitsName, AncestorsName:
		t.kind, t.name = kindCommits, CommitsName
		if strings.EqualFold(name, AncestorsName) {
			t.kind, t.name = kindAncestors, AncestorsName
		}
		bs, err := graph.Branches(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, b := range bs {
			t.heads = append(t.heads, b.Head)
		}
	default:
		return nil, false, nil
	}
	return t, true, nil
}

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.name }

// String implements sql.Table.
func (t *Table) String() string { return t.name }

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID { return sql.Collation_Default }

// IsTemporary reports false: system tables are not temporary tables.
func (t *Table) IsTemporary() bool { return false }

var (
	logSchema = sql.Schema{
		{Name: "commit_hash", Type: types.Text, PrimaryKey: true, Source: LogName},
		{Name: "committer", Type: types.Text, Source: LogName},
		{Name: "email", Type: types.Text, Source: LogName},
		{Name: "date", Type: types.Datetime, Source: LogName},
		{Name: "message", Type: types.Text, Source: LogName},
		{Name: "commit_order", Type: types.Uint64, Source: LogName},
	}
	commitsSchema = sql.Schema{
		{Name: "commit_hash", Type: types.Text, PrimaryKey: true, Source: CommitsName},
		{Name: "committer", Type: types.Text, Source: CommitsName},
		{Name: "email", Type: types.Text, Source: CommitsName},
		{Name: "date", Type: types.Datetime, Source: CommitsName},
		{Name: "message", Type: types.Text, Source: CommitsName},
	}
	ancestorsSchema = sql.Schema{
		{Name: "commit_hash", Type: types.Text, PrimaryKey: true, Source: AncestorsName},
		{Name: "parent_hash", Type: types.Text, Nullable: true, Source: AncestorsName},
		{Name: "parent_index", Type: types.Int32, PrimaryKey: true, Source: AncestorsName},
	}
)

// Schema implements sql.Table.
func (t *Table) Schema(*sql.Context) sql.Schema {
	switch t.kind {
	case kindLog:
		return logSchema
	case kindCommits:
		return commitsSchema
	default:
		return ancestorsSchema
	}
}

// rows returns the rows of the commit c.
func (t *Table) rows(c *commitgraph.Commit) []sql.Row {
	hash := c.Addr.String()
	if t.kind == kindAncestors {
		if len(c.Parents) == 0 {
			return []sql.Row{{hash, nil, int32(0)}}
		}
		out := make([]sql.Row, len(c.Parents))
		for i, p := range c.Parents {
			out[i] = sql.Row{hash, p.String(), int32(i)}
		}
		return out
	}
	who := c.Meta.CommitterOrAuthor()
	r := sql.Row{hash, who.Name, who.Email, c.Meta.Time, c.Meta.Message}
	if t.kind == kindLog {
		r = append(r, uint64(c.Height))
	}
	return []sql.Row{r}
}

// partition is the table's only partition.
type partition struct{}

func (partition) Key() []byte { return []byte("all") }

// Partitions implements sql.Table: one partition.
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// PartitionRows implements sql.Table: the rows of the index lookup, or
// every row in log order, streamed.
func (t *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	if lp, ok := p.(lookupPartition); ok {
		return t.lookupRows(ctx, lp.keys)
	}
	var src commitSource
	if t.kind == kindLog {
		src = logSource{t.graph.Log(ctx, t.heads[0])}
	} else {
		m, err := newMergedSource(ctx, t.graph, t.heads)
		if err != nil {
			return nil, err
		}
		src = m
	}
	return &rowIter{t: t, src: src}, nil
}

// RowCount implements sql.StatisticsTable. dolt_log counts from the head's
// closure (every strict ancestor) plus the head: exact, O(1) after one
// chunk read. The other tables report an estimate from the same closures.
func (t *Table) RowCount(ctx *sql.Context) (uint64, bool, error) {
	var n uint64
	for _, h := range t.heads {
		c, err := t.graph.ReadCommit(ctx, h)
		if err != nil {
			return 0, false, err
		}
		cl, err := t.graph.Closure(ctx, c)
		if err != nil {
			return 0, false, err
		}
		n = max(n, cl.Count()+1)
	}
	return n, t.kind == kindLog, nil
}

// DataLength implements sql.StatisticsTable.
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	n, _, err := t.RowCount(ctx)
	return n * 128, err
}

// lookupRows reads the commits named by keys: each is parsed, read with
// one chunk read and checked to be within the table's histories through
// the heads' closures. A malformed or unknown hash, a chunk that is not a
// commit, or a commit outside the table's histories gives no rows.
func (t *Table) lookupRows(ctx *sql.Context, keys []string) (sql.RowIter, error) {
	var heads []*commitgraph.Commit
	var out []sql.Row
	seen := map[chunks.Address]bool{}
	for _, k := range keys {
		// A hash matches only in its canonical (lower-case) form, as the
		// column compares with a binary collation.
		a, err := chunks.ParseAddress(k)
		if err != nil || a.String() != k || seen[a] {
			continue
		}
		seen[a] = true
		c, err := t.graph.ReadCommit(ctx, a)
		if errors.Is(err, commitgraph.ErrNotCommit) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if heads == nil {
			for _, h := range t.heads {
				hc, err := t.graph.ReadCommit(ctx, h)
				if err != nil {
					return nil, err
				}
				heads = append(heads, hc)
			}
		}
		in := false
		for _, hc := range heads {
			if in, err = t.graph.IsAncestorCommit(ctx, c, hc); err != nil {
				return nil, err
			} else if in {
				break
			}
		}
		if in {
			out = append(out, t.rows(c)...)
		}
	}
	return sql.RowsToRowIter(out...), nil
}

// rowIter streams the rows of a commit source.
type rowIter struct {
	t       *Table
	src     commitSource
	pending []sql.Row
}

func (it *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	for len(it.pending) == 0 {
		c, err := it.src.next(ctx)
		if err != nil {
			return nil, err
		}
		it.pending = it.t.rows(c)
	}
	r := it.pending[0]
	it.pending = it.pending[1:]
	return r, nil
}

func (it *rowIter) Close(*sql.Context) error { return nil }
