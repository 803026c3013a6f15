package tables

import (
	"context"
	"fmt"
	"sync"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Schemas loads tables the way Load does, but keeps the schemas it has
// decoded, with their row codecs, by the stored schema's address: loading
// a table whose schema it holds reads one chunk (the table value) and
// decodes nothing else. A commit's merge loads three versions of each
// table it touches, nearly always with one schema, so this is most of a
// load's cost saved.
//
// A Schemas is bound to one Collations (a codec depends on it) and holds
// at most schemasMax entries; when full it starts afresh. Its schemas are
// shared by the tables it loads, which treat them as immutable, as every
// Table does. It is safe for concurrent use.
type Schemas struct {
	cs Collations
	mu sync.Mutex
	m  map[chunks.Address]schemaEntry
}

// schemasMax bounds a Schemas: a database holds few schemas at once (one
// per table, plus those of recent history).
const schemasMax = 1024

type schemaEntry struct {
	s *Schema
	c *rowCodec
}

// NewSchemas returns an empty cache for tables opened with cs.
func NewSchemas(cs Collations) *Schemas {
	return &Schemas{cs: cs, m: map[chunks.Address]schemaEntry{}}
}

// Load reads the table value stored at addr, as Load.
func (c *Schemas) Load(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (*Table, error) {
	schemaAddr, rowsAddr, autoInc, idx, err := readTable(ctx, ns, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e, ok := c.m[schemaAddr]
	c.mu.Unlock()
	if !ok {
		if e, err = c.decode(ctx, ns, addr, schemaAddr); err != nil {
			return nil, err
		}
	}
	return open(ctx, ns, addr, e.s, e.c, schemaAddr, rowsAddr, autoInc, idx)
}

// decode reads and decodes the schema at schemaAddr, of the table at
// addr, and keeps it.
func (c *Schemas) decode(ctx context.Context, ns *prolly.NodeStore, addr, schemaAddr chunks.Address) (schemaEntry, error) {
	s, err := loadSchema(ctx, ns, addr, schemaAddr)
	if err != nil {
		return schemaEntry{}, err
	}
	rc, err := newRowCodec(s, c.cs)
	if err != nil {
		return schemaEntry{}, fmt.Errorf("tables: table %s: %w", addr, err)
	}
	e := schemaEntry{s: s, c: rc}
	c.mu.Lock()
	if len(c.m) >= schemasMax {
		c.m = map[chunks.Address]schemaEntry{}
	}
	c.m[schemaAddr] = e
	c.mu.Unlock()
	return e, nil
}
