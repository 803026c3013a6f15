package sqlserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/rowlock"
)

// The layout of a database folder, shared with cmd/verso:
//
//	<dir>/.verso/          the database
//	<dir>/.verso/chunks/   the chunk store (chunks.FileStore)
//	<dir>/.verso/HEAD      the default branch's name and a newline
//
// A data dir holds database folders; the folder's name is the database's.
const (
	repoDir  = ".verso"
	storeDir = "chunks"
	headFile = "HEAD"
)

// Provider is the engine's catalog of verso databases: the database folders
// of a data dir, or databases in memory (NewMemoryProvider). It is safe for
// concurrent use.
type Provider struct {
	mu      sync.RWMutex
	dataDir string // "" for memory databases
	dbs     map[string]*dbState
	// damaged holds the database folders NewProvider could not open, by
	// lower-case name (damaged.go).
	damaged map[string]*damagedDB
	cache   *tableCache
	// committer is the identity commits record when the session sets none
	// (SetCommitter).
	committer commitgraph.Signature
	// noCommitter, when set, is the error of a commit whose session names
	// no identity and committer is empty (SetNoDefaultCommitter, embed.go).
	noCommitter error
	// tableFunctions are the table functions the engine added with
	// WithTableFunctions, by lower-case name (beside the registry's).
	tableFunctions map[string]sql.TableFunction
	// locks holds the row locks of every session's transactions
	// (rowlocks.go), made on first use.
	locksOnce sync.Once
	locks     *rowlock.Manager
}

var (
	_ sql.DatabaseProvider         = (*Provider)(nil)
	_ sql.MutableDatabaseProvider  = (*Provider)(nil)
	_ sql.CollatedDatabaseProvider = (*Provider)(nil)
)

// dbState is one open database.
type dbState struct {
	name   string
	dir    string // the database folder; "" in memory
	store  chunks.Store
	graph  *commitgraph.DB
	branch string // the branch sessions use: HEAD of the folder, or main
	// commitMu serializes transaction commits to this database's working
	// sets, so that concurrent commits merge one after another instead of
	// retrying each other's compare-and-swaps.
	commitMu sync.Mutex
	// commits queues transaction commits into groups (commit.go).
	commits commitQueue

	// autoInc holds, per table (lower-case name), the next auto-increment
	// value handed out to any session, as MySQL keeps one counter per table
	// across transactions: concurrent inserts get distinct values (and do
	// not conflict at commit). Values handed out and rolled back are not
	// reused. It starts from the stored counter of the table.
	autoIncMu sync.Mutex
	autoInc   map[string]uint64

	// snapshots caches, per branch, the working set and its opened root
	// as of a store root: a transaction's snapshot is a function of the
	// store root, so transactions that start while it has not moved share
	// one read of the refs and working set (most autocommit statements).
	snapMu    sync.Mutex
	snapshots map[string]snapshot
}

// snapshot is a branch's working set and root as of a store root.
type snapshot struct {
	storeRoot chunks.Address
	refs      *commitgraph.Snapshot
	ws        commitgraph.WorkingSet
	root      commitgraph.RootValue
}

// nextAutoIncrement returns the value for an auto-increment insert into
// table: given (non-zero), or the next of the shared counter, which moves
// past it. stored is the counter the session's table value holds.
func (st *dbState) nextAutoIncrement(table string, stored, given uint64) uint64 {
	st.autoIncMu.Lock()
	defer st.autoIncMu.Unlock()
	if st.autoInc == nil {
		st.autoInc = map[string]uint64{}
	}
	k := strings.ToLower(table)
	next := max(st.autoInc[k], stored, 1)
	if given > 0 {
		st.autoInc[k] = max(next, given+1)
		return given
	}
	st.autoInc[k] = next + 1
	return next
}

// peekAutoIncrement returns the next value nextAutoIncrement would hand out.
func (st *dbState) peekAutoIncrement(table string, stored uint64) uint64 {
	st.autoIncMu.Lock()
	defer st.autoIncMu.Unlock()
	return max(st.autoInc[strings.ToLower(table)], stored, 1)
}

