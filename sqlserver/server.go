package sqlserver

import (
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
)

// ServerConfig configures a MySQL-protocol server over a Provider.
type ServerConfig struct {
	// Address is host:port to listen on; port 0 picks a free one (see
	// Server.Addr).
	Address string
	// ReadTimeout and WriteTimeout bound each read from and write to a
	// client connection; zero means DefaultConnTimeout.
	ReadTimeout, WriteTimeout time.Duration
}

// DefaultConnTimeout is the connection read and write timeout when none is
// configured: long enough for idle interactive clients.
const DefaultConnTimeout = 8 * time.Hour

// Server is a MySQL-protocol server: the engine over a Provider, and its
// listener.
type Server struct {
	*server.Server
	Engine *sqle.Engine
}

// NewServer returns a server over p listening on cfg.Address. Start it
// with Start (which blocks while it serves); Close stops it. Until a user
// account exists, any user name and password is accepted with every
// privilege, as in go-mysql-server.
func NewServer(p *Provider, cfg ServerConfig) (*Server, error) {
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultConnTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultConnTimeout
	}
	e := sqle.NewDefault(p)
	s, err := server.NewServer(server.Config{
		Protocol:         "tcp",
		Address:          cfg.Address,
		ConnReadTimeout:  cfg.ReadTimeout,
		ConnWriteTimeout: cfg.WriteTimeout,
	}, e, sql.NewContext, p.SessionBuilder(), nil)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &Server{Server: s, Engine: e}, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.Listener.Addr().String() }
