package sqlserver

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"

	"github.com/verso-db/verso/tables"
)

// Schemas cross between the engine and storage here. Storage keeps each
// column's type as the text the engine prints for it (Type.String()) and
// the engine's own parser reads it back; defaults and other expressions are
// kept as their SQL text too.

// storageColumn converts an engine column.
func storageColumn(c *sql.Column) (tables.Column, error) {
	k, err := kindOf(c.Type)
	if err != nil {
		return tables.Column{}, fmt.Errorf("column %q: %w", c.Name, err)
	}
	col := tables.Column{
		Name:          c.Name,
		Type:          typeText(c.Type),
		Kind:          k,
		Nullable:      c.Nullable,
		AutoIncrement: c.AutoIncrement,
		Comment:       c.Comment,
		Virtual:       c.Virtual,
		Hidden:        c.Hidden,
	}
	col.Default, col.Generated, col.OnUpdate = exprText(c.Default), exprText(c.Generated), exprText(c.OnUpdate)
	if st, ok := c.Type.(sql.StringType); ok && collationKeyFor(st.Collation()) != nil {
		col.Collation = st.Collation().Name()
	}
	return col, nil
}

// typeText returns the text storage keeps for a column type. A type with a
// collation is printed with its character set and collation spelled out, so
// that reading it back does not depend on any table or server default.
func typeText(t sql.Type) string {
	if tc, ok := t.(sql.TypeWithCollation); ok {
		return tc.StringWithTableCollation(sql.Collation_binary)
	}
	return t.String()
}

// storageSchema converts an engine table definition: its columns, primary
// key and the indexes declared with it.
func storageSchema(sch sql.PrimaryKeySchema, indexes sql.IndexDefs) (*tables.Schema, error) {
	s := &tables.Schema{}
	for _, c := range sch.Schema {
		col, err := storageColumn(c)
		if err != nil {
			return nil, err
		}
		s.Columns = append(s.Columns, col)
	}
	s.PrimaryKey = append([]int(nil), sch.PkOrdinals...)
	for _, p := range s.PrimaryKey {
		if p >= 0 && p < len(s.Columns) {
			s.Columns[p].Nullable = false // as MySQL makes key columns
		}
	}
	for _, def := range indexes {
		if def.IsPrimary() {
			if err := noPrefix(def.Columns); err != nil {
				return nil, err
			}
			continue
		}
		ix, err := storageIndex(s, def)
		if err != nil {
			return nil, err
		}
		s.Indexes = append(s.Indexes, ix)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// noPrefix refuses prefix lengths in a primary key, as the engine's own
// backend does: rows are keyed by whole values.
func noPrefix(cols []sql.IndexColumn) error {
	for _, c := range cols {
		if c.Length > 0 {
			return sql.ErrUnsupportedIndexPrefix.New(c.Name)
		}
	}
	return nil
}

// storageIndex converts an index definition over the columns of s.
func storageIndex(s *tables.Schema, def *sql.IndexDef) (tables.Index, error) {
	switch {
	case def.IsFullText():
		return tables.Index{}, fmt.Errorf("verso does not support FULLTEXT indexes yet (index %q)", def.Name)
	case def.IsSpatial():
		return tables.Index{}, fmt.Errorf("verso does not support SPATIAL indexes yet (index %q)", def.Name)
	case def.IsVector():
		return tables.Index{}, fmt.Errorf("verso does not support VECTOR indexes yet (index %q)", def.Name)
	case def.Predicate != nil:
		return tables.Index{}, fmt.Errorf("verso does not support partial indexes yet (index %q)", def.Name)
	}
	ix := tables.Index{Name: def.Name, Unique: def.IsUnique(), Comment: def.Comment}
	for _, c := range def.Columns {
		p := s.ColumnIndex(c.Name)
		if p < 0 {
			return tables.Index{}, sql.ErrKeyColumnDoesNotExist.New(c.Name)
		}
		if c.Length > 0 {
			if ix.Prefix == nil {
				ix.Prefix = make([]int, len(def.Columns))
			}
			ix.Prefix[len(ix.Columns)] = int(c.Length)
		}
		ix.Columns = append(ix.Columns, p)
	}
	return ix, nil
}

// engineSchema converts a stored schema to the engine's, for the table
// named table in database db.
func engineSchema(ctx *sql.Context, db, table string, s *tables.Schema) (sql.PrimaryKeySchema, error) {
	var out sql.Schema
	inKey := map[int]bool{}
	for _, p := range s.PrimaryKey {
		inKey[p] = true
	}
	for i, c := range s.Columns {
		t, err := planbuilder.ParseColumnTypeString(ctx, c.Type)
		if err != nil {
			return sql.PrimaryKeySchema{}, fmt.Errorf("%w: column %q has type %q: %v", tables.ErrCorrupt, c.Name, c.Type, err)
		}
		col := &sql.Column{
			Name: c.Name, Type: t, Nullable: c.Nullable, Source: table, DatabaseSource: db,
			PrimaryKey: inKey[i], AutoIncrement: c.AutoIncrement, Comment: c.Comment,
			Virtual: c.Virtual, Hidden: c.Hidden,
		}
		if c.AutoIncrement {
			col.Extra = "auto_increment"
		}
		col.Default, col.Generated, col.OnUpdate = storedExpr(c.Default), storedExpr(c.Generated), storedExpr(c.OnUpdate)
		if c.Generated != "" {
			if c.Virtual {
				col.Extra = "VIRTUAL GENERATED"
			} else {
				col.Extra = "STORED GENERATED"
			}
		}
		out = append(out, col)
	}
	return sql.NewPrimaryKeySchema(out, s.PrimaryKey...), nil
}

// exprText returns the SQL text of a default, generated or on-update
// expression, as storage keeps it.
func exprText(d *sql.ColumnDefaultValue) string {
	if d == nil {
		return ""
	}
	if u, ok := d.Expr.(*sql.UnresolvedColumnDefault); ok {
		return u.ExprString
	}
	if u, ok := d.Expr.(sql.UnresolvedColumnDefault); ok {
		return u.ExprString
	}
	return d.String()
}

// storedExpr returns a stored default, generated or on-update expression
// as the engine takes it from a storage backend: unresolved text that the
// engine's planner resolves against its catalog; "" is none.
func storedExpr(text string) *sql.ColumnDefaultValue {
	if text == "" {
		return nil
	}
	return sql.NewUnresolvedColumnDefaultValue(text)
}
