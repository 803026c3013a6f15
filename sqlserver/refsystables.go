package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// System tables over refs and the working set, with Dolt's columns:
//
//	dolt_branches  name text PRIMARY KEY, hash text, latest_committer text,
//	               latest_committer_email text, latest_commit_date datetime,
//	               latest_commit_message text, remote text, branch text,
//	               dirty tinyint (the working set differs from the head)
//	dolt_tags      tag_name text PRIMARY KEY, tag_hash text, tagger text,
//	               email text, date datetime, message text
//	dolt_status    table_name text, staged tinyint, status text: the
//	               session branch's staged changes (HEAD to staged, staged
//	               = 1), unstaged ones (staged to working, as the session's
//	               transaction sees it) and conflicts. status is "new
//	               table", "modified", "deleted" or "conflict".
//
// They are plain scans, computed when the statement reads them: there
// are few branches and tags, and dolt_status diffs two pairs of root
// values, which costs what changed.

const (
	branchesName = "dolt_branches"
	tagsName     = "dolt_tags"
	statusName   = "dolt_status"
)

func openRefSystemTable(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error) {
	switch strings.ToLower(name) {
	case branchesName:
		return &rowsTable{name: branchesName, db: db, sch: branchesSchema, rows: db.branchRows}, true, nil
	case tagsName:
		return &rowsTable{name: tagsName, db: db, sch: tagsSchema, rows: db.tagRows}, true, nil
	case statusName:
		return &rowsTable{name: statusName, db: db, sch: statusTableSchema, rows: db.statusRows}, true, nil
	}
	return nil, false, nil
}

func textCol(table, name string, pk, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: types.Text, Source: table, PrimaryKey: pk, Nullable: nullable}
}

var (
	branchesSchema = sql.Schema{
		textCol(branchesName, "name", true, false),
		textCol(branchesName, "hash", false, false),
		textCol(branchesName, "latest_committer", false, true),
		textCol(branchesName, "latest_committer_email", false, true),
		{Name: "latest_commit_date", Type: types.DatetimeMaxPrecision, Source: branchesName, Nullable: true},
		textCol(branchesName, "latest_commit_message", false, true),
		textCol(branchesName, "remote", false, true),
		textCol(branchesName, "branch", false, true),
		{Name: "dirty", Type: types.Boolean, Source: branchesName, Nullable: true},
	}
	tagsSchema = sql.Schema{
		textCol(tagsName, "tag_name", true, false),
		textCol(tagsName, "tag_hash", false, false),
		textCol(tagsName, "tagger", false, false),
		textCol(tagsName, "email", false, false),
		{Name: "date", Type: types.DatetimeMaxPrecision, Source: tagsName, Nullable: false},
		textCol(tagsName, "message", false, false),
	}
	statusTableSchema = sql.Schema{
		textCol(statusName, "table_name", true, false),
		{Name: "staged", Type: types.Boolean, Source: statusName, PrimaryKey: true, Nullable: false},
		textCol(statusName, "status", true, false),
	}
)

func (db *Database) branchRows(ctx *sql.Context) ([]sql.Row, error) {
	g := db.st.graph
	bs, err := g.Branches(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(bs))
	for _, b := range bs {
		c, ws, err := g.BranchState(ctx, b.Name)
		if err != nil {
			return nil, err
		}
		who := c.Meta.CommitterOrAuthor()
		dirty := ws.Working != c.Root || ws.Staged != c.Root
		rows = append(rows, sql.Row{b.Name, c.Addr.String(), who.Name, who.Email, c.Meta.Time, c.Meta.Message, "", "", dirty})
	}
	return rows, nil
}

func (db *Database) tagRows(ctx *sql.Context) ([]sql.Row, error) {
	ts, err := db.st.graph.Tags(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, sql.Row{t.Name, t.Commit.String(), t.Tagger.Name, t.Tagger.Email, t.Time, t.Message})
	}
	return rows, nil
}

func (db *Database) statusRows(ctx *sql.Context) ([]sql.Row, error) {
	if db.rev != nil {
		return nil, nil // a commit has no working set
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	entries, err := d.Status(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, len(entries))
	for i, e := range entries {
		rows[i] = sql.Row{e.Table, e.Staged, e.Status.String()}
	}
	return rows, nil
}

// rowsTable is a read-only table of rows computed per scan.
type rowsTable struct {
	name string
	db   *Database
	sch  sql.Schema
	rows func(*sql.Context) ([]sql.Row, error)
}

var _ sql.Table = (*rowsTable)(nil)

func (t *rowsTable) Name() string                   { return t.name }
func (t *rowsTable) String() string                 { return t.name }
func (t *rowsTable) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *rowsTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *rowsTable) IsTemporary() bool              { return false }
func (t *rowsTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

func (t *rowsTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := t.rows(ctx)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}
