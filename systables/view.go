package systables

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// Root value prefixes the system tables read. They mirror the names
// package sqlserver and package eventindex write: a SQL table t is the
// entry "tables/t" (its options "tableopts/t"), the event log and its
// indexes are entries under "events/".
const (
	TablePrefix     = commitgraph.TablePrefix
	TableOptsPrefix = commitgraph.TableOptsPrefix
	EventsPrefix    = commitgraph.EventsPrefix
	// EventsTable is the table_name dolt_diff gives a change to the event
	// log.
	EventsTable = verso.EventsTable
	// Working is the commit_hash (or to_commit) of uncommitted changes.
	Working = verso.Working
)

// View is what the system tables of one database read: the commit graph
// and its refs as of the session transaction's snapshot, the session's
// branch (HEAD), and the transaction's working root.
type View struct {
	// DB is the engine's name of the database.
	DB    string
	Graph *commitgraph.DB
	// Refs are the refs as of the transaction's snapshot: branch heads,
	// tags. Commits made by others after it are not seen.
	Refs *commitgraph.Snapshot
	// Branch is the session's branch: HEAD is its head in Refs, unless At
	// is set.
	Branch string
	// At, when set, is HEAD instead: the commit of a revision database at
	// a tag or a commit, or of AS OF.
	At *commitgraph.Commit
	// Working is the session transaction's working root, uncommitted
	// changes included: the WORKING rows of dolt_diff and dolt_diff_<t>
	// compare it with HEAD's root.
	Working commitgraph.RootValue
	// Tables opens stored tables with the engine's schema and row
	// conversion; dolt_diff_<t> and dolt_history_<t> need it.
	Tables TableReader
	// Session reaches the session's transaction when a statement reads
	// or writes a table that follows it (OpenSession's tables); the
	// commit-indexed tables do not use it.
	Session Session
	// Statistics gives dolt_statistics' rows; nil: none.
	Statistics Statistics
	// Activity gives dolt_branch_activity's rows; nil: activity is not
	// tracked.
	Activity BranchActivity
	// Cache is shared by the views of one provider (or database); nil:
	// the view keeps its own, for as long as it lives.
	Cache *Cache

	ownOnce sync.Once
	own     *Cache

	// recent holds the stored tables readTable opened last, by table
	// value: a walk of a history opens each table value twice in a row
	// (a commit's side, then its parent's as the next commit).
	recentMu sync.Mutex
	recent   [4]recentTable
	recentAt int
}

// recentTable is a stored table readTable opened: the table value at
// addr, named name.
type recentTable struct {
	name string
	addr chunks.Address
	t    *StoredTable
}

// TableReader opens a stored table for reading its rows as the engine's
// ordinary table read does, and converts stored schemas and values as it
// does (dolt_conflicts_<t> shows rows of a schema the conflicts were
// recorded in).
type TableReader interface {
	// ReadTable returns the table stored at addr under the name name.
	ReadTable(ctx *sql.Context, name string, addr chunks.Address) (*StoredTable, error)
	// Schema returns the engine columns of the stored schema s of the
	// table name.
	Schema(ctx *sql.Context, name string, s *tables.Schema) (sql.Schema, error)
	// Value converts a stored value to the engine's value of type t.
	Value(t sql.Type, v tables.Value) (any, error)
	// Stored converts the engine's value v of type t to a stored value.
	Stored(ctx *sql.Context, t sql.Type, v any) (tables.Value, error)
	// Definition returns the SQL definition of the table named name in
	// root (matched without case), nil if root has none.
	Definition(ctx *sql.Context, root commitgraph.RootValue, name string) (*TableDefinition, error)
	// ObjectRows returns the rows of the table of schema objects named
	// item (SchemasName, ProceduresName) in root, in the columns of
	// ObjectSchema(item), in any order.
	ObjectRows(ctx *sql.Context, root commitgraph.RootValue, item string) ([]sql.Row, error)
}

