package systables

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// dolt_commit_diff_<t>'s refusals, in Dolt's words: a query must name one
// to_commit and one from_commit.
var (
	errExactlyOneToCommit = errors.New("dolt_commit_diff_* tables must be filtered to a single 'to_commit'")
	errCommitDiffArgs     = errors.New("commit_diff_<table> requires one 'to_commit' and one 'from_commit'")
)

// commitDiff is dolt_commit_diff_<t>: the rows of t that differ between
// the two revisions a query names with to_commit = 'x' AND from_commit =
// 'y' (hashes, branches, tags, HEAD~n, WORKING, STAGED), in t's current
// columns, as dolt_diff('y', 'x', 't') gives them, the revisions named as
// the query wrote them. It has no rows of its own: a scan fails, as does a
// lookup of other than one pair of revisions. The lookup resolves each
// revision (a hash with a chunk read, a branch or tag through the refs)
// and diffs the two tables, at a cost that follows the size of the
// change.
//
// dolt_commit_diff_dolt_schemas and dolt_commit_diff_dolt_procedures are
// the same over the schema objects of an item (item set): both sides'
// objects are read whole, as dolt_diff_dolt_schemas reads them.
type commitDiff struct {
	v     *View
	name  string // dolt_commit_diff_<t>
	table string // t as the working root stores it
	item  string // dolt_schemas or dolt_procedures; "" for a table
	d     *RowDiff
}

var _ pairLookup = (*commitDiff)(nil)

func openCommitDiff(ctx *sql.Context, v *View, name string) (*Table, bool, error) {
	cur, err := v.readTable(ctx, v.Working, name)
	if err != nil || cur == nil {
		return nil, false, err
	}
	exact, _, _, err := findTable(ctx, v.Working, name)
	if err != nil {
		return nil, false, err
	}
	tn := CommitDiffPrefix + exact
	cd := &commitDiff{v: v, name: tn, table: exact, d: NewRowDiff(tn, cur.Schema)}
	// Dolt declares the pair UNIQUE; a pair names many rows.
	pair := indexSpec{id: commitPairsIndex, columns: []string{toCommitColumn, fromCommitColumn}, kind: pairIndex}
	return &Table{name: tn, v: v, sch: cd.d.Schema(), impl: cd, indexes: []indexSpec{pair}}, true, nil
}

// openObjectsCommitDiff returns dolt_commit_diff_dolt_schemas or
// dolt_commit_diff_dolt_procedures, when the working root holds the item.
func openObjectsCommitDiff(ctx *sql.Context, v *View, item string) (*Table, bool, error) {
	if ok, err := hasObjectItem(ctx, v.Working, item); err != nil || !ok {
		return nil, false, err
	}
	tn := CommitDiffPrefix + item
	cd := &commitDiff{v: v, name: tn, item: item, d: NewRowDiff(tn, ObjectSchema(item))}
	pair := indexSpec{id: commitPairsIndex, columns: []string{toCommitColumn, fromCommitColumn}, kind: pairIndex}
	return &Table{name: tn, v: v, sch: cd.d.Schema(), impl: cd, indexes: []indexSpec{pair}}, true, nil
}

// scan fails: the table's rows are those of a pair of revisions.
func (cd *commitDiff) scan(*sql.Context) (sql.RowIter, error) {
	return nil, fmt.Errorf("error querying table %s: %w", cd.name, errExactlyOneToCommit)
}

// lookup is not called: the table's only index is the pair.
func (cd *commitDiff) lookup(*sql.Context, string, []string) (sql.RowIter, error) {
	return nil, errCommitDiffArgs
}

// lookupPair returns the rows of the one pair of revisions ranges names
// (to_commit, from_commit), and refuses any other ranges.
func (cd *commitDiff) lookupPair(ctx *sql.Context, ranges sql.MySQLRangeCollection) (sql.RowIter, error) {
	if len(ranges) != 1 || len(ranges[0]) != 2 {
		return nil, errCommitDiffArgs
	}
	to, ok, null := pointKey(ranges[0][0])
	if !ok || null {
		return nil, errCommitDiffArgs
	}
	from, ok, null := pointKey(ranges[0][1])
	if !ok || null {
		return nil, errCommitDiffArgs
	}
	tr, ts, err := cd.side(ctx, to)
	if err != nil {
		return nil, err
	}
	fr, fs, err := cd.side(ctx, from)
	if err != nil {
		return nil, err
	}
	if cd.item != "" {
		return cd.objectsPair(ctx, fr, fs, tr, ts)
	}
	if fs.Table != nil && ts.Table != nil && fs.Table.Table.Rows().Address() == ts.Table.Table.Rows().Address() {
		return sql.RowsToRowIter(), nil
	}
	rows, err := cd.d.Rows(ctx, fs, ts)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// objectsPair returns the schema objects of the item that differ between
// the roots of the two sides, in key order.
func (cd *commitDiff) objectsPair(ctx *sql.Context, fr commitgraph.RootValue, fs Side, tr commitgraph.RootValue, ts Side) (sql.RowIter, error) {
	rows, err := diffObjectRoots(ctx, cd.v, cd.item, cd.d, fr, fs, tr, ts)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// side returns the root and the side of the diff that the revision spec
// names: the side's table (nil if it has none; none is read for an item
// of schema objects) under the name spec, with the commit's date (none for
// WORKING and STAGED).
func (cd *commitDiff) side(ctx *sql.Context, spec string) (commitgraph.RootValue, Side, error) {
	s := Side{Commit: spec}
	root := cd.v.Working
	switch {
	case strings.EqualFold(spec, Working):
	case strings.EqualFold(spec, Staged):
		r, err := cd.v.staged(ctx)
		if err != nil {
			return root, s, err
		}
		root = r
	default:
		c, err := cd.v.resolveCommit(ctx, spec)
		if rev := (*verso.RevisionError)(nil); errors.As(err, &rev) {
			return root, s, RevisionError(rev.Rev, rev.Err)
		}
		if err != nil {
			return root, s, err
		}
		if root, err = cd.v.openRoot(ctx, c); err != nil {
			return root, s, err
		}
		s.Date = c.Meta.Time
	}
	if cd.item != "" {
		return root, s, nil
	}
	t, err := cd.v.readTable(ctx, root, cd.table)
	s.Table = t
	return root, s, err
}

// rowCount is an estimate: the rows of one pair are those of a change.
func (cd *commitDiff) rowCount(ctx *sql.Context) (uint64, bool, error) {
	if cd.item != "" {
		return 1, false, nil
	}
	t, err := cd.v.readTable(ctx, cd.v.Working, cd.table)
	if err != nil || t == nil {
		return 1, false, err
	}
	return max(t.Table.Count(), 1), false, nil
}