// setAutoIncrement resets the shared counter of table (ALTER TABLE ...
// AUTO_INCREMENT, DROP TABLE, RENAME TABLE).
func (st *dbState) setAutoIncrement(table string, n uint64) {
	st.autoIncMu.Lock()
	defer st.autoIncMu.Unlock()
	if n == 0 {
		delete(st.autoInc, strings.ToLower(table))
		return
	}
	if st.autoInc == nil {
		st.autoInc = map[string]uint64{}
	}
	st.autoInc[strings.ToLower(table)] = n
}

// NewMemoryProvider returns a provider whose databases live in memory
// (chunks.MemoryStore), for tests.
func NewMemoryProvider() *Provider {
	return &Provider{dbs: map[string]*dbState{}, cache: newTableCache()}
}

// NewProvider opens every database folder in dataDir (a sub-folder holding
// .verso/chunks; folders whose names begin with '.' are the data dir's own,
// names.go). CREATE DATABASE makes new folders there. A database that
// cannot be opened is kept aside (Damaged, damaged.go) and the others are
// served; one whose store another process holds open fails NewProvider.
func NewProvider(dataDir string) (*Provider, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	p := &Provider{dataDir: abs, dbs: map[string]*dbState{}, cache: newTableCache()}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(abs, e.Name())
		if fi, err := os.Stat(filepath.Join(dir, repoDir, storeDir)); err != nil || !fi.IsDir() {
			continue
		}
		if err := p.AddDatabaseDir(e.Name(), dir); err != nil {
			if openFailureIsFatal(err) || sql.ErrDatabaseExists.Is(err) {
				p.Close()
				return nil, err
			}
			if p.damaged == nil {
				p.damaged = map[string]*damagedDB{}
			}
			p.damaged[strings.ToLower(e.Name())] = &damagedDB{name: e.Name(), err: err}
		}
	}
	return p, nil
}

// AddDatabaseDir opens the database in the folder dir (which holds .verso)
// under name.
func (p *Provider) AddDatabaseDir(name, dir string) error {
	st, err := openDir(name, dir)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dbs[strings.ToLower(name)]; ok {
		st.close()
		return sql.ErrDatabaseExists.New(name)
	}
	p.dbs[strings.ToLower(name)] = st
	return nil
}

func openDir(name, dir string) (*dbState, error) {
	cs, err := chunks.OpenFileStore(filepath.Join(dir, repoDir, storeDir), chunks.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening database %q: %w", name, err)
	}
	registerDBVars(name)
	st := &dbState{name: name, dir: dir, store: cs, graph: commitgraph.New(cs), branch: commitgraph.DefaultBranch}
	if b, err := os.ReadFile(filepath.Join(dir, repoDir, headFile)); err == nil {
		if h := strings.TrimSpace(string(b)); h != "" {
			st.branch = h
		}
	}
	ok, err := st.graph.Initialized(context.Background())
	if err == nil && !ok {
		_, err = st.graph.Init(context.Background(), st.branch, initMeta())
	}
	if err != nil {
		st.close()
		return nil, fmt.Errorf("opening database %q: %w", name, err)
	}
	return st, nil
}

func initMeta() commitgraph.Meta {
	return commitgraph.Meta{
		Author:  commitgraph.Signature{Name: "verso", Email: "verso@localhost"},
		Message: "Initialize data repository",
	}
}

func (st *dbState) close() error {
	if c, ok := st.store.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Close closes every database's store.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for k, st := range p.dbs {
		if err := st.close(); err != nil && first == nil {
			first = err
		}
		delete(p.dbs, k)
	}
	return first
}

func (p *Provider) state(name string) (*dbState, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	st, ok := p.dbs[strings.ToLower(name)]
	return st, ok
}

