package verso

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// A group's merges, in one edit per table.
//
// The leader of a commit group (commitqueue.go) merges each transaction
// into the working root in turn. Merged one at a time (mergeRoots), each
// transaction would rewrite the paths of its rows in every tree it
// touched, and write its tables and a root value, all inside the serial
// section: under concurrent writers nearly every commit meets a working
// root that moved, so that second tree edit was most of the section's
// time. groupMerge instead replays the row changes of the group's
// transactions, in order, into one tables.Editor per table, and writes
// each table and the root once for the whole group: the transactions
// share the rewrite of the nodes their rows have in common.
//
// The result is the one mergeRoots would give applied one transaction
// after another: each transaction's rows are replayed on the rows as the
// transactions before it left them, a row changed since the transaction's
// base of it (or a unique key taken) fails that transaction alone with a
// serialization failure, and its replay is rolled back (a savepoint of
// each editor it touched). A transaction that changed anything but the
// rows of tables that exist on both sides (created or dropped tables,
// schemas, the event log, merge state) is merged by mergeRoots, on the
// group's root with the pending edits written first.
//
// A transaction committed with pending edits (Txn.CommitEdits: an
// autocommitted statement's rows, never written into its root) has its
// editor's rows replayed the same way; when nobody changed the table since
// its snapshot, its editor becomes the group's edit of the table as it is,
// so that its rows are edited into a tree once in all, at the group's
// write. TestGroupMergeModel checks all of this against mergeRoots.

// groupMerge is the state of a commit group's merges.
type groupMerge struct {
	db     *DB
	root   commitgraph.RootValue  // the group's root, less the tables below
	tables map[string]*groupTable // tables changed since root, by exact name
	edited []editCommit           // tables written from pending edits
	// whole is set once a transaction merged by mergeRoots: the root
	// holds more than the editors' rows (redo.go).
	whole bool
}

// groupTable is a table of the group's root with changes not yet written
// into it: either a new table value (taken whole) or an editor.
type groupTable struct {
	addr chunks.Address // the table's value, when ed is nil
	ot   *tables.Table  // the table ed began from
	ed   *tables.Editor // nil while the table is only taken whole
	// from is the transaction's pending edit ed is a clone of, if any.
	from *TableEdit
}

// editCommit is a table a group wrote from a transaction's pending edit
// (TableEdit.Committed, once the group's write is durable).
type editCommit struct {
	edit *TableEdit
	nt   *tables.Table
}

func newGroupMerge(db *DB, root commitgraph.RootValue) *groupMerge {
	return &groupMerge{db: db, root: root, tables: map[string]*groupTable{}}
}

// add merges the transaction t into the group's root, or leaves the root
// as it was and returns t's error (a serialization failure, or a failure
// to read).
func (g *groupMerge) add(ctx context.Context, t *Txn) error {
	names, ok, err := g.rowChanges(ctx, t)
	if err != nil {
		return err
	}
	if !ok {
		// Not rows alone: the root-merge driver, on the group's root
		// with every pending edit written, and t's.
		if err := g.flush(ctx); err != nil {
			return err
		}
		// The driver may change the tables just written: only the
		// group's last write of a table is what its root holds.
		g.edited = nil
		g.whole = true
		if err := t.applyEdits(ctx); err != nil {
			return err
		}
		merged, err := mergeRoots(ctx, g.db, t.base, g.root, t.root, t.adopted)
		if err != nil {
			return err
		}
		g.root = merged
		return nil
	}
	var undo []func()
	rollback := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	for _, name := range names {
		if err := g.replay(ctx, t, name, &undo); err != nil {
			rollback()
			return err
		}
	}
	return nil
}

