package sqlserver

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// Provider is the engine's catalog of verso databases: the database folders
// of a data dir, or databases in memory (NewMemoryProvider). It is safe for
// concurrent use.
type Provider struct {
	mu      sync.RWMutex
	dataDir string // "" for memory databases
	dbs     map[string]*dbState
	// cloning holds the lower-case names of the databases dolt_clone is
	// making (CloneDatabase).
	cloning map[string]bool
	// damaged holds the database folders NewProvider could not open, by
	// lower-case name (damaged.go).
	damaged map[string]*damagedDB
	// cache holds the tables and engine schemas this provider's
	// databases read (cache.go); sysCache what their system tables
	// decode. Both are the provider's own: two providers in a process
	// never share or evict each other's entries.
	cache    *tableCache
	sysCache *systables.Cache
	// stats holds what ANALYZE TABLE measured (statistics.go).
	stats statsStore
	// activity tracks branch activity (activity.go); nil: not tracked.
	activity *activityTracker
	// catalog is verso's procedures, functions and system tables
	// (registry.go).
	catalog *catalog
	// committer is the identity commits record when the session sets none
	// (SetCommitter).
	committer commitgraph.Signature
	// noCommitter, when set, is the error of a commit whose session names
	// no identity and committer is empty (SetNoDefaultCommitter, embed.go).
	noCommitter error
	// tableFunctions are the table functions the engine added with
	// WithTableFunctions, by lower-case name (beside the catalog's).
	tableFunctions map[string]sql.TableFunction
	// locks holds the row locks of every session's transactions
	// (rowlocks.go), shared with the databases' own (verso.Options.Locks).
	locks *verso.Locks
	// log is the log of its sessions (logging.go).
	log sessionLog
	// readOnly opens the data dir's stores read-only (readonly.go).
	readOnly bool
	// autoGC, if set, is the automatic collection of the databases the
	// provider opens (SetAutoGC); nil leaves the engine's default.
	autoGC *verso.AutoGC
	// cacheBytes, if set, bounds the node cache of each database the
	// provider opens (SetCacheBytes); nil leaves the engine's default.
	cacheBytes *int64
	// dropped holds the databases in memory that DROP DATABASE dropped,
	// open, until dolt_undrop brings one back or
	// dolt_purge_dropped_databases forgets them (dropped.go); a data
	// dir's dropped databases are folders of its droppedDir.
	dropped map[string]*dbState
}

var (
	_ sql.DatabaseProvider         = (*Provider)(nil)
	_ sql.MutableDatabaseProvider  = (*Provider)(nil)
	_ sql.CollatedDatabaseProvider = (*Provider)(nil)
)

// dbState is one open database of the provider: the engine's DB, with
// its immutable properties at hand.
type dbState struct {
	db     *verso.DB
	name   string
	dir    string // the database folder; "" in memory
	store  chunks.Store
	graph  *commitgraph.DB
	branch string // the branch sessions use: HEAD of the folder, or main
	// borrowed marks a database the program opened and gave the
	// provider (AddDB): the provider does not close it.
	borrowed bool
	// lastExecuted is when each scheduled event last ran (sqlevents.go),
	// by branch and lower-case name; eventsMu guards it.
	eventsMu     sync.Mutex
	lastExecuted map[string]time.Time
	// puller runs a read replica's pulls; pushMu orders a primary's
	// pushes to its replication remote (replication.go).
	puller replicaPuller
	pushMu sync.Mutex
}

// SetAutoGC sets the automatic garbage collection of every database the
// provider opened and opens (verso.Options.AutoGC); databases a program
// gave it (AddDB) keep their own.
func (p *Provider) SetAutoGC(cfg verso.AutoGC) {
	p.setOwned(func() { p.autoGC = &cfg }, func(db *verso.DB) { db.SetAutoGC(cfg) })
}

// SetCacheBytes bounds the caches of decoded tree nodes and commits of
// every database the provider opened and opens to n bytes each
// (verso.DB.SetCacheBytes);
// databases a program gave it (AddDB) keep their own. 0 caches nothing.
func (p *Provider) SetCacheBytes(n int64) {
	p.setOwned(func() { p.cacheBytes = &n }, func(db *verso.DB) { db.SetCacheBytes(n) })
}

// setOwned records a setting for the databases the provider opens (keep,
// under its lock) and applies it to those it opened (apply); databases a
// program gave it keep their own.
func (p *Provider) setOwned(keep func(), apply func(*verso.DB)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep()
	for _, st := range p.dbs {
		if !st.borrowed {
			apply(st.db)
		}
	}
}

