package systables

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// The tables of schema objects, as Dolt has them: dolt_schemas (views,
// triggers and events) and dolt_procedures (stored procedures). Dolt keeps
// the objects as rows of these tables; verso keeps each as a chunk of its
// own (verso.SchemasItem, verso.ProceduresItem) and shows them here as
// rows, in the columns Dolt gives them, read-only (CREATE and DROP change
// them, as in Dolt, whose tables refuse INSERT and DELETE too). The
// package's tables of a table t (dolt_diff_<t>, dolt_history_<t>,
// dolt_conflicts_<t>, dolt_workspace_<t>) exist for them too.

// Names of the tables of schema objects.
const (
	SchemasName    = verso.SchemasItem
	ProceduresName = verso.ProceduresItem
)

// isObjectTable reports whether name (lower case) names a table of schema
// objects.
func isObjectTable(l string) bool { return l == SchemasName || l == ProceduresName }

var (
	// schemasSchema is dolt_schemas': type and name (the key) compare
	// without case, as Dolt declares them.
	schemasSchema = sql.Schema{
		{Name: "type", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_0900_ai_ci), PrimaryKey: true, Source: SchemasName},
		{Name: "name", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_0900_ai_ci), PrimaryKey: true, Source: SchemasName},
		{Name: "fragment", Type: types.LongText, Nullable: true, Source: SchemasName},
		{Name: "extra", Type: types.JSON, Nullable: true, Source: SchemasName},
		{Name: "sql_mode", Type: types.MustCreateString(sqltypes.VarChar, 256, sql.Collation_utf8mb4_0900_ai_ci), Nullable: true, Source: SchemasName},
	}
	// proceduresSchema is dolt_procedures'.
	proceduresSchema = sql.Schema{
		{Name: "name", Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, 1023), PrimaryKey: true, Source: ProceduresName},
		{Name: "create_stmt", Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, 8191), Nullable: true, Source: ProceduresName},
		{Name: "created_at", Type: types.DatetimeMaxPrecision, Nullable: true, Source: ProceduresName},
		{Name: "modified_at", Type: types.DatetimeMaxPrecision, Nullable: true, Source: ProceduresName},
		{Name: "sql_mode", Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, 1023), Nullable: true, Source: ProceduresName},
	}
)

// ObjectSchema returns the columns of the table of schema objects named
// item (SchemasName or ProceduresName); nil for any other name. Rows of
// TableReader.ObjectRows are in these columns.
func ObjectSchema(item string) sql.Schema {
	switch item {
	case SchemasName:
		return schemasSchema
	case ProceduresName:
		return proceduresSchema
	}
	return nil
}

// objectKeyLen is the number of key columns of the item's table.
func objectKeyLen(item string) int {
	if item == SchemasName {
		return 2
	}
	return 1
}

// objectKey returns a row's key as the table compares it: its key
// columns, without case.
func objectKey(item string, row sql.Row) string {
	var b strings.Builder
	for i := 0; i < objectKeyLen(item); i++ {
		s, _ := row[i].(string)
		b.WriteString(strings.ToLower(s))
		b.WriteByte(0)
	}
	return b.String()
}

// SortObjectRows sorts rows of the item's table by its key, as the table
// lists them.
func SortObjectRows(item string, rows []sql.Row) {
	slices.SortStableFunc(rows, func(a, b sql.Row) int { return strings.Compare(objectKey(item, a), objectKey(item, b)) })
}

// openObjectTable returns dolt_schemas or dolt_procedures of the view's
// working root: every statement reads the objects anew.
func openObjectTable(v *View, item string) *Table {
	return &Table{name: item, v: v, sch: ObjectSchema(item), impl: objectTable{v: v, item: item}}
}

// objectTable is the impl of dolt_schemas and dolt_procedures.
type objectTable struct {
	v    *View
	item string
}

