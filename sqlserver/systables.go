package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
	"github.com/verso-db/verso/tables"
)

// systemTable returns the system table (package systables) named name, if
// it is one: dolt_log of the database's branch, dolt_commits,
// dolt_commit_ancestors, dolt_diff, dolt_column_diff, and dolt_diff_<t>,
// dolt_commit_diff_<t>, dolt_history_<t> and dolt_blame_<t> for each
// table t. System table names take precedence over tables; they
// are not listed by GetTableNames (as Dolt hides them from SHOW TABLES).
func (db *Database) systemTable(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if db.temp || !systables.IsName(name) {
		return nil, false, nil
	}
	v, err := db.systemView(ctx)
	if err != nil {
		return nil, false, err
	}
	t, ok, err := systables.Open(ctx, name, v)
	if err != nil || !ok {
		return nil, false, err
	}
	return t, true, nil
}

// systemView returns what the system tables read: the refs of the session
// transaction's snapshot (taken with its working set, so a transaction
// does not see commits that others made after it began) and its working
// root; HEAD is the revision's commit in a revision database at a tag or
// a commit, and under AS OF. When the transaction's own working set moved since the snapshot
// (it made a commit itself), the refs are read again.
func (db *Database) systemView(ctx *sql.Context) (*systables.View, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	if d.refs == nil || !d.refs.ws.Equal(d.Start()) {
		refs, err := db.st.graph.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		d.refs = &refsSnapshot{refs: refs, ws: d.Start()}
	}
	return &systables.View{DB: db.name, Graph: db.st.graph, Refs: d.refs.refs, Branch: db.branch, At: db.rev,
		Working: d.Root(), Tables: tableReader{db}, Session: txSession{db}, Cache: db.p.sysCache}, nil
}

// openSessionTables opens the system tables that follow the session's
// transaction (systables.OpenSession: dolt_branches, dolt_status,
// dolt_conflicts, dolt_events, ...).
func openSessionTables(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error) {
	return systables.OpenSession(ctx, name, db.sessionView())
}

// sessionView returns what the tables of systables.OpenSession read: the
// database and its branch, with the session's transaction reached when a
// statement runs (no snapshot of the refs: those tables read the
// transaction, or the refs as they are now).
func (db *Database) sessionView() *systables.View {
	return &systables.View{DB: db.name, Graph: db.st.graph, Branch: db.branch, Tables: tableReader{db}, Session: txSession{db},
		Statistics: func(ctx *sql.Context, _ string) ([]sql.Row, error) { return db.p.statisticsRows(ctx, db) },
		Activity:   db.p.branchActivity(db)}
}

// branchActivity returns what dolt_branch_activity reads of db; nil while
// branch activity is not tracked.
func (p *Provider) branchActivity(db *Database) systables.BranchActivity {
	if p.activity == nil {
		return nil
	}
	return func(ctx *sql.Context, _ string) ([]sql.Row, error) { return p.activityRows(ctx, db) }
}

// txSession is the session's transaction on a database, for the system
// tables.
type txSession struct{ db *Database }

var _ systables.Session = txSession{}

func (s txSession) Txn(ctx *sql.Context) (*verso.Txn, error) {
	d, err := s.db.tx(ctx)
	if err != nil {
		return nil, err
	}
	return d.Txn, nil
}

func (s txSession) Flush(ctx *sql.Context) error {
	d, err := s.db.tx(ctx)
	if err != nil {
		return err
	}
	return d.flushAll(ctx)
}

// refsSnapshot is the refs a transaction's system tables read, and the
// transaction's working set when they were taken.
type refsSnapshot struct {
	refs *commitgraph.Snapshot
	ws   commitgraph.WorkingSet
}

// tableReader opens stored tables for the system tables, with the schema
// and row conversion of the ordinary table read (Table.toRow). History
// tables open a table value per commit, each at its own address, so the
// engine schema is cached by the stored schema instead (parsing column
// types costs more than reading the table).
type tableReader struct{ db *Database }

func (r tableReader) ReadTable(ctx *sql.Context, name string, addr chunks.Address) (*systables.StoredTable, error) {
	t, err := r.db.p.cache.readLike(ctx, r.db.st, name, addr)
	if err != nil {
		return nil, err
	}
	sch, err := r.db.p.cache.schemaFor(ctx, r.db, name, t.Schema())
	if err != nil {
		return nil, err
	}
	tbl := &Table{db: r.db, name: name, info: &tableInfo{addr: addr, t: t, sch: sch, collation: sql.Collation_Default}}
	return &systables.StoredTable{Table: t, Schema: sch.Schema, Row: tbl.toRow}, nil
}

func (r tableReader) Schema(ctx *sql.Context, name string, s *tables.Schema) (sql.Schema, error) {
	sch, err := r.db.p.cache.schemaFor(ctx, r.db, name, s)
	return sch.Schema, err
}

func (r tableReader) Value(t sql.Type, v tables.Value) (any, error) { return fromValue(t, v) }

func (r tableReader) Stored(ctx *sql.Context, t sql.Type, v any) (tables.Value, error) {
	return toValue(ctx, t, v)
}

// ReplaceRow implements systables.Session (an UPDATE of
// dolt_conflicts_<t> writing our row through to t).
func (s txSession) ReplaceRow(ctx *sql.Context, table string, old, row []tables.Value) error {
	d, err := s.db.tx(ctx)
	if err != nil {
		return err
	}
	if d.ReadOnly() {
		return fmt.Errorf("verso: %s is a read-only revision", s.db.name)
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	addr, ok, err := d.Root().Get(ctx, commitgraph.TablePrefix+table)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(table)
	}
	t, err := tables.Load(ctx, s.db.st.graph.NodeStore(), addr, sqlCollations{})
	if err != nil {
		return err
	}
	ed := t.Edit()
	ed.KeepZero(true)
	if err := ed.Update(ctx, old, row); err != nil {
		return err
	}
	nt, err := ed.Table(ctx)
	if err != nil {
		return err
	}
	na, err := nt.Write(ctx)
	if err != nil {
		return err
	}
	root, err := d.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + table, Addr: na})
	if err != nil {
		return err
	}
	d.SetRoot(root)
	delete(d.writers, strings.ToLower(table))
	return nil
}

// CommitGraph returns the commit graph of the database named name, for
// tools and tests that write commits directly.
func (p *Provider) CommitGraph(name string) (*commitgraph.DB, bool) {
	st, ok := p.state(name)
	if !ok {
		return nil, false
	}
	return st.graph, true
}

// SystemView returns what the system tables of the database named db read
// in the session of ctx, for tools that use package systables directly
// (verso diff).
func (p *Provider) SystemView(ctx *sql.Context, db string) (*systables.View, error) {
	d, err := p.Database(ctx, db)
	if err != nil {
		return nil, err
	}
	vd, ok := d.(*Database)
	if !ok || vd.temp {
		return nil, fmt.Errorf("verso: %q is not a verso database", db)
	}
	return vd.systemView(ctx)
}
