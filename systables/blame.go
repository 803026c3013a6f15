package systables

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// dolt_blame_<t>'s refusals, in Dolt's words (Dolt's dolt_blame_<t> is a
// view, which is where its INSERT refusal comes from).
var (
	errUnblameable = errors.New("unable to generate blame view for table without primary key")
	errBlameInsert = errors.New("expected insert destination to be resolved or unresolved table")
)

// blame is dolt_blame_<t>: for each row of t at HEAD, by its key, the
// commit that last changed it: the first commit, in log order from HEAD,
// whose diff against one of its parents (a root commit: against no table)
// adds or modifies the row, as dolt_diff_<t> lists those diffs. The rows
// are HEAD's: uncommitted changes have no commit to name.
//
// A scan reads HEAD's rows, then walks HEAD's history in log order,
// diffing t between each commit and its parents (skipped where both hold
// the same table, and at a cost that follows the change otherwise), and
// stops as soon as every row is named: a row last changed n commits ago
// costs a walk of n commits, a row never changed since t was made a walk
// to the commit that made it. It holds every row's key until then.
type blame struct {
	v     *View
	table string     // t as the working root stores it
	keys  sql.Schema // t's key columns, as the blame shows them
}

// blameTable is dolt_blame_<t>: its rows are read as any system table's,
// and an INSERT is refused as Dolt refuses it (Dolt's blame is a view).
type blameTable struct{ *Table }

var _ sql.InsertableTable = blameTable{}

// Inserter implements sql.InsertableTable: every row is refused.
func (blameTable) Inserter(*sql.Context) sql.RowInserter { return refusedInserter{} }

// refusedInserter refuses every row with errBlameInsert.
type refusedInserter struct{}

func (refusedInserter) StatementBegin(*sql.Context)              {}
func (refusedInserter) DiscardChanges(*sql.Context, error) error { return nil }
func (refusedInserter) StatementComplete(*sql.Context) error     { return nil }
func (refusedInserter) Insert(*sql.Context, sql.Row) error       { return errBlameInsert }
func (refusedInserter) Close(*sql.Context) error                 { return nil }

// openBlame opens dolt_blame_<name>: a table of the working root with a
// primary key. A table it lacks fails with "table not found: name"
// (1146), a keyless one with errUnblameable, as Dolt words them.
func openBlame(ctx *sql.Context, v *View, name string) (sql.Table, bool, error) {
	cur, err := v.readTable(ctx, v.Working, name)
	if err != nil {
		return nil, false, err
	}
	if cur == nil {
		// MySQL's number, not the engine's table-not-found kind, which the
		// engine would reword with the blame's own name.
		return nil, false, mysql.NewSQLError(mysql.ERNoSuchTable, mysql.SSUnknownSQLState, "table not found: %s", name)
	}
	s := cur.Table.Schema()
	if s.Keyless() {
		return nil, false, errUnblameable
	}
	exact, _, _, err := findTable(ctx, v.Working, name)
	if err != nil {
		return nil, false, err
	}
	tn := BlamePrefix + exact
	b := &blame{v: v, table: exact}
	for _, p := range s.PrimaryKey {
		c := cur.Schema[cur.Schema.IndexOfColName(s.Columns[p].Name)]
		b.keys = append(b.keys, &sql.Column{Name: c.Name, Type: c.Type, Nullable: true, Source: tn})
	}
	sch := append(b.keys[:len(b.keys):len(b.keys)],
		col(tn, "commit", diffTextType, true), col(tn, "commit_date", types.DatetimeMaxPrecision, true),
		textCol(tn, "committer", false, false), textCol(tn, "email", false, false), textCol(tn, "message", false, false))
	return blameTable{&Table{name: tn, v: v, sch: sch, impl: b}}, true, nil
}

// blamed is a row of HEAD's t and the commit that last changed it.
type blamed struct {
	key sql.Row // the row's key values, as b.keys
	by  *commitgraph.Commit
	// removed: the first diff of the row in log order removes it (it came
	// back through another parent); Dolt's blame leaves such a row out.
	removed bool
}

