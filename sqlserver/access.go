package sqlserver

import (
	"context"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// What a server's accounts may do beyond the engine's own privilege
// checks, which leave these open:
//
//   - Files of the server's host: LOAD_FILE, SELECT ... INTO OUTFILE and
//     INTO DUMPFILE, and LOAD DATA INFILE need the global FILE privilege
//     and reach only the folder of secure_file_priv (files.go). LOAD DATA
//     LOCAL INFILE reads a file the client sends, so it needs only INSERT
//     on the table (and DELETE with REPLACE), as in MySQL; the engine
//     asked FILE of it and INSERT of neither.
//   - SET GLOBAL, SET PERSIST and SET PERSIST_ONLY change every session's
//     settings: they need SUPER or SYSTEM_VARIABLES_ADMIN (MySQL's error
//     1227 otherwise); the engine asked nothing.
//   - CREATE DATABASE and DROP DATABASE need CREATE or DROP on the
//     database named (or globally), as in MySQL; the engine checked them
//     as global privileges, which it then found among the privileges on
//     the current database, so an account granted ALL ON db1.* could
//     CREATE DATABASE anything while db1 was current.
//
// The statement-level checks go into the engine at two points: its parser
// (accessParser), whose statements carry the privilege the engine checks
// as it plans them, and a first analyzer rule (checkAccess) for what the
// engine has no check for. The per-database variables (@@<db>_head and
// kin) of a database the account cannot see are refused in sysvars.go.

// serverAccess is a server session's policy beyond the engine's checks.
// Sessions of an embedded engine have none (nil): their caller is the
// process's owner, who can read its files anyway.
type serverAccess struct {
	users *mysql_db.MySQLDb
	files secureFilePriv
}

// enforced reports whether accounts are checked: a server whose user
// database has accounts (it always has the superuser).
func (a *serverAccess) enforced() bool {
	return a != nil && a.users != nil && a.users.Enabled()
}

// hasGlobal reports whether the session's account holds one of the global
// static privileges privs or the global dynamic privileges dyn. Unlike the
// engine's UserHasPrivileges, privileges on the current database do not
// count.
func (a *serverAccess) hasGlobal(ctx *sql.Context, privs []sql.PrivilegeType, dyn ...string) bool {
	if !a.enforced() {
		return true
	}
	ps := a.users.UserActivePrivilegeSet(ctx)
	for _, p := range privs {
		if ps.Has(p) {
			return true
		}
	}
	for _, d := range dyn {
		if ps.HasDynamic(d) {
			return true
		}
	}
	return false
}

// mayUseFiles reports whether the session's account holds FILE.
func (a *serverAccess) mayUseFiles(ctx *sql.Context) bool {
	return a.hasGlobal(ctx, []sql.PrivilegeType{sql.PrivilegeType_File})
}

// canSeeDatabase reports whether the session's account has any privilege
// that lets it see the database db: a global one, or one on db or its
// tables (the rule by which the engine hides databases from SHOW
// DATABASES and USE).
func (a *serverAccess) canSeeDatabase(ctx *sql.Context, db string) bool {
	if !a.enforced() {
		return true
	}
	ps := a.users.UserActivePrivilegeSet(ctx)
	return ps.Count() > 0 || ps.Database(db).HasPrivileges()
}

// sessionAccess returns the policy of ctx's session, or nil.
func sessionAccess(ctx *sql.Context) *serverAccess {
	if s, ok := ctx.Session.(*Session); ok {
		return s.access
	}
	return nil
}

// errSpecificAccess is MySQL's ER_SPECIFIC_ACCESS_DENIED_ERROR (1227).
func errSpecificAccess(privs string) error {
	return mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000",
		"Access denied; you need (at least one of) the %s privilege(s) for this operation", privs)
}

// errNoFilePrivilege refuses a statement that reads or writes a file of
// the server's host to an account without FILE. MySQL answers it with
// 1045 (ER_ACCESS_DENIED_ERROR, the login error "Access denied for user
// ... (using password: YES)"), which tells the user nothing about what is
// missing; 1227 names the privilege and is what MySQL sends for the
// other global privileges.
func errNoFilePrivilege() error { return errSpecificAccess("FILE") }

// accessRule is the id of checkAccess among the analyzer's rules (past the
// engine's own ids and fastPathRule).
const accessRule analyzer.RuleId = 100001

// installServerRules makes checkAccess and checkDamaged (damaged.go) the
// first rules of e's analyzer, for a server over p. The engine analyzes
// every statement but a COMMIT and START TRANSACTION with all its
// batches, except literal INSERTs, single-table UPDATEs and DELETEs and
// simple SELECTs, which get batches of their own (getBatchesForNode) and
// cannot hold the statements checked here.
func installServerRules(e *sqle.Engine, p *Provider) {
	a := e.Analyzer
	a.Batches = append([]*analyzer.Batch{{
		Desc:       "verso server checks",
		Iterations: 1,
		Rules: []analyzer.Rule{
			{Id: accessRule, Apply: checkAccess},
			{Id: damagedRule, Apply: p.checkDamaged},
		},
	}}, a.Batches...)
}

