package main

import (
	"bufio"
	gosql "database/sql"
	"encoding/csv"
	"encoding/hex"
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

	"github.com/verso-db/verso/sqlserver"
)

// How verso sql runs a script or the lines of its shell.
//
// Statements end with the delimiter (";", or what DELIMITER set, as in
// the mysql client: DELIMITER // lets a CREATE PROCEDURE hold ";"), or
// with \G, which prints that statement's rows vertically. With ";", the
// SQL parser finds where a statement ends, so a BEGIN ... END body may
// hold ";" without DELIMITER too. Results stream: CSV, JSON and vertical
// output print each row as it comes; a table prints once its first
// tableRows rows have given the columns' widths, and the rows after
// stream with those widths (a longer value widens only its own line).
// A result goes through the pager when the shell has one and the
// result is longer than the screen.

// tableRows is how many rows a table reads before it prints.
const tableRows = 1000

// sqlRunner runs statements in one session of verso sql.
type sqlRunner struct {
	ctx      *sql.Context
	e        *sqle.Engine
	format   string // table, csv or json
	out      *bufio.Writer
	stderr   io.Writer
	readOnly bool   // the databases were opened read-only (heldMessage)
	delim    string // the statement delimiter
	// interactive is set in the shell: errors print without "at line",
	// and the shell goes on after one.
	interactive bool
	// silent leaves errors to the caller (runText returns them).
	silent bool
	// hexBinary writes binary values (BLOB, BINARY, VARBINARY) as 0x and
	// their hex digits, as exports do, so CSV and JSON files keep them.
	hexBinary bool
	// remote, when set, is a connection to the server that holds the
	// database: statements run there (sqlremote.go); the local engine
	// only parses them.
	remote *gosql.Conn
	// pager, when set, returns a writer for a result longer than the
	// screen, and its end; nil pager or a nil writer means none.
	pager func(lines int) (io.Writer, func())
}

// errExit is returned by runText when the text asked to leave the shell.
var errExit = errors.New("exit")

// runText runs the statements of text, which begins at line line of its
// script. It returns the first error (after printing it) unless the
// runner is interactive, and errExit after exit or quit.
func (r *sqlRunner) runText(text string, line int) error {
	text = sqlserver.PlainMariaDBComments(text)
	parser := sql.NewMysqlParser()
	off := 0
	// at is the line of offset counted (counted on as the text is read,
	// so a long script is not counted again per statement).
	at, counted := line, 0
	for {
		off = skipSpaceAndComments(text, off, r.delim)
		if off >= len(text) {
			return nil
		}
		at += strings.Count(text[counted:off], "\n")
		counted = off
		rest := text[off:]
		if cmd, arg, n, ok := clientCommand(rest); ok {
			switch cmd {
			case "delimiter":
				if arg == "" || strings.ContainsAny(arg, "\\") {
					r.fail(at, fmt.Errorf("DELIMITER needs a delimiter that has no backslash, as in DELIMITER //"), rest[:n])
					if !r.interactive {
						return errUsage
					}
				} else {
					r.delim = arg
				}
			case "exit", "quit":
				return errExit
			}
			off += n
			continue
		}
		end, termLen, vertical := scanTerminator(rest, r.delim)
		var stmt ast.Statement
		var query string
		var err error
		if r.delim == ";" && !vertical {
			// The parser finds the statement's end (a BEGIN ... END
			// body holds ";").
			var remainder string
			stmt, query, remainder, err = parser.ParseWithOptions(r.ctx, rest, ';', true, sql.LoadSqlMode(r.ctx).ParserOptions())
			if err == nil && stmt != nil {
				if d, ok := stmt.(*ast.DDL); ok && d.SubStatementPositionEnd > len(query) {
					// A statement with a body: the parser placed its
					// end by the rest of the text; parsed alone, its
					// positions are the statement's.
					stmt, err = ast.ParseWithOptions(r.ctx, query, sql.LoadSqlMode(r.ctx).ParserOptions())
				}
			}
			if err != nil {
				q, _, _ := strings.Cut(rest, ";")
				r.fail(at, err, q)
				if !r.interactive {
					return err
				}
				off += len(q) + 1
				continue
			}
			if stmt == nil {
				return nil
			}
			if remainder == "" {
				off = len(text)
			} else {
				// What the parser took is a prefix of rest, up to its
				// trimmed right end.
				off += len(strings.TrimRightFunc(rest, func(c rune) bool { return c == ';' || unicode.IsSpace(c) })) - len(remainder)
			}
		} else {
			query = strings.TrimSpace(rest[:end])
			off += end + termLen
			if query == "" {
				continue
			}
			stmt, err = ast.ParseWithOptions(r.ctx, query, sql.LoadSqlMode(r.ctx).ParserOptions())
			if err != nil {
				r.fail(at, err, query)
				if !r.interactive {
					return err
				}
				continue
			}
		}
		if err := r.runStatement(query, stmt, vertical); err != nil {
			r.fail(at, err, query)
			if !r.interactive {
				return err
			}
		}
	}
}

// errUsage is a client command misused (its error is printed).
var errUsage = errors.New("usage")