// watch makes the provider's caches drop what a garbage collection of
// st's database removes, so that they never serve a collected chunk.
func (p *Provider) watch(st *dbState) {
	if !st.borrowed {
		st.db.SetLogger(p.Logger())
		if p.autoGC != nil {
			st.db.SetAutoGC(*p.autoGC)
		}
		if p.cacheBytes != nil {
			st.db.SetCacheBytes(*p.cacheBytes)
		}
	}
	st.db.OnCollect(func(collected func(verso.Hash) bool) {
		p.cache.evict(st, collected)
		p.sysCache.Evict(st.graph, collected)
	})
}

// newState returns the provider's state of db.
func newState(db *verso.DB) *dbState {
	registerDBVars(db.Name())
	return &dbState{db: db, name: db.Name(), dir: db.Dir(), store: db.Store(), graph: db.Graph(), branch: db.DefaultBranch()}
}

// NewMemoryProvider returns a provider whose databases live in memory
// (chunks.MemoryStore), for tests.
func NewMemoryProvider() *Provider { return emptyProvider("") }

// emptyProvider returns a provider of no databases yet, over dataDir ("" in
// memory), with caches and a catalog of its own.
func emptyProvider(dataDir string) *Provider {
	registerSystemVariables()
	registerAnalyzerRules()
	return &Provider{dataDir: dataDir, dbs: map[string]*dbState{}, cache: newTableCache(), sysCache: systables.NewCache(), catalog: newCatalog(), locks: verso.NewLocks()}
}

// NewProvider opens every database folder in dataDir (a sub-folder holding
// .verso/chunks; folders whose names begin with '.' are the data dir's own,
// names.go). CREATE DATABASE makes new folders there. A database that
// cannot be opened is kept aside (Damaged, damaged.go) and the others are
// served; one whose store another process holds open fails NewProvider.
func NewProvider(dataDir string) (*Provider, error) { return newProvider(dataDir, false) }

// DataDir returns the absolute path of the data dir p serves, or "" for
// databases in memory (NewMemoryProvider). The wire server writes paths
// in it relative to it in its clients' errors, and makes its default
// secure_file_priv folder there.
func (p *Provider) DataDir() string { return p.dataDir }