func (t objectTable) scan(ctx *sql.Context) (sql.RowIter, error) {
	rows, err := t.v.objectRows(ctx, t.v.Working, t.item)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

func (t objectTable) lookup(ctx *sql.Context, _ string, _ []string) (sql.RowIter, error) {
	return t.scan(ctx)
}

func (t objectTable) rowCount(*sql.Context) (uint64, bool, error) { return 0, false, nil }

// objectRows returns the rows of the item's table in root, in key order.
func (v *View) objectRows(ctx *sql.Context, root commitgraph.RootValue, item string) ([]sql.Row, error) {
	if v.Tables == nil {
		return nil, nil
	}
	rows, err := v.Tables.ObjectRows(ctx, root, item)
	if err != nil {
		return nil, err
	}
	SortObjectRows(item, rows)
	return rows, nil
}

// hasObjectItem reports whether root holds any object of the item.
func hasObjectItem(ctx *sql.Context, root commitgraph.RootValue, item string) (bool, error) {
	ents, err := verso.ObjectEntries(ctx, root, item)
	return len(ents) > 0, err
}

// objectRowsPair diffs the rows of a table of schema objects between two
// commits: both sides are read whole (an item holds few objects) and
// paired by key. A pair whose objects' entries are the same is skipped
// unread.
type objectRowsPair struct {
	v    *View
	item string
	d    *RowDiff
}

// openObjectsDiff returns dolt_diff_dolt_schemas or
// dolt_diff_dolt_procedures, when the working root holds the item.
func openObjectsDiff(ctx *sql.Context, v *View, item string) (*Table, bool, error) {
	if ok, err := hasObjectItem(ctx, v.Working, item); err != nil || !ok {
		return nil, false, err
	}
	tn := DiffTablePrefix + item
	rp := objectRowsPair{v: v, item: item, d: NewRowDiff(tn, ObjectSchema(item))}
	td := &tableDiff{v: v, differ: rp}
	return &Table{name: tn, v: v, sch: rp.d.Schema(), impl: td, indexes: []indexSpec{
		onHash(toCommitColumn, toCommitColumn, false), onHash(fromCommitColumn, fromCommitColumn, false),
	}}, true, nil
}

// side returns the root, commit and date of commit c (nil: the working
// root).
func (p objectRowsPair) side(ctx *sql.Context, c *commitgraph.Commit) (commitgraph.RootValue, Side, error) {
	if c == nil {
		return p.v.Working, Side{Commit: Working}, nil
	}
	root, err := p.v.openRoot(ctx, c)
	return root, Side{Commit: c.Addr.String(), Date: c.Meta.Time}, err
}

func (p objectRowsPair) pair(ctx *sql.Context, from, to *commitgraph.Commit) ([]sql.Row, error) {
	var fr commitgraph.RootValue
	var fs Side
	var err error
	if from != nil {
		if fr, fs, err = p.side(ctx, from); err != nil {
			return nil, err
		}
	} else {
		fr = commitgraph.EmptyRoot(p.v.Graph.NodeStore())
	}
	tr, ts, err := p.side(ctx, to)
	if err != nil {
		return nil, err
	}
	return diffObjectRoots(ctx, p.v, p.item, p.d, fr, fs, tr, ts)
}

// diffObjectRoots returns the rows of d for the schema objects of the item
// that differ between the roots fr and tr (sides fs and ts), in key order.
// Roots whose entries of the item are the same are not read.
func diffObjectRoots(ctx *sql.Context, v *View, item string, d *RowDiff, fr commitgraph.RootValue, fs Side, tr commitgraph.RootValue, ts Side) ([]sql.Row, error) {
	fe, err := verso.ObjectEntries(ctx, fr, item)
	if err != nil {
		return nil, err
	}
	te, err := verso.ObjectEntries(ctx, tr, item)
	if err != nil {
		return nil, err
	}
	if slices.Equal(fe, te) {
		return nil, nil
	}
	fromRows, err := v.objectRows(ctx, fr, item)
	if err != nil {
		return nil, err
	}
	toRows, err := v.objectRows(ctx, tr, item)
	if err != nil {
		return nil, err
	}
	var out []sql.Row
	for _, c := range diffObjectRows(ctx, item, fromRows, toRows) {
		out = append(out, d.objectRow(c, fs, ts))
	}
	return out, nil
}

// objectChange is a row of a table of schema objects that differs
// between two sides (nil where absent).
type objectChange struct{ from, to sql.Row }

func (c objectChange) diffType() string {
	switch {
	case c.from == nil:
		return DiffAdded
	case c.to == nil:
		return DiffRemoved
	}
	return DiffModified
}

// diffObjectRows pairs two sorted sets of rows of the item's table by key
// and returns those that differ, in key order.
func diffObjectRows(ctx *sql.Context, item string, from, to []sql.Row) []objectChange {
	var out []objectChange
	i, j := 0, 0
	for i < len(from) || j < len(to) {
		var c int
		switch {
		case i == len(from):
			c = 1
		case j == len(to):
			c = -1
		default:
			c = strings.Compare(objectKey(item, from[i]), objectKey(item, to[j]))
		}
		switch {
		case c < 0:
			out = append(out, objectChange{from: from[i]})
			i++
		case c > 0:
			out = append(out, objectChange{to: to[j]})
			j++
		default:
			if !sameObjectRow(ctx, from[i], to[j]) {
				out = append(out, objectChange{from: from[i], to: to[j]})
			}
			i++
			j++
		}
	}
	return out
}

// sameObjectRow reports whether two rows of a table of schema objects
// hold the same values: JSON documents by their text, times as instants.
func sameObjectRow(ctx *sql.Context, a, b sql.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch x := a[i].(type) {
		case sql.JSONWrapper:
			y, ok := b[i].(sql.JSONWrapper)
			if !ok {
				return false
			}
			xb, err1 := types.MarshallJson(ctx, x)
			yb, err2 := types.MarshallJson(ctx, y)
			if err1 != nil || err2 != nil || !bytes.Equal(xb, yb) {
				return false
			}
		case time.Time:
			y, ok := b[i].(time.Time)
			if !ok || !x.Equal(y) {
				return false
			}
		default:
			if !reflect.DeepEqual(a[i], b[i]) {
				return false
			}
		}
	}
	return true
}

