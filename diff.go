package verso

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Diffs of versions: which tables differ between two root values
// (ChangedTables), the rows of a table that differ (DiffTable) and the
// events of the log (DiffEvents). Each walks the two versions' trees and
// skips every subtree they share, so its cost follows the size of the
// change, not of the data.

// Working and Staged are the revisions, for Txn.RootOf, of a branch's
// working root and staged root, as dolt_diff() names them.
const (
	Working = "WORKING"
	Staged  = "STAGED"
)

// EventsTable is the name the event log goes by among the tables of a
// diff (ChangedTables), as in SQL.
const EventsTable = "dolt_events"

// RowChange is one row that differs between two versions of a table: From
// is nil for a row added, To for a row removed.
type RowChange struct {
	From, To []Value
}

// EventChange is an event added to the log, or removed from it
// (retention's removals included).
type EventChange = eventindex.EventChange

// Root returns the root value of the revision rev (a branch's head, a tag,
// a hash, main~2; "" for the default branch's head).
func (db *DB) Root(ctx context.Context, rev string) (RootValue, error) {
	if rev == "" {
		rev = db.DefaultBranch()
	}
	c, err := db.resolve(ctx, rev, db.DefaultBranch())
	if err != nil {
		return RootValue{}, err
	}
	return db.graph.OpenRoot(ctx, c.Root)
}

// RootOf returns the root value the revision rev names for the
// transaction: Working (in any case) is its working root with its writes,
// Staged its branch's staged root as of its snapshot, and any other
// revision the root of the commit it names (HEAD is the transaction's
// branch). A revision that names nothing is a *RevisionError. For a
// read-only transaction at a commit, Working and Staged are that commit's
// root.
func (t *Txn) RootOf(ctx context.Context, rev string) (RootValue, error) {
	switch strings.ToUpper(rev) {
	case Working:
		return t.root, nil
	case Staged:
		return t.db.graph.OpenRoot(ctx, t.start.Staged)
	}
	head := t.branch
	if t.readOnly {
		head = t.db.DefaultBranch()
	}
	c, err := t.db.resolve(ctx, rev, head)
	if err != nil {
		return RootValue{}, err
	}
	return t.db.graph.OpenRoot(ctx, c.Root)
}

// TableChange is a table that differs between two root values: its rows
// (DataChange), its schema or options (SchemaChange), or both. A table
// one root lacks changed its schema, and its data if it holds rows. The
// event log is the table EventsTable, with a data change.
//
// A table renamed between the two roots (Renames) is one change under its
// name at to, From naming it at from: a schema change, and a data change
// if its rows differ.
type TableChange struct {
	Table        string
	DataChange   bool
	SchemaChange bool
	From         string // the table's name at from, when renamed
}

