package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// The commands that are SQL underneath (ls, show, merge-base,
// cherry-pick, revert, conflicts, schema, table, dump, rm): each runs the
// SQL engine in this process over the local database, as verso sql does,
// and is a query or a procedure call with its output. Those that only
// read open the database read-only when a server holds it (and read its
// last commit); those that write say to run their SQL through the server.

// engineSession is the SQL engine over the local database.
type engineSession struct {
	p        *sqlserver.Provider
	e        *sqle.Engine
	ctx      *sql.Context
	readOnly bool
}

// openEngine opens the local database (dir's, or its nearest parent's)
// for the command cmd: for writing when write, else for writing if it
// can and read-only when a server holds it. sqlForm is what to run
// through a server instead, for a command that writes.
func openEngine(dir string, write bool, sqlForm string) (*engineSession, error) {
	if _, err := findRepoRoot(dir); err != nil {
		return nil, err
	}
	p, _, err := openProvider(dir, "")
	readOnly := false
	if errors.Is(err, verso.ErrLocked) && !write {
		p, _, err = openDatabases(dir, "", true)
		readOnly = true
	}
	if err != nil {
		return nil, heldElsewhere(err, sqlForm)
	}
	// Commits the command makes record the command line's author, as
	// verso commit's do.
	p.SetCommitter(identity(dir, "", ""))
	e := sqlserver.NewEngine(p)
	base := sql.NewBaseSession()
	base.SetClient(sql.Client{User: sqlserver.DefaultUser, Address: "localhost"})
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(base)))
	if dbs := p.AllDatabases(ctx); len(dbs) == 1 {
		ctx.SetCurrentDatabase(dbs[0].Name())
	}
	return &engineSession{p: p, e: e, ctx: ctx, readOnly: readOnly}, nil
}

func (s *engineSession) close() error {
	s.e.Close()
	return s.p.Close()
}

// runner returns a runner of statements printing to stdout in format.
func (s *engineSession) runner(format string, stdout, stderr io.Writer) *sqlRunner {
	return &sqlRunner{ctx: s.ctx, e: s.e, format: format, out: bufio.NewWriter(stdout), stderr: stderr, readOnly: s.readOnly, delim: ";"}
}

// rows runs query and returns its rows.
func (s *engineSession) rows(query string) (sql.Schema, []sql.Row, error) {
	sch, iter, _, err := s.e.Query(s.ctx, query)
	if err != nil {
		return nil, nil, err
	}
	rows, err := sql.RowIterToRows(s.ctx, iter)
	return sch, rows, err
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// sqlName quotes s as a SQL name.
func sqlName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// withEngine runs fn over the local database for command name, printing
// its error (as the mysql client does for SQL errors) and returning the
// exit code.
func withEngine(c cliContext, name string, write bool, sqlForm string, fn func(s *engineSession) error) int {
	s, err := openEngine(c.dir, write, sqlForm)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso %s: %v\n", name, err)
		return 1
	}
	err = fn(s)
	if cerr := s.close(); err == nil {
		err = cerr
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errPrinted):
		return 1
	}
	if s.readOnly && sqlserver.IsReadOnlyError(err) {
		err = errors.New(heldMessage)
	} else if se := mysqlClientError(err, ""); se != nil {
		err = errors.New(se.Message)
	}
	fmt.Fprintf(c.stderr, "verso %s: %v\n", name, err)
	return 1
}

// errPrinted is an error already printed.
var errPrinted = errors.New("printed")

// runQueries runs the statements of text, printing their results to
// c.stdout in format; the first error stops them and is returned (for
// withEngine to print).
func (s *engineSession) runQueries(c cliContext, format, text string) error {
	r := s.runner(format, c.stdout, c.stderr)
	r.silent = true
	defer r.out.Flush()
	return r.runText(text, 1)
}
