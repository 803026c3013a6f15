package sqlserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
	"github.com/verso-db/verso/tables"
)

// A stored table's definition in SQL, for the diff functions of package
// systables (dolt_schema_diff, dolt_patch): the CREATE TABLE statement of
// the table as some root holds it, written as SHOW CREATE TABLE writes the
// current one (the same formatter), without the AUTO_INCREMENT option.
// Defaults are printed from their stored text the way SHOW CREATE TABLE
// prints them once resolved: a number quoted ('7'), other literals and
// expressions as stored.

// Definition implements systables.TableReader.
func (r tableReader) Definition(ctx *sql.Context, root commitgraph.RootValue, name string) (*systables.TableDefinition, error) {
	exact, addr, ok, err := verso.FindTable(ctx, root, name)
	if err != nil || !ok {
		return nil, err
	}
	t, err := tables.Load(ctx, r.db.st.graph.NodeStore(), addr, sqlCollations{})
	if err != nil {
		return nil, err
	}
	sch, err := r.db.p.cache.schemaFor(ctx, r.db, exact, t.Schema())
	if err != nil {
		return nil, err
	}
	def := &systables.TableDefinition{Name: exact, Schema: t.Schema(), Collation: sql.Collation_Default.Name()}
	coll := sql.Collation_Default
	if oa, ok, err := root.Get(ctx, tableOptsPrefix+exact); err != nil {
		return nil, err
	} else if ok {
		comment, c, err := readTableOptions(ctx, r.db.st, exact, oa)
		if err != nil {
			return nil, err
		}
		def.Comment, coll = comment, c
		def.Collation = c.Name()
	}
	f := schemaFormatter{sql.DefaultMySQLSchemaFormatter}
	var parts []string
	for _, c := range sch.Schema {
		cd := f.GenerateCreateTableColumnDefinition(c, defaultText(c.Default), defaultText(c.OnUpdate), coll)
		def.Columns = append(def.Columns, strings.TrimPrefix(cd, "  "))
		if !c.HiddenSystem {
			parts = append(parts, cd)
		}
	}
	s := t.Schema()
	if len(s.PrimaryKey) > 0 {
		var pk []string
		for _, p := range s.PrimaryKey {
			pk = append(pk, s.Columns[p].Name)
		}
		parts = append(parts, f.GenerateCreateTablePrimaryKeyDefinition(pk))
	}
	for _, ix := range s.Indexes {
		var cols []string
		for j, c := range ix.Columns {
			col := f.QuoteIdentifier(s.Columns[c].Name)
			if p := ix.PrefixOf(j); p > 0 {
				col += "(" + strconv.Itoa(p) + ")"
			}
			cols = append(cols, col)
		}
		if text, ok := f.GenerateCreateTableIndexDefinition(ix.Unique, false, false, false, ix.Name, cols, ix.Comment); ok {
			parts = append(parts, text)
		}
	}
	fks, err := rootForeignKeys(ctx, r.db, root, exact)
	if err != nil {
		return nil, err
	}
	for _, fk := range fks {
		onDelete, onUpdate := "", ""
		if fk.OnDelete != "" && fk.OnDelete != sql.ForeignKeyReferentialAction_DefaultAction {
			onDelete = string(fk.OnDelete)
		}
		if fk.OnUpdate != "" && fk.OnUpdate != sql.ForeignKeyReferentialAction_DefaultAction {
			onUpdate = string(fk.OnUpdate)
		}
		parts = append(parts, f.GenerateCreateTableForiegnKeyDefinition(fk.Name, fk.Columns, fk.ParentTable, fk.ParentColumns, onDelete, onUpdate))
	}
	for _, c := range s.Checks {
		parts = append(parts, f.GenerateCreateTableCheckConstraintClause(c.Name, c.Expr, c.Enforced))
	}
	def.Create = f.GenerateCreateTableStatement(exact, parts, "", "", coll.CharacterSet().Name(), coll.Name(), def.Comment)
	return def, nil
}

// defaultText returns a stored default (or ON UPDATE) expression as SHOW
// CREATE TABLE prints it: a number quoted, anything else as stored; ""
// for none.
func defaultText(d *sql.ColumnDefaultValue) string {
	text := exprText(d)
	if _, err := strconv.ParseFloat(text, 64); err == nil {
		return "'" + text + "'"
	}
	return text
}

// rootForeignKeys returns the foreign keys of table in root, by name.
func rootForeignKeys(ctx *sql.Context, db *Database, root commitgraph.RootValue, table string) ([]sql.ForeignKeyConstraint, error) {
	ents, err := root.Entries(ctx, fkPrefix)
	if err != nil {
		return nil, err
	}
	var out []sql.ForeignKeyConstraint
	for _, e := range ents {
		b, err := db.st.graph.Store().Get(ctx, e.Addr)
		if err != nil {
			return nil, err
		}
		o, err := verso.DecodeObject(strings.TrimPrefix(e.Name, fkPrefix), "foreignkey", fkKinds, b)
		if err != nil {
			return nil, err
		}
		var fk sql.ForeignKeyConstraint
		if err := json.Unmarshal([]byte(o.Fields[0].AsString()), &fk); err != nil {
			return nil, fmt.Errorf("%w: foreign key %q: %v", tables.ErrCorrupt, o.Name, err)
		}
		if strings.EqualFold(fk.Table, table) {
			out = append(out, fk)
		}
	}
	return out, nil
}
