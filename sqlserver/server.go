package sqlserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/netutil"
	"github.com/sirupsen/logrus"
)

// ServerConfig configures a MySQL-protocol server over a Provider.
type ServerConfig struct {
	// Address is host:port to listen on; port 0 picks a free one (see
	// Server.Addr).
	Address string
	// ReadTimeout and WriteTimeout bound each read from and write to a
	// client connection; zero means DefaultConnTimeout.
	ReadTimeout, WriteTimeout time.Duration
	// ConnectTimeout bounds the handshake of a new connection, from
	// accepting it to the end of authentication (MySQL's connect_timeout);
	// zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// MaxConnections caps the clients connected at once; one more gets
	// MySQL's error 1040 (Too many connections). Zero means no limit.
	MaxConnections int
	// MaxQueryMemory is the per-statement memory limit, in bytes (see
	// querymemory.go); zero means DefaultMaxQueryMemory, a negative value
	// no limit.
	MaxQueryMemory int64
	// Logger receives the server's log (see logging.go): internal errors
	// with their stack traces at Error, statements stopped by a limit and
	// databases of the data dir that could not be opened (damaged.go) at
	// Warn, connections and statements at Debug, and what the engine logs
	// for its sessions. Nil uses the Provider's (Provider.SetLogger),
	// which discards it by default.
	Logger *slog.Logger
	// User and Password are the superuser's account, made at each start
	// and never stored (User "" is "root"). Without a password the
	// server listens only on a loopback address: NewServer refuses any
	// other.
	User, Password string
	// UsersFile is where accounts and grants made with CREATE USER,
	// GRANT and the like are kept (see users.go); "" keeps them in
	// memory only.
	UsersFile string
	// SecureFilePriv is the folder that LOAD_FILE, SELECT ... INTO
	// OUTFILE and INTO DUMPFILE, and LOAD DATA INFILE may reach (see
	// files.go): "" for the data dir's DefaultFilesDir (made at start;
	// for a provider in memory, NULL), "NULL" to disable them, or a
	// folder that exists. @@secure_file_priv shows it; it cannot be set
	// while the server runs.
	SecureFilePriv string
	// NoFastPath runs every statement through the engine's planning,
	// including the primary-key selects fastpath.go runs without it (for
	// comparing the two).
	NoFastPath bool
}

// DefaultConnTimeout is the connection read and write timeout when none is
// configured: long enough for idle interactive clients.
const DefaultConnTimeout = 8 * time.Hour

// DefaultConnectTimeout is how long a new connection has for its
// handshake when none is configured: MySQL's connect_timeout default.
const DefaultConnectTimeout = 10 * time.Second

// DefaultUser is the superuser's name when none is configured.
const DefaultUser = "root"

// ErrNoPassword is returned by NewServer for a superuser without a
// password on an address other than loopback.
var ErrNoPassword = errors.New("sqlserver: superuser without a password on a non-loopback address")

// Server is a MySQL-protocol server: the engine over a Provider, and its
// listener.
type Server struct {
	*server.Server
	Engine *sqle.Engine
	ln     *limitListener
	fast   *fastPath    // nil with ServerConfig.NoFastPath
	mem    *memoryWatch // nil without a memory limit
}

