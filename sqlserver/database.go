package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// tablePrefix begins the root value name of every SQL table: the table t
// is the entry "tables/t", its name as created (lookups ignore case, as
// MySQL's do with lower_case_table_names=1 semantics for matching). Other
// prefixes of the root value are left to other kinds of objects (the event
// log, views, ...).
const tablePrefix = commitgraph.TablePrefix

// Database is a verso database as the engine sees it. It holds no state of
// its own: every call reads the session transaction's view of the database
// (its snapshot of the working root of the session's branch).
type Database struct {
	p  *Provider
	st *dbState
	// name is the name the engine knows the database by: the database's,
	// or "db/branch" for a revision database (see Provider.Database).
	name string
	// branch is the branch whose working set the database reads and writes.
	branch string
	// temp marks the session's database of temporary tables (temporary.go).
	temp bool
	// rev, if not nil, makes the database a read-only revision at that
	// commit ("db/<tag>", "db/<hash>", or a table AS OF): branch is then
	// the database's branch, for HEAD in revision specs.
	rev *commitgraph.Commit
}

// tx returns the session transaction's view of the database.
func (db *Database) tx(ctx *sql.Context) (*txDB, error) {
	if db.rev != nil {
		return txRevision(ctx, db.st, db.rev)
	}
	return txDatabase(ctx, db.st, db.branch)
}

// autoIncKey names a table's shared auto-increment counter.
func (db *Database) autoIncKey(table string) string {
	return db.branch + "\x00" + strings.ToLower(table)
}

func (db *Database) nextAutoIncrement(table string, stored, given uint64) uint64 {
	return db.st.db.NextAutoIncrement(db.autoIncKey(table), stored, given)
}

func (db *Database) peekAutoIncrement(table string, stored uint64) uint64 {
	return db.st.db.PeekAutoIncrement(db.autoIncKey(table), stored)
}

func (db *Database) setAutoIncrement(table string, n uint64) {
	db.st.db.SetAutoIncrement(db.autoIncKey(table), n)
}

var (
	_ sql.Database         = (*Database)(nil)
	_ sql.TableCreator     = (*Database)(nil)
	_ sql.TableDropper     = (*Database)(nil)
	_ sql.TableRenamer     = (*Database)(nil)
	_ sql.CollatedDatabase = (*Database)(nil)
)

var _ sql.ReadOnlyDatabase = (*Database)(nil)

// IsReadOnly implements sql.ReadOnlyDatabase: a revision at a tag or a
// commit cannot be written, nor a database opened read-only
// (readonly.go).
func (db *Database) IsReadOnly() bool { return db.rev != nil || db.st.readOnly() }

// Name implements sql.Nameable.
func (db *Database) Name() string { return db.name }

var _ sql.AliasedDatabase = (*Database)(nil)

// AliasedName implements sql.AliasedDatabase: a revision database
// ("db/branch", "db/<hash>") has the privileges of its database, as in
// Dolt, so an account granted SELECT on db.* reads db/main and db/v1.
func (db *Database) AliasedName() string { return db.st.name }