// objectRow lays out one changed object row as the diff's columns.
func (d *RowDiff) objectRow(c objectChange, from, to Side) sql.Row {
	row := make(sql.Row, len(d.toCols)+len(d.fromCols)+5)
	n := len(d.toCols)
	if c.to != nil {
		copy(row[:n], c.to)
	}
	row[n], row[n+1] = to.Commit, to.Date
	m := n + 2 + len(d.fromCols)
	if c.from != nil {
		copy(row[n+2:m], c.from)
	}
	row[m], row[m+1] = from.Commit, from.Date
	row[m+2] = c.diffType()
	return row
}

// objectHistory is dolt_history_dolt_schemas or dolt_history_dolt_procedures:
// the item's rows at every commit of HEAD's history, each commit read
// whole. It has no index: a lookup by commit_hash filters the walk.
type objectHistory struct {
	v    *View
	item string
}

func openObjectHistory(ctx *sql.Context, v *View, item string) (*Table, bool, error) {
	if ok, err := hasObjectItem(ctx, v.Working, item); err != nil || !ok {
		return nil, false, err
	}
	tn := HistoryPrefix + item
	var sch sql.Schema
	for _, c := range ObjectSchema(item) {
		sch = append(sch, &sql.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable && !c.PrimaryKey, PrimaryKey: c.PrimaryKey, Source: tn})
	}
	sch = append(sch, col(tn, "commit_hash", historyHashType, false), col(tn, "committer", historyCommitterType, false),
		col(tn, "commit_date", types.Datetime3, false))
	return &Table{name: tn, v: v, sch: sch, impl: objectHistory{v: v, item: item}}, true, nil
}

