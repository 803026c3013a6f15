package sqlserver

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// A database's default collation (CREATE DATABASE ... COLLATE, ALTER
// DATABASE, which dumps carry: DEFAULT CHARACTER SET latin1, COLLATE
// utf8mb4_0900_ai_ci) is an object (objects.go) named
// "dbopts/collation", kind "dbcollation", with one field: the
// collation's name (a string). A database with the default collation
// (utf8mb4_0900_bin) has none. It is versioned as the database's tables
// are: it lives in the working set, a commit keeps it, and a merge takes
// a side's change by name. Tables created without a collation of their
// own take it; SHOW CREATE DATABASE, information_schema.SCHEMATA and
// @@collation_database show it.
const (
	dbOptsPrefix    = commitgraph.DBOptsPrefix
	dbCollationName = "collation"
	dbCollationKind = "dbcollation"
)

var dbCollationKinds = []prolly.Kind{prolly.KindString}

// GetCollation implements sql.CollatedDatabase: the database's default
// collation in the session's transaction; the default when it cannot be
// read (the error surfaces on the statement's other reads).
func (db *Database) GetCollation(ctx *sql.Context) sql.CollationID {
	c, err := db.collation(ctx)
	if err != nil {
		return sql.Collation_Default
	}
	return c
}

func (db *Database) collation(ctx *sql.Context) (sql.CollationID, error) {
	objs, err := db.objects(ctx, dbOptsPrefix, dbCollationKind, dbCollationKinds, dbCollationName)
	if err != nil || len(objs) == 0 {
		return sql.Collation_Default, err
	}
	name := objs[0].Fields[0].AsString()
	c, err := sql.ParseCollation("", name, false)
	if err != nil {
		return sql.Collation_Default, fmt.Errorf("%w: database %q: collation %q: %v", tables.ErrCorrupt, db.name, name, err)
	}
	return c, nil
}

// SetCollation implements sql.CollatedDatabase.
func (db *Database) SetCollation(ctx *sql.Context, c sql.CollationID) error {
	if c == sql.Collation_Unspecified || c == sql.Collation_Default {
		_, err := db.dropObject(ctx, dbOptsPrefix, dbCollationName)
		return err
	}
	return db.putObject(ctx, dbOptsPrefix, dbCollationName, verso.EncodeObject(dbCollationKind, prolly.String(c.Name())))
}
