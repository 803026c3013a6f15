package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/tablemerge"
)

// System variables.
//
//	@@dolt_committer_name, @@dolt_committer_email
//	                     the identity this session's dolt_commit and
//	                     dolt_tag record as the committer (default: the
//	                     server's configured identity, else the SQL user)
//	@@dolt_transaction_commit, @@dolt_transaction_commit_message
//	                     as Dolt's: on, each SQL transaction that changes a
//	                     database also commits it to the branch's history
//	                     (every change staged), with the message, or
//	                     "Transaction commit"
//	@@dolt_author_name, @@dolt_author_email
//	                     the author dolt_commit records when --author is
//	                     not given (default: the committer), as Dolt's
//	@@dolt_author_date, @@dolt_committer_date
//	                     the author time and the commit time dolt_commit
//	                     records (default '': now; --date sets the
//	                     author time, and the commit time where
//	                     @@dolt_committer_date is ''), as Dolt's
//	@@dolt_allow_commit_conflicts, @@dolt_force_transaction_commit
//	                     as Dolt's: off, a transaction (an autocommit
//	                     statement, or COMMIT) that would leave merge
//	                     conflicts in the working set fails and is rolled
//	                     back; on, the conflicts are committed (the
//	                     second also allows constraint violations)
//	@@dolt_show_system_tables
//	                     as Dolt's: on, SHOW TABLES and
//	                     information_schema.tables list the system tables
//	                     (showsystables.go)
//	@@<db>_head          the head commit of the session's branch of db
//	@@<db>_head_ref      its ref: refs/heads/<branch>; setting it to a
//	                     branch (or refs/heads/<branch>) checks it out
//	@@<db>_working       the address of the working root (as the session's
//	                     transaction sees it)
//	@@<db>_staged        the address of the staged root
//
// The per-database variables are registered (process-wide, as the engine
// keeps its registry) when a database is opened or created, and computed
// on each read. On a server, those of a database the account has no
// privilege on are unknown to it (see dbVarVisible in access.go).

const (
	userNameVar       = "dolt_committer_name"
	userEmailVar      = "dolt_committer_email"
	txnCommitVar      = "dolt_transaction_commit"
	txnCommitMsgVar   = "dolt_transaction_commit_message"
	authorNameVar     = "dolt_author_name"
	authorEmailVar    = "dolt_author_email"
	authorDateVar     = "dolt_author_date"
	committerDateVar  = "dolt_committer_date"
	allowConflictsVar = "dolt_allow_commit_conflicts"
	forceTxnCommitVar = "dolt_force_transaction_commit"
	showSysTablesVar  = "dolt_show_system_tables"
)

var dbVarSuffixes = []string{"_head_ref", "_head", "_working", "_staged"}

// MySQLVersion is the MySQL version verso answers to: @@version, and the
// version the wire server's handshake announces (package server), so
// that a client's feature checks see one version. @@version_comment
// names verso and its version (the mysql client prints both).
const MySQLVersion = "8.0.33"

// VersionComment is @@version_comment: "verso" and verso's version.
func VersionComment() string { return "verso " + verso.Version() }

