package verso

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// The workspace of a table: its rows that differ between the branch's
// head and its staged root (staged changes), then between the staged and
// the working root (changes not staged), as Dolt's dolt_workspace_<t>
// lists them, and the edits that stage, unstage or undo single rows
// (UPDATE dolt_workspace_<t> SET staged = ..., DELETE FROM it): dolt_add
// and dolt_checkout of a row.

// ErrWorkspaceSchema refuses a row edit of a workspace whose table has
// different columns in the head, staged and working roots: a row of one
// cannot be written into another.
var ErrWorkspaceSchema = errors.New("verso: the table's columns differ between the head, staged and working roots")

// ErrWorkspaceMoved refuses a row edit of a workspace read before the
// branch changed: the row it names is no longer what the root holds.
var ErrWorkspaceMoved = errors.New("verso: the workspace changed since it was read")

// WorkspaceChange is a row of a table that differs between two roots:
// From is the row in the older root (the head's for a staged change, the
// staged root's otherwise), To in the newer (the staged root's for a
// staged change, the working root's otherwise); nil where absent. Rows are
// as their roots store them, in their tables' columns. A keyless table's
// copies are a change each.
type WorkspaceChange struct {
	Staged   bool
	From, To []Value
}

// Workspace is a table's changes in a branch's working set.
type Workspace struct {
	// Table is the table's name as stored.
	Table string
	// FromSchema is the table's schema in the head (else the staged root,
	// else the working root); ToSchema in the working root (else the
	// staged root, else the head), as Dolt's dolt_workspace_<t> takes
	// its from_ and to_ columns.
	FromSchema, ToSchema *Schema
	// Changes are the staged changes, then the others, each in key order.
	Changes []WorkspaceChange
	// Modifiable: the table has the same columns in each root that holds
	// it, so that its rows can be staged and unstaged one by one.
	Modifiable bool

	schemas [3]*Schema // the head's, staged root's and working root's
}

// FromRow returns c's From row in the columns of FromSchema (matched by
// name; a column its root lacks is NULL); nil if absent.
func (w *Workspace) FromRow(c WorkspaceChange) []Value {
	s := w.schemas[0]
	if !c.Staged {
		s = w.schemas[1]
	}
	return w.remap(c.From, s, w.FromSchema)
}

// ToRow returns c's To row in the columns of ToSchema; nil if absent.
func (w *Workspace) ToRow(c WorkspaceChange) []Value {
	s := w.schemas[2]
	if c.Staged {
		s = w.schemas[1]
	}
	return w.remap(c.To, s, w.ToSchema)
}

func (w *Workspace) remap(row []Value, from, to *Schema) []Value {
	if row == nil || from == nil || from == to || sameColumns(from, to) {
		return row
	}
	return remap(row, columnMap(to, from))
}

// sameColumns reports whether two schemas have the same columns: names
// (without case), types and order.
func sameColumns(a, b *Schema) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		ca, cb := a.Columns[i], b.Columns[i]
		if !strings.EqualFold(ca.Name, cb.Name) || ca.Type != cb.Type || ca.Kind != cb.Kind {
			return false
		}
	}
	return true
}

// WorkspaceRoots returns the branch's head, staged and working roots as
// the transaction sees them now (its writes in the working root): the
// roots a workspace compares.
func (t *Txn) WorkspaceRoots(ctx context.Context) ([3]RootValue, error) {
	var roots [3]RootValue
	g := t.db.graph
	head, ws, err := g.BranchState(ctx, t.branch)
	if err != nil {
		return roots, err
	}
	if roots[0], err = g.OpenRoot(ctx, head.Root); err != nil {
		return roots, err
	}
	if roots[1], err = g.OpenRoot(ctx, ws.Staged); err != nil {
		return roots, err
	}
	roots[2], err = t.PendingWorking(ctx, ws)
	return roots, err
}

// Workspace returns the workspace of the table named table (matched
// without case) on the transaction's branch; nil if none of the head,
// staged and working roots holds it. A read-only transaction (at a
// commit) has no workspace.
func (t *Txn) Workspace(ctx context.Context, table string) (*Workspace, error) {
	if t.readOnly {
		return nil, nil
	}
	roots, err := t.WorkspaceRoots(ctx)
	if err != nil {
		return nil, err
	}
	return t.db.workspace(ctx, roots, table, true)
}

// WorkspaceColumns is Workspace without its changes: the table's name and
// schemas only, which cost no diff.
func (t *Txn) WorkspaceColumns(ctx context.Context, table string) (*Workspace, error) {
	if t.readOnly {
		return nil, nil
	}
	roots, err := t.WorkspaceRoots(ctx)
	if err != nil {
		return nil, err
	}
	return t.db.workspace(ctx, roots, table, false)
}

