package sqlserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Foreign keys are schema objects of the database (objects.go) named
// "foreignkeys/<name>", kind "foreignkey", with one field: the engine's
// sql.ForeignKeyConstraint as JSON (its exported field names are the
// format). The engine enforces them; storage keeps them.
const fkPrefix = commitgraph.ForeignKeyPrefix

var (
	_ sql.ForeignKeyTable  = (*Table)(nil)
	_ sql.ForeignKeyEditor = (*fkEditor)(nil)
)

var fkKinds = []prolly.Kind{prolly.KindString}

func (db *Database) foreignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	objs, err := db.objects(ctx, fkPrefix, "foreignkey", fkKinds, "")
	if err != nil {
		return nil, err
	}
	out := make([]sql.ForeignKeyConstraint, len(objs))
	for i, o := range objs {
		if err := json.Unmarshal([]byte(o.Fields[0].AsString()), &out[i]); err != nil {
			return nil, fmt.Errorf("%w: foreign key %q: %v", tables.ErrCorrupt, o.Name, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (db *Database) putForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	b, err := json.Marshal(fk)
	if err != nil {
		return err
	}
	return db.putObject(ctx, fkPrefix, fk.Name, verso.EncodeObject("foreignkey", prolly.String(string(b))))
}

// GetDeclaredForeignKeys implements sql.ForeignKeyTable.
func (t *Table) GetDeclaredForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	fks, err := t.db.foreignKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.ForeignKeyConstraint
	for _, fk := range fks {
		if strings.EqualFold(fk.Table, t.name) {
			out = append(out, fk)
		}
	}
	return out, nil
}

// GetReferencedForeignKeys implements sql.ForeignKeyTable (foreign keys of
// this database only).
func (t *Table) GetReferencedForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	fks, err := t.db.foreignKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.ForeignKeyConstraint
	for _, fk := range fks {
		if strings.EqualFold(fk.ParentTable, t.name) && strings.EqualFold(fk.ParentDatabase, t.db.Name()) {
			out = append(out, fk)
		}
	}
	return out, nil
}

// AddForeignKey implements sql.ForeignKeyTable.
func (t *Table) AddForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	fks, err := t.db.foreignKeys(ctx)
	if err != nil {
		return err
	}
	for _, x := range fks {
		if strings.EqualFold(x.Name, fk.Name) {
			return sql.ErrForeignKeyDuplicateName.New(fk.Name)
		}
	}
	return t.db.putForeignKey(ctx, fk)
}

// DropForeignKey implements sql.ForeignKeyTable.
func (t *Table) DropForeignKey(ctx *sql.Context, name, tableName, schemaName string) error {
	ok, err := t.db.dropObject(ctx, fkPrefix, name)
	if err == nil && !ok {
		err = sql.ErrForeignKeyNotFound.New(name, t.name)
	}
	return err
}

// UpdateForeignKey implements sql.ForeignKeyTable.
func (t *Table) UpdateForeignKey(ctx *sql.Context, name string, fk sql.ForeignKeyConstraint) error {
	if _, err := t.db.dropObject(ctx, fkPrefix, name); err != nil {
		return err
	}
	return t.AddForeignKey(ctx, fk)
}

// CreateIndexForForeignKey implements sql.ForeignKeyTable.
func (t *Table) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	return t.CreateIndex(ctx, def)
}

// GetForeignKeyEditor implements sql.ForeignKeyTable.
func (t *Table) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	return &fkEditor{editor: t.editor(ctx)}
}

// fkEditor is the editor the engine uses for foreign key checks and
// cascades: its lookups see the statement's pending writes (they are
// written into the transaction's root first).
type fkEditor struct{ *editor }

// current returns the table as it is with the pending writes.
func (e *fkEditor) current(ctx *sql.Context) (*Table, error) {
	if e.err != nil {
		return nil, e.err
	}
	if err := e.d.flush(ctx, e.w); err != nil {
		return nil, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, e.d.Root(), e.t.name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(e.t.name)
	}
	return e.t.db.openTable(ctx, e.d.Root(), exact, addr)
}

func (e *fkEditor) GetIndexes(ctx *sql.Context) ([]sql.Index, error) { return e.t.GetIndexes(ctx) }
func (e *fkEditor) PreciseMatch() bool                               { return false }

func (e *fkEditor) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	t, err := e.current(ctx)
	if err != nil {
		t = e.t
	}
	return t.IndexedAccess(ctx, lookup)
}
