package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// The staging model, as Dolt has it: each branch has a working set of two
// roots (commitgraph.WorkingSet). Transactions read and write the working
// root (session.go, commit.go); the procedures (dolt_add, dolt_commit,
// dolt_reset, dolt_checkout, ...) move tables between the working root, the
// staged root and the head commit. Each procedure first folds the calling
// transaction's own writes into the working root, then writes the new head
// and working set with one compare-and-swap of the store root (the same
// single store commit, one fsync, that a COMMIT makes): so
// "INSERT ...; CALL dolt_commit('-am', ...)" inside one transaction is one
// durable step.
//
// Each session has its own current branch per database (dolt_checkout), by
// default the database's branch (.verso/HEAD).

// sessionOf returns ctx's verso session, or nil.
func sessionOf(ctx *sql.Context) *Session {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Session.(*Session)
	return s
}

// sessionBranch returns the branch the session has checked out in st: the
// one set by dolt_checkout while it exists, else the one it starts on
// (startBranch).
func (p *Provider) sessionBranch(ctx *sql.Context, st *dbState) string {
	s := sessionOf(ctx)
	if s == nil || s.branches == nil {
		return startBranch(ctx, st)
	}
	b, ok := s.branches[strings.ToLower(st.name)]
	if !ok {
		return startBranch(ctx, st)
	}
	if _, err := st.graph.Head(ctx, b); err != nil {
		delete(s.branches, strings.ToLower(st.name))
		return startBranch(ctx, st)
	}
	return b
}

// setSessionBranch makes branch the session's current branch of st.
func setSessionBranch(ctx *sql.Context, st *dbState, branch string) {
	s := sessionOf(ctx)
	if s == nil {
		return
	}
	if s.branches == nil {
		s.branches = map[string]string{}
	}
	s.branches[strings.ToLower(st.name)] = branch
}

// currentDatabase returns the session's current database for a procedure
// or function, with a clear error when there is none.
func currentDatabase(ctx *sql.Context) (*Database, error) {
	s := sessionOf(ctx)
	if s == nil {
		return nil, fmt.Errorf("verso: session %T is not a verso session", ctx.Session)
	}
	name := ctx.GetCurrentDatabase()
	if name == "" {
		return nil, errors.New("no database selected: run USE <database> first")
	}
	sdb, err := s.p.Database(ctx, name)
	if err != nil {
		return nil, err
	}
	db, ok := sdb.(*Database)
	if !ok || db.temp {
		return nil, fmt.Errorf("database %q is not a verso database", name)
	}
	return db, nil
}

// writableBranch returns db's branch, or, for a read-only revision
// database (a tag or a commit), which has no branch to change, Dolt's
// refusal of a detached head.
func (db *Database) writableBranch() (string, error) {
	if db.rev != nil {
		return "", errDetachedHead
	}
	return db.branch, nil
}

// updateBranchWith runs op, an engine operation on the transaction's
// branch (verso.Txn.Merge, ...), after folding the transaction's pending
// writes into its root.
func (d *txDB) updateBranchWith(ctx *sql.Context, op func() error) error {
	if d.ReadOnly() {
		return fmt.Errorf("verso: %s is a read-only revision", d.Branch())
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	err := op()
	d.writers = map[string]*tableWriter{}
	if s := sessionOf(ctx); s != nil && err == nil {
		s.p.activity.note(s, d.st, d.Branch(), true)
	}
	return err
}

// updateBranch runs fn on the branch's state and writes its change (see
// verso.Txn.UpdateBranch), after folding the transaction's pending writes
// into its root.
func (d *txDB) updateBranch(ctx *sql.Context, fn func(s *verso.BranchState) (*verso.BranchChange, error)) error {
	if d.ReadOnly() {
		return fmt.Errorf("verso: %s is a read-only revision", d.Branch())
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	if err := d.UpdateBranch(ctx, fn); err != nil {
		return engineError(err)
	}
	d.writers = map[string]*tableWriter{}
	if s := sessionOf(ctx); s != nil {
		s.p.activity.note(s, d.st, d.Branch(), true)
	}
	return nil
}

// errConflicts is the error of a commit refused for unresolved conflicts.
func errConflicts(tables []string) error {
	return fmt.Errorf("error: the table(s) %s are in conflict", strings.Join(tables, ", "))
}

// identity returns the session's committer: @@dolt_committer_name and
// @@dolt_committer_email when set, else the provider's configured identity,
// else the SQL user (user@host), else verso@localhost.
func identity(ctx *sql.Context) commitgraph.Signature {
	var sig commitgraph.Signature
	if v, err := ctx.GetSessionVariable(ctx, userNameVar); err == nil {
		sig.Name, _ = v.(string)
	}
	if v, err := ctx.GetSessionVariable(ctx, userEmailVar); err == nil {
		sig.Email, _ = v.(string)
	}
	if s := sessionOf(ctx); s != nil {
		s.p.mu.RLock()
		def := s.p.committer
		s.p.mu.RUnlock()
		if sig.Name == "" {
			sig.Name = def.Name
		}
		if sig.Email == "" {
			sig.Email = def.Email
		}
	}
	user, host := ctx.Client().User, ctx.Client().Address
	if sig.Name == "" && user != "" {
		sig.Name = user
	}
	if sig.Email == "" && user != "" {
		if host == "" || strings.Contains(host, ":") {
			host = "localhost"
		}
		sig.Email = user + "@" + host
	}
	if sig.Name == "" {
		sig.Name = "verso"
	}
	if sig.Email == "" {
		sig.Email = sig.Name + "@localhost"
	}
	return sig
}

// SetCommitter sets the identity that commits, tags and merges made over
// SQL record when the session sets none (@@dolt_committer_name,
// @@dolt_committer_email): the server configuration's.
func (p *Provider) SetCommitter(sig commitgraph.Signature) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.committer = sig
}