// ChangedTables returns the tables that differ from root from to root to,
// by name. It reads two table headers (a chunk each) per changed table.
func ChangedTables(ctx context.Context, from, to RootValue) ([]TableChange, error) {
	ns := from.Map().NodeStore()
	byName := map[string]*TableChange{}
	get := func(name string) *TableChange {
		c := byName[name]
		if c == nil {
			c = &TableChange{Table: name}
			byName[name] = c
		}
		return c
	}
	var dropped, added []string
	err := from.Diff(ctx, to, func(ch commitgraph.RootChange) error {
		switch {
		case strings.HasPrefix(ch.Name, commitgraph.TablePrefix):
			name := strings.TrimPrefix(ch.Name, commitgraph.TablePrefix)
			switch {
			case !ch.InTo:
				dropped = append(dropped, name)
			case !ch.InFrom:
				added = append(added, name)
			}
			data, schema, err := compareTables(ctx, ns, ch)
			if err != nil {
				return err
			}
			if data || schema {
				c := get(name)
				c.DataChange = c.DataChange || data
				c.SchemaChange = c.SchemaChange || schema
			}
		case strings.HasPrefix(ch.Name, commitgraph.TableOptsPrefix):
			get(strings.TrimPrefix(ch.Name, commitgraph.TableOptsPrefix)).SchemaChange = true
		case strings.HasPrefix(ch.Name, commitgraph.EventsPrefix):
			get(EventsTable).DataChange = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	renames, err := Renames(ctx, from, to, dropped, added)
	if err != nil {
		return nil, err
	}
	for _, r := range renames {
		fa, _, err := from.Get(ctx, commitgraph.TablePrefix+r.From)
		if err != nil {
			return nil, err
		}
		ta, _, err := to.Get(ctx, commitgraph.TablePrefix+r.To)
		if err != nil {
			return nil, err
		}
		data, _, err := compareTables(ctx, ns, commitgraph.RootChange{From: fa, To: ta, InFrom: true, InTo: true})
		if err != nil {
			return nil, err
		}
		delete(byName, r.From)
		*get(r.To) = TableChange{Table: r.To, From: r.From, DataChange: data, SchemaChange: true}
	}
	out := make([]TableChange, 0, len(byName))
	for _, c := range byName {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out, nil
}

// compareTables says whether a changed tables/ entry changed the table's
// rows and its schema, from the two table headers alone.
func compareTables(ctx context.Context, ns *prolly.NodeStore, ch commitgraph.RootChange) (data, schema bool, err error) {
	var from, to tables.Header
	if ch.InFrom {
		if from, err = tables.ReadHeader(ctx, ns, ch.From); err != nil {
			return false, false, err
		}
	}
	if ch.InTo {
		if to, err = tables.ReadHeader(ctx, ns, ch.To); err != nil {
			return false, false, err
		}
	}
	switch {
	case !ch.InFrom:
		return !to.Rows.IsEmpty(), true, nil
	case !ch.InTo:
		return !from.Rows.IsEmpty(), true, nil
	}
	return from.Rows != to.Rows, from.Schema != to.Schema, nil
}

// TableSchema returns the schema of the table named table (matched
// without case) in root, and whether root holds it.
func (db *DB) TableSchema(ctx context.Context, root RootValue, table string) (*Schema, bool, error) {
	t, err := db.loadTable(ctx, root, table)
	if err != nil || t == nil {
		return nil, false, err
	}
	return t.Schema(), true, nil
}

// loadTable loads the table named table from root; nil if root lacks it.
func (db *DB) loadTable(ctx context.Context, root RootValue, table string) (*tables.Table, error) {
	_, addr, ok, err := FindTable(ctx, root, table)
	if err != nil || !ok {
		return nil, err
	}
	return db.tableAt(ctx, addr)
}

// DiffTable calls fn with each row of table that differs from the root
// from to the root to, in primary-key order. The cost follows the size of
// the change (unchanged subtrees are skipped unread). A table missing on
// one side reads as empty there. Rows are in the columns of the table at
// to (at from where to lacks it), as dolt_diff shows them: where the
// schema changed, a from row's values go to the columns of the same names
// (matched without case, a value keeping its stored kind), and a column
// the from side lacks reads as NULL.
func (db *DB) DiffTable(ctx context.Context, from, to RootValue, table string, fn func(RowChange) error) error {
	return db.diffTables(ctx, from, table, to, table, fn)
}

// DiffChange is DiffTable of the table of ch (a change ChangedTables
// gave): a renamed table's rows are diffed from its name at from to its
// name at to.
func (db *DB) DiffChange(ctx context.Context, from, to RootValue, ch TableChange, fn func(RowChange) error) error {
	fromName := ch.Table
	if ch.From != "" {
		fromName = ch.From
	}
	return db.diffTables(ctx, from, fromName, to, ch.Table, fn)
}

// diffTables is DiffTable of the table fromName of from and toName of to.
func (db *DB) diffTables(ctx context.Context, from RootValue, fromName string, to RootValue, toName string, fn func(RowChange) error) error {
	ft, err := db.loadTable(ctx, from, fromName)
	if err != nil {
		return err
	}
	tt, err := db.loadTable(ctx, to, toName)
	if err != nil {
		return err
	}
	if ft == nil && tt == nil {
		return fmt.Errorf("%w: %q in neither root", ErrTableNotFound, toName)
	}
	ref := tt
	if ref == nil {
		ref = ft
	}
	empty, err := tables.New(db.graph.NodeStore(), ref.Schema(), db.Collations())
	if err != nil {
		return err
	}
	if ft == nil {
		ft = empty
	}
	if tt == nil {
		tt = empty
	}
	var fromCols []int // the column of ft of each column of tt; nil: the same
	if string(tables.EncodeSchema(ft.Schema())) != string(tables.EncodeSchema(tt.Schema())) {
		fromCols = columnMap(tt.Schema(), ft.Schema())
	}
	d := prolly.NewDiffer(ft.Rows(), tt.Rows())
	for d.Next(ctx) {
		df := d.Diff()
		var c RowChange
		if df.From != nil {
			if c.From, err = ft.Decode(ctx, df.Key, df.From); err != nil {
				return err
			}
			if fromCols != nil {
				c.From = remap(c.From, fromCols)
			}
		}
		if df.To != nil {
			if c.To, err = tt.Decode(ctx, df.Key, df.To); err != nil {
				return err
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return d.Err()
}

// columnMap returns, for each column of to, the index of the column of
// the same name (without case) in from, or -1.
func columnMap(to, from *tables.Schema) []int {
	m := make([]int, len(to.Columns))
	for i, c := range to.Columns {
		m[i] = -1
		for j, fc := range from.Columns {
			if strings.EqualFold(c.Name, fc.Name) {
				m[i] = j
				break
			}
		}
	}
	return m
}

// remap returns row's values in the order cols gives (-1: NULL).
func remap(row []Value, cols []int) []Value {
	out := make([]Value, len(cols))
	for i, j := range cols {
		if j < 0 || j >= len(row) {
			out[i] = Null()
			continue
		}
		out[i] = row[j]
	}
	return out
}

// DiffEvents calls fn with each event added to or removed from the event
// log from the root from to the root to, in position order. A position
// that holds different events on the two sides (after a merge renumbered
// one side's) gives a removal, then an addition.
func (db *DB) DiffEvents(ctx context.Context, from, to RootValue, fn func(EventChange) error) error {
	ns := db.graph.NodeStore()
	fl, err := eventindex.LoadLog(ctx, ns, from)
	if err != nil {
		return err
	}
	tl, err := eventindex.LoadLog(ctx, ns, to)
	if err != nil {
		return err
	}
	return eventindex.Diff(ctx, fl, tl, fn)
}
