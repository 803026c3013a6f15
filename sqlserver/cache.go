package sqlserver

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// tableInfo is a loaded table value with its engine schema, converted once
// per table value (a table value is immutable, so this never goes stale).
type tableInfo struct {
	addr      chunks.Address
	t         *tables.Table
	sch       sql.PrimaryKeySchema
	comment   string
	collation sql.CollationID

	fpOnce sync.Once
	fp     string // schemaFingerprint of sch, made on first use
}

type cacheKey struct {
	st   *dbState // table values of one store only: maps read through it
	db   string   // the engine's database name, in the schema
	name string
	addr chunks.Address
	opts chunks.Address // the table's options object, zero if none
}

// tableCache keeps recently used tableInfos, and engine schemas by stored
// schema (schemaFor). It is bounded: when full, each map
// starts over (simple, and a miss costs one chunk read and a schema
// parse). Each Provider has its own.
type tableCache struct {
	mu      sync.Mutex
	m       map[cacheKey]*tableInfo
	schemas map[schemaKey]sql.PrimaryKeySchema
	// byPtr is schemas by decoded schema, for the tables that share one
	// (tables.LoadLike), so a hit needs no encoding of the schema.
	byPtr map[schemaPtrKey]sql.PrimaryKeySchema
	// likes holds the table value last read by history (readLike) per
	// database and table name: the next value of that table reuses its
	// decoded schema when it has the same one.
	likes map[likeKey]*tables.Table
}

type schemaPtrKey struct {
	st        *dbState
	db, table string
	s         *tables.Schema
}

type likeKey struct {
	st    *dbState
	table string
}

const (
	tableCacheSize  = 4096
	schemaCacheSize = 1024
)

func newTableCache() *tableCache {
	return &tableCache{m: map[cacheKey]*tableInfo{}, schemas: map[schemaKey]sql.PrimaryKeySchema{}}
}

// len returns the number of tableInfos and of history schemas held.
func (c *tableCache) len() (tables, schemas int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), len(c.schemas)
}

// evict drops the tables of st whose value or options a garbage
// collection removed.
func (c *tableCache) evict(st *dbState, collected func(chunks.Address) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if k.st == st && (collected(k.addr) || (!k.opts.IsEmpty() && collected(k.opts))) {
			delete(c.m, k)
		}
	}
}

func (c *tableCache) get(ctx *sql.Context, db *Database, name string, addr, opts chunks.Address) (*tableInfo, error) {
	st := db.st
	k := cacheKey{st, db.Name(), name, addr, opts}
	c.mu.Lock()
	info, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	t, err := tables.Load(ctx, st.graph.NodeStore(), addr, sqlCollations{})
	if err != nil {
		return nil, err
	}
	sch, err := c.schemaFor(ctx, db, name, t.Schema())
	if err != nil {
		return nil, err
	}
	info = &tableInfo{addr: addr, t: t, sch: sch, collation: sql.Collation_Default}
	if !opts.IsEmpty() {
		if info.comment, info.collation, err = readTableOptions(ctx, st, name, opts); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	if len(c.m) >= tableCacheSize {
		c.m = map[cacheKey]*tableInfo{}
	}
	c.m[k] = info
	c.mu.Unlock()
	return info, nil
}

// derive records t, the table value at addr that a transaction's writes
// made from the one at from with the same schema, under each key the value
// at from is cached under (with root's options of the table, and with
// none): the next statement opens it without a load or a schema
// conversion.
func (c *tableCache) derive(ctx *sql.Context, db *Database, root commitgraph.RootValue, name string, from, addr chunks.Address, t *tables.Table) error {
	opts, _, err := root.Get(ctx, tableOptsPrefix+name)
	if err != nil {
		return err
	}
	keys := []chunks.Address{{}}
	if !opts.IsEmpty() {
		keys = append(keys, opts)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range keys {
		k := cacheKey{db.st, db.Name(), name, from, o}
		old, ok := c.m[k]
		if !ok || old.t.Schema() != t.Schema() {
			continue
		}
		if len(c.m) >= tableCacheSize {
			c.m = map[cacheKey]*tableInfo{}
		}
		k.addr = addr
		c.m[k] = &tableInfo{addr: addr, t: t, sch: old.sch, comment: old.comment, collation: old.collation}
	}
	return nil
}

type schemaKey struct {
	st          *dbState
	db, table   string
	storedBytes string
}

// schemaFor returns engineSchema(db, table, s), cached by s's
// encoding: history tables open a table value per commit, and every write
// makes a new table value, each at its own address, so their schemas are
// cached by the stored schema rather than by table value. The schema is
// shared: callers must not change it.
func (c *tableCache) schemaFor(ctx *sql.Context, db *Database, table string, s *tables.Schema) (sql.PrimaryKeySchema, error) {
	pk := schemaPtrKey{db.st, db.Name(), table, s}
	c.mu.Lock()
	sch, ok := c.byPtr[pk]
	c.mu.Unlock()
	if ok {
		return sch, nil
	}
	k := schemaKey{db.st, db.Name(), table, string(tables.EncodeSchema(s))}
	c.mu.Lock()
	sch, ok = c.schemas[k]
	if ok {
		c.putPtr(pk, sch)
	}
	c.mu.Unlock()
	if ok {
		return sch, nil
	}
	sch, err := engineSchema(ctx, db.Name(), table, s)
	if err != nil {
		return sch, err
	}
	c.mu.Lock()
	if len(c.schemas) >= schemaCacheSize {
		c.schemas = map[schemaKey]sql.PrimaryKeySchema{}
	}
	c.schemas[k] = sch
	c.putPtr(pk, sch)
	c.mu.Unlock()
	return sch, nil
}

// putPtr records sch as the engine schema of pk; c.mu is held.
func (c *tableCache) putPtr(pk schemaPtrKey, sch sql.PrimaryKeySchema) {
	if c.byPtr == nil || len(c.byPtr) >= schemaCacheSize {
		c.byPtr = map[schemaPtrKey]sql.PrimaryKeySchema{}
	}
	c.byPtr[pk] = sch
}

// readLike loads the table value at addr of table name in st's store as
// tables.LoadLike does, like the value of that table it loaded last.
func (c *tableCache) readLike(ctx *sql.Context, st *dbState, name string, addr chunks.Address) (*tables.Table, error) {
	k := likeKey{st, name}
	c.mu.Lock()
	like := c.likes[k]
	c.mu.Unlock()
	t, err := tables.LoadLike(ctx, st.graph.NodeStore(), addr, sqlCollations{}, like)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.likes == nil || len(c.likes) >= schemaCacheSize {
		c.likes = map[likeKey]*tables.Table{}
	}
	c.likes[k] = t
	c.mu.Unlock()
	return t, nil
}