// rowChanges returns the names of the tables whose rows t changed or
// adopted, and whether those are all t changed: tables both t's snapshot
// and the group's root hold.
func (g *groupMerge) rowChanges(ctx context.Context, t *Txn) ([]string, bool, error) {
	var names []string
	err := t.base.Diff(ctx, t.root, func(c commitgraph.RootChange) error {
		n, isTable := strings.CutPrefix(c.Name, commitgraph.TablePrefix)
		if !isTable || !c.InFrom || !c.InTo {
			return errStop
		}
		names = append(names, n)
		return nil
	})
	if errors.Is(err, errStop) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for _, e := range t.edits {
		// An edit replays over t's snapshot of the table: t's root
		// must hold the table as its snapshot did, and rows of a table
		// without a primary key replay from whole tables.
		b, _, err := t.base.Get(ctx, commitgraph.TablePrefix+e.Name)
		if err != nil {
			return nil, false, err
		}
		th, _, err := t.root.Get(ctx, commitgraph.TablePrefix+e.Name)
		if err != nil {
			return nil, false, err
		}
		if b != th || e.Editor.Schema().Keyless() {
			return nil, false, nil
		}
		if !slices.Contains(names, e.Name) {
			names = append(names, e.Name)
		}
	}
	for lower := range t.adopted {
		exact, _, ok, err := FindTable(ctx, t.root, lower)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, nil
		}
		if !slices.Contains(names, exact) {
			names = append(names, exact)
		}
	}
	for _, n := range names {
		if _, ok := g.tables[n]; ok {
			continue
		}
		if _, ok, err := g.root.Get(ctx, commitgraph.TablePrefix+n); err != nil || !ok {
			return nil, false, err
		}
		if _, ok, err := t.base.Get(ctx, commitgraph.TablePrefix+n); err != nil || !ok {
			return nil, false, err
		}
	}
	slices.Sort(names)
	return names, true, nil
}

// errStop ends an iteration early.
var errStop = errors.New("verso: stop the iteration")

// replay merges t's changes of the table name into the group, appending
// to undo what takes them back.
func (g *groupMerge) replay(ctx context.Context, t *Txn, name string, undo *[]func()) error {
	key := commitgraph.TablePrefix + name
	b, _, err := t.base.Get(ctx, key)
	if err != nil {
		return err
	}
	th, _, err := t.root.Get(ctx, key)
	if err != nil {
		return err
	}
	bases := t.adopted[strings.ToLower(name)]
	edit := t.editOf(name)
	bt, err := g.db.tableAt(ctx, b)
	if err != nil {
		return err
	}
	gt := g.tables[name]
	if gt == nil {
		o, _, err := g.root.Get(ctx, key)
		if err != nil {
			return err
		}
		if o == b && edit != nil {
			// t's edit of its snapshot's table becomes the group's: a
			// clone, which the later transactions' rows go into, while
			// t's stays as t made it (a group merged again after a
			// failed write starts from it again).
			g.tables[name] = &groupTable{ot: edit.Editor.Base(), ed: edit.Editor.Clone(), from: edit}
			*undo = append(*undo, func() { delete(g.tables, name) })
			return nil
		}
		if o == b {
			// Nobody changed the table since t's snapshot: t's table, as
			// the root-merge driver takes it. The rows t adopted are
			// right in it: t locked them, so they are as t adopted them,
			// which, the table being its snapshot's, is as the snapshot
			// has them.
			g.tables[name] = &groupTable{addr: th}
			*undo = append(*undo, func() { delete(g.tables, name) })
			return nil
		}
		gt = &groupTable{addr: o}
		g.tables[name] = gt
		*undo = append(*undo, func() { delete(g.tables, name) })
	}
	if edit != nil && len(bases) == 0 {
		// An edit that leaves every row as the snapshot has it changes
		// nothing (as its table, written, would equal the snapshot's).
		changes, err := editChanges(ctx, edit.Editor, bt)
		if err != nil || !changes {
			return err
		}
	}
	if gt.ed == nil {
		ot, err := g.db.tableAt(ctx, gt.addr)
		if err != nil {
			return err
		}
		gt.ot, gt.ed = ot, ot.Edit()
		gt.ed.KeepZero(true) // rows keep the values their transaction gave them
		*undo = append(*undo, func() { gt.ot, gt.ed = nil, nil })
	}
	tt := bt // an edit's table is its snapshot's
	if th != b {
		if tt, err = g.db.tableAt(ctx, th); err != nil {
			return err
		}
	}
	if !tables.SameSchema(bt, gt.ot) || !tables.SameSchema(bt, tt) {
		return errSerialization("the schema of table %q changed", name)
	}
	ed, sp := gt.ed, gt.ed.Savepoint()
	*undo = append(*undo, func() {
		if gt.ed == ed {
			ed.Rollback(sp)
		}
	})
	if edit != nil {
		return replayEdit(ctx, name, ed, bt, gt.ot, edit.Editor, bases)
	}
	return replayRows(ctx, name, ed, bt, gt.ot, tt, bases)
}