// systemVariables are verso's system variables, beside @@secure_file_priv
// (files.go) and the per-database ones (registerDBVars).
var systemVariables = []sql.SystemVariable{
	&sql.MysqlSystemVariable{Name: "version", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: false, Type: types.NewSystemStringType("version"), Default: MySQLVersion},
	&sql.MysqlSystemVariable{Name: "version_comment", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: false, Type: types.NewSystemStringType("version_comment"), Default: VersionComment()},
	&sql.MysqlSystemVariable{Name: userNameVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(userNameVar), Default: ""},
	&sql.MysqlSystemVariable{Name: userEmailVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(userEmailVar), Default: ""},
	&sql.MysqlSystemVariable{Name: txnCommitVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemBoolType(txnCommitVar), Default: int8(0)},
	&sql.MysqlSystemVariable{Name: txnCommitMsgVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(txnCommitMsgVar), Default: ""},
	&sql.MysqlSystemVariable{Name: authorNameVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(authorNameVar), Default: ""},
	&sql.MysqlSystemVariable{Name: authorEmailVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(authorEmailVar), Default: ""},
	&sql.MysqlSystemVariable{Name: authorDateVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(authorDateVar), Default: ""},
	&sql.MysqlSystemVariable{Name: committerDateVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(committerDateVar), Default: ""},
	&sql.MysqlSystemVariable{Name: allowConflictsVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemBoolType(allowConflictsVar), Default: int8(0)},
	&sql.MysqlSystemVariable{Name: forceTxnCommitVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemBoolType(forceTxnCommitVar), Default: int8(0)},
	&sql.MysqlSystemVariable{Name: showSysTablesVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemBoolType(showSysTablesVar), Default: int8(0)},
	// The engine fixes it at 1 (it takes no row locks); verso's row
	// locks wait this long, MySQL's range and default (rowlocks.go).
	&sql.MysqlSystemVariable{Name: "innodb_lock_wait_timeout", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemIntType("innodb_lock_wait_timeout", 1, 1073741824, false), Default: int64(defaultLockWaitTimeout / time.Second)},
}

// sessionFlag reads a boolean session variable (false if unset).
func sessionFlag(ctx *sql.Context, name string) bool {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil {
		return false
	}
	b, _ := sql.ConvertToBool(ctx, v)
	return b
}

// conflictsAllowed reports whether the session's transactions may commit
// a working set with merge conflicts.
func conflictsAllowed(ctx *sql.Context) bool {
	return sessionFlag(ctx, allowConflictsVar) || sessionFlag(ctx, forceTxnCommitVar)
}

// autocommitting reports whether the statement's transaction ends with
// the statement (autocommit on, no explicit transaction).
func autocommitting(ctx *sql.Context) bool {
	return sessionFlag(ctx, "autocommit") && !ctx.GetIgnoreAutoCommit()
}

// The refusals of a commit that would leave conflicts, as Dolt words them.
var (
	errAutocommitConflicts = errors.New("Merge conflict detected, @autocommit transaction rolled back. @autocommit must be disabled so that merge conflicts can be resolved using the dolt_conflicts and dolt_schema_conflicts tables before manually committing the transaction. Alternatively, to commit transactions with merge conflicts, set @@dolt_allow_commit_conflicts = 1")
	errCommitConflicts     = errors.New("Merge conflict detected, transaction rolled back. Merge conflicts must be resolved using the dolt_conflicts and dolt_schema_conflicts tables before committing a transaction. To commit transactions with merge conflicts, set @@dolt_allow_commit_conflicts = 1")
)

// errViolationsText is Dolt's refusal of a transaction commit that would
// leave constraint violations; the violations follow it (the mysql client
// shows its first 511 bytes, as of Dolt's).
const errViolationsText = "Committing this transaction resulted in a working set with constraint violations, transaction rolled back. This constraint violation may be the result of a previous merge or the result of transaction sequencing. Constraint violations from a merge can be resolved using the dolt_constraint_violations table before committing the transaction. To allow transactions to be committed with constraint violations from a merge or transaction sequencing set @@dolt_force_transaction_commit=1.\nConstraint violations: \n"

// violationsMessage returns the refusal of the commit of d's working set
// for its constraint violations, naming each.
func violationsMessage(ctx *sql.Context, d *txDB) (string, error) {
	ns := d.st.graph.NodeStore()
	list, err := tablemerge.ListViolations(ctx, ns, d.Root())
	if err != nil {
		return "", err
	}
	var parts []string
	for _, tv := range list {
		vs, err := tablemerge.GetViolations(ctx, ns, d.Root(), tv.Table)
		if err != nil || vs == nil {
			return "", err
		}
		if err := vs.Each(ctx, func(v tablemerge.Violation) bool {
			parts = append(parts, fmt.Sprintf("Type: %s, Table: %s, Info: %s", v.Type, tv.Table, v.Info))
			return len(parts) < 16
		}); err != nil {
			return "", err
		}
	}
	return errViolationsText + strings.Join(parts, "\n"), nil
}