func (b *blame) scan(ctx *sql.Context) (sql.RowIter, error) {
	head, err := b.v.head(ctx)
	if err != nil {
		return nil, err
	}
	root, err := b.v.openRoot(ctx, head)
	if err != nil {
		return nil, err
	}
	ht, err := b.v.readTable(ctx, root, b.table)
	if err != nil || ht == nil {
		return sql.RowsToRowIter(), err
	}
	// HEAD's rows, by row map key, in key order.
	var rows []*blamed
	open := map[string]*blamed{}
	m := columnMapping(b.keys, ht)
	it := ht.Table.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		r, err := ht.Row(it.Row())
		if err != nil {
			return nil, err
		}
		key := make(sql.Row, len(b.keys))
		if err := mapRow(ctx, key, b.keys, r, ht.Schema, m); err != nil {
			return nil, err
		}
		bl := &blamed{key: key}
		rows = append(rows, bl)
		open[string(it.Key())] = bl
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	log := b.v.Graph.Log(ctx, head.Addr)
	for len(open) > 0 && log.Next(ctx) {
		if err := b.name(ctx, log.Commit(), open); err != nil {
			return nil, err
		}
	}
	if err := log.Err(); err != nil {
		return nil, err
	}
	out := make([]sql.Row, 0, len(rows))
	for _, bl := range rows {
		if bl.by == nil || bl.removed {
			continue
		}
		who := bl.by.Meta.CommitterOrAuthor()
		out = append(out, append(bl.key[:len(bl.key):len(bl.key)],
			bl.by.Addr.String(), bl.by.Meta.Time, who.Name, who.Email, bl.by.Meta.Message))
	}
	return sql.RowsToRowIter(out...), nil
}

// tableAt returns the address of t in root, if root holds it.
func (b *blame) tableAt(ctx *sql.Context, root commitgraph.RootValue) (chunks.Address, bool, error) {
	_, a, ok, err := findTable(ctx, root, b.table)
	return a, ok, err
}

// name names the rows of open that commit c changed against one of its
// parents, and takes them out of open.
func (b *blame) name(ctx *sql.Context, c *commitgraph.Commit, open map[string]*blamed) error {
	root, err := b.v.openRoot(ctx, c)
	if err != nil {
		return err
	}
	to, inTo, err := b.tableAt(ctx, root)
	if err != nil {
		return err
	}
	// A root commit is diffed against no table.
	for i := 0; i < max(len(c.Parents), 1); i++ {
		var from chunks.Address
		inFrom := false
		if i < len(c.Parents) {
			pc, err := b.v.Graph.ReadCommit(ctx, c.Parents[i])
			if err != nil {
				return err
			}
			proot, err := b.v.openRoot(ctx, pc)
			if err != nil {
				return err
			}
			if from, inFrom, err = b.tableAt(ctx, proot); err != nil {
				return err
			}
		}
		if inFrom == inTo && (!inTo || from == to) {
			continue
		}
		if err := b.diff(ctx, c, from, inFrom, to, inTo, open); err != nil {
			return err
		}
		if len(open) == 0 {
			return nil
		}
	}
	return nil
}

// diff names the rows of open that differ between t at from and t at to
// (each absent unless in...) as c's.
func (b *blame) diff(ctx *sql.Context, c *commitgraph.Commit, from chunks.Address, inFrom bool, to chunks.Address, inTo bool, open map[string]*blamed) error {
	var ft, tt *StoredTable
	var err error
	if inFrom {
		if ft, err = b.v.Tables.ReadTable(ctx, b.table, from); err != nil {
			return err
		}
	}
	if inTo {
		if tt, err = b.v.Tables.ReadTable(ctx, b.table, to); err != nil {
			return err
		}
	}
	// The rows that changed (an ALTER's rewrite of equal values is none).
	return diffRows(ctx, ft, tt, func(ch rowChange) error {
		bl := open[string(ch.key)]
		if bl == nil {
			return nil
		}
		bl.by, bl.removed = c, ch.to == nil
		delete(open, string(ch.key))
		return nil
	})
}

// lookup is not called: the blame has no index, as Dolt's view has none.
func (b *blame) lookup(*sql.Context, string, []string) (sql.RowIter, error) {
	return nil, errors.New("systables: dolt_blame_<t> has no index")
}

// rowCount estimates a row per row of t.
func (b *blame) rowCount(ctx *sql.Context) (uint64, bool, error) {
	t, err := b.v.readTable(ctx, b.v.Working, b.table)
	if err != nil || t == nil {
		return 0, false, err
	}
	return t.Table.Count(), false, nil
}
