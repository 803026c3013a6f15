package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

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
	var print func(w io.Writer, ctx *sql.Context, sch sql.Schema, rows []sql.Row) error
	switch *format {
	case "table":
		print = printTable
	case "csv":
		print = printCSV
	case "json":
		print = printJSON
	default:
		fmt.Fprintf(stderr, "verso sql: unknown result format %q (use -r table, -r csv or -r json)\n", *format)
		return 2
	}
	script := *query
	if script == "" {
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
	code = runScript(ctx, e, script, func(sch sql.Schema, rows []sql.Row) error {
		if types.IsOkResultSchema(sch) {
			if *format == "table" && len(rows) == 1 {
				if ok, isOK := rows[0][0].(types.OkResult); isOK {
					fmt.Fprintf(out, "Query OK, %d %s affected\n", ok.RowsAffected, plural(ok.RowsAffected, "row", "rows"))
				}
			}
			return nil
		}
		if len(sch) == 0 {
			return nil // USE and the like
		}
		return print(out, ctx, sch, rows)
	}, func(line int, err error, stmt string) {
		out.Flush()
		se := mysqlClientError(err, stmt)
		if readOnly && sqlserver.IsReadOnlyError(err) {
			se = mysql.NewSQLError(mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState, "%s", heldMessage)
		}
		fmt.Fprintf(stderr, "ERROR %d (%s) at line %d: %s\n", se.Num, se.State, line, se.Message)
	})
	return code
}

// heldMessage is the error of a statement that writes while another
// process holds the database (runSQL).
const heldMessage = "another process (a running verso sql-server?) holds the database for writing, so verso sql opened it read-only: run this statement through that server, or stop it first"

// runScript runs the statements of script one after another, passing each
// result to emit; on the first error it calls fail with the statement's
// line, the error and the statement, and returns 1.
func runScript(ctx *sql.Context, e *sqle.Engine, script string, emit func(sql.Schema, []sql.Row) error, fail func(line int, err error, stmt string)) int {
	script = sqlserver.PlainMariaDBComments(script)
	parser := sql.NewMysqlParser()
	off := 0 // where the rest of the script starts in script
	for {
		off = skipSpaceAndComments(script, off)
		if off == len(script) {
			return 0
		}
		line := 1 + strings.Count(script[:off], "\n")
		rest := script[off:]
		stmt, parsed, remainder, err := parser.ParseWithOptions(ctx, rest, ';', true, sql.LoadSqlMode(ctx).ParserOptions())
		if err != nil {
			stmtText, _, _ := strings.Cut(rest, ";")
			fail(line, err, stmtText)
			return 1
		}
		if stmt == nil {
			return 0
		}
		if d, ok := stmt.(*ast.DDL); ok && d.SubStatementPositionEnd > len(parsed) {
			// A statement with a body (CREATE TRIGGER, PROCEDURE, EVENT,
			// VIEW): the parser placed the body's end by the whole rest of
			// the script; parsed alone, its positions are the statement's.
			if stmt, err = ast.ParseWithOptions(ctx, parsed, sql.LoadSqlMode(ctx).ParserOptions()); err != nil {
				fail(line, err, parsed)
				return 1
			}
		}
		rows, sch, err := runStatement(ctx, e, parsed, stmt)
		if err == nil {
			err = emit(sch, rows)
		}
		if err != nil {
			fail(line, err, parsed)
			return 1
		}
		if remainder == "" {
			return 0
		}
		// The parser trims rest's spaces and delimiters on the right only:
		// what it parsed is a prefix of rest.
		off += len(strings.TrimRightFunc(rest, func(r rune) bool { return r == ';' || unicode.IsSpace(r) })) - len(remainder)
	}
}

// runStatement runs one statement and returns its rows; a panic of the
// engine is an error, as the server makes it, not a crash of verso sql.
func runStatement(ctx *sql.Context, e *sqle.Engine, query string, stmt ast.Statement) (rows []sql.Row, sch sql.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error running the statement: %v", r)
		}
	}()
	sch, iter, _, err := e.QueryWithBindings(ctx, query, stmt, nil, nil)
	if err == nil {
		rows, err = sql.RowIterToRows(ctx, iter)
	}
	return rows, sch, err
}

