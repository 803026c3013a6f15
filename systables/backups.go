package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_backups, with Dolt's columns:
//
//	name    text PRIMARY KEY
//	url     text
//	params  json
//
// verso has no backups (dolt_backup is not one of its procedures), so the
// table is empty; as in Dolt, it refuses writes ("table doesn't support
// INSERT INTO": Dolt edits backups with dolt_backup only).

const BackupsName = "dolt_backups"

var backupsSchema = sql.Schema{
	textCol(BackupsName, "name", true, false),
	textCol(BackupsName, "url", false, false),
	col(BackupsName, "params", types.JSON, false),
}

func openBackups() sql.Table {
	return &rowsTable{name: BackupsName, sch: backupsSchema, rows: noRows}
}

// noRows is the rows of an empty table.
func noRows(*sql.Context) ([]sql.Row, error) { return nil, nil }
