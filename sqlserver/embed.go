package sqlserver

import (
	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

// Embedded: the engine as a program runs it over a Provider, shared by
// the wire server (package server) and programs that run SQL in their own
// process (the database/sql driver, driver/).
//
// An Embedded engine has verso's parser (locking reads, the privileges of
// CREATE and DROP DATABASE, interruptible REGEXP), the fast path of
// primary-key selects (fastpath.go), interruptible sorts and scans
// (interrupt.go) and the check of damaged databases (damaged.go). What
// only the wire server adds around it stays in package server: the
// listener, the accounts' users file, the statement limits
// (max_execution_time, the per-statement memory limit), the error
// scrubbing of each client's errors (an embedder maps errors with
// MySQLError), status flags and connection limits. A server's sessions
// are also held to their accounts (EnforceAccounts); an embedded
// session's caller owns the process and its files, so there is no account
// to check.

// DefaultUser is the superuser's name when none is configured, as in
// MySQL: the wire server's (server.Config.User), and the user that
// in-process sessions (the driver's, `verso sql`) present.
const DefaultUser = "root"

// Embedded is an engine over a provider and the maker of its sessions.
type Embedded struct {
	// Engine runs the statements of the sessions made by NewSession.
	Engine *sqle.Engine
	p      *Provider
	fast   *fastPath     // nil with EmbeddedOptions.NoFastPath
	access *serverAccess // nil until EnforceAccounts
}

// EmbeddedOptions are the choices of NewEmbedded.
type EmbeddedOptions struct {
	// NoFastPath runs every statement through the engine's planning,
	// including the primary-key selects fastpath.go runs without it (for
	// comparing the two).
	NoFastPath bool
}

// NewEmbedded returns an engine over p (see above), for sessions made by
// its NewSession. Close it with Engine.Close (p stays open).
func NewEmbedded(p *Provider, opts EmbeddedOptions) *Embedded {
	var e *sqle.Engine
	var fast *fastPath
	if opts.NoFastPath {
		e = NewEngine(p)
	} else {
		e, fast = newFastEngine(p)
	}
	installServerRules(e, p)
	return &Embedded{Engine: e, p: p, fast: fast}
}

// NewSession returns a session over base that runs its prepared
// statements through the engine's fast path, held to its account's
// privileges after EnforceAccounts.
func (e *Embedded) NewSession(base *sql.BaseSession) *Session {
	s := e.p.NewSession(base)
	s.fast = e.fast
	s.access = e.access
	return s
}

// StartSession registers s, a session of connection id made by
// NewSession from a client's host, in the engine's process list, as the
// wire server does for a connection: SHOW PROCESSLIST lists it and KILL
// reaches it. EndSession ends it.
func (e *Embedded) StartSession(s *Session, id uint32, host string) {
	e.Engine.ProcessList.AddConnection(id, host)
	e.Engine.ProcessList.ConnectionReady(s)
}

// EndSession ends a session as a client's disconnection does: its open
// transaction rolls back, its locks (row, named and table locks) are
// released, and it leaves the process list. ctx is a context of the
// session.
func (e *Embedded) EndSession(ctx *sql.Context, s *Session, id uint32) {
	sql.SessionEnd(s)
	e.Engine.LS.ReleaseAll(ctx)
	e.Engine.Analyzer.Catalog.UnlockTables(ctx, id)
	e.Engine.CloseSession(id)
	e.Engine.ProcessList.RemoveConnection(id)
}

// EnforceAccounts makes e a server's engine, for the wire server: the
// sessions NewSession makes from then on are held to their accounts (the
// user database of e.Engine, Analyzer.Catalog.MySQLDb) where the engine's
// own privilege checks leave holes (access.go), and their LOAD_FILE, INTO
// OUTFILE and DUMPFILE, and LOAD DATA INFILE to the folder secureFilePriv
// and below (files.go; "" disables them, as secure_file_priv NULL). The
// folder must exist. It becomes what @@GLOBAL.secure_file_priv shows,
// which is process-wide. Call it before making sessions.
func (e *Embedded) EnforceAccounts(secureFilePriv string) error {
	files, err := newSecureFilePriv(secureFilePriv)
	if err != nil {
		return err
	}
	// The engine's global, for @@GLOBAL.secure_file_priv and the
	// engine's own (weaker) checks behind ours.
	globalSecureFilePriv.Store(&files)
	e.access = &serverAccess{users: e.Engine.Analyzer.Catalog.MySQLDb, files: files}
	return nil
}

// FastPathHits returns how many executions the fast path answered itself
// (fastpath.go), for tests and statistics; 0 without a fast path.
func (e *Embedded) FastPathHits() int64 {
	if e.fast == nil {
		return 0
	}
	return e.fast.hits.Load()
}

// DirectExecutions returns how many of FastPathHits ran without the
// engine's handler (ExecPrepared); 0 without a fast path.
func (e *Embedded) DirectExecutions() int64 {
	if e.fast == nil {
		return 0
	}
	return e.fast.direct.Load()
}

// DirectTxnStatements returns how many BEGIN, START TRANSACTION and
// COMMIT statements, text or prepared, ran without the engine's handler;
// 0 without a fast path.
func (e *Embedded) DirectTxnStatements() int64 {
	if e.fast == nil {
		return 0
	}
	return e.fast.txns.Load()
}

// DirectWrites returns how many single-row writes the server ran without
// the engine (fastwrite.go).
func (e *Embedded) DirectWrites() int64 {
	if e.fast == nil {
		return 0
	}
	return e.fast.writesDone.Load()
}

// InTransaction reports whether the session is in a transaction as MySQL
// counts one, for the protocol's status flags (SERVER_STATUS_IN_TRANS,
// which the wire server sends): from BEGIN (or START TRANSACTION) to its
// end, and with autocommit off from the first statement that read or
// wrote a database to COMMIT or ROLLBACK. The engine's transaction that
// each statement opens and that touched no database (SET, SELECT 1) does
// not count.
func (s *Session) InTransaction() bool {
	tx := s.GetTransaction()
	if tx == nil {
		return false
	}
	t, ok := tx.(*Transaction)
	return s.GetIgnoreAutoCommit() || (ok && len(t.dbs) > 0)
}

// SetNoDefaultCommitter makes the commits, merges, cherry-picks, reverts
// and tags of sessions that name no identity (@@dolt_committer_name and
// @@dolt_committer_email) fail with err, when SetCommitter has set none
// either, instead of recording the SQL user (or verso@localhost). An
// embedder has no SQL user worth recording; err says how to give one.
// nil restores the fallback.
func (p *Provider) SetNoDefaultCommitter(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noCommitter = err
}

// commitIdentity returns the identity a commit (or tag) made now records:
// identity's, or the provider's SetNoDefaultCommitter error when it has
// one and neither the session nor SetCommitter names a whole identity.
func commitIdentity(ctx *sql.Context) (commitgraph.Signature, error) {
	s := sessionOf(ctx)
	if s == nil {
		return identity(ctx), nil
	}
	s.p.mu.RLock()
	missing, def := s.p.noCommitter, s.p.committer
	s.p.mu.RUnlock()
	if missing == nil {
		return identity(ctx), nil
	}
	var sig commitgraph.Signature
	if v, err := ctx.GetSessionVariable(ctx, userNameVar); err == nil {
		sig.Name, _ = v.(string)
	}
	if v, err := ctx.GetSessionVariable(ctx, userEmailVar); err == nil {
		sig.Email, _ = v.(string)
	}
	if sig.Name == "" {
		sig.Name = def.Name
	}
	if sig.Email == "" {
		sig.Email = def.Email
	}
	if sig.Name == "" || sig.Email == "" {
		return commitgraph.Signature{}, missing
	}
	return sig, nil
}
