package sqlserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// versionedHarness is the harness of the engine's AS OF suite
// (enginetest.TestVersionedQueries): tables are created and filled through
// the storage interfaces, and SnapshotTable commits the branch's working
// set with the label as the commit's time, so that AS OF '2019-01-01'
// finds it as the commit current at that time.
type versionedHarness struct {
	*harness
}

var _ enginetest.VersionedDBHarness = versionedHarness{}

// NewEngine keeps the provider the versioned data was written to.
func (h versionedHarness) NewEngine(t *testing.T) (enginetest.QueryEngine, error) {
	p := h.provider()
	h.session = nil
	e, err := enginetest.NewEngine(t, h, p, h.setup, memory.NewStatsProv())
	h.session = nil
	return e, err
}

func (h versionedHarness) NewDatabases(names ...string) []sql.Database {
	h.p, h.session = h.newProvider(), nil
	ctx := h.NewContext()
	out := make([]sql.Database, 0, len(names))
	for _, n := range names {
		if err := h.p.CreateDatabase(ctx, n); err != nil {
			panic(fmt.Sprintf("versioned harness: create database %s: %v", n, err))
		}
		db, err := h.p.Database(ctx, n)
		if err != nil {
			panic(fmt.Sprintf("versioned harness: database %s: %v", n, err))
		}
		out = append(out, db)
	}
	return out
}

func (h versionedHarness) NewTableAsOf(vdb sql.VersionedDatabase, name string, sch sql.PrimaryKeySchema, asOf interface{}) sql.Table {
	db := vdb.(*Database)
	ctx := h.NewContext()
	ctx.SetCurrentDatabase(db.Name())
	if _, ok, err := db.GetTableInsensitive(ctx, name); err != nil {
		panic(fmt.Sprintf("versioned harness: table %s: %v", name, err))
	} else if ok {
		return harnessTable{h: h, db: db, name: name}
	}
	if err := db.CreateTable(ctx, name, sch, sql.Collation_Default, ""); err != nil {
		panic(fmt.Sprintf("versioned harness: create table %s: %v", name, err))
	}
	return harnessTable{h: h, db: db, name: name}
}

// harnessTable is a table the suite writes through the storage
// interfaces. Each call opens the table afresh (its schema may have
// changed), and AddColumn rewrites the table as ALTER TABLE does (verso's
// tables take new columns only by a rewrite: see Table.AddColumn).
type harnessTable struct {
	h    versionedHarness
	db   *Database
	name string
}

func (t harnessTable) table(ctx *sql.Context) *Table {
	tbl, ok, err := t.db.GetTableInsensitive(ctx, t.name)
	if err != nil || !ok {
		panic(fmt.Sprintf("versioned harness: table %s: %v", t.name, err))
	}
	return tbl.(*Table)
}

func (t harnessTable) Name() string                       { return t.name }
func (t harnessTable) String() string                     { return t.name }
func (t harnessTable) Collation() sql.CollationID         { return sql.Collation_Default }
func (t harnessTable) Schema(ctx *sql.Context) sql.Schema { return t.table(ctx).Schema(ctx) }
func (t harnessTable) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return t.table(ctx).Partitions(ctx)
}
func (t harnessTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	return t.table(ctx).PartitionRows(ctx, p)
}
func (t harnessTable) Inserter(ctx *sql.Context) sql.RowInserter { return t.table(ctx).Inserter(ctx) }
func (t harnessTable) Deleter(ctx *sql.Context) sql.RowDeleter   { return t.table(ctx).Deleter(ctx) }
func (t harnessTable) Updater(ctx *sql.Context) sql.RowUpdater   { return t.table(ctx).Updater(ctx) }
func (t harnessTable) DropColumn(ctx *sql.Context, name string) error {
	return t.table(ctx).DropColumn(ctx, name)
}
func (t harnessTable) ModifyColumn(ctx *sql.Context, name string, c *sql.Column, o *sql.ColumnOrder) error {
	return t.table(ctx).ModifyColumn(ctx, name, c, o)
}

func (t harnessTable) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	tbl := t.table(ctx)
	old := tbl.PrimaryKeySchema(ctx)
	c := column.Copy()
	c.Source = t.name
	next := sql.NewPrimaryKeySchema(append(old.Schema.Copy(), c), old.PkOrdinals...)
	ins, err := tbl.RewriteInserter(ctx, old, next, nil, c, nil)
	if err != nil {
		return err
	}
	iter, err := tbl.PartitionRows(ctx, nil)
	if err != nil {
		return err
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := ins.Insert(ctx, append(r.Copy(), nil)); err != nil {
			return err
		}
	}
	return ins.Close(ctx)
}

func (h versionedHarness) SnapshotTable(vdb sql.VersionedDatabase, name string, asOf interface{}) error {
	db := vdb.(*Database)
	label, ok := asOf.(string)
	if !ok {
		return fmt.Errorf("versioned harness: label %v is not a string", asOf)
	}
	at, err := time.Parse("2006-01-02", label)
	if err != nil {
		return err
	}
	ctx := h.NewContext()
	d, err := txDatabase(ctx, db.st, db.branch)
	if err != nil {
		return err
	}
	return d.updateBranch(ctx, func(s *verso.BranchState) (*verso.BranchChange, error) {
		c, err := db.st.graph.WriteCommit(context.Background(), s.Working.Address(), []chunks.Address{s.Head.Addr},
			commitgraph.Meta{Author: commitgraph.Signature{Name: "harness", Email: "harness@localhost"}, Time: at, Message: "snapshot " + label})
		if err != nil {
			return nil, err
		}
		return &verso.BranchChange{Head: c.Addr, Working: s.Working, Staged: s.Working}, nil
	})
}

func TestEngineVersionedQueries(t *testing.T) {
	enginetest.TestVersionedQueries(t, versionedHarness{newHarness(t)})
}

func TestEngineVersionedQueriesPrepared(t *testing.T) {
	enginetest.TestVersionedQueriesPrepared(t, versionedHarness{newHarness(t)})
}