func (h objectHistory) scan(ctx *sql.Context) (sql.RowIter, error) {
	head, err := h.v.head(ctx)
	if err != nil {
		return nil, err
	}
	it := h.v.Graph.Log(ctx, head.Addr)
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		if !it.Next(ctx) {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		c := it.Commit()
		root, err := h.v.openRoot(ctx, c)
		if err != nil {
			return nil, err
		}
		rows, err := h.v.objectRows(ctx, root, h.item)
		if err != nil {
			return nil, err
		}
		who := c.Meta.CommitterOrAuthor()
		for i, r := range rows {
			rows[i] = append(slices.Clone(r), c.Addr.String(), who.Name, c.Meta.Time)
		}
		return rows, nil
	}}, nil
}

func (h objectHistory) lookup(ctx *sql.Context, _ string, _ []string) (sql.RowIter, error) {
	return h.scan(ctx)
}

func (h objectHistory) rowCount(*sql.Context) (uint64, bool, error) { return 0, false, nil }

// objectWorkspace is dolt_workspace_dolt_schemas or
// dolt_workspace_dolt_procedures: the item's rows that differ between the
// head and the staged root, then between the staged and the working root
// (workspace.go says how). Staging a row copies its object's entry into
// the staged root (verso.Txn.StageObjects); undoing one copies it back
// into the working root (verso.Txn.RevertObjects).
type objectWorkspace struct {
	v    *View
	item string
	name string
	sch  sql.Schema
}

var (
	_ sql.UpdatableTable = (*objectWorkspace)(nil)
	_ sql.DeletableTable = (*objectWorkspace)(nil)
)

func (v *View) openObjectWorkspace(_ *sql.Context, item string) (sql.Table, bool, error) {
	name := WorkspacePrefix + item
	cols := ObjectSchema(item)
	return &objectWorkspace{v: v, item: item, name: name, sch: workspaceSchema(name, cols, cols)}, true, nil
}

func (t *objectWorkspace) Name() string                   { return t.name }
func (t *objectWorkspace) String() string                 { return t.name }
func (t *objectWorkspace) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *objectWorkspace) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *objectWorkspace) IsTemporary() bool              { return false }
func (t *objectWorkspace) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

// objectWorkspaceChange is one row of an object workspace.
type objectWorkspaceChange struct {
	staged bool
	objectChange
}

// changes returns the item's workspace as it is now.
func (t *objectWorkspace) changes(ctx *sql.Context) ([]objectWorkspaceChange, error) {
	if t.v.Session == nil {
		return nil, errors.New("systables: dolt_workspace_ tables need the session's transaction")
	}
	tx, err := t.v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	if tx.ReadOnly() {
		return nil, nil
	}
	if err := t.v.Session.Flush(ctx); err != nil {
		return nil, err
	}
	roots, err := tx.WorkspaceRoots(ctx)
	if err != nil {
		return nil, err
	}
	var rows [3][]sql.Row
	for i, r := range roots {
		if rows[i], err = t.v.objectRows(ctx, r, t.item); err != nil {
			return nil, err
		}
	}
	var out []objectWorkspaceChange
	for _, c := range diffObjectRows(ctx, t.item, rows[0], rows[1]) {
		out = append(out, objectWorkspaceChange{staged: true, objectChange: c})
	}
	for _, c := range diffObjectRows(ctx, t.item, rows[1], rows[2]) {
		out = append(out, objectWorkspaceChange{objectChange: c})
	}
	return out, nil
}

func (t *objectWorkspace) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	cs, err := t.changes(ctx)
	if err != nil {
		return nil, err
	}
	n := len(ObjectSchema(t.item))
	rows := make([]sql.Row, len(cs))
	for i, c := range cs {
		row := make(sql.Row, 3+2*n)
		row[0], row[1], row[2] = uint64(i), c.staged, c.diffType()
		if c.to != nil {
			copy(row[3:3+n], c.to)
		}
		if c.from != nil {
			copy(row[3+n:], c.from)
		}
		rows[i] = row
	}
	return sql.RowsToRowIter(rows...), nil
}