// skipSpaceAndComments returns the offset of the first byte of s from off
// on that is not a space, a statement delimiter or a comment (-- , # or
// /* */, but not MySQL's executable /*! */ comments).
func skipSpaceAndComments(s string, off int) int {
	for off < len(s) {
		switch {
		case s[off] == ';' || s[off] == ' ' || s[off] == '\t' || s[off] == '\r' || s[off] == '\n':
			off++
		case strings.HasPrefix(s[off:], "-- ") || strings.HasPrefix(s[off:], "--\n") || s[off] == '#':
			if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
				off += i + 1
			} else {
				off = len(s)
			}
		case strings.HasPrefix(s[off:], "/*") && !strings.HasPrefix(s[off:], "/*!"):
			if i := strings.Index(s[off+2:], "*/"); i >= 0 {
				off += i + 4
			} else {
				return off
			}
		default:
			return off
		}
	}
	return off
}

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

// printTable prints rows as the mysql client's --table output, numbers
// right-aligned.
func printTable(w io.Writer, ctx *sql.Context, sch sql.Schema, rows []sql.Row) error {
	cells := make([][]string, len(rows))
	widths := make([]int, len(sch))
	for i, c := range sch {
		widths[i] = utf8.RuneCountInString(c.Name)
	}
	for r, row := range rows {
		cells[r] = make([]string, len(sch))
		for i := range sch {
			s, null, err := cell(ctx, sch[i], row[i])
			if err != nil {
				return err
			}
			if null {
				s = "NULL"
			}
			cells[r][i] = s
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
	}
	sep := "+"
	for _, n := range widths {
		sep += strings.Repeat("-", n+2) + "+"
	}
	line := func(vals []string, right func(int) bool) {
		var b strings.Builder
		b.WriteString("|")
		for i, v := range vals {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v))
			if right(i) {
				b.WriteString(" " + pad + v + " |")
			} else {
				b.WriteString(" " + v + pad + " |")
			}
		}
		fmt.Fprintln(w, b.String())
	}
	names := make([]string, len(sch))
	for i, c := range sch {
		names[i] = c.Name
	}
	fmt.Fprintln(w, sep)
	line(names, func(int) bool { return false })
	fmt.Fprintln(w, sep)
	for _, r := range cells {
		line(r, func(i int) bool { return types.IsNumber(sch[i].Type) })
	}
	fmt.Fprintln(w, sep)
	return nil
}

// printCSV prints a header line and one line per row (RFC 4180); NULL is
// an empty field.
func printCSV(w io.Writer, ctx *sql.Context, sch sql.Schema, rows []sql.Row) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(sch))
	for i, c := range sch {
		rec[i] = c.Name
	}
	cw.Write(rec)
	for _, row := range rows {
		for i := range sch {
			s, _, err := cell(ctx, sch[i], row[i])
			if err != nil {
				return err
			}
			rec[i] = s
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// printJSON prints {"rows": [{"column": value, ...}, ...]} on one line,
// as Dolt does: numbers as JSON numbers, JSON columns as JSON, NULL as
// null, everything else as strings.
func printJSON(w io.Writer, ctx *sql.Context, sch sql.Schema, rows []sql.Row) error {
	var b strings.Builder
	b.WriteString(`{"rows": [`)
	for r, row := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{")
		for i, c := range sch {
			if i > 0 {
				b.WriteString(", ")
			}
			k, _ := json.Marshal(c.Name)
			b.Write(k)
			b.WriteString(": ")
			s, null, err := cell(ctx, c, row[i])
			switch {
			case err != nil:
				return err
			case null:
				b.WriteString("null")
			case types.IsNumber(c.Type) && isJSONNumber(s):
				b.WriteString(s)
			case types.IsJSON(c.Type) && json.Valid([]byte(s)):
				b.WriteString(s)
			default:
				v, _ := json.Marshal(s)
				b.Write(v)
			}
		}
		b.WriteString("}")
	}
	b.WriteString("]}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func isJSONNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "InfinityNaN")
}
