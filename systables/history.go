package systables

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// history is dolt_history_<t>: the rows of t at every commit of HEAD's
// history (commits without the table have none), in log order, with the
// commit's hash, committer and date.
type history struct {
	v     *View
	table string
	cols  sql.Schema // the table's current columns
}

func openHistory(ctx *sql.Context, v *View, name string) (*Table, bool, error) {
	cur, err := v.readTable(ctx, v.Working, name)
	if err != nil || cur == nil {
		return nil, false, err
	}
	exact, _, _, err := findTable(ctx, v.Working, name)
	if err != nil {
		return nil, false, err
	}
	tn := HistoryPrefix + exact
	h := &history{v: v, table: exact}
	var sch sql.Schema
	for _, c := range cur.Schema {
		// Dolt keeps the table's key columns as the history's primary
		// key, though a row appears once a commit.
		sch = append(sch, &sql.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable && !c.PrimaryKey, PrimaryKey: c.PrimaryKey, Source: tn})
	}
	h.cols = sch
	sch = append(sch[:len(sch):len(sch)], col(tn, "commit_hash", historyHashType, false), col(tn, "committer", historyCommitterType, false),
		col(tn, "commit_date", types.Datetime3, false))
	return &Table{name: tn, v: v, sch: sch, impl: h,
		indexes: []indexSpec{onHash(commitHashColumn, commitHashColumn, false)}}, true, nil
}

// The types Dolt gives dolt_history_<t>'s commit columns.
var (
	historyHashType      = types.MustCreateString(sqltypes.Char, 32, sql.Collation_ascii_bin)
	historyCommitterType = types.MustCreateString(sqltypes.VarChar, 1024, sql.Collation_ascii_bin)
)

// commitIter streams the rows of a sequence of commits' table values.
type commitIter struct {
	h    *history
	next func(ctx *sql.Context) (*commitgraph.Commit, error)
	c    *commitgraph.Commit
	t    *StoredTable
	m    []int
	it   *tables.RowIter
}

func (it *commitIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if it.it != nil {
			if it.it.Next(ctx) {
				row, err := it.t.Row(it.it.Row())
				if err != nil {
					return nil, err
				}
				n := len(it.h.cols)
				out := make(sql.Row, n+3)
				if err := mapRow(ctx, out, it.h.cols, row, it.t.Schema, it.m); err != nil {
					return nil, err
				}
				who := it.c.Meta.CommitterOrAuthor()
				out[n], out[n+1], out[n+2] = it.c.Addr.String(), who.Name, it.c.Meta.Time
				return out, nil
			}
			if err := it.it.Err(); err != nil {
				return nil, err
			}
			it.it = nil
		}
		c, err := it.next(ctx)
		if err != nil {
			return nil, err
		}
		root, err := it.h.v.openRoot(ctx, c)
		if err != nil {
			return nil, err
		}
		t, err := it.h.v.readTable(ctx, root, it.h.table)
		if err != nil {
			return nil, err
		}
		if t == nil {
			continue
		}
		it.c, it.t = c, t
		it.m = columnMapping(it.h.cols, t)
		it.it = t.Table.Scan(ctx, nil, nil, false)
	}
}

func (it *commitIter) Close(*sql.Context) error { return nil }

func (h *history) scan(ctx *sql.Context) (sql.RowIter, error) {
	head, err := h.v.head(ctx)
	if err != nil {
		return nil, err
	}
	log := h.v.Graph.Log(ctx, head.Addr)
	return &commitIter{h: h, next: func(ctx *sql.Context) (*commitgraph.Commit, error) {
		if log.Next(ctx) {
			return log.Commit(), nil
		}
		if err := log.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}}, nil
}

func (h *history) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	head, err := h.v.head(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := lookupCommits(ctx, &scope{v: h.v, heads: []*commitgraph.Commit{head}}, keys)
	if err != nil {
		return nil, err
	}
	return &commitIter{h: h, next: func(*sql.Context) (*commitgraph.Commit, error) {
		if len(cs) == 0 {
			return nil, io.EOF
		}
		c := cs[0]
		cs = cs[1:]
		return c, nil
	}}, nil
}

// rowCount estimates the current row count at every commit of HEAD's
// history.
func (h *history) rowCount(ctx *sql.Context) (uint64, bool, error) {
	n, _, err := headCount(ctx, h.v)
	if err != nil {
		return 0, false, err
	}
	t, err := h.v.readTable(ctx, h.v.Working, h.table)
	if err != nil || t == nil {
		return n, false, err
	}
	return n * max(t.Table.Count(), 1), false, nil
}