// TableDefinition is a stored table's definition in SQL, as the engine
// prints it (SHOW CREATE TABLE).
type TableDefinition struct {
	// Name is the table's name as stored.
	Name string
	// Create is the CREATE TABLE statement, without the AUTO_INCREMENT
	// option (the counter is not part of the schema) and without a
	// final semicolon.
	Create string
	// Columns are the column definitions as Create holds them
	// ("`c` int NOT NULL DEFAULT '7'"), in the columns' order.
	Columns []string
	// Schema is the stored schema: columns, primary key, indexes, checks.
	Schema *tables.Schema
	// Collation and Comment are the table's options.
	Collation, Comment string
}

// StoredTable is a table value with its engine schema and the conversion
// of its stored rows to engine rows.
type StoredTable struct {
	Table  *tables.Table
	Schema sql.Schema
	// Row converts a stored row (as tables.RowIter yields it).
	Row func(vals []tables.Value) (sql.Row, error)
}

// NewView returns a view of graph's refs as they are now, for branch, whose
// working root is the branch's working set's. tr may be nil when no table
// reads rows of user tables.
func NewView(ctx context.Context, dbName string, graph *commitgraph.DB, branch string, tr TableReader) (*View, error) {
	snap, err := graph.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := snap.WorkingSet(ctx, branch)
	if err != nil {
		return nil, err
	}
	root, err := graph.OpenRoot(ctx, ws.Working)
	if err != nil {
		return nil, err
	}
	return &View{DB: dbName, Graph: graph, Refs: snap, Branch: branch, Working: root, Tables: tr}, nil
}

// head returns HEAD: the session branch's head commit in the snapshot, or
// At.
func (v *View) head(ctx context.Context) (*commitgraph.Commit, error) {
	if v.At != nil {
		return v.At, nil
	}
	a, err := v.Refs.Head(ctx, v.Branch)
	if err != nil {
		return nil, err
	}
	return v.Graph.ReadCommit(ctx, a)
}

// staged returns the session branch's staged root as of the snapshot:
// what the next commit takes (the working set's). A revision at a commit
// (At) has no working set: its staged root is its commit's.
func (v *View) staged(ctx context.Context) (commitgraph.RootValue, error) {
	if v.At != nil {
		return v.openRoot(ctx, v.At)
	}
	ws, err := v.Refs.WorkingSet(ctx, v.Branch)
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return v.Graph.OpenRoot(ctx, ws.Staged)
}

// pending is the session's uncommitted changes as dolt_diff and
// dolt_column_diff show them: STAGED, from HEAD's root to the staged
// root, and WORKING, from the staged root to the working root.
type pending struct {
	head, staged, working commitgraph.RootValue
}

// pending returns the roots of the uncommitted changes over HEAD.
func (v *View) pending(ctx context.Context, head *commitgraph.Commit) (pending, error) {
	hr, err := v.openRoot(ctx, head)
	if err != nil {
		return pending{}, err
	}
	sr, err := v.staged(ctx)
	if err != nil {
		return pending{}, err
	}
	return pending{head: hr, staged: sr, working: v.Working}, nil
}

// findTable returns the exact stored name and address of the table named
// name (any case) in root.
func findTable(ctx context.Context, root commitgraph.RootValue, name string) (string, chunks.Address, bool, error) {
	if a, ok, err := root.Get(ctx, TablePrefix+name); err != nil || ok {
		return name, a, ok, err
	}
	ents, err := root.Entries(ctx, TablePrefix)
	if err != nil {
		return "", chunks.Address{}, false, err
	}
	for _, e := range ents {
		if n := strings.TrimPrefix(e.Name, TablePrefix); strings.EqualFold(n, name) {
			return n, e.Addr, true, nil
		}
	}
	return "", chunks.Address{}, false, nil
}

// openRoot opens the root value of commit c.
func (v *View) openRoot(ctx context.Context, c *commitgraph.Commit) (commitgraph.RootValue, error) {
	if c == nil {
		return commitgraph.EmptyRoot(v.Graph.NodeStore()), nil
	}
	return v.Graph.OpenRoot(ctx, c.Root)
}

