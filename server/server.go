package server

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	gmsserver "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/sirupsen/logrus"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/sqlserver"
)

// Config configures a MySQL-protocol server over a Provider.
type Config struct {
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
	// BackLog is how many clients beyond MaxConnections may wait for a
	// place, each up to MaxConnectionsTimeout (DefaultMaxConnectionsTimeout
	// if zero), before they get the 1040 (Dolt's back_log and
	// max_connections_timeout). Zero turns them away at once, as MySQL
	// does.
	BackLog               int
	MaxConnectionsTimeout time.Duration
	// MaxQueryMemory is the per-statement memory limit, in bytes (see
	// querymemory.go); zero means DefaultMaxQueryMemory, a negative value
	// no limit.
	MaxQueryMemory int64
	// Logger receives the server's log (see doc.go and sqlserver's
	// logging.go): internal errors with their stack traces at Error,
	// statements stopped by a limit and databases of the data dir that
	// could not be opened (sqlserver's damaged.go) at Warn, connections
	// and statements at Debug, and what the engine logs for its sessions.
	// Nil uses the Provider's (Provider.SetLogger), which discards it by
	// default.
	Logger *slog.Logger
	// User and Password are the superuser's account, made at each start
	// and never stored (User "" is sqlserver.DefaultUser, "root").
	// Without a password the server listens only on a loopback address:
	// New refuses any other.
	User, Password string
	// LocalUser and LocalPassword, when LocalUser is set, are a second
	// superuser, user@localhost, made at each start and never stored:
	// the account through which local tools (cmd/verso's commands) run
	// their statements while the server holds the database.
	LocalUser, LocalPassword string
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
	// TLS, when set, is offered to clients (tls.go: LoadTLS, AutoTLS);
	// RequireSecureTransport turns away, with MySQL's error 3159, a
	// client that logs in over TCP without it (MySQL's
	// require_secure_transport; the Unix socket counts as secure).
	TLS                    *tls.Config
	RequireSecureTransport bool
	// Socket, when set, is the path of a Unix socket the server also
	// listens on (socket.go). With SocketIfFree, a socket another server
	// answers on is left to it and logged, instead of failing New.
	Socket       string
	SocketIfFree bool
	// ReadOnly refuses every statement that would change a database
	// (Dolt's --readonly): the client gets 1290, "database server is set
	// to read only mode".
	ReadOnly bool
	// NoAutocommit starts every session with @@autocommit off (Dolt's
	// --no-auto-commit).
	NoAutocommit bool
	// DisableMultiStatements runs a query with several statements as one
	// statement even for clients that ask for multi-statements (Dolt's
	// behavior.disable_client_multi_statements).
	DisableMultiStatements bool
	// SessionVars are session variables set on each session of a user at
	// login, by user name (Dolt's user_session_vars).
	SessionVars map[string]map[string]any
	// MaxLoggedQueryLen is how much of a statement the log shows;
	// zero means 1000 characters, a negative value no limit.
	MaxLoggedQueryLen int
	// EventsPeriod is how often, in seconds, the event scheduler looks for
	// scheduled events that are due (events.go); 0: every 30 seconds.
	EventsPeriod int
	// NoFastPath runs every statement through the engine's planning,
	// including the primary-key selects sqlserver's fastpath.go runs
	// without it (for comparing the two).
	NoFastPath bool
}

// DefaultConnTimeout is the connection read and write timeout when none is
// configured: long enough for idle interactive clients.
const DefaultConnTimeout = 8 * time.Hour

// DefaultMaxConnectionsTimeout is how long a client of the back log waits
// for a place when none is configured: Dolt's default.
const DefaultMaxConnectionsTimeout = time.Minute

// DefaultConnectTimeout is how long a new connection has for its
// handshake when none is configured: MySQL's connect_timeout default.
const DefaultConnectTimeout = 10 * time.Second

// ErrNoPassword is returned by New for a superuser without a
// password on an address other than loopback.
var ErrNoPassword = errors.New("server: superuser without a password on a non-loopback address")

// Server is a MySQL-protocol server: the engine over a Provider
// (sqlserver.Embedded, held to the accounts of its user database), and
// its listener.
type Server struct {
	*gmsserver.Server
	Engine *sqle.Engine
	ln     *limitListener
	emb    *sqlserver.Embedded
	mem    *memoryWatch // nil without a memory limit
	closed sync.Once
	socket string // the Unix socket's path, "" for none
	// noPassword: the superuser has no password (the server listens
	// only on loopback).
	noPassword bool
}