// fail prints a statement's error as the mysql client does.
func (r *sqlRunner) fail(line int, err error, stmt string) {
	if r.silent {
		return
	}
	r.out.Flush()
	se := mysqlClientError(err, stmt)
	if r.readOnly && sqlserver.IsReadOnlyError(err) {
		se = mysql.NewSQLError(mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState, "%s", heldMessage)
	}
	if r.interactive {
		fmt.Fprintf(r.stderr, "ERROR %d (%s): %s\n", se.Num, se.State, se.Message)
	} else {
		fmt.Fprintf(r.stderr, "ERROR %d (%s) at line %d: %s\n", se.Num, se.State, line, se.Message)
	}
}

// runStatement runs one statement and prints its result; a panic of the
// engine is an error, as the server makes it, not a crash of verso sql.
func (r *sqlRunner) runStatement(query string, stmt ast.Statement, vertical bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error running the statement: %v", p)
		}
	}()
	if r.remote != nil {
		return r.runRemote(query, stmt, vertical)
	}
	var sess *sqlserver.Session
	if _, isCall := stmt.(*ast.Call); isCall {
		// Every result set of a stored procedure, as the server sends
		// them (sqlserver.CallResult).
		if sess, _ = r.ctx.Session.(*sqlserver.Session); sess != nil {
			sess.CaptureCallResults()
			defer sess.TakeCallResults()
		}
	}
	sch, iter, _, err := r.e.QueryWithBindings(r.ctx, query, stmt, nil, nil)
	if err != nil {
		return err
	}
	defer iter.Close(r.ctx)
	if sets := sess.TakeCallResults(); len(sets) > 0 {
		if err := drain(func() (sql.Row, error) { return iter.Next(r.ctx) }); err != nil {
			return err
		}
		for _, set := range sets {
			rows := sql.RowsToRowIter(set.Rows...)
			if err := r.print(r.formatFor(vertical), set.Schema, func() (sql.Row, error) { return rows.Next(r.ctx) }); err != nil {
				return err
			}
		}
		return nil
	}
	next := func() (sql.Row, error) { return iter.Next(r.ctx) }
	switch {
	case types.IsOkResultSchema(sch):
		row, err := next()
		if err != nil && err != io.EOF {
			return err
		}
		if r.format == "table" || vertical {
			if ok, isOK := okResult(row); isOK {
				fmt.Fprintf(r.out, "Query OK, %d %s affected\n", ok.RowsAffected, plural(ok.RowsAffected, "row", "rows"))
			}
		}
		return drain(next)
	case len(sch) == 0:
		return drain(next) // USE and the like
	}
	return r.print(r.formatFor(vertical), sch, next)
}

// formatFor is the output format of a statement, vertical when it ended
// with \G.
func (r *sqlRunner) formatFor(vertical bool) string {
	if vertical {
		return "vertical"
	}
	return r.format
}

func okResult(row sql.Row) (types.OkResult, bool) {
	if len(row) == 1 {
		ok, isOK := row[0].(types.OkResult)
		return ok, isOK
	}
	return types.OkResult{}, false
}