// NewServer returns a server over p listening on cfg.Address. Start it
// with Start (which blocks while it serves); Shutdown or Close stops it.
// Clients log in as the superuser (cfg.User) or as accounts made with
// CREATE USER, which persist in cfg.UsersFile.
func NewServer(p *Provider, cfg ServerConfig) (*Server, error) {
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultConnTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultConnTimeout
	}
	if cfg.User == "" {
		cfg.User = DefaultUser
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.ConnectTimeout < 0 {
		return nil, fmt.Errorf("sqlserver: connect timeout is %v; give a positive duration (or 0 for the default, %v)", cfg.ConnectTimeout, DefaultConnectTimeout)
	}
	if cfg.MaxConnections < 0 {
		return nil, fmt.Errorf("sqlserver: max connections is %d; give 0 (no limit) or more", cfg.MaxConnections)
	}
	ln, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w (is another server using the port? choose another with --port)", cfg.Address, err)
	}
	if cfg.Password == "" && !isLoopback(ln.Addr()) {
		ln.Close()
		return nil, fmt.Errorf("%w: refusing to listen on %s with user %q and no password, since anyone who can reach it would get every privilege; give the superuser a password (--password, or user.password in the config file) or listen on loopback only (--host 127.0.0.1)",
			ErrNoPassword, ln.Addr(), cfg.User)
	}
	if cfg.Logger == nil {
		cfg.Logger = p.logger()
	}
	sessionLog := logrusToSlog(cfg.Logger)
	logDamaged(cfg.Logger, p)
	def := ""
	if p.dataDir != "" {
		def = filepath.Join(p.dataDir, DefaultFilesDir)
	}
	files, err := newSecureFilePriv(cfg.SecureFilePriv, def)
	if err != nil {
		ln.Close()
		return nil, err
	}
	// The engine's global, for @@GLOBAL.secure_file_priv and the
	// engine's own (weaker) checks behind ours.
	globalSecureFilePriv.Store(&files)
	var e *sqle.Engine
	var fast *fastPath
	if cfg.NoFastPath {
		e = NewEngine(p)
	} else {
		e, fast = newFastEngine(p)
	}
	installServerRules(e, p)
	udb := e.Analyzer.Catalog.MySQLDb
	access := &serverAccess{users: udb, files: files}
	if cfg.UsersFile != "" {
		if err := loadUsers(udb, cfg.UsersFile); err != nil {
			ln.Close()
			e.Close()
			return nil, err
		}
		udb.SetPersister(&usersPersister{path: cfg.UsersFile})
	} else {
		udb.SetPersister(memoryUsers{})
	}
	ed := udb.Editor()
	udb.AddEphemeralSuperUser(ed, cfg.User, "%", cfg.Password)
	ed.Close()

	var mem *memoryWatch
	if cfg.MaxQueryMemory == 0 {
		cfg.MaxQueryMemory = DefaultMaxQueryMemory
	}
	if cfg.MaxQueryMemory > 0 {
		mem = newMemoryWatch(uint64(cfg.MaxQueryMemory), cfg.Logger)
	}
	stmts := newStatements(mem)
	newSession := p.SessionBuilder()
	sessions := func(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
		s, err := newSession(ctx, conn, addr)
		if err == nil {
			s.SetLogger(logrus.NewEntry(sessionLog))
			s.(*Session).fast = fast
			s.(*Session).access = access
			// The connection's session, for its status flags
			// (statusflags.go).
			conn.ClientData = s
			stmts.addSession(conn.ConnectionID, s)
		}
		return s, err
	}
	lim := &limitListener{Listener: ln, max: cfg.MaxConnections, connectTimeout: cfg.ConnectTimeout, conns: map[*limitConn]struct{}{}}
	s, err := server.NewServerWithHandler(server.Config{
		Protocol:         "tcp",
		Address:          ln.Addr().String(),
		Listener:         lim,
		ConnReadTimeout:  cfg.ReadTimeout,
		ConnWriteTimeout: cfg.WriteTimeout,
	}, e, sql.NewContext, sessions, nil, func(h mysql.Handler) (mysql.Handler, error) {
		return errorHandler{Handler: statusHandler{h}, log: cfg.Logger, dataDir: p.dataDir, stmts: stmts}, nil
	})
	if err != nil {
		lim.Close()
		e.Close()
		if mem != nil {
			mem.close()
		}
		return nil, err
	}
	return &Server{Server: s, Engine: e, ln: lim, fast: fast, mem: mem}, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Shutdown stops the server: it stops accepting clients, closes the