// New returns a server over p listening on cfg.Address. Start it
// with Start (which blocks while it serves); Shutdown or Close stops it.
// Clients log in as the superuser (cfg.User) or as accounts made with
// CREATE USER, which persist in cfg.UsersFile.
func New(p *sqlserver.Provider, cfg Config) (*Server, error) {
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultConnTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultConnTimeout
	}
	if cfg.User == "" {
		cfg.User = sqlserver.DefaultUser
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.ConnectTimeout < 0 {
		return nil, fmt.Errorf("server: connect timeout is %v; give a positive duration (or 0 for the default, %v)", cfg.ConnectTimeout, DefaultConnectTimeout)
	}
	if cfg.MaxConnections < 0 {
		return nil, fmt.Errorf("server: max connections is %d; give 0 (no limit) or more", cfg.MaxConnections)
	}
	if cfg.BackLog < 0 || cfg.MaxConnectionsTimeout < 0 {
		return nil, fmt.Errorf("server: the back log (%d) and its timeout (%v) must not be negative", cfg.BackLog, cfg.MaxConnectionsTimeout)
	}
	if cfg.MaxConnectionsTimeout == 0 {
		cfg.MaxConnectionsTimeout = DefaultMaxConnectionsTimeout
	}
	if cfg.LocalUser != "" && (cfg.LocalPassword == "" || cfg.LocalUser == cfg.User) {
		return nil, errors.New("server: the local tools' account needs a password and a name of its own")
	}
	if cfg.RequireSecureTransport && cfg.TLS == nil && cfg.Socket == "" {
		return nil, errors.New("server: require_secure_transport with neither TLS nor a Unix socket would turn every client away; give a certificate (--tls-cert and --tls-key) or let the server make one")
	}
	if cfg.Logger == nil {
		cfg.Logger = p.Logger()
	}
	tcp, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w (is another server using the port? choose another with --port)", cfg.Address, err)
	}
	if cfg.Password == "" && !isLoopback(tcp.Addr()) {
		tcp.Close()
		return nil, fmt.Errorf("%w: refusing to listen on %s with user %q and no password, since anyone who can reach it would get every privilege; give the superuser a password (--password, or user.password in the config file) or listen on loopback only (--host 127.0.0.1)",
			ErrNoPassword, tcp.Addr(), cfg.User)
	}
	ln := net.Listener(tcp)
	socket := ""
	if cfg.Socket != "" {
		unix, err := listenUnix(cfg.Socket)
		switch {
		case err == nil:
			ln, socket = newMultiListener(tcp, unix), cfg.Socket
		case cfg.SocketIfFree && errors.Is(err, ErrSocketInUse):
			cfg.Logger.Info("not listening on the Unix socket: another server answers on it", "socket", cfg.Socket)
		default:
			tcp.Close()
			return nil, err
		}
	}
	sessionLog := logrus.New()
	sqlserver.ForwardLogrus(sessionLog, cfg.Logger)
	logDamaged(cfg.Logger, p)
	filesDir, err := secureFilePrivDir(cfg.SecureFilePriv, p.DataDir())
	if err != nil {
		ln.Close()
		return nil, err
	}
	emb := sqlserver.NewEmbedded(p, sqlserver.EmbeddedOptions{NoFastPath: cfg.NoFastPath})
	e := emb.Engine
	e.ReadOnly.Store(cfg.ReadOnly)
	if err := emb.EnforceAccounts(filesDir); err != nil {
		ln.Close()
		e.Close()
		return nil, err
	}
	udb := e.Analyzer.Catalog.MySQLDb
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
	// The superuser is user@localhost on a loopback listener, as Dolt's
	// is (commits made over SQL record its host: root@localhost), and
	// user@% on any other, where clients come from elsewhere.
	superHost := "%"
	if isLoopback(tcp.Addr()) {
		superHost = "localhost"
	}
	udb.AddEphemeralSuperUser(ed, cfg.User, superHost, cfg.Password)
	if cfg.LocalUser != "" {
		udb.AddEphemeralSuperUser(ed, cfg.LocalUser, "localhost", cfg.LocalPassword)
	}
	ed.Close()
	if err := startEvents(e, emb, cfg.EventsPeriod); err != nil {
		ln.Close()
		e.Close()
		return nil, fmt.Errorf("starting the event scheduler: %w", err)
	}

	var mem *memoryWatch
	if cfg.MaxQueryMemory == 0 {
		cfg.MaxQueryMemory = DefaultMaxQueryMemory
	}
	if cfg.MaxQueryMemory > 0 {
		mem = newMemoryWatch(uint64(cfg.MaxQueryMemory), cfg.Logger)
	}
	stmts := newStatements(mem)
	sessions := func(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
		var host, user string
		if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
			host, user = u.Host, u.User
		}
		client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
		s := emb.NewSession(sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID))
		s.SetLogger(logrus.NewEntry(sessionLog))
		if tc, ok := conn.Conn.(*tls.Conn); ok {
			// What SHOW STATUS says of the connection's TLS, as MySQL's.
			st := tc.ConnectionState()
			s.SetStatusVariable(nil, "Ssl_cipher", tls.CipherSuiteName(st.CipherSuite))
			s.SetStatusVariable(nil, "Ssl_version", strings.Replace(tls.VersionName(st.Version), "TLS 1", "TLSv1", 1))
		}
		if cfg.NoAutocommit {
			if err := s.SetSessionVariable(nil, "autocommit", int8(0)); err != nil {
				return nil, err
			}
		}
		for k, v := range cfg.SessionVars[user] {
			if err := s.SetSessionVariable(nil, k, v); err != nil {
				return nil, fmt.Errorf("the session variable %s of user %s (user_session_vars): %w", k, user, err)
			}
		}
		// The connection's session, for its status flags
		// (statusflags.go).
		conn.ClientData = s
		stmts.addSession(conn.ConnectionID, s)
		return s, nil
	}
	lim := &limitListener{Listener: ln, max: cfg.MaxConnections, backLog: cfg.BackLog, waitTimeout: cfg.MaxConnectionsTimeout,
		connectTimeout: cfg.ConnectTimeout, conns: map[*limitConn]struct{}{}}
	s, err := gmsserver.NewServerWithHandler(gmsserver.Config{
		Protocol:         "tcp",
		Address:          ln.Addr().String(),
		Listener:         lim,
		ConnReadTimeout:  cfg.ReadTimeout,
		ConnWriteTimeout: cfg.WriteTimeout,
		Version:          sqlserver.MySQLVersion,
		// The engine's handler reads it in each connection.
		DisableClientMultiStatements: cfg.DisableMultiStatements,
		// The protocol library's listener, with the server's account
		// checker (sha2auth.go) and TLS.
		ProtocolListenerFactory: func(gc gmsserver.Config, lc mysql.ListenerConfig, _ gmsserver.ServerEventListener) (gmsserver.ProtocolListener, error) {
			lc.AuthServer = newAuthServer(udb)
			vl, err := mysql.NewListenerWithConfig(lc)
			if err != nil {
				return nil, err
			}
			vl.ServerVersion = gc.Version
			vl.TLSConfig = cfg.TLS
			return vl, nil
		},
	}, e, sql.NewContext, sessions, nil, func(h mysql.Handler) (mysql.Handler, error) {
		return connHandler{Handler: statusHandler{Handler: directHandler{Handler: callResultsHandler{Handler: h, conns: &sync.Map{}}, emb: emb}, noAutocommit: cfg.NoAutocommit}, log: cfg.Logger, dataDir: p.DataDir(), stmts: stmts,
			requireSecure: cfg.RequireSecureTransport, maxQueryLen: cmp.Or(cfg.MaxLoggedQueryLen, defaultLoggedQueryLen)}, nil
	})
	if err != nil {
		lim.Close()
		e.Close()
		if mem != nil {
			mem.close()
		}
		return nil, err
	}
	return &Server{Server: s, Engine: e, emb: emb, ln: lim, mem: mem, socket: socket, noPassword: cfg.Password == ""}, nil
}

