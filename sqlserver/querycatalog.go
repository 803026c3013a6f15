package sqlserver

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_query_catalog, as Dolt's: saved queries, versioned with the data.
//
//	id             longtext PRIMARY KEY
//	display_order  int NOT NULL
//	name           text NOT NULL
//	query          text NOT NULL
//	description    text NOT NULL
//
// A stored system table (storedsystables.go): made by its first write.
// verso keeps the queries; the command line does not run them.

const queryCatalogTableName = "dolt_query_catalog"

func queryCatalogSchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(sql.Schema{
		{Name: "id", Type: types.LongText, PrimaryKey: true, Source: queryCatalogTableName},
		{Name: "display_order", Type: types.Int32, Source: queryCatalogTableName},
		{Name: "name", Type: types.Text, Source: queryCatalogTableName},
		{Name: "query", Type: types.Text, Source: queryCatalogTableName},
		{Name: "description", Type: types.Text, Source: queryCatalogTableName},
	})
}
