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
	LogName          = "dolt_log"
	CommitsName      = "dolt_commits"
	AncestorsName    = "dolt_commit_ancestors"
	DiffName         = "dolt_diff"
	DiffTablePrefix  = "dolt_diff_"
	HistoryPrefix    = "dolt_history_"
	commitHashColumn = "commit_hash"
)

// Names returns the names of the fixed system tables Open serves (beside
// them, dolt_diff_<t> and dolt_history_<t> for each table t, and for the
// tables of schema objects).
func Names() []string {
	return []string{LogName, CommitsName, AncestorsName, DiffName, SchemasName, ProceduresName}
}

// IsName reports whether name (in any case) may be a system table's name:
// a fixed one, or dolt_diff_<t> or dolt_history_<t> for some t.
func IsName(name string) bool {
	l := strings.ToLower(name)
	for _, n := range Names() {
		if l == n {
			return true
		}
	}
	return len(l) > len(DiffTablePrefix) && strings.HasPrefix(l, DiffTablePrefix) ||
		len(l) > len(HistoryPrefix) && strings.HasPrefix(l, HistoryPrefix)
}

// impl is what distinguishes one system table from another: its full scan
// and its index lookups.
type impl interface {
	scan(ctx *sql.Context) (sql.RowIter, error)
	// lookup returns the rows whose column col holds one of keys.
	lookup(ctx *sql.Context, col string, keys []string) (sql.RowIter, error)
	rowCount(ctx *sql.Context) (uint64, bool, error)
}

// indexSpec is one index of a system table: on one text column, point
// lookups only.
type indexSpec struct {
	id, column string
	unique     bool
}

// Table is a commit-indexed system table. It reads the commit graph as
// its View shows it (the transaction's snapshot); it is read-only.
type Table struct {
	name    string
	v       *View
	sch     sql.Schema
	indexes []indexSpec
	impl    impl
}

var (
	_ sql.Table                 = (*Table)(nil)
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.IndexedTable          = (*Table)(nil)
	_ sql.StatisticsTable       = (*Table)(nil)
)

// Open returns the system table named name (any case) of the view v; ok is
// false if name is no system table's, or names dolt_diff_<t> or
// dolt_history_<t> for a table t that v's working root does not hold.
func Open(ctx *sql.Context, name string, v *View) (t *Table, ok bool, err error) {
	l := strings.ToLower(name)
	switch l {
	case LogName, CommitsName, AncestorsName:
		return openCommitTable(ctx, l, v)
	case DiffName:
		return openDiff(v), true, nil
	case SchemasName, ProceduresName:
		return openObjectTable(v, l), true, nil
	}
	if item, ok := strings.CutPrefix(l, DiffTablePrefix); ok && isObjectTable(item) {
		return openObjectsDiff(ctx, v, item)
	}
	if item, ok := strings.CutPrefix(l, HistoryPrefix); ok && isObjectTable(item) {
		return openObjectHistory(ctx, v, item)
	}
	if l == DiffTablePrefix+EventsTable {
		return openEventsDiff(v)
	}
	if strings.HasPrefix(l, DiffTablePrefix) && len(l) > len(DiffTablePrefix) {
		return openTableDiff(ctx, v, name[len(DiffTablePrefix):])
	}
	if strings.HasPrefix(l, HistoryPrefix) && len(l) > len(HistoryPrefix) {
		return openHistory(ctx, v, name[len(HistoryPrefix):])
	}
	return nil, false, nil
}

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.name }

// String implements sql.Table.
func (t *Table) String() string { return t.name }

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID { return sql.Collation_Default }

// IsTemporary reports false: system tables are not temporary tables.
func (t *Table) IsTemporary() bool { return false }

// Schema implements sql.Table.
func (t *Table) Schema(*sql.Context) sql.Schema { return t.sch }

// partition is the table's only partition.
type partition struct{}

func (partition) Key() []byte { return []byte("all") }

// Partitions implements sql.Table: one partition.
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// PartitionRows implements sql.Table: the rows of the index lookup, or
// every row, streamed.
func (t *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	if lp, ok := p.(lookupPartition); ok {
		return t.impl.lookup(ctx, lp.column, lp.keys)
	}
	return t.impl.scan(ctx)
}

// RowCount implements sql.StatisticsTable.
func (t *Table) RowCount(ctx *sql.Context) (uint64, bool, error) { return t.impl.rowCount(ctx) }

// DataLength implements sql.StatisticsTable.
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	n, _, err := t.RowCount(ctx)
	return n * 128, err
}

// parseHash returns the commit a key names, or false when the key is
// malformed, not in canonical (lower-case) form, or names no commit: such
// keys match no row.
func parseHash(ctx context.Context, v *View, k string) (*commitgraph.Commit, bool, error) {
	a, err := chunks.ParseAddress(k)
	if err != nil || a.String() != k {
		return nil, false, nil
	}
	c, err := v.readCommit(ctx, a)
	if errors.Is(err, commitgraph.ErrNotCommit) {
		return nil, false, nil
	}
	return c, err == nil, err
}

// scope is a set of histories: the commits reachable from its heads.
type scope struct {
	v     *View
	heads []*commitgraph.Commit
}

func newScope(ctx context.Context, v *View, heads []chunks.Address) (*scope, error) {
	s := &scope{v: v}
	for _, h := range heads {
		c, err := v.readCommit(ctx, h)
		if err != nil {
			return nil, err
		}
		s.heads = append(s.heads, c)
	}
	return s, nil
}

// contains reports whether c is in one of the histories: a head, or in a
// head's closure (one lookup of (height, address) per head).
func (s *scope) contains(ctx context.Context, c *commitgraph.Commit) (bool, error) {
	for _, h := range s.heads {
		if in, err := s.v.Graph.IsAncestorCommit(ctx, c, h); err != nil || in {
			return in, err
		}
	}
	return false, nil
}

// lookupCommits returns the distinct commits of the scope that keys name,
// in the keys' order.
func lookupCommits(ctx context.Context, s *scope, keys []string) ([]*commitgraph.Commit, error) {
	var out []*commitgraph.Commit
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		c, ok, err := parseHash(ctx, s.v, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if in, err := s.contains(ctx, c); err != nil {
			return nil, err
		} else if in {
			out = append(out, c)
		}
	}
	return out, nil
}

func textCol(table, name string, pk, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: types.Text, PrimaryKey: pk, Nullable: nullable, Source: table}
}

func col(table, name string, t sql.Type, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: t, Nullable: nullable, Source: table}
}

// rowsIter yields rows from a function that returns them a batch at a
// time (nil, io.EOF at the end).
type rowsIter struct {
	next    func(ctx *sql.Context) ([]sql.Row, error)
	pending []sql.Row
}

func (it *rowsIter) Next(ctx *sql.Context) (sql.Row, error) {
	for len(it.pending) == 0 {
		rs, err := it.next(ctx)
		if err != nil {
			return nil, err
		}
		it.pending = rs
	}
	r := it.pending[0]
	it.pending = it.pending[1:]
	return r, nil
}

func (it *rowsIter) Close(*sql.Context) error { return nil }
