package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"

	"github.com/verso-db/verso"
)

// versoDriver is the driver registered as "verso". It holds the data
// directories open in the process: one registry for every sql.DB, so that
// two of them over one folder share its databases.
type versoDriver struct {
	dirs dataDirs
}

var (
	_ driver.Driver        = (*versoDriver)(nil)
	_ driver.DriverContext = (*versoDriver)(nil)
)

// theDriver is the registered driver; OpenConnector uses it too.
var theDriver = &versoDriver{}

func init() {
	sql.Register("verso", theDriver)
}

// Open implements driver.Driver (database/sql uses OpenConnector): a
// connection of its own, which holds the data directory open until it is
// closed.
func (d *versoDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.openConnector(dsn)
	if err != nil {
		return nil, err
	}
	defer c.Close() // the connection holds its own reference
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext: sql.Open calls it once,
// and DB.Close closes the connector.
func (d *versoDriver) OpenConnector(dsn string) (driver.Connector, error) {
	return d.openConnector(dsn)
}

func (d *versoDriver) openConnector(dsn string) (*Connector, error) {
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	b, err := d.dirs.acquire(cfg.Dir)
	if err != nil {
		return nil, err
	}
	return &Connector{d: d, cfg: *cfg, b: b}, nil
}

// OpenConnector opens the data directory of dsn (see ParseDSN), or shares
// it with the connectors that have it open, and returns a connector for
// sql.OpenDB. sql.Open("verso", dsn) does the same. Close releases the
// directory; DB.Close calls it.
func OpenConnector(dsn string) (*Connector, error) {
	return theDriver.openConnector(dsn)
}

// NewConnector returns a connector for sql.OpenDB over db, a database the
// program opened with verso.Open (or Init, OpenMemory): the program can
// use the engine's API and SQL on one database, without a second open
// meeting the store's lock. Its connections have db as their current
// database; cfg gives the committer identity and multistatements (its Dir
// and Database are not used). Close the sql.DB before db.
func NewConnector(db *verso.DB, cfg Config) (*Connector, error) {
	b, err := openEngineDB(db)
	if err != nil {
		return nil, err
	}
	b.refs = 1
	cfg.Dir, cfg.Database = "", db.Name()
	return &Connector{d: theDriver, cfg: cfg, b: b}, nil
}

// Connector makes the connections of one DSN. It is safe for concurrent
// use.
type Connector struct {
	d   *versoDriver
	cfg Config

	mu     sync.Mutex
	b      *backend // nil once closed
	closed bool
}

var _ driver.Connector = (*Connector)(nil)

// Config returns the connector's settings.
func (c *Connector) Config() Config { return c.cfg }

// Driver implements driver.Connector.
func (c *Connector) Driver() driver.Driver { return c.d }

// Connect implements driver.Connector: a new session on the data
// directory, with the DSN's database current and its committer identity.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	b := c.b
	c.d.dirs.retain(b) // the connection's own reference
	c.mu.Unlock()
	// newConn's failure closes the connection, which drops the reference.
	return newConn(ctx, b, &c.cfg, func() error { return c.d.dirs.release(b) })
}

// Close releases the connector's data directory: the last connector and
// connection of a directory to close it close its databases. Connections
// still open keep it open.
func (c *Connector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	b := c.b
	c.b = nil
	return c.d.dirs.release(b)
}