// Database implements sql.DatabaseProvider. "db" is the database on the
// session's current branch (dolt_checkout; by default its folder's branch,
// .verso/HEAD); "db/rev" is a revision database: the same database on
// another branch's working set (USE `db/feature`), or, read-only, at a tag
// or commit (`db/v1.0`, `db/<hash>`, `db/main~2`).
func (p *Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	base, rev, isRev := strings.Cut(name, "/")
	st, ok := p.state(base)
	if !ok {
		if d, ok := p.damagedState(base); ok {
			return nil, p.clientError(d)
		}
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	if !isRev {
		return p.database(ctx, st), nil
	}
	if _, err := st.graph.Head(ctx, rev); err == nil {
		return &Database{p: p, st: st, name: st.name + "/" + rev, branch: rev}, nil
	}
	c, err := st.graph.Resolve(ctx, rev, p.sessionBranch(ctx, st))
	if err != nil {
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	return &Database{p: p, st: st, name: st.name + "/" + rev, branch: p.sessionBranch(ctx, st), rev: c}, nil
}

func (p *Provider) database(ctx *sql.Context, st *dbState) *Database {
	return &Database{p: p, st: st, name: st.name, branch: p.sessionBranch(ctx, st)}
}

// HasDatabase implements sql.DatabaseProvider. A damaged database is
// there (the engine then asks Database, whose error says what is wrong).
func (p *Provider) HasDatabase(ctx *sql.Context, name string) bool {
	_, err := p.Database(ctx, name)
	if err != nil {
		base, _, _ := strings.Cut(name, "/")
		_, ok := p.damagedState(base)
		return ok
	}
	return true
}

// AllDatabases implements sql.DatabaseProvider.
func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	p.mu.RLock()
	out := make([]sql.Database, 0, len(p.dbs))
	for _, st := range p.dbs {
		out = append(out, p.database(ctx, st))
	}
	p.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name()) < strings.ToLower(out[j].Name()) })
	return out
}

// CreateDatabase implements sql.MutableDatabaseProvider: a new folder in
// the data dir, or a new memory store.
func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	if err := checkDatabaseName(name); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dbs[strings.ToLower(name)]; ok {
		return sql.ErrDatabaseExists.New(name)
	}
	var st *dbState
	if p.dataDir == "" {
		cs := chunks.NewMemoryStore()
		registerDBVars(name)
		st = &dbState{name: name, store: cs, graph: commitgraph.New(cs), branch: commitgraph.DefaultBranch}
		if _, err := st.graph.Init(ctx, st.branch, initMeta()); err != nil {
			return err
		}
	} else {
		dir := filepath.Join(p.dataDir, name)
		if _, err := os.Stat(dir); err == nil {
			return sql.ErrDatabaseExists.New(name)
		}
		if err := os.MkdirAll(filepath.Join(dir, repoDir), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, repoDir, headFile), []byte(commitgraph.DefaultBranch+"\n"), 0o644); err != nil {
			os.RemoveAll(dir)
			return err
		}
		var err error
		if st, err = openDir(name, dir); err != nil {
			os.RemoveAll(dir)
			return err
		}
	}
	p.dbs[strings.ToLower(name)] = st
	return nil
}

// DropDatabase implements sql.MutableDatabaseProvider: it closes the
// database and removes its folder.
func (p *Provider) DropDatabase(ctx *sql.Context, name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.dbs[strings.ToLower(name)]
	if !ok {
		if d, ok := p.damaged[strings.ToLower(name)]; ok {
			return p.clientError(d)
		}
		return sql.ErrDatabaseNotFound.New(name)
	}
	delete(p.dbs, strings.ToLower(name))
	err := st.close()
	// Only folders of the data dir are removed: a database added from
	// elsewhere (AddDatabaseDir) is closed, not deleted.
	if st.dir != "" && p.dataDir != "" && filepath.Dir(st.dir) == p.dataDir {
		if rerr := os.RemoveAll(st.dir); err == nil {
			err = rerr
		}
	}
	return err
}

// CreateCollatedDatabase implements sql.CollatedDatabaseProvider. verso
// does not store a database collation yet: only the default is accepted
// (columns keep their own collations).
func (p *Provider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	if err := checkDatabaseCollation(collation); err != nil {
		return err
	}
	return p.CreateDatabase(ctx, name)
}

func checkDatabaseCollation(c sql.CollationID) error {
	if c != sql.Collation_Default && c != sql.Collation_Unspecified {
		return fmt.Errorf("verso does not support database collations other than %s yet (got %s)", sql.Collation_Default, c)
	}
	return nil
}