// entry returns the root value name of the object a row of the item's
// table stands for.
func objectEntry(item string, row sql.Row) string {
	if item == ProceduresName {
		return commitgraph.ProcedurePrefix + fmt.Sprint(row[0])
	}
	prefix := map[string]string{"view": commitgraph.ViewPrefix, "trigger": commitgraph.TriggerPrefix,
		"event": commitgraph.SQLEventPrefix}[strings.ToLower(fmt.Sprint(row[0]))]
	return prefix + fmt.Sprint(row[1])
}

func (t *objectWorkspace) Updater(*sql.Context) sql.RowUpdater {
	return &workspaceEditor{name: t.name, apply: t.apply}
}

func (t *objectWorkspace) Deleter(*sql.Context) sql.RowDeleter {
	return &workspaceEditor{name: t.name, apply: t.apply}
}

// apply stages, unstages (flip) and undoes (revert) rows of the workspace
// as it is now.
func (t *objectWorkspace) apply(ctx *sql.Context, flip, revert []uint64) error {
	cs, err := t.changes(ctx)
	if err != nil {
		return err
	}
	names := func(ids []uint64, staged bool) ([]string, error) {
		var out []string
		for _, id := range ids {
			if id >= uint64(len(cs)) {
				return nil, fmt.Errorf("%s: %w", t.name, verso.ErrWorkspaceMoved)
			}
			c := cs[id]
			if c.staged != staged {
				continue
			}
			row := c.to
			if row == nil {
				row = c.from
			}
			out = append(out, objectEntry(t.item, row))
		}
		return out, nil
	}
	tx, err := t.v.Session.Txn(ctx)
	if err != nil {
		return err
	}
	if ns, err := names(revert, false); err != nil {
		return err
	} else if len(ns) > 0 {
		if err := tx.RevertObjects(ctx, ns); err != nil {
			return err
		}
	}
	for _, staged := range []bool{false, true} {
		ns, err := names(flip, staged)
		if err != nil {
			return err
		}
		if len(ns) > 0 {
			if err := tx.StageObjects(ctx, ns, staged); err != nil {
				return err
			}
		}
	}
	return nil
}

// ConstraintViolationsPrefix begins the name of a table's constraint
// violations table.
const ConstraintViolationsPrefix = "dolt_constraint_violations_"

// openObjectConflicts returns dolt_conflicts_dolt_schemas or
// dolt_conflicts_dolt_procedures: empty, as a merge of schema objects
// records no conflicts (it fails instead), with the columns Dolt gives
// them.
func openObjectConflicts(item string) sql.Table {
	name := ConflictsPrefix + item
	return &rowsTable{name: name, sch: conflictSchema(name, ObjectSchema(item)), rows: noRows}
}

// openObjectViolations returns dolt_constraint_violations_dolt_schemas or
// dolt_constraint_violations_dolt_procedures: empty, as schema objects
// have no constraints, with the columns Dolt gives them.
func openObjectViolations(item string) sql.Table {
	name := ConstraintViolationsPrefix + item
	sch := sql.Schema{
		col(name, "from_root_ish", diffTextType, true),
		{Name: "violation_type", Type: types.MustCreateEnumType([]string{"foreign key", "unique index", "check constraint", "not null"}, sql.Collation_Default), PrimaryKey: true, Source: name},
	}
	for _, c := range ObjectSchema(item) {
		sch = append(sch, &sql.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable, PrimaryKey: c.PrimaryKey, Source: name})
	}
	sch = append(sch, &sql.Column{Name: "violation_info", Type: types.JSON, PrimaryKey: true, Source: name})
	return &rowsTable{name: name, sch: sch, rows: noRows}
}
