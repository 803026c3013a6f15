package sqlserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/tables"
)

// ALTER TABLE changes that touch columns or the primary key rewrite the
// table: the engine streams the old rows, converted to the new schema, into
// RewriteInserter, which builds a new table value (its indexes carried
// over by column name) and puts it in place of the old one when closed.

var (
	_ sql.AlterableTable           = (*Table)(nil)
	_ sql.RewritableTable          = (*Table)(nil)
	_ sql.CommentedTable           = (*Table)(nil)
	_ sql.PrimaryKeyAlterableTable = (*Table)(nil)
)

// ShouldRewriteTable implements sql.RewritableTable: always, the stored row
// layout follows the columns.
func (t *Table) ShouldRewriteTable(*sql.Context, sql.PrimaryKeySchema, sql.PrimaryKeySchema, *sql.Column, *sql.Column) bool {
	return true
}

// RewriteInserter implements sql.RewritableTable.
func (t *Table) RewriteInserter(ctx *sql.Context, oldSch, newSch sql.PrimaryKeySchema, oldCol, newCol *sql.Column, idxCols []sql.IndexColumn) (sql.RowInserter, error) {
	if !slices.Equal(oldSch.PkOrdinals, newSch.PkOrdinals) { // idxCols are the new primary key's
		if err := noPrefix(idxCols); err != nil {
			return nil, err
		}
	}
	s, err := storageSchema(newSch, nil)
	if err != nil {
		return nil, err
	}
	// The table as the transaction has it now: the engine may hand us a
	// table value from before an index it just created.
	cur, err := t.current(ctx)
	if err != nil {
		return nil, err
	}
	old := cur.Schema()
	rename := func(name string) string {
		if oldCol != nil && newCol != nil && strings.EqualFold(name, oldCol.Name) {
			return newCol.Name
		}
		return name
	}
	for _, ix := range old.Indexes {
		nix := tables.Index{Name: ix.Name, Unique: ix.Unique, Comment: ix.Comment}
		var prefix []int
		for j, c := range ix.Columns {
			if p := s.ColumnIndex(rename(old.Columns[c].Name)); p >= 0 {
				nix.Columns = append(nix.Columns, p)
				prefix = append(prefix, ix.PrefixOf(j))
			}
		}
		for _, n := range prefix {
			if n != 0 {
				nix.Prefix = prefix
				break
			}
		}
		if len(nix.Columns) > 0 {
			s.Indexes = append(s.Indexes, nix)
		}
	}
	s.Checks = append(s.Checks, old.Checks...)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	nt, err := tables.New(t.db.st.graph.NodeStore(), s, sqlCollations{})
	if err != nil {
		return nil, err
	}
	info, err := engineSchema(ctx, t.db.Name(), t.name, s)
	if err != nil {
		return nil, err
	}
	into := &Table{db: t.db, name: t.name, info: &tableInfo{t: nt, sch: info}}
	ed := nt.Edit()
	if s.AutoIncrementColumn() >= 0 {
		ed.SetAutoIncrement(cur.AutoIncrement())
	}
	return &rewriter{from: t, into: into, ed: ed}, nil
}

// rewriter fills the rewritten table.
type rewriter struct {
	from *Table // the engine's table, refreshed when done
	into *Table
	ed   *tables.Editor
}

func (r *rewriter) StatementBegin(*sql.Context)              {}
func (r *rewriter) DiscardChanges(*sql.Context, error) error { r.ed = nil; return nil }
func (r *rewriter) StatementComplete(*sql.Context) error     { return nil }

func (r *rewriter) Insert(ctx *sql.Context, row sql.Row) error {
	vals, err := r.into.toStored(ctx, row)
	if err != nil {
		return err
	}
	// As in MySQL, a rebuild gives a 0 in the auto-increment column the
	// next value unless the session's sql_mode has NO_AUTO_VALUE_ON_ZERO.
	r.ed.KeepZero(sql.LoadSqlMode(ctx).ModeEnabled(sql.NoAutoValueOnZero))
	_, err = r.ed.Insert(ctx, vals)
	return r.into.editError(ctx, err)
}

// Close puts the rewritten table in place, unless the rewrite failed.
func (r *rewriter) Close(ctx *sql.Context) error {
	if r.ed == nil {
		return nil
	}
	nt, err := r.ed.Table(ctx)
	if err != nil {
		return err
	}
	d, err := r.into.db.tx(ctx)
	if err != nil {
		return err
	}
	exact, _, ok, err := verso.FindTable(ctx, d.Root(), r.into.name)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(r.into.name)
	}
	delete(d.writers, strings.ToLower(exact))
	r.ed = nil
	if _, err := d.putTable(ctx, exact, nt); err != nil {
		return err
	}
	r.from.refresh(ctx, d, exact)
	return nil
}

// AddColumn implements sql.AlterableTable. The engine rewrites the table
// instead (ShouldRewriteTable), so this is not reached.
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	return fmt.Errorf("verso: ADD COLUMN %q must rewrite the table", column.Name)
}

// DropColumn implements sql.AlterableTable (see AddColumn).
func (t *Table) DropColumn(ctx *sql.Context, name string) error {
	return fmt.Errorf("verso: DROP COLUMN %q must rewrite the table", name)
}

// ModifyColumn implements sql.AlterableTable for changes that keep the
// stored values (renames, defaults, comments, auto-increment); others
// rewrite the table.
func (t *Table) ModifyColumn(ctx *sql.Context, name string, column *sql.Column, order *sql.ColumnOrder) error {
	if order != nil {
		return fmt.Errorf("verso: moving column %q must rewrite the table", name)
	}
	col, err := storageColumn(column)
	if err != nil {
		return err
	}
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		i := s.ColumnIndex(name)
		if i < 0 {
			return sql.ErrTableColumnNotFound.New(t.name, name)
		}
		if s.Columns[i].Kind != col.Kind {
			return fmt.Errorf("verso: changing the type of column %q must rewrite the table", name)
		}
		s.Columns[i] = col
		return nil
	})
}

// CreatePrimaryKey implements sql.PrimaryKeyAlterableTable: a rebuild
// with the new key (duplicates fail).
func (t *Table) CreatePrimaryKey(ctx *sql.Context, cols []sql.IndexColumn) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		if !s.Keyless() {
			return sql.ErrMultiplePrimaryKeysDefined.New()
		}
		if err := noPrefix(cols); err != nil {
			return err
		}
		for _, c := range cols {
			p := s.ColumnIndex(c.Name)
			if p < 0 {
				return sql.ErrKeyColumnDoesNotExist.New(c.Name)
			}
			s.PrimaryKey = append(s.PrimaryKey, p)
			s.Columns[p].Nullable = false
		}
		return nil
	})
}

// DropPrimaryKey implements sql.PrimaryKeyAlterableTable.
func (t *Table) DropPrimaryKey(ctx *sql.Context) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		if s.Keyless() {
			return sql.ErrCantDropFieldOrKey.New("PRIMARY")
		}
		for _, p := range s.PrimaryKey {
			if s.Columns[p].AutoIncrement {
				return sql.ErrWrongAutoKey.New()
			}
		}
		s.PrimaryKey = nil
		return nil
	})
}

// current returns the transaction's current value of the table.
func (t *Table) current(ctx *sql.Context) (*tables.Table, error) {
	d, err := t.db.tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	exact, addr, ok, err := verso.FindTable(ctx, d.Root(), t.name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(t.name)
	}
	info, err := t.db.p.cache.get(ctx, t.db, exact, addr, chunks.Address{})
	if err != nil {
		return nil, err
	}
	return info.t, nil
}