func (db *DB) workspace(ctx context.Context, roots [3]RootValue, table string, changes bool) (*Workspace, error) {
	var tbs [3]*tables.Table
	w := &Workspace{}
	for i, r := range roots {
		name, addr, ok, err := FindTable(ctx, r, table)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if tbs[i], err = db.tableAt(ctx, addr); err != nil {
			return nil, err
		}
		w.schemas[i] = tbs[i].Schema()
		if w.Table == "" || i == 2 {
			w.Table = name
		}
	}
	if w.Table == "" {
		return nil, nil
	}
	for _, i := range []int{0, 1, 2} {
		if w.FromSchema == nil {
			w.FromSchema = w.schemas[i]
		}
	}
	for _, i := range []int{2, 1, 0} {
		if w.ToSchema == nil {
			w.ToSchema = w.schemas[i]
		}
	}
	w.Modifiable = true
	for _, s := range w.schemas {
		if s != nil && !sameColumns(s, w.ToSchema) {
			w.Modifiable = false
		}
	}
	if !changes {
		return w, nil
	}
	for _, pair := range [][2]int{{0, 1}, {1, 2}} {
		staged := pair[0] == 0
		err := rowChanges(ctx, tbs[pair[0]], tbs[pair[1]], func(from, to []Value) error {
			w.Changes = append(w.Changes, WorkspaceChange{Staged: staged, From: from, To: to})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// rowChanges calls fn with each row that differs from table from to table
// to (nil: no table), in key order: a keyless table's copies once each
// (an entry whose count moved gives as many rows added or removed). A row
// stored again with the same values (its table rewritten) is no change.
func rowChanges(ctx context.Context, from, to *tables.Table, fn func(from, to []Value) error) error {
	if from == nil && to == nil {
		return nil
	}
	var fm, tm prolly.Map
	if from != nil {
		fm = from.Rows()
	} else {
		fm = prolly.NewMap(to.NodeStore())
	}
	if to != nil {
		tm = to.Rows()
	} else {
		tm = prolly.NewMap(from.NodeStore())
	}
	if fm.Address() == tm.Address() {
		return nil
	}
	d := prolly.NewDiffer(fm, tm)
	for d.Next(ctx) {
		df := d.Diff()
		var f, t []Value
		var fn1, tn uint64 = 0, 0
		var err error
		if df.From != nil {
			if f, fn1, err = from.DecodeCopies(ctx, df.Key, df.From); err != nil {
				return err
			}
		}
		if df.To != nil {
			if t, tn, err = to.DecodeCopies(ctx, df.Key, df.To); err != nil {
				return err
			}
		}
		n := uint64(1)
		switch {
		case f == nil:
			n = tn
		case t == nil:
			n = fn1
		case from.Schema().Keyless() && to.Schema().Keyless():
			if fn1 < tn {
				f, n = nil, tn-fn1
			} else {
				t, n = nil, fn1-tn
			}
		case sameColumns(from.Schema(), to.Schema()) && prolly.CompareTuples(f, t) == 0:
			n = 0
		}
		for i := uint64(0); i < n; i++ {
			if err := fn(f, t); err != nil {
				return err
			}
		}
	}
	return d.Err()
}

// StageWorkspace applies the changes of table's workspace to the branch's
// staged root at once, as dolt_workspace_<t>'s UPDATE ... SET staged
// does: a change not staged is staged (the staged root takes its To row
// in place of its From row), a staged change is unstaged (the staged root
// takes back its From row, the head's). A table new in the working root
// is made in the staged root, empty, for its first row. The branch's
// working set is written with one update, as Stage's. The changes must be
// of the workspace as it is now (ErrWorkspaceMoved otherwise), and the
// table's columns the same in every root (ErrWorkspaceSchema).
func (t *Txn) StageWorkspace(ctx context.Context, table string, changes []WorkspaceChange) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		cur, err := t.db.workspace(ctx, [3]RootValue{s.HeadRoot, s.Staged, s.Working}, table, true)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			return nil, fmt.Errorf("%w: %q", ErrTableNotFound, table)
		}
		if !cur.Modifiable {
			return nil, ErrWorkspaceSchema
		}
		var tb *tables.Table
		if _, addr, ok, err := FindTable(ctx, s.Staged, cur.Table); err != nil {
			return nil, err
		} else if ok {
			if tb, err = t.db.tableAt(ctx, addr); err != nil {
				return nil, err
			}
		} else {
			_, addr, _, err := FindTable(ctx, s.Working, cur.Table)
			if err != nil {
				return nil, err
			}
			wt, err := t.db.tableAt(ctx, addr)
			if err != nil {
				return nil, err
			}
			if tb, err = tables.New(t.db.graph.NodeStore(), wt.Schema(), t.db.Collations()); err != nil {
				return nil, err
			}
		}
		ed := tb.Edit()
		var olds, news [][]Value
		for _, c := range changes {
			if !hasChange(cur.Changes, c) {
				return nil, ErrWorkspaceMoved
			}
			old, nw := c.From, c.To // stage: From -> To
			if c.Staged {
				old, nw = c.To, c.From // unstage: To -> From
			}
			olds, news = append(olds, old), append(news, nw)
		}
		if err := replaceRows(ctx, tb, ed, olds, news); err != nil {
			return nil, err
		}
		tb, err = ed.Table(ctx)
		if err != nil {
			return nil, err
		}
		addr, err := tb.Write(ctx)
		if err != nil {
			return nil, err
		}
		staged, err := s.Staged.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + cur.Table, Addr: addr})
		if err != nil {
			return nil, err
		}
		if _, ok, err := s.Staged.Get(ctx, commitgraph.TableOptsPrefix+cur.Table); err != nil {
			return nil, err
		} else if !ok {
			// A table new to the staged root takes its options too.
			if opts, ok, err := s.Working.Get(ctx, commitgraph.TableOptsPrefix+cur.Table); err != nil {
				return nil, err
			} else if ok {
				if staged, err = staged.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TableOptsPrefix + cur.Table, Addr: opts}); err != nil {
					return nil, err
				}
			}
		}
		return &BranchChange{Working: s.Working, Staged: staged, Merge: s.WS.Merge}, nil
	})
}

