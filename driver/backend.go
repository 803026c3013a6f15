package driver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/sirupsen/logrus"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// backend is what a connector's connections run on: the databases and the
// engine: a data directory's (openDataDir), or one database the program
// opened (openEngineDB, for NewConnector).
type backend struct {
	dir string // the data directory, as the registry knows it
	p   *sqlserver.Provider
	emb *sqlserver.Embedded
	log *logrus.Entry // the sessions' logger: discards (the driver is quiet)

	connIDs atomic.Uint32 // the last connection id handed out
	pids    atomic.Uint64 // the last statement (process) id

	mu    sync.Mutex
	conns map[uint32]*conn // open connections, for KILL CONNECTION

	refs int // connectors and connections holding it (dataDirs.mu)
}

func (b *backend) engine() *sqle.Engine { return b.emb.Engine }

// killConnection is the engine's KILL CONNECTION service (the engine
// has stopped the connection's statement): the connection is done, and
// database/sql drops it at its next use.
func (b *backend) killConnection(id uint32) error {
	b.mu.Lock()
	c := b.conns[id]
	b.mu.Unlock()
	if c != nil {
		c.killed.Store(true)
	}
	return nil
}

func (b *backend) addConn(c *conn) {
	b.mu.Lock()
	b.conns[c.id] = c
	b.mu.Unlock()
}

func (b *backend) removeConn(c *conn) {
	b.mu.Lock()
	delete(b.conns, c.id)
	b.mu.Unlock()
}

// close closes the engine and the databases.
func (b *backend) close() error {
	b.engine().Close()
	return b.p.Close()
}

// dataDirs holds the data directories open in this process, each opened
// once however many connectors use it: a data directory's stores are
// locked by the first open (chunks' folder lock), so a second provider
// over it would fail. The driver registered as "verso" owns the one
// instance.
type dataDirs struct {
	mu   sync.Mutex
	open map[string]*backend // by cleaned absolute path, symlinks resolved
}

// acquire returns the backend of the data directory dir (absolute, clean),
// opening it (and making the folder) if no connector has it open, with
// one more reference.
func (d *dataDirs) acquire(dir string) (*backend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("driver: making the data directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.open[dir]; ok {
		b.refs++
		return b, nil
	}
	b, err := openDataDir(dir)
	if err != nil {
		return nil, err
	}
	if d.open == nil {
		d.open = map[string]*backend{}
	}
	b.refs = 1
	d.open[dir] = b
	return b, nil
}

// retain adds a reference to b, which has one.
func (d *dataDirs) retain(b *backend) {
	d.mu.Lock()
	b.refs++
	d.mu.Unlock()
}

// release drops a reference to b; the last closes it.
func (d *dataDirs) release(b *backend) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.refs--; b.refs > 0 {
		return nil
	} else if b.refs < 0 {
		panic("driver: a data directory was released more times than it was acquired")
	}
	delete(d.open, b.dir)
	// Closed under the lock: a connector opening the folder again waits
	// for its stores' locks to be released.
	return b.close()
}

// openDataDir opens the databases of the data directory dir and the
// server's engine over them.
func openDataDir(dir string) (*backend, error) {
	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		return nil, fmt.Errorf("driver: opening the data directory %s: %w", dir, err)
	}
	return newBackend(dir, p), nil
}

// openEngineDB returns a backend over db, a database the program opened; the
// backend does not close it.
func openEngineDB(db *verso.DB) (*backend, error) {
	p := sqlserver.NewMemoryProvider()
	if err := p.AddDB(db); err != nil {
		return nil, fmt.Errorf("driver: %w", err)
	}
	return newBackend("", p), nil
}

// newBackend returns the backend of p's databases.
func newBackend(dir string, p *sqlserver.Provider) *backend {
	p.SetNoDefaultCommitter(noCommitter)
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	quiet.SetLevel(logrus.PanicLevel)
	return &backend{
		dir:   dir,
		p:     p,
		emb:   sqlserver.NewEmbedded(p, sqlserver.EmbeddedOptions{}),
		log:   logrus.NewEntry(quiet),
		conns: map[uint32]*conn{},
	}
}