// GetTableInsensitive implements sql.Database.
func (db *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if t, ok, err := db.systemTable(ctx, name); err != nil || ok {
		return t, ok, err
	}
	if !db.temp {
		if t, ok, err := db.registeredSystemTable(ctx, name); err != nil || ok {
			return t, ok, err
		}
	}
	if tdb := db.temporary(ctx, false); tdb != nil {
		if t, ok, err := tdb.GetTableInsensitive(ctx, name); err != nil || ok {
			return t, ok, err
		}
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, false, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, d.Root(), name)
	if err != nil || !ok {
		return nil, false, err
	}
	t, err := db.openTable(ctx, d.Root(), exact, addr)
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// openTable returns the engine table for the stored table at addr, named
// name in root.
func (db *Database) openTable(ctx *sql.Context, root commitgraph.RootValue, name string, addr chunks.Address) (*Table, error) {
	opts, _, err := root.Get(ctx, tableOptsPrefix+name)
	if err != nil {
		return nil, err
	}
	info, err := db.p.cache.get(ctx, db, name, addr, opts)
	if err != nil {
		return nil, err
	}
	return &Table{db: db, name: name, info: info}, nil
}

// GetTableNames implements sql.Database.
func (db *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	ents, err := d.Root().Entries(ctx, tablePrefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		// dolt_ignore, dolt_docs, ... are system tables to SHOW TABLES,
		// as in Dolt.
		if n := strings.TrimPrefix(e.Name, tablePrefix); !isStoredSystemTable(n) {
			out = append(out, n)
		}
	}
	if !db.temp && sessionFlag(ctx, showSysTablesVar) {
		sys, err := db.systemTableNames(ctx, d.Root())
		if err != nil {
			return nil, err
		}
		out = append(out, sys...)
	}
	return out, nil
}

// CreateTable implements sql.TableCreator. Secondary indexes arrive later
// through Table.CreateIndex.
func (db *Database) CreateTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	if _, _, ok, err := verso.FindTable(ctx, d.Root(), name); err != nil {
		return err
	} else if ok {
		return sql.ErrTableAlreadyExists.New(name)
	}
	s, err := storageSchema(sch, nil)
	if err != nil {
		return err
	}
	t, err := tables.New(db.st.graph.NodeStore(), s, sqlCollations{})
	if err != nil {
		return err
	}
	if _, err := d.putTable(ctx, name, t); err != nil {
		return err
	}
	edit, err := tableOptionsEdit(ctx, db.st, name, comment, collation, "")
	if err != nil {
		return err
	}
	root, err := d.Root().Edit(ctx, edit)
	if err != nil {
		return err
	}
	d.SetRoot(root)
	return nil
}

var _ sql.IndexedTableCreator = (*Database)(nil)

// CreateIndexedTable implements sql.IndexedTableCreator: CREATE TABLE with
// a primary key, whose columns may not have prefix lengths (rows are keyed
// by whole values).
func (db *Database) CreateIndexedTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, pk sql.IndexDef, collation sql.CollationID, comment string) error {
	if err := noPrefix(pk.Columns); err != nil {
		return err
	}
	return db.CreateTable(ctx, name, sch, collation, comment)
}

// DropTable implements sql.TableDropper.
func (db *Database) DropTable(ctx *sql.Context, name string) error {
	if tdb := db.temporary(ctx, false); tdb != nil {
		if _, ok, err := tdb.GetTableInsensitive(ctx, name); err != nil {
			return err
		} else if ok {
			return tdb.DropTable(ctx, name)
		}
	}
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	exact, _, ok, err := verso.FindTable(ctx, d.Root(), name)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(name)
	}
	root, err := d.Root().Edit(ctx, commitgraph.RootEdit{Name: tablePrefix + exact, Delete: true},
		commitgraph.RootEdit{Name: tableOptsPrefix + exact, Delete: true})
	if err != nil {
		return err
	}
	d.SetRoot(root)
	delete(d.writers, strings.ToLower(exact))
	db.setAutoIncrement(exact, 0)
	return nil
}

// RenameTable implements sql.TableRenamer.
func (db *Database) RenameTable(ctx *sql.Context, oldName, newName string) error {
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	exact, _, ok, err := verso.FindTable(ctx, d.Root(), oldName)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(oldName)
	}
	if _, _, taken, err := verso.FindTable(ctx, d.Root(), newName); err != nil {
		return err
	} else if taken && !strings.EqualFold(oldName, newName) {
		return sql.ErrTableAlreadyExists.New(newName)
	}
	// The table keeps its identity (verso.Txn.RenameTable): a renamed
	// table is told from one dropped and another created.
	if err := d.Txn.RenameTable(ctx, exact, newName); err != nil {
		return err
	}
	delete(d.writers, strings.ToLower(exact))
	db.setAutoIncrement(exact, 0)
	db.setAutoIncrement(newName, 0)
	return nil
}

// putTable writes t, names it in the transaction's root and returns its
// address.
func (d *txDB) putTable(ctx *sql.Context, name string, t *tables.Table) (chunks.Address, error) {
	addr, err := t.Write(ctx)
	if err != nil {
		return addr, err
	}
	root, err := d.Root().Edit(ctx, commitgraph.RootEdit{Name: tablePrefix + name, Addr: addr})
	if err != nil {
		return addr, err
	}
	d.SetRoot(root)
	return addr, nil
}
