package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
)

// Temporary tables (CREATE TEMPORARY TABLE) belong to one session: they
// live in a database in memory that the session keeps beside each real
// database it created them in, and go with the session. They take part in
// transactions like other tables (ROLLBACK undoes their rows), their DDL
// commits nothing, and they hide a real table of the same name.

var (
	_ sql.TemporaryTableCreator  = (*Database)(nil)
	_ sql.TemporaryTableDatabase = (*Database)(nil)
)

// tempState returns the session's temporary database beside db, creating
// it if create.
func tempState(ctx *sql.Context, db string, create bool) *dbState {
	sess, ok := ctx.Session.(*Session)
	if !ok {
		return nil
	}
	k := strings.ToLower(db)
	if st, ok := sess.temp[k]; ok || !create {
		return st
	}
	vdb, err := verso.OpenMemory(db, verso.Options{Collations: sqlCollations{}})
	if err != nil {
		return nil
	}
	st := &dbState{db: vdb, name: db, store: vdb.Store(), graph: vdb.Graph(), branch: vdb.DefaultBranch()}
	if sess.temp == nil {
		sess.temp = map[string]*dbState{}
	}
	sess.temp[k] = st
	return st
}

// temporary returns the session's temporary database beside db, or nil.
func (db *Database) temporary(ctx *sql.Context, create bool) *Database {
	if db.temp {
		return nil
	}
	st := tempState(ctx, db.name, create)
	if st == nil {
		return nil
	}
	return &Database{p: db.p, st: st, name: db.name, branch: st.branch, temp: true}
}

// CreateTemporaryTable implements sql.TemporaryTableCreator.
func (db *Database) CreateTemporaryTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID) error {
	tdb := db.temporary(ctx, true)
	if tdb == nil {
		return sql.ErrTemporaryTableNotSupported.New()
	}
	return tdb.CreateTable(ctx, name, sch, collation, "")
}

// GetAllTemporaryTables implements sql.TemporaryTableDatabase.
func (db *Database) GetAllTemporaryTables(ctx *sql.Context) ([]sql.Table, error) {
	tdb := db.temporary(ctx, false)
	if tdb == nil {
		return nil, nil
	}
	names, err := tdb.GetTableNames(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.Table
	for _, n := range names {
		t, ok, err := tdb.GetTableInsensitive(ctx, n)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}