// connections of those connected (a statement running on one is cancelled,
// and its uncommitted transaction rolled back) and waits up to timeout for
// their handlers to finish. It reports whether they all did. Committed
// transactions are on disk already.
func (s *Server) Shutdown(timeout time.Duration) bool {
	s.Close()
	return s.ln.closeConns(timeout)
}

// Close stops the server from accepting clients (see Shutdown).
func (s *Server) Close() error {
	err := s.Server.Close()
	if s.mem != nil {
		s.mem.close()
	}
	return err
}

// isLoopback reports whether a listening address only accepts local
// clients.
func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// limitListener counts the connections it accepted that are still open,
// turns away those beyond max with MySQL's error 1040 (instead of the bare
// close of the protocol library), bounds each connection's handshake by
// connectTimeout, and can close them all at shutdown.
//
// The handshake's bound is a deadline on the connection's reads and writes
// from the moment it is accepted until errorHandler.ConnectionAuthenticated
// ends it (endHandshake): the protocol library sets its read and write
// timeouts (ReadTimeout, WriteTimeout: hours, for idle clients) before each
// read and write, and limitConn holds them to the handshake's deadline
// meanwhile. A socket that never completes a handshake is so closed after
// connectTimeout, and its place is free for a real client.
type limitListener struct {
	net.Listener
	max            int
	connectTimeout time.Duration

	mu    sync.Mutex
	conns map[*limitConn]struct{}
	done  chan struct{} // closed when conns becomes empty during closeConns
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.max > 0 && len(l.conns) >= l.max {
			l.mu.Unlock()
			go refuse(c, l.max)
			continue
		}
		lc := &limitConn{Conn: newPrepareConn(c), l: l}
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		hs := time.Now().Add(l.connectTimeout)
		lc.handshake.Store(hs.UnixNano())
		lc.Conn.SetDeadline(hs)
		return lc, nil
	}
}

// refuse sends a client MySQL's "Too many connections" error in place of
// the handshake (as mysqld does) and closes the connection.
func refuse(c net.Conn, max int) {
	msg := fmt.Sprintf("Too many connections (the server allows %d; raise --max-connections or close idle clients)", max)
	p := make([]byte, 4, 4+3+len(msg))
	p = append(p, 0xff)
	p = binary.LittleEndian.AppendUint16(p, mysql.ERConCount)
	p = append(p, msg...)
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	c.Write(p)
	c.Close()
}

// closeConns closes every open connection and waits up to timeout for
// their handlers to close them too.
func (l *limitListener) closeConns(timeout time.Duration) bool {
	l.mu.Lock()
	if len(l.conns) == 0 {
		l.mu.Unlock()
		return true
	}
	l.done = make(chan struct{})
	done := l.done
	for c := range l.conns {
		c.Conn.Close()
	}
	l.mu.Unlock()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// limitConn is a connection of a limitListener.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
	// handshake is the deadline of the handshake (Unix nanoseconds) until
	// it ends, then 0.
	handshake atomic.Int64
}

// clamp returns deadline t held to the handshake's deadline, if the
// handshake is not over.
func (c *limitConn) clamp(t time.Time) time.Time {
	if hs := c.handshake.Load(); hs != 0 && (t.IsZero() || t.UnixNano() > hs) {
		return time.Unix(0, hs)
	}
	return t
}

func (c *limitConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *limitConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *limitConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

// endHandshake lifts the handshake's deadline from the connection of c, a
// client that has logged in.
func endHandshake(c *mysql.Conn) {
	nc := c.Conn
	for {
		switch x := nc.(type) {
		case *limitConn:
			x.handshake.Store(0)
			x.Conn.SetDeadline(time.Time{})
			return
		case *netutil.ConnWithTimeouts:
			nc = x.Conn
		default:
			return
		}
	}
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		if len(c.l.conns) == 0 && c.l.done != nil {
			close(c.l.done)
			c.l.done = nil
		}
		c.l.mu.Unlock()
	})
	return err
}