// sysVarsOnce guards registerSystemVariables.
var sysVarsOnce sync.Once

// registerSystemVariables adds systemVariables and fileSystemVariables to
// the engine's registry of system variables. That registry is a
// process-wide global of go-mysql-server (sql.SystemVariables), with no
// per-engine alternative: sessions copy their variables from it. So the
// variables are added once per process, by the first provider made
// (newProvider), rather than by an init function; they are the same for
// every provider.
func registerSystemVariables() {
	sysVarsOnce.Do(func() {
		sql.SystemVariables.AddSystemVariables(slices.Concat(systemVariables, fileSystemVariables, replicationVariables))
	})
}

// registerDBVars registers the per-database session variables of name,
// and its @@<db>_default_branch.
func registerDBVars(name string) {
	vars := make([]sql.SystemVariable, 0, len(dbVarSuffixes)+1)
	for _, s := range dbVarSuffixes {
		n := strings.ToLower(name) + s
		if _, _, ok := sql.SystemVariables.GetGlobal(n); ok {
			continue
		}
		vars = append(vars, &sql.MysqlSystemVariable{Name: n, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Session), Dynamic: true, Type: types.NewSystemStringType(n), Default: ""})
	}
	if n := strings.ToLower(name) + defaultBranchSuffix; !hasSysVar(n) {
		vars = append(vars, &sql.MysqlSystemVariable{Name: n, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true, Type: types.NewSystemStringType(n), Default: ""})
	}
	if len(vars) > 0 {
		sql.SystemVariables.AddSystemVariables(vars)
	}
}

// defaultBranchSuffix names @@<db>_default_branch: as Dolt's, set
// globally it is the branch new sessions start on in db (when it exists),
// instead of the database's default branch.
const defaultBranchSuffix = "_default_branch"

func hasSysVar(name string) bool {
	_, _, ok := sql.SystemVariables.GetGlobal(name)
	return ok
}

// startBranch returns the branch a session starts on in st: the global
// @@<db>_default_branch when it names a branch, else the database's.
func startBranch(ctx *sql.Context, st *dbState) string {
	if _, v, ok := sql.SystemVariables.GetGlobal(strings.ToLower(st.name) + defaultBranchSuffix); ok {
		if b, _ := v.(string); b != "" {
			b = strings.TrimPrefix(b, "refs/heads/")
			if _, err := st.graph.Head(ctx, b); err == nil {
				return b
			}
		}
	}
	return st.branch
}

// dbVarName splits a per-database variable name into the database's name
// and the suffix, if it has the form of one.
func dbVarName(name string) (db, suffix string, ok bool) {
	name = strings.ToLower(name)
	for _, suf := range dbVarSuffixes {
		if db, ok := strings.CutSuffix(name, suf); ok && db != "" {
			return db, suf, true
		}
	}
	return "", "", false
}

// dbVar splits a per-database variable name into the database's state and
// the suffix, if it is one. A database the session's account cannot see
// has no variables for it (errUnknownDBVar; see dbVarVisible).
func (s *Session) dbVar(ctx *sql.Context, name string) (*dbState, string, bool, error) {
	db, suf, ok := dbVarName(name)
	if !ok {
		// @@<db>_default_branch is stored, not computed, but as hidden.
		if db, ok := strings.CutSuffix(strings.ToLower(name), defaultBranchSuffix); ok && db != "" {
			if st, ok := s.p.state(db); ok && !s.dbVarVisible(ctx, st) {
				return nil, "", false, sql.ErrUnknownSystemVariable.New(strings.ToLower(name))
			}
		}
		return nil, "", false, nil
	}
	st, ok := s.p.state(db)
	if !ok {
		return nil, "", false, nil
	}
	if !s.dbVarVisible(ctx, st) {
		return nil, "", false, sql.ErrUnknownSystemVariable.New(strings.ToLower(name))
	}
	return st, suf, true, nil
}