// checkAccess refuses the statements of n (and of the bodies it holds)
// that the session's account may not run (see the top of this file).
func checkAccess(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	a := sessionAccess(ctx)
	if a == nil {
		return n, transform.SameTree, nil
	}
	var err error
	transform.Inspect(n, func(n sql.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *plan.Into:
			if n.Outfile != "" {
				err = a.checkFileStatement(ctx, n.Outfile, true)
			} else if n.Dumpfile != "" {
				err = a.checkFileStatement(ctx, n.Dumpfile, true)
			}
		case *plan.LoadData:
			if !n.Local {
				err = a.checkFileStatement(ctx, n.File, false)
			}
		case *plan.Set:
			err = a.checkSet(ctx, n)
		}
		return err == nil
	})
	return n, transform.SameTree, err
}

// checkFileStatement checks a statement that reads (LOAD DATA INFILE) or
// writes (INTO OUTFILE, INTO DUMPFILE) the file path of the server's host:
// FILE, then secure_file_priv (MySQL's order).
func (a *serverAccess) checkFileStatement(ctx *sql.Context, path string, write bool) error {
	if !a.mayUseFiles(ctx) {
		return errNoFilePrivilege()
	}
	if !a.files.allows(path, write) {
		return errSecureFilePriv()
	}
	return nil
}

// checkSet checks the assignments of a SET statement: one to a global
// system variable (GLOBAL, PERSIST, PERSIST_ONLY, or a variable with
// only a global value) needs SUPER or SYSTEM_VARIABLES_ADMIN.
func (a *serverAccess) checkSet(ctx *sql.Context, n *plan.Set) error {
	for _, e := range n.Exprs {
		sf, ok := e.(*expression.SetField)
		if !ok {
			continue
		}
		v, ok := sf.LeftChild.(*expression.SystemVar)
		if !ok || !setsGlobal(v) {
			continue
		}
		if !a.hasGlobal(ctx, []sql.PrivilegeType{sql.PrivilegeType_Super}, "system_variables_admin") {
			return errSpecificAccess("SUPER or SYSTEM_VARIABLES_ADMIN")
		}
	}
	return nil
}

// setsGlobal reports whether assigning v changes a global value.
func setsGlobal(v *expression.SystemVar) bool {
	s, ok := v.Scope.(*sql.MysqlScope)
	if !ok {
		return v.Scope.IsGlobalOnly()
	}
	switch s.Type {
	case sql.SystemVariableScope_Global, sql.SystemVariableScope_Persist,
		sql.SystemVariableScope_PersistOnly, sql.SystemVariableScope_ResetPersist:
		return true
	}
	return false
}

// accessParser is the MySQL parser with the privileges the engine checks
// corrected where they are wrong (see the top of this file): LOAD DATA
// needs INSERT on its table (the analyzer rule adds FILE unless LOCAL),
// CREATE and DROP DATABASE the privilege on the database they name.
type accessParser struct {
	sql.Parser
}

var _ sql.Parser = accessParser{}

func (p accessParser) ParseSimple(query string) (ast.Statement, error) {
	stmt, err := p.Parser.ParseSimple(query)
	return fixAuth(stmt), err
}

func (p accessParser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.Parse(ctx, query, multi)
	return fixAuth(stmt), parsed, rest, err
}

func (p accessParser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	return fixAuth(stmt), parsed, rest, err
}

func (p accessParser) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	stmt, n, err := p.Parser.ParseOneWithOptions(ctx, query, options)
	return fixAuth(stmt), n, err
}

// fixAuth sets the privilege check of the statements the engine checks
// wrongly.
func fixAuth(stmt ast.Statement) ast.Statement {
	switch s := stmt.(type) {
	case *ast.Load:
		typ := ast.AuthType_INSERT
		if s.IgnoreOrReplace == ast.ReplaceStr {
			typ = ast.AuthType_REPLACE // INSERT and DELETE
		}
		s.Auth = ast.AuthInformation{
			AuthType:    typ,
			TargetType:  ast.AuthTargetType_SingleTableIdentifier,
			TargetNames: []string{s.Table.DbQualifier.String(), s.Table.Name.String()},
		}
	case *ast.DBDDL:
		if s.Action == ast.CreateStr || s.Action == ast.DropStr {
			s.Auth.TargetType = ast.AuthTargetType_DatabaseIdentifiers
			s.Auth.TargetNames = []string{s.DBName}
		}
	}
	return stmt
}

// dbVarVisible reports whether the session may read or set the
// per-database variables of st. A database the account has no privilege
// on is one it cannot see (SHOW DATABASES leaves it out), so its variables
// are unknown to it (ER_UNKNOWN_SYSTEM_VARIABLE, 1193), as those of a
// database that does not exist are: refusing them with "access denied"
// would tell the account that the database exists, which MySQL does not
// (USE of a database one cannot see answers 1044 whether or not it
// exists).
func (s *Session) dbVarVisible(ctx *sql.Context, st *dbState) bool {
	return s.access.canSeeDatabase(ctx, st.name)
}
