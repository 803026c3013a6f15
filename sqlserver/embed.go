package sqlserver

import (
	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

// Embedding: the engine of a program that runs SQL in its own process
// (the database/sql driver, driver/), as the server runs it but without a
// listener.
//
// An Embedded engine is the server's: verso's parser (locking reads, the
// privileges of CREATE and DROP DATABASE, interruptible REGEXP), the fast
// path of primary-key selects (fastpath.go), interruptible sorts and scans
// (interrupt.go) and the check of damaged databases (damaged.go). What the
// server adds around the engine stays the server's: accounts and grants
// (an embedded session's caller owns the process and its files, so there
// is no account to check), secure_file_priv, the statement limits of
// statements.go (max_execution_time, the per-statement memory limit) and
// the error scrubbing of errorHandler (an embedder maps errors with
// MySQLError).

// Embedded is an engine over a provider for in-process sessions.
type Embedded struct {
	// Engine runs the statements of the sessions made by NewSession.
	Engine *sqle.Engine
	p      *Provider
	fast   *fastPath
}

// NewEmbedded returns the server's engine over p, for sessions made by
// its NewSession. Close it with Engine.Close (p stays open).
func NewEmbedded(p *Provider) *Embedded {
	e, fast := newFastEngine(p)
	installServerRules(e, p)
	return &Embedded{Engine: e, p: p, fast: fast}
}

// NewSession returns a session over base that runs its prepared
// statements through the engine's fast path.
func (e *Embedded) NewSession(base *sql.BaseSession) *Session {
	s := e.p.NewSession(base)
	s.fast = e.fast
	return s
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
