package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// @@dolt_show_system_tables, as Dolt's: while it is on, SHOW TABLES and
// information_schema.tables list the database's system tables beside its
// tables (GetTableNames): the stored system tables it holds (dolt_docs,
// dolt_ignore, ...), dolt_schemas and dolt_procedures while it has
// objects of theirs, the event log's tables while it has one, and the
// tables Dolt lists (systables.ListedNames) that verso serves.

// systemTableNames returns the system tables to list for root, the
// database's working root.
func (db *Database) systemTableNames(ctx *sql.Context, root commitgraph.RootValue) ([]string, error) {
	ents, err := root.Entries(ctx, tablePrefix)
	if err != nil {
		return nil, err
	}
	var tables, out []string
	for _, e := range ents {
		n := strings.TrimPrefix(e.Name, tablePrefix)
		tables = append(tables, n)
		if isStoredSystemTable(n) {
			out = append(out, n)
		}
	}
	for _, item := range []string{verso.SchemasItem, verso.ProceduresItem} {
		if ents, err := verso.ObjectEntries(ctx, root, item); err != nil {
			return nil, err
		} else if len(ents) > 0 {
			tables = append(tables, item)
			out = append(out, item)
		}
	}
	if ents, err := root.Entries(ctx, commitgraph.EventsPrefix); err != nil {
		return nil, err
	} else if len(ents) > 0 {
		out = append(out, systables.EventsTable, systables.StreamsName, systables.EventStatsName, systables.DiffTablePrefix+systables.EventsTable)
	}
	for _, n := range systables.ListedNames(tables) {
		if _, ok, err := db.GetTableInsensitive(ctx, n); err == nil && ok {
			out = append(out, n)
		}
	}
	return out, nil
}