// readTable returns the table named name in root, nil if root has none.
func (v *View) readTable(ctx *sql.Context, root commitgraph.RootValue, name string) (*StoredTable, error) {
	exact, addr, ok, err := findTable(ctx, root, name)
	if err != nil || !ok {
		return nil, err
	}
	if v.Tables == nil {
		return nil, fmt.Errorf("systables: no table reader for %q", name)
	}
	v.recentMu.Lock()
	for _, r := range v.recent {
		if r.t != nil && r.addr == addr && r.name == exact {
			v.recentMu.Unlock()
			return r.t, nil
		}
	}
	v.recentMu.Unlock()
	t, err := v.Tables.ReadTable(ctx, exact, addr)
	if err != nil {
		return nil, err
	}
	v.recentMu.Lock()
	v.recent[v.recentAt] = recentTable{exact, addr, t}
	v.recentAt = (v.recentAt + 1) % len(v.recent)
	v.recentMu.Unlock()
	return t, nil
}

// allHeads returns the commits whose histories dolt_commits shows: every
// branch head and every tagged commit, once each.
func (v *View) allHeads(ctx context.Context) ([]chunks.Address, error) {
	ri, err := v.info(ctx)
	if err != nil {
		return nil, err
	}
	return ri.heads, nil
}

// branchHeads returns the head of every branch of the snapshot, once each,
// by branch name.
func (v *View) branchHeads(ctx context.Context) ([]chunks.Address, error) {
	ri, err := v.info(ctx)
	if err != nil {
		return nil, err
	}
	return ri.branchHeads, nil
}

// decoration is how dolt_log's refs column names refs, as --decorate
// takes it: short names, full names or none.
type decoration uint8

const (
	decorateShort decoration = iota // main, tag: v1
	decorateFull                    // refs/heads/main, tag: refs/tags/v1
	decorateNo                      // the column is empty
)

// refName is a ref that names a commit: a branch or a tag.
type refName struct {
	name string
	tag  bool
}

// refsColumn returns dolt_log's refs column of the commit at a: the
// branches naming it, then the tags, each by name, as Dolt lists them
// ("main, zeta, tag: v1"), after "HEAD -> " if a is head; "" if no ref
// names it.
func (ri *refsInfo) refsColumn(a, head chunks.Address, d decoration) string {
	names := ri.refs[a]
	if len(names) == 0 || d == decorateNo {
		return ""
	}
	var b strings.Builder
	if a == head {
		b.WriteString("HEAD -> ")
	}
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case n.tag && d == decorateFull:
			b.WriteString("tag: refs/tags/")
		case n.tag:
			b.WriteString("tag: ")
		case d == decorateFull:
			b.WriteString("refs/heads/")
		}
		b.WriteString(n.name)
	}
	return b.String()
}

// readRefs reads the branches and tags of the snapshot: the refs naming
// each commit and the heads.
func (v *View) readRefs(ctx context.Context) (*refsInfo, error) {
	bs, err := v.Refs.Branches(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := v.Refs.Tags(ctx)
	if err != nil {
		return nil, err
	}
	ri := &refsInfo{refs: map[chunks.Address][]refName{}}
	seen := map[chunks.Address]bool{}
	add := func(a chunks.Address) {
		if !seen[a] {
			seen[a] = true
			ri.heads = append(ri.heads, a)
		}
	}
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	for _, b := range bs {
		add(b.Head)
		if len(ri.refs[b.Head]) == 0 {
			ri.branchHeads = append(ri.branchHeads, b.Head)
		}
		ri.refs[b.Head] = append(ri.refs[b.Head], refName{name: b.Name})
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	for _, t := range ts {
		add(t.Commit)
		ri.refs[t.Commit] = append(ri.refs[t.Commit], refName{name: t.Name, tag: true})
	}
	return ri, nil
}