// Socket returns the path of the Unix socket the server listens on, or ""
// if none (Config.Socket unset, or taken with SocketIfFree).
func (s *Server) Socket() string { return s.socket }

// Embedded returns the server's engine and the maker of its sessions,
// which are held to their accounts: for other front ends of the same
// server, such as the web console (package web), whose sessions are
// clients of the server as the wire's are.
func (s *Server) Embedded() *sqlserver.Embedded { return s.emb }

// PasswordlessSuperuser reports whether the superuser has no password,
// so that another listener of the server (the web console's) also stays
// on loopback.
func (s *Server) PasswordlessSuperuser() bool { return s.noPassword }

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

// Close stops the server from accepting clients (see Shutdown). Calls
// after the first do nothing.
func (s *Server) Close() (err error) {
	s.closed.Do(func() {
		err = s.Server.Close()
		if s.Engine.EventScheduler != nil {
			s.Engine.EventScheduler.Close() // no event starts once closed
		}
		if s.mem != nil {
			s.mem.close()
		}
	})
	return err
}

// logDamaged writes a warning to log for each database p could not open
// (sqlserver's damaged.go): the server serves the others.
func logDamaged(log *slog.Logger, p *sqlserver.Provider) {
	for _, d := range p.Damaged() {
		what := "database could not be opened; not serving it"
		if chunks.IsCorrupt(d.Err) {
			what = "database is damaged; not serving it (restore it from a backup, or move its folder out of the data dir, and restart)"
		}
		log.Warn(what, "database", d.Name, "error", d.Err)
	}
}

// isLoopback reports whether a listening address only accepts local
// clients.
func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
