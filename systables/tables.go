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
	LogName           = "dolt_log"
	CommitsName       = "dolt_commits"
	AncestorsName     = "dolt_commit_ancestors"
	DiffName          = "dolt_diff"
	ColumnDiffName    = "dolt_column_diff"
	DiffTablePrefix   = "dolt_diff_"
	CommitDiffPrefix  = "dolt_commit_diff_"
	HistoryPrefix     = "dolt_history_"
	BlamePrefix       = "dolt_blame_"
	commitHashColumn  = "commit_hash"
	toCommitColumn    = "to_commit"
	fromCommitColumn  = "from_commit"
	commitPairsIndex  = "commits"
	primaryKeyIndexID = "PRIMARY"
)

// Names returns the names of the fixed system tables this package serves
// (beside them, the tables of Prefixes for each table t).
func Names() []string {
	return []string{LogName, CommitsName, AncestorsName, DiffName, ColumnDiffName, SchemasName, ProceduresName}
}

// Prefixes returns the prefixes of the system tables of a table t:
// dolt_diff_<t>, dolt_commit_diff_<t>, dolt_history_<t>, dolt_blame_<t>.
func Prefixes() []string {
	return []string{DiffTablePrefix, CommitDiffPrefix, HistoryPrefix, BlamePrefix}
}

// IsName reports whether name (in any case) may be a system table's name:
// a fixed one, or a prefix of Prefixes followed by some t.
func IsName(name string) bool {
	l := strings.ToLower(name)
	for _, n := range Names() {
		if l == n {
			return true
		}
	}
	for _, p := range Prefixes() {
		if len(l) > len(p) && strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// impl is what distinguishes one system table from another: its full scan
// and its index lookups.
type impl interface {
	scan(ctx *sql.Context) (sql.RowIter, error)
	// lookup returns the rows whose column col holds one of keys.
	lookup(ctx *sql.Context, col string, keys []string) (sql.RowIter, error)
	rowCount(ctx *sql.Context) (uint64, bool, error)
}

// indexSpec is one index of a system table.
type indexSpec struct {
	id      string
	columns []string // the indexed columns, in order
	unique  bool
	kind    indexKind
}

// indexKind says how a system table answers the lookups of an index.
type indexKind uint8

const (
	// hashIndex: point lookups of commit hashes (and WORKING, STAGED) on
	// one column, each hash read with a chunk read (index.go).
	hashIndex indexKind = iota
	// hiddenHashIndex: a hashIndex that the table's literal filters use
	// but that it does not declare, where Dolt declares no key (a keyless
	// table's dolt_diff_<t>).
	hiddenHashIndex
	// pairIndex: (to_commit, from_commit) of dolt_commit_diff_<t>: its
	// ranges go to the table as they are (pairLookup), which answers one
	// pair of points and refuses the rest.
	pairIndex
	// rowKeyIndex: to_pks or from_pks of dolt_diff_<t>, the table's key
	// columns on one side: a lookup reads what a scan reads and keeps the
	// rows in the ranges (Dolt declares these keys; lookups by them walk
	// the history in Dolt too).
	rowKeyIndex
)

// onHash is a hashIndex named id on column.
func onHash(id, column string, unique bool) indexSpec {
	return indexSpec{id: id, columns: []string{column}, unique: unique}
}

// column returns the index's first column.
func (s indexSpec) column() string { return s.columns[0] }

// declared reports whether the table lists the index (GetIndexes).
func (s indexSpec) declared() bool { return s.kind != hiddenHashIndex }

// hashes reports whether the index takes point lookups of hashes.
func (s indexSpec) hashes() bool { return s.kind == hashIndex || s.kind == hiddenHashIndex }

// Table is a commit-indexed system table. It reads the commit graph as
// its View shows it (the transaction's snapshot); it is read-only.
type Table struct {
	name    string
	v       *View
	sch     sql.Schema
	indexes []indexSpec
	impl    impl
	// proj is the columns the table yields, nil for all (project.go);
	// full is then the impl of whole rows when impl yields projected ones.
	proj *projection
	full impl
}

var (
	_ sql.Table                 = (*Table)(nil)
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.IndexedTable          = (*Table)(nil)
	_ sql.StatisticsTable       = (*Table)(nil)
)

// Open returns the system table named name (any case) of the view v; ok is
// false if name is no system table's, or names a table of a table t (as
// Prefixes lists them) that v's working root does not hold.
// dolt_blame_<t> fails instead, in Dolt's words: it is a view in Dolt.
func Open(ctx *sql.Context, name string, v *View) (t sql.Table, ok bool, err error) {
	l := strings.ToLower(name)
	switch l {
	case LogName, CommitsName, AncestorsName:
		return nilIfNotOK(openCommitTable(ctx, l, v))
	case DiffName:
		return openDiff(v), true, nil
	case ColumnDiffName:
		return openColumnDiff(v), true, nil
	case SchemasName, ProceduresName:
		return openObjectTable(v, l), true, nil
	}
	if item, ok := strings.CutPrefix(l, DiffTablePrefix); ok && isObjectTable(item) {
		return openObjectsDiff(ctx, v, item)
	}
	if item, ok := strings.CutPrefix(l, CommitDiffPrefix); ok && isObjectTable(item) {
		return nilIfNotOK(openObjectsCommitDiff(ctx, v, item))
	}
	if item, ok := strings.CutPrefix(l, HistoryPrefix); ok && isObjectTable(item) {
		return openObjectHistory(ctx, v, item)
	}
	if l == DiffTablePrefix+EventsTable {
		return nilIfNotOK(openEventsDiff(v))
	}
	for _, p := range Prefixes() {
		if !strings.HasPrefix(l, p) || len(l) == len(p) {
			continue
		}
		t := name[len(p):]
		switch p {
		case DiffTablePrefix:
			return nilIfNotOK(openTableDiff(ctx, v, t))
		case CommitDiffPrefix:
			return nilIfNotOK(openCommitDiff(ctx, v, t))
		case HistoryPrefix:
			return nilIfNotOK(openHistory(ctx, v, t))
		case BlamePrefix:
			return openBlame(ctx, v, t)
		}
	}
	return nil, false, nil
}

// nilIfNotOK returns a *Table as a sql.Table, nil (not a typed nil) when
// there is none.
func nilIfNotOK(t *Table, ok bool, err error) (sql.Table, bool, error) {
	if t == nil || !ok || err != nil {
		return nil, false, err
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

// Schema implements sql.Table.
func (t *Table) Schema(*sql.Context) sql.Schema {
	if t.proj != nil {
		return t.proj.sch
	}
	return t.sch
}

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
	var it sql.RowIter
	var err error
	if lp, ok := p.(lookupPartition); ok {
		it, err = t.lookupRows(ctx, lp)
	} else {
		it, err = t.impl.scan(ctx)
	}
	if err != nil {
		return nil, err
	}
	return t.project(it), nil
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
	c, err := v.Graph.ReadCommit(ctx, a)
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
		c, err := v.Graph.ReadCommit(ctx, h)
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
