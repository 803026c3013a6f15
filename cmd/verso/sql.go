package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// runSQL runs SQL against the database of the current folder (or the
// databases of --data-dir) in this process: the statement of -q, or the
// script read from stdin. Results print as tables like the mysql client's
// (-r table), or as CSV or JSON. The first failing statement stops the
// script: its error goes to stderr, in the mysql client's form, and the
// exit code is 1.
//
// When another process (a running verso sql-server) holds a database for
// writing, the databases are opened read-only instead: a snapshot that
// queries read, while a statement that writes fails with MySQL's 1290
// saying to run it through that server.
func runSQL(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("sql", cliContext{stdout: stdout, stderr: stderr})
	query := fs.StringP("query", "q", "", "run this SQL (one or more statements) instead of reading stdin")
	format := fs.StringP("result-format", "r", "table", "result format: table, csv or json")
	dataDir := fs.String("data-dir", "", "use the databases of this folder (none is current until USE)")
	pos, code, ok := parseFlags(fs, args, -1)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "verso sql: unexpected argument %q (quote the query: verso sql -q \"SELECT ...\")\n", pos[0])
		return 2
	}
	switch *format {
	case "table", "csv", "json":
	default:
		fmt.Fprintf(stderr, "verso sql: unknown result format %q (use -r table, -r csv or -r json)\n", *format)
		return 2
	}
	// The shell when stdin is a terminal and no query is given; a
	// script otherwise, read whole.
	shell := *query == "" && isTerminal(stdin)
	script := *query
	if script == "" && !shell {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql: reading the script from stdin: %v\n", err)
			return 1
		}
		script = string(b)
	}
	if *dataDir != "" {
		*dataDir = joinDir(dir, *dataDir)
	}
	p, _, err := openProvider(dir, *dataDir)
	readOnly := false
	if errors.Is(err, verso.ErrLocked) {
		p, _, err = openDatabases(dir, *dataDir, true)
		readOnly = true
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso sql: %v\n", err)
		return 1
	}
	defer p.Close()
	for _, d := range p.Damaged() {
		fmt.Fprintf(stderr, "verso sql: warning: database %s could not be opened and is left out: %v\n", d.Name, d.Err)
	}
	e := sqlserver.NewEngine(p)
	defer e.Close()
	base := sql.NewBaseSession()
	base.SetClient(sql.Client{User: sqlserver.DefaultUser, Address: "localhost"})
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(base)))
	if *dataDir == "" {
		if dbs := p.AllDatabases(ctx); len(dbs) == 1 {
			ctx.SetCurrentDatabase(dbs[0].Name())
		}
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	r := &sqlRunner{ctx: ctx, e: e, format: *format, out: out, stderr: stderr, readOnly: readOnly, delim: ";"}
	if readOnly && *dataDir == "" {
		// A server holds the database: the statements run there
		// (sqlremote.go).
		if info, db, ok := runningServer(dir); ok {
			pool, conn, err := dialServer(dir, info, db)
			if err != nil {
				fmt.Fprintf(stderr, "verso sql: connecting to the verso sql-server that holds the database, at %s: %v\n", info.Addr, serverError(err))
				return 1
			}
			defer pool.Close()
			defer conn.Close()
			r.remote = conn
		}
	}
	if shell {
		return runShell(r, stdin, stdout)
	}
	if err := r.runText(script, 1); err != nil && err != errExit {
		return 1
	}
	return 0
}

// heldMessage is the error of a statement that writes while another
// process holds the database (runSQL).
const heldMessage = "another process (a running verso sql-server?) holds the database for writing, so verso sql opened it read-only: run this statement through that server, or stop it first"

// mysqlClientError is err as a server sends it to a client.
func mysqlClientError(err error, query string) *mysql.SQLError {
	return sqlserver.MySQLError(err, query)
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cell is a value as text, as the MySQL protocol sends it; null reports
// NULL.
func cell(ctx *sql.Context, col *sql.Column, v any) (s string, null bool, err error) {
	if v == nil {
		return "", true, nil
	}
	switch f := v.(type) {
	case rawText:
		return string(f), false, nil
	case float64:
		return sqlserver.FormatFloat(f, 64), false, nil
	case float32:
		return sqlserver.FormatFloat(float64(f), 32), false, nil
	}
	val, err := col.Type.SQL(ctx, nil, v)
	if err != nil {
		return "", false, err
	}
	if val.IsNull() {
		return "", true, nil
	}
	return val.ToString(), false, nil
}