// drain reads the rest of a result.
func drain(next func() (sql.Row, error)) error {
	for {
		if _, err := next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// print prints a result set in format, streaming it.
func (r *sqlRunner) print(format string, sch sql.Schema, next func() (sql.Row, error)) error {
	cells := func(row sql.Row) ([]string, []bool, error) {
		vals, nulls := make([]string, len(sch)), make([]bool, len(sch))
		for i := range sch {
			if b, ok := row[i].([]byte); ok && r.hexBinary && types.IsBinaryType(sch[i].Type) {
				vals[i] = "0x" + strings.ToUpper(hex.EncodeToString(b))
				continue
			}
			s, null, err := cell(r.ctx, sch[i], row[i])
			if err != nil {
				return nil, nil, err
			}
			vals[i], nulls[i] = s, null
		}
		return vals, nulls, nil
	}
	// read returns the next row's cells; done after the last.
	done := false
	read := func() (vals []string, nulls []bool, err error) {
		row, err := next()
		if err == io.EOF {
			done = true
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		return cells(row)
	}
	// The first rows: a table's widths, and whether the pager is
	// wanted.
	var first [][]string
	var firstNulls [][]bool
	for len(first) < tableRows {
		v, n, err := read()
		if err != nil {
			return err
		}
		if done {
			break
		}
		first, firstNulls = append(first, v), append(firstNulls, n)
	}
	w := io.Writer(r.out)
	if r.pager != nil {
		lines := len(first) + 4
		if format == "vertical" {
			lines = len(first) * (len(sch) + 1)
		}
		if !done {
			lines = 1 << 30
		}
		if pw, end := r.pager(lines); pw != nil {
			r.out.Flush()
			w = pw
			defer end()
		}
	}
	rest := func(each func([]string, []bool) error) error {
		for i := range first {
			if err := each(first[i], firstNulls[i]); err != nil {
				return err
			}
		}
		for !done {
			v, n, err := read()
			if err != nil {
				return err
			}
			if done {
				break
			}
			if err := each(v, n); err != nil {
				return err
			}
		}
		return nil
	}
	switch format {
	case "table":
		return printTable(w, sch, first, firstNulls, rest)
	case "vertical":
		return printVertical(w, sch, rest)
	case "csv":
		return printCSV(w, sch, rest)
	default:
		return printJSON(w, sch, rest)
	}
}

// printTable prints rows as the mysql client's --table output, numbers
// right-aligned; the columns are as wide as the first rows need.
func printTable(w io.Writer, sch sql.Schema, first [][]string, nulls [][]bool, rows func(func([]string, []bool) error) error) error {
	widths := make([]int, len(sch))
	for i, c := range sch {
		widths[i] = utf8.RuneCountInString(c.Name)
	}
	for r := range first {
		for i, s := range first[r] {
			if nulls[r][i] {
				s = "NULL"
			}
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
			pad := strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(v)))
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
	err := rows(func(vals []string, null []bool) error {
		for i := range vals {
			if null[i] {
				vals[i] = "NULL"
			}
		}
		line(vals, func(i int) bool { return types.IsNumber(sch[i].Type) })
		return nil
	})
	fmt.Fprintln(w, sep)
	return err
}

// printVertical prints each row as the mysql client's \G does: a header
// line, then one "name: value" line per column.
func printVertical(w io.Writer, sch sql.Schema, rows func(func([]string, []bool) error) error) error {
	width := 0
	for _, c := range sch {
		width = max(width, utf8.RuneCountInString(c.Name))
	}
	n := 0
	return rows(func(vals []string, null []bool) error {
		n++
		fmt.Fprintf(w, "*************************** %d. row ***************************\n", n)
		for i, c := range sch {
			v := vals[i]
			if null[i] {
				v = "NULL"
			}
			fmt.Fprintf(w, "%s%s: %s\n", strings.Repeat(" ", width-utf8.RuneCountInString(c.Name)), c.Name, v)
		}
		return nil
	})
}

// printCSV prints a header line and one line per row (RFC 4180); NULL is
// an empty field.
func printCSV(w io.Writer, sch sql.Schema, rows func(func([]string, []bool) error) error) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(sch))
	for i, c := range sch {
		rec[i] = c.Name
	}
	cw.Write(rec)
	err := rows(func(vals []string, _ []bool) error { return cw.Write(vals) })
	cw.Flush()
	return errors.Join(err, cw.Error())
}

// printJSON prints {"rows": [{"column": value, ...}, ...]} on one line,
// as Dolt does: numbers as JSON numbers, JSON columns as JSON, NULL as
// null, everything else as strings.
func printJSON(w io.Writer, sch sql.Schema, rows func(func([]string, []bool) error) error) error {
	io.WriteString(w, `{"rows": [`)
	n := 0
	err := rows(func(vals []string, null []bool) error {
		var b strings.Builder
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString("{")
		for i, c := range sch {
			if i > 0 {
				b.WriteString(", ")
			}
			k, _ := json.Marshal(c.Name)
			b.Write(k)
			b.WriteString(": ")
			s := vals[i]
			switch {
			case null[i]:
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
		_, err := io.WriteString(w, b.String())
		return err
	})
	io.WriteString(w, "]}\n")
	return err
}

func isJSONNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "InfinityNaN")
}

// clientCommand reports whether s begins with a command of the client
// rather than SQL: DELIMITER x, exit, quit or \q (any case), which end at
// the end of their line; n is the length of the command's text.
func clientCommand(s string) (cmd, arg string, n int, ok bool) {
	line, _, _ := strings.Cut(s, "\n")
	n = len(line)
	if n < len(s) {
		n++ // the line break
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", "", 0, false
	}
	switch w := strings.ToLower(strings.TrimRight(fields[0], ";")); {
	case w == "delimiter" && strings.EqualFold(fields[0], "delimiter"):
		if len(fields) > 1 {
			arg = fields[1]
		}
		return "delimiter", arg, n, true
	case (w == "exit" || w == "quit") && len(fields) == 1, fields[0] == `\q`:
		return "exit", "", n, true
	}
	return "", "", 0, false
}

// scanTerminator returns where the statement at the start of s ends: the
// offset of its delimiter (or of a \G), the delimiter's length, and
// whether it was \G; len(s), 0 when none is found. Delimiters inside
// strings, quoted names and comments do not count.
func scanTerminator(s, delim string) (end, termLen int, vertical bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = sqlserver.SkipQuoted(s, i)
		case c == '#' || c == '-' && strings.HasPrefix(s[i:], "-- "):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*") && !strings.HasPrefix(s[i:], "/*!"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				return len(s), 0, false
			}
		case strings.HasPrefix(s[i:], `\G`):
			return i, 2, true
		case strings.HasPrefix(s[i:], delim):
			return i, len(delim), false
		}
	}
	return len(s), 0, false
}

// skipSpaceAndComments returns the offset of the first byte of s from off
// on that is not a space, a statement delimiter or a comment (-- , # or
// /* */, but not MySQL's executable /*! */ comments).
func skipSpaceAndComments(s string, off int, delim string) int {
	for off < len(s) {
		switch {
		case strings.HasPrefix(s[off:], delim):
			off += len(delim)
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