func newProvider(dataDir string, readOnly bool) (*Provider, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	p := emptyProvider(abs)
	p.readOnly = readOnly
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(abs, e.Name())
		if !verso.IsDatabase(dir) {
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
	return p.addDatabaseDir(name, dir, p.readOnly)
}

func (p *Provider) addDatabaseDir(name, dir string, readOnly bool) error {
	st, err := openDir(name, dir, readOnly, p.locks)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dbs[strings.ToLower(name)]; ok {
		st.close()
		return sql.ErrDatabaseExists.New(name)
	}
	p.watch(st)
	p.dbs[strings.ToLower(name)] = st
	return nil
}

func openDir(name, dir string, readOnly bool, locks *verso.Locks) (*dbState, error) {
	db, err := verso.Open(dir, verso.Options{Name: name, ReadOnly: readOnly, Collations: sqlCollations{}, Locks: locks})
	if err != nil {
		return nil, err
	}
	return newState(db), nil
}

func (st *dbState) close() error {
	if st.borrowed {
		return nil
	}
	return st.db.Close()
}

// AddDB serves db, a database the program opened (verso.Open), under its
// name. The provider does not close it: the program does, after the
// provider. A db opened without collations takes the SQL layer's.
func (p *Provider) AddDB(db *verso.DB) error {
	if err := checkDatabaseName(db.Name()); err != nil {
		return err
	}
	db.UseCollations(sqlCollations{})
	st := newState(db)
	st.borrowed = true
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.dbs) == 0 {
		// The provider's sessions lock rows in the program's database:
		// one manager, so that they and the program's transactions wait
		// for each other.
		p.locks = db.Locks()
	}
	if _, ok := p.dbs[strings.ToLower(db.Name())]; ok {
		return sql.ErrDatabaseExists.New(db.Name())
	}
	p.watch(st)
	p.dbs[strings.ToLower(db.Name())] = st
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
	for k, st := range p.dropped {
		st.close()
		delete(p.dropped, k)
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
	// A remote-tracking branch (origin/main) names no revision database,
	// as in Dolt: only branches, tags and commits do.
	if base, _, _ := strings.Cut(strings.SplitN(rev, "^", 2)[0], "~"); strings.Contains(base, "/") {
		if _, err := st.graph.Head(ctx, base); err != nil {
			if _, err := st.graph.Tag(ctx, base); err != nil {
				return nil, sql.ErrDatabaseNotFound.New(name)
			}
		}
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

// AllDatabases implements sql.DatabaseProvider: the databases, and, as
// Dolt lists it, the revision database the session is using (USE
// `db/feature`); other revisions are not listed.
func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	p.mu.RLock()
	out := make([]sql.Database, 0, len(p.dbs)+1)
	for _, st := range p.dbs {
		out = append(out, p.database(ctx, st))
	}
	p.mu.RUnlock()
	if cur := ctx.GetCurrentDatabase(); strings.Contains(cur, "/") {
		if d, err := p.Database(ctx, cur); err == nil {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name()) < strings.ToLower(out[j].Name()) })
	return out
}

// CreateDatabase implements sql.MutableDatabaseProvider: a new folder in
// the data dir, or a new memory store.
func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	if err := checkDatabaseName(name); err != nil {
		return err
	}
	if p.readOnly {
		return errReadOnlyProvider
	}
	// The first commit is the creating session's, as Dolt records it
	// (root, root@localhost over the loopback). identity reads p.mu.
	author := identity(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dbs[strings.ToLower(name)]; ok || p.cloning[strings.ToLower(name)] {
		return sql.ErrDatabaseExists.New(name)
	}
	var st *dbState
	if p.dataDir == "" {
		db, err := verso.OpenMemory(name, verso.Options{Collations: sqlCollations{}, Locks: p.locks, Author: author})
		if err != nil {
			return err
		}
		st = newState(db)
	} else {
		dir := filepath.Join(p.dataDir, name)
		if _, err := os.Stat(dir); err == nil {
			return sql.ErrDatabaseExists.New(name)
		}
		db, err := verso.Init(dir, verso.Options{Name: name, Collations: sqlCollations{}, Locks: p.locks, Author: author})
		if err != nil {
			os.RemoveAll(dir)
			return err
		}
		st = newState(db)
	}
	p.watch(st)
	p.dbs[strings.ToLower(name)] = st
	return nil
}

// DropDatabase implements sql.MutableDatabaseProvider: it closes the
// database and keeps it aside (its folder moved to the data dir's
// droppedDir, or its state kept in memory), as Dolt does, for dolt_undrop,
// until dolt_purge_dropped_databases.
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
	if st.readOnly() {
		return errReadOnlyDatabase(st.name)
	}
	delete(p.dbs, strings.ToLower(name))
	if p.dataDir == "" {
		if p.dropped == nil {
			p.dropped = map[string]*dbState{}
		}
		if old, ok := p.dropped[strings.ToLower(name)]; ok {
			old.close()
		}
		p.dropped[strings.ToLower(name)] = st
		return nil
	}
	err := st.close()
	// Only folders of the data dir are kept aside: a database added from
	// elsewhere (AddDatabaseDir) is closed, not moved.
	if st.dir != "" && p.dataDir != "" && filepath.Dir(st.dir) == p.dataDir {
		if rerr := p.keepDropped(st); err == nil {
			err = rerr
		}
	}
	return err
}

// CreateCollatedDatabase implements sql.CollatedDatabaseProvider: the
// database, with its default collation (dbopts.go) in its working set.
func (p *Provider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	if err := p.CreateDatabase(ctx, name); err != nil {
		return err
	}
	if collation == sql.Collation_Default || collation == sql.Collation_Unspecified {
		return nil
	}
	d, err := p.Database(ctx, name)
	if err != nil {
		return err
	}
	return d.(*Database).SetCollation(ctx, collation)
}

// CloneDatabase makes the database name in the data dir as a clone of the
// remote at url (verso.Clone), and serves it.
func (p *Provider) CloneDatabase(ctx *sql.Context, url, name string, opts verso.CloneOptions) error {
	if err := checkDatabaseName(name); err != nil {
		return err
	}
	if p.readOnly {
		return errReadOnlyProvider
	}
	if p.dataDir == "" {
		return errors.New("dolt_clone needs a server with a data directory: this one keeps its databases in memory")
	}
	// The name is taken (p.cloning) while the clone runs without p.mu,
	// which every statement's lookup of a database reads.
	key := strings.ToLower(name)
	dir := filepath.Join(p.dataDir, name)
	p.mu.Lock()
	_, exists := p.dbs[key]
	if _, err := os.Stat(dir); err == nil && !verso.CloneLeftover(dir) {
		exists = true
	}
	if exists || p.cloning[key] {
		p.mu.Unlock()
		return sql.ErrDatabaseExists.New(name)
	}
	if p.cloning == nil {
		p.cloning = map[string]bool{}
	}
	p.cloning[key] = true
	p.mu.Unlock()
	opts.Options = verso.Options{Name: name, Collations: sqlCollations{}, Locks: p.locks}
	db, err := verso.Clone(ctx, url, dir, opts)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.cloning, key)
	if err != nil {
		return err
	}
	st := newState(db)
	p.watch(st)
	p.dbs[key] = st
	return nil
}
