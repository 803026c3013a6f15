package sqlserver

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// systemTable returns the system table (package systables) named name, if
// it is one: dolt_log of the database's branch, dolt_commits and
// dolt_commit_ancestors. System table names take precedence over tables;
// they are not listed by GetTableNames (as Dolt hides them from SHOW
// TABLES).
func (db *Database) systemTable(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if db.temp || !systables.IsName(name) {
		return nil, false, nil
	}
	t, ok, err := systables.Open(ctx, name, db.name, db.st.graph, db.branch)
	if err != nil || !ok {
		return nil, false, err
	}
	return t, true, nil
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
