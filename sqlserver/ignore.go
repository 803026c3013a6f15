package sqlserver

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// dolt_ignore, as Dolt's: the patterns of tables that staging leaves out
// (verso.IgnoreTable has the rules). A stored system table
// (storedsystables.go): an ordinary table of the root value, versioned
// with the rest, hidden from SHOW TABLES, made by its first write.

// ignoreSchema is dolt_ignore's: pattern text PRIMARY KEY, ignored
// tinyint(1) NOT NULL.
func ignoreSchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(sql.Schema{
		{Name: "pattern", Type: types.Text, PrimaryKey: true, Nullable: false, Source: verso.IgnoreTable},
		{Name: "ignored", Type: types.Boolean, Nullable: false, Source: verso.IgnoreTable},
	})
}