// replayEdit is replayRows for a transaction's pending edit of a table
// (TableEdit) over its snapshot of it, bt: the rows with a pending edit,
// from their versions in bt (or as adopted), then the adopted rows the
// edit leaves as bt has them.
func replayEdit(ctx context.Context, name string, ed *tables.Editor, bt, ot *tables.Table, edit *tables.Editor, bases map[string]RowVersion) error {
	tt := edit.Base()
	ed.SetAutoIncrement(edit.NextAutoIncrement())
	var seen map[string]bool // adopted rows with a pending edit
	err := edit.PendingRows(func(key, val []byte, ok bool) error {
		from, adopted := bases[string(key)]
		if adopted {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[string(key)] = true
		} else {
			v, in, err := bt.Rows().Get(ctx, key)
			if err != nil {
				return err
			}
			from = RowVersion{Val: v, OK: in}
		}
		return mergeRow(ctx, name, ed, ot, tt, key, from, RowVersion{Val: val, OK: ok})
	})
	for k, from := range bases {
		if err != nil {
			break
		}
		if seen[k] {
			continue
		}
		// Adopted, and left as the snapshot has it.
		key := []byte(k)
		v, in, gerr := bt.Rows().Get(ctx, key)
		if gerr != nil {
			return gerr
		}
		err = mergeRow(ctx, name, ed, ot, tt, key, from, RowVersion{Val: v, OK: in})
	}
	return mergeFailure(name, err)
}

// editChanges reports whether edit, over bt, changes a row or the
// auto-increment counter.
func editChanges(ctx context.Context, edit *tables.Editor, bt *tables.Table) (bool, error) {
	if edit.NextAutoIncrement() != max(bt.AutoIncrement(), 1) {
		return true, nil
	}
	changed := false
	err := edit.PendingRows(func(key, val []byte, ok bool) error {
		v, in, err := bt.Rows().Get(ctx, key)
		if err != nil {
			return err
		}
		if in != ok || !bytes.Equal(v, val) {
			changed = true
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return changed, err
}

// flush writes the pending tables into the group's root.
func (g *groupMerge) flush(ctx context.Context) error {
	if len(g.tables) == 0 {
		return nil
	}
	names := make([]string, 0, len(g.tables))
	for n := range g.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	edits := make([]commitgraph.RootEdit, 0, len(names))
	for _, n := range names {
		gt := g.tables[n]
		addr := gt.addr
		if gt.ed != nil {
			nt, err := gt.ed.Table(ctx)
			if err != nil {
				return err
			}
			if addr, err = nt.Write(ctx); err != nil {
				return err
			}
			if gt.from != nil {
				g.edited = append(g.edited, editCommit{edit: gt.from, nt: nt})
			}
		}
		edits = append(edits, commitgraph.RootEdit{Name: commitgraph.TablePrefix + n, Addr: addr})
	}
	root, err := g.root.Edit(ctx, edits...)
	if err != nil {
		return err
	}
	g.root, g.tables = root, map[string]*groupTable{}
	return nil
}
