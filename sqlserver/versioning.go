package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
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
// one set by dolt_checkout while it exists, else the database's.
func (p *Provider) sessionBranch(ctx *sql.Context, st *dbState) string {
	s := sessionOf(ctx)
	if s == nil || s.branches == nil {
		return st.branch
	}
	b, ok := s.branches[strings.ToLower(st.name)]
	if !ok {
		return st.branch
	}
	if _, err := st.graph.Head(ctx, b); err != nil {
		delete(s.branches, strings.ToLower(st.name))
		return st.branch
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

// writableBranch returns db's branch, or an error for a read-only revision
// database (a tag or a commit), which has no branch to change.
func (db *Database) writableBranch() (string, error) {
	if db.rev != nil {
		return "", fmt.Errorf("database %q is a read-only revision (a tag or a commit); USE a branch of %s to change it", db.name, db.st.name)
	}
	return db.branch, nil
}

// branchState is a branch as a procedure sees it: its head and working set
// as stored, and the working root with the calling transaction's writes.
type branchState struct {
	head    *commitgraph.Commit
	ws      commitgraph.WorkingSet
	headRt  commitgraph.RootValue
	working commitgraph.RootValue
	staged  commitgraph.RootValue
}

// branchChange is what a procedure does to a branch: a new head (zero to
// keep it) and new roots.
type branchChange struct {
	head    chunks.Address
	working commitgraph.RootValue
	staged  commitgraph.RootValue
	merge   *commitgraph.MergeState
}

// maxBranchRetries bounds the retries of a procedure against writers of
// the same store outside this process's serialization.
const maxBranchRetries = 100

// updateBranch runs fn on the branch's state and writes its change (nil:
// none) with one compare-and-swap. The transaction's own writes are folded
// into the working root first; after the update the transaction continues
// from the new working root.
func (d *txDB) updateBranch(ctx *sql.Context, fn func(s *branchState) (*branchChange, error)) error {
	if d.readOnly {
		return fmt.Errorf("verso: %s is a read-only revision", d.branch)
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	d.st.commitMu.Lock()
	defer d.st.commitMu.Unlock()
	for attempt := 0; ; attempt++ {
		head, ws, err := d.st.graph.BranchState(ctx, d.branch)
		if err != nil {
			return err
		}
		s := &branchState{head: head, ws: ws}
		if s.working, err = d.pendingWorking(ctx, ws); err != nil {
			return err
		}
		if s.staged, err = d.st.graph.OpenRoot(ctx, ws.Staged); err != nil {
			return err
		}
		if s.headRt, err = d.st.graph.OpenRoot(ctx, head.Root); err != nil {
			return err
		}
		ch, err := fn(s)
		if err != nil || ch == nil {
			return err
		}
		next := commitgraph.WorkingSet{Working: ch.working.Address(), Staged: ch.staged.Address(), Merge: ch.merge}
		newHead := head.Addr
		if !ch.head.IsEmpty() {
			newHead = ch.head
		}
		err = d.st.graph.UpdateBranch(ctx, d.branch, commitgraph.BranchUpdate{
			ExpectedHead: head.Addr, ExpectedWorkingSet: ws, Head: newHead, WorkingSet: next,
		})
		if (errors.Is(err, commitgraph.ErrWorkingSetMoved) || errors.Is(err, commitgraph.ErrBranchMoved)) && attempt < maxBranchRetries {
			continue
		}
		if err != nil {
			return err
		}
		d.start, d.base, d.root = next, ch.working, ch.working
		d.writers = map[string]*tableWriter{}
		d.bases = nil // the new base holds the rows adopted
		return nil
	}
}

// pendingWorking returns the working root the branch would have if the
// transaction committed now over the working set ws.
func (d *txDB) pendingWorking(ctx context.Context, ws commitgraph.WorkingSet) (commitgraph.RootValue, error) {
	if d.unchanged() {
		return d.st.graph.OpenRoot(ctx, ws.Working)
	}
	if ws.Working == d.start.Working && len(d.bases) == 0 {
		return d.root, nil
	}
	cur, err := d.st.graph.OpenRoot(ctx, ws.Working)
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return mergeRoots(ctx, d.st, d.base, cur, d.root, d.bases)
}

// conflictsPrefix begins the root value entries of a table's merge
// conflicts (written by dolt_merge): conflicts/<table>...
const conflictsPrefix = "conflicts/"

// conflictedTables returns the tables with merge conflicts in root.
func conflictedTables(ctx context.Context, root commitgraph.RootValue) ([]string, error) {
	ents, err := root.Entries(ctx, conflictsPrefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		t, _, _ := strings.Cut(strings.TrimPrefix(e.Name, conflictsPrefix), "/")
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out, nil
}

// errConflicts is the error of a commit refused for unresolved conflicts.
func errConflicts(tables []string) error {
	return fmt.Errorf("cannot commit: unresolved merge conflicts in %s; resolve them (dolt_conflicts_resolve, or edit the rows and delete them from dolt_conflicts_<table>) and stage the tables with dolt_add, or abort the merge with dolt_merge('--abort')", strings.Join(tables, ", "))
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