// GetSessionVariable implements sql.Session: the per-database variables
// are computed, secure_file_priv is the server's, the others are the base
// session's.
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (interface{}, error) {
	st, suf, ok, err := s.dbVar(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if s.access != nil && strings.EqualFold(name, "secure_file_priv") {
			return s.access.files.value(), nil
		}
		return s.BaseSession.GetSessionVariable(ctx, name)
	}
	branch := s.p.sessionBranch(ctx, st)
	switch suf {
	case "_head_ref":
		return "refs/heads/" + branch, nil
	case "_head":
		h, err := st.graph.Head(ctx, branch)
		if err != nil {
			return nil, err
		}
		return h.String(), nil
	case "_working":
		d, err := txDatabase(ctx, st, branch)
		if err != nil {
			return nil, err
		}
		if err := d.flushAll(ctx); err != nil {
			return nil, err
		}
		return d.Root().Address().String(), nil
	default: // _staged
		ws, err := st.graph.WorkingSet(ctx, branch)
		if err != nil {
			return nil, err
		}
		return ws.Staged.String(), nil
	}
}

// SetSessionVariable implements sql.Session: setting @@<db>_head_ref
// checks a branch out; the other per-database variables are read-only.
func (s *Session) SetSessionVariable(ctx *sql.Context, name string, value interface{}) error {
	st, suf, ok, err := s.dbVar(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		return s.BaseSession.SetSessionVariable(ctx, name, value)
	}
	if suf != "_head_ref" {
		return fmt.Errorf("@@%s is read-only: it reports the session's branch state; use dolt_checkout, dolt_commit or dolt_reset to change it", name)
	}
	v, ok := value.(string)
	if !ok {
		return fmt.Errorf("@@%s takes a branch name or refs/heads/<branch>, not %v", name, value)
	}
	b := strings.TrimPrefix(v, "refs/heads/")
	if _, err := st.graph.Head(ctx, b); err != nil {
		return fmt.Errorf("cannot set @@%s: no branch %q in database %s; list the branches with SELECT name FROM dolt_branches", name, b, st.name)
	}
	setSessionBranch(ctx, st, b)
	return nil
}

// GetAllSessionVariables implements sql.Session (SHOW VARIABLES): the
// base session's, the per-database variables with their values of now,
// without those of databases the account cannot see or that were dropped
// (the engine's registry of variables is process-wide and keeps them).
func (s *Session) GetAllSessionVariables() map[string]interface{} {
	m := s.BaseSession.GetAllSessionVariables()
	if s.access != nil {
		m["secure_file_priv"] = s.access.files.value()
	}
	var ctx *sql.Context
	for name := range m {
		db, _, computed := dbVarName(name)
		if !computed {
			var ok bool
			if db, ok = strings.CutSuffix(strings.ToLower(name), defaultBranchSuffix); !ok || db == "" {
				continue
			}
		}
		st, ok := s.p.state(db)
		if ok && s.access.enforced() {
			if ctx == nil {
				ctx = sql.NewContext(context.Background(), sql.WithSession(s))
			}
			ok = s.dbVarVisible(ctx, st)
		}
		if !ok {
			delete(m, name)
			continue
		}
		if !computed {
			continue
		}
		// Their values of now, as @@<name> reads them.
		if ctx == nil {
			ctx = sql.NewContext(context.Background(), sql.WithSession(s))
		}
		if v, err := s.GetSessionVariable(ctx, name); err == nil {
			m[name] = v
		}
	}
	return m
}
