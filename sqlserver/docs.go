package sqlserver

import (
	_ "embed"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"
)

// dolt_docs, as Dolt's: documents versioned with the data, one a row.
//
//	doc_name  varchar(1023) PRIMARY KEY   README.md, LICENSE.md, AGENT.md, ...
//	doc_text  longtext NOT NULL
//
// A stored system table (storedsystables.go): made by its first write,
// committed like any table. While it stores no AGENT.md row, the session's
// working root shows a built-in one (agent.md: a guide for AI agents
// working with the database, as Dolt's); inserting an AGENT.md row
// replaces it, deleting the built-in one changes nothing. Reads of a
// commit (AS OF, a revision database) show what is stored only, as Dolt's.

const docsTableName = "dolt_docs"

//go:embed agent.md
var agentDoc string

// docsSchema is dolt_docs'.
func docsSchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(sql.Schema{
		{Name: "doc_name", Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, 1023), PrimaryKey: true, Source: docsTableName},
		{Name: "doc_text", Type: types.LongText, Source: docsTableName},
	})
}

// docsBuiltin returns the built-in row.
func docsBuiltin() []sql.Row { return []sql.Row{{"AGENT.md", agentDoc}} }