// RevertWorkspace undoes changes of table's workspace that are not staged,
// in the transaction's working root, as dolt_workspace_<t>'s DELETE does:
// the working root takes back each change's From row (the staged root's).
// The changes must be of the workspace as it is now (ErrWorkspaceMoved),
// not staged, and the table's columns the same in every root
// (ErrWorkspaceSchema). Nothing is written if one fails.
func (t *Txn) RevertWorkspace(ctx context.Context, table string, changes []WorkspaceChange) error {
	if t.readOnly {
		return fmt.Errorf("%w: %s is a revision at a commit", ErrReadOnly, t.branch)
	}
	cur, err := t.Workspace(ctx, table)
	if err != nil {
		return err
	}
	if cur == nil {
		return fmt.Errorf("%w: %q", ErrTableNotFound, table)
	}
	if !cur.Modifiable {
		return ErrWorkspaceSchema
	}
	var olds, news [][]Value
	for _, c := range changes {
		if c.Staged || !hasChange(cur.Changes, c) {
			return ErrWorkspaceMoved
		}
		olds, news = append(olds, c.To), append(news, c.From)
	}
	_, addr, ok, err := FindTable(ctx, t.root, cur.Table)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrTableNotFound, table)
	}
	tb, err := t.db.tableAt(ctx, addr)
	if err != nil {
		return err
	}
	ed := tb.Edit()
	if err := replaceRows(ctx, tb, ed, olds, news); err != nil {
		return err
	}
	if tb, err = ed.Table(ctx); err != nil {
		return err
	}
	return t.putTable(ctx, cur.Table, tb)
}

// hasChange reports whether changes hold c.
func hasChange(changes []WorkspaceChange, c WorkspaceChange) bool {
	same := func(a, b []Value) bool {
		return a == nil && b == nil || a != nil && b != nil && prolly.CompareTuples(a, b) == 0
	}
	for _, x := range changes {
		if x.Staged == c.Staged && same(x.From, c.From) && same(x.To, c.To) {
			return true
		}
	}
	return false
}

// replaceRows replaces each row olds[i] (nil: none) by news[i] (nil:
// none) in the table tb's editor ed, as if one after the other (of two
// edits of one key, the last one's row stays), but every old row goes
// first and the new ones come after, so that a unique value one frees
// another may take.
func replaceRows(ctx context.Context, tb *tables.Table, ed *tables.Editor, olds, news [][]Value) error {
	type edit struct{ old, new []Value }
	var order []string
	byKey := map[string]*edit{}
	keyless := tb.Schema().Keyless()
	for i := range olds {
		row := olds[i]
		if row == nil {
			row = news[i]
		}
		k := fmt.Sprint(i)
		if !keyless {
			k = string(tb.KeyOf(row))
		}
		if e, ok := byKey[k]; ok {
			e.new = news[i]
			continue
		}
		byKey[k] = &edit{old: olds[i], new: news[i]}
		order = append(order, k)
	}
	for _, k := range order {
		if o := byKey[k].old; o != nil {
			if err := ed.Delete(ctx, o); err != nil {
				if errors.Is(err, tables.ErrRowNotFound) {
					return ErrWorkspaceMoved
				}
				return err
			}
		}
	}
	for _, k := range order {
		if n := byKey[k].new; n != nil {
			if _, err := ed.Insert(ctx, n); err != nil {
				return err
			}
		}
	}
	return nil
}
