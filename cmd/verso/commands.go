package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/schollz/progressbar/v3"
)

// Dolt's everyday commands that are SQL underneath (sqlcmds.go): each is
// a query or a procedure call over the local database.

// runLs lists the tables, at a revision or of the working set.
func runLs(c cliContext, args []string) int {
	fs := newFlags("ls", c)
	verbose := fs.BoolP("verbose", "v", false, "also print each table's row count")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	return withEngine(c, "ls", false, "SHOW TABLES", func(s *engineSession) error {
		q := "SHOW TABLES"
		if len(pos) == 1 {
			q += " AS OF " + sqlString(pos[0])
		}
		_, rows, err := s.rows(q)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			fmt.Fprintln(c.stdout, "No tables")
			return nil
		}
		for _, r := range rows {
			name := fmt.Sprint(r[0])
			if !*verbose {
				fmt.Fprintln(c.stdout, name)
				continue
			}
			cq := "SELECT COUNT(*) FROM " + sqlName(name)
			if len(pos) == 1 {
				cq += " AS OF " + sqlString(pos[0])
			}
			_, n, err := s.rows(cq)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%-30s %v rows\n", name, n[0][0])
		}
		return nil
	})
}

// runShow prints a commit and its changes against its first parent.
func runShow(c cliContext, args []string) int {
	fs := newFlags("show", c)
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	rev := "HEAD"
	if len(pos) == 1 {
		rev = pos[0]
	}
	if code := runLog(c.dir, []string{"-n", "1", rev}, c.stdout, c.stderr); code != 0 {
		return code
	}
	fmt.Fprintln(c.stdout)
	// The first commit has no parent: nothing to compare with.
	var parents int
	if code := withEngine(c, "show", false, "", func(s *engineSession) error {
		_, rows, err := s.rows("SELECT COUNT(*) FROM dolt_commit_ancestors WHERE commit_hash = DOLT_HASHOF(" + sqlString(rev) + ") AND parent_hash IS NOT NULL AND parent_hash <> ''")
		if err == nil && len(rows) == 1 {
			parents, _ = strconv.Atoi(fmt.Sprint(rows[0][0]))
		}
		return err
	}); code != 0 {
		return code
	}
	if parents == 0 {
		return 0
	}
	return runDiff(c.dir, []string{rev + "~1", rev}, c.stdout, c.stderr)
}

// runMergeBase prints the merge base of two revisions.
func runMergeBase(c cliContext, args []string) int {
	fs := newFlags("merge-base", c)
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(c.stderr, "verso merge-base: give two revisions (verso merge-base --help)")
		return 2
	}
	return withEngine(c, "merge-base", false, "", func(s *engineSession) error {
		_, rows, err := s.rows("SELECT DOLT_MERGE_BASE(" + sqlString(pos[0]) + ", " + sqlString(pos[1]) + ")")
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0][0] == nil {
			return fmt.Errorf("%s and %s have no common ancestor", pos[0], pos[1])
		}
		fmt.Fprintln(c.stdout, rows[0][0])
		return nil
	})
}

// procCommand is a command that calls the procedure proc with its
// arguments as given and prints the procedure's result.
func procCommand(name, proc string) func(cliContext, []string) int {
	return func(c cliContext, args []string) int {
		for _, a := range args {
			if a == "--help" || a == "-h" {
				printUsage(c.stdout, name, nil)
				return 0
			}
		}
		call := procedureCall(proc, args)
		if code, ok := throughServer(c, name, call); ok {
			return code
		}
		return withEngine(c, name, true, call, func(s *engineSession) error {
			return s.runQueries(c, "table", call)
		})
	}
}

// subcommandUsage answers a command of subcommands given none (its usage
// on stdout, exit 2) or --help (exit 0); done is false otherwise.
func subcommandUsage(c cliContext, name string, args []string) (code int, done bool) {
	if len(args) > 0 && args[0] != "--help" && args[0] != "-h" {
		return 0, false
	}
	printUsage(c.stdout, name, nil)
	if len(args) == 0 {
		return 2, true
	}
	return 0, true
}

// runConflicts shows or resolves a merge's conflicts.
func runConflicts(c cliContext, args []string) int {
	if code, done := subcommandUsage(c, "conflicts", args); done {
		return code
	}
	switch args[0] {
	case "cat":
		if len(args) < 2 {
			fmt.Fprintln(c.stderr, "verso conflicts cat: give the tables (verso conflicts --help)")
			return 2
		}
		return withEngine(c, "conflicts cat", false, "", func(s *engineSession) error {
			for _, t := range args[1:] {
				fmt.Fprintf(c.stdout, "%s:\n", t)
				if err := s.runQueries(c, "table", "SELECT * FROM "+sqlName("dolt_conflicts_"+t)); err != nil {
					return err
				}
			}
			return nil
		})
	case "resolve":
		return procCommand("conflicts", "dolt_conflicts_resolve")(c, args[1:])
	}
	fmt.Fprintf(c.stderr, "verso conflicts: %q is not cat or resolve (verso conflicts --help)\n", args[0])
	return 2
}

// runSchema shows or exports tables' CREATE TABLE statements.
func runSchema(c cliContext, args []string) int {
	if code, done := subcommandUsage(c, "schema", args); done {
		return code
	}
	sub, args := args[0], args[1:]
	if sub == "import" {
		return runSchemaImport(c, args)
	}
	if sub != "show" && sub != "export" {
		fmt.Fprintf(c.stderr, "verso schema: %q is not show, export or import (verso schema --help)\n", sub)
		return 2
	}
	return withEngine(c, "schema "+sub, false, "", func(s *engineSession) error {
		tables := args
		out := c.stdout
		if sub == "export" {
			// schema export [table] [file]
			tables = nil
			if len(args) > 0 {
				tables = args[:1]
			}
			if len(args) > 1 {
				f, err := os.Create(joinDir(c.dir, args[1]))
				if err != nil {
					return err
				}
				defer f.Close()
				out = f
			}
			if len(args) > 2 {
				return errors.New("give at most a table and a file")
			}
		}
		if len(tables) == 0 {
			_, rows, err := s.rows("SHOW TABLES")
			if err != nil {
				return err
			}
			for _, r := range rows {
				tables = append(tables, fmt.Sprint(r[0]))
			}
		}
		for _, t := range tables {
			_, rows, err := s.rows("SHOW CREATE TABLE " + sqlName(t))
			if err != nil {
				return err
			}
			if sub == "show" {
				fmt.Fprintf(out, "%s @ working\n%s;\n\n", t, rows[0][1])
			} else {
				fmt.Fprintf(out, "%s;\n\n", rows[0][1])
			}
		}
		return nil
	})
}

// runTable imports or exports a table's rows.
func runTable(c cliContext, args []string) int {
	if code, done := subcommandUsage(c, "table", args); done {
		return code
	}
	switch args[0] {
	case "export":
		return runTableExport(c, args[1:])
	case "import":
		return runTableImport(c, args[1:])
	}
	fmt.Fprintf(c.stderr, "verso table: %q is not import or export (verso table --help)\n", args[0])
	return 2
}

// formatOf is the file format of path by its extension (csv, json or
// sql), or the explicit one.
func formatOf(path, explicit string) (string, error) {
	f := explicit
	if f == "" {
		f = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	}
	switch f {
	case "csv", "json", "sql":
		return f, nil
	}
	return "", fmt.Errorf("cannot tell the format of %q: give --file-type csv, json or sql", path)
}

// progress returns a progress bar of total items (unit: rows, chunks) on
// stderr, with counts and rate, when stderr is a terminal; else nil.
func progress(stderr io.Writer, total int64, what, unit string) *progressbar.ProgressBar {
	if !isTerminal(stderr) {
		return nil
	}
	return progressbar.NewOptions64(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit),
		progressbar.OptionThrottle(100e6), progressbar.OptionClearOnFinish())
}

func runTableExport(c cliContext, args []string) int {
	fs := newFlags("table", c)
	fileType := fs.String("file-type", "", "csv, json or sql (default: by the file's extension)")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(c.stderr, "verso table export: give the table and the file (- for stdout) (verso table --help)")
		return 2
	}
	table, path := pos[0], pos[1]
	format, err := formatOf(path, *fileType)
	if err != nil && path != "-" {
		fmt.Fprintf(c.stderr, "verso table export: %v\n", err)
		return 2
	}
	if path == "-" && format == "" {
		format = "csv"
	}
	return withEngine(c, "table export", false, "", func(s *engineSession) error {
		out := c.stdout
		if path != "-" {
			f, err := os.Create(joinDir(c.dir, path))
			if err != nil {
				return err
			}
			defer f.Close()
			out = f
		}
		_, n, err := s.rows("SELECT COUNT(*) FROM " + sqlName(table))
		if err != nil {
			return err
		}
		total, _ := strconv.ParseInt(fmt.Sprint(n[0][0]), 10, 64)
		bar := progress(c.stderr, total, "exporting "+table, "rows")
		w := bufio.NewWriter(out)
		if err := exportRows(s, w, table, format, bar); err != nil {
			return err
		}
		if bar != nil {
			bar.Finish()
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "exported %d rows of %s\n", total, table)
		return nil
	})
}

// exportRows writes the rows of table to w in format: CSV with a header,
// JSON as verso sql -r json writes, or SQL INSERT statements.
func exportRows(s *engineSession, w io.Writer, table, format string, bar *progressbar.ProgressBar) error {
	sch, iter, _, err := s.e.Query(s.ctx, "SELECT * FROM "+sqlName(table))
	if err != nil {
		return err
	}
	defer iter.Close(s.ctx)
	next := func() (sql.Row, error) {
		row, err := iter.Next(s.ctx)
		if err == nil && bar != nil {
			bar.Add(1)
		}
		return row, err
	}
	r := s.runner(format, w, io.Discard)
	r.hexBinary = true
	if format == "sql" {
		return writeInserts(s, w, table, sch, next)
	}
	return r.print(format, sch, next)
}

// insertBatch is how many rows one INSERT of an export or dump holds.
const insertBatch = 500

// writeInserts writes the rows of next as INSERT statements of
// insertBatch rows.
func writeInserts(s *engineSession, w io.Writer, table string, sch sql.Schema, next func() (sql.Row, error)) error {
	names := make([]string, len(sch))
	for i, c := range sch {
		names[i] = sqlName(c.Name)
	}
	head := "INSERT INTO " + sqlName(table) + " (" + strings.Join(names, ", ") + ") VALUES\n"
	n := 0
	for {
		row, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if n%insertBatch == 0 {
			if n > 0 {
				io.WriteString(w, ";\n")
			}
			io.WriteString(w, head)
		} else {
			io.WriteString(w, ",\n")
		}
		vals := make([]string, len(sch))
		for i, c := range sch {
			vals[i] = sqlLiteral(s, c, row[i])
		}
		io.WriteString(w, "("+strings.Join(vals, ", ")+")")
		n++
	}
	if n > 0 {
		io.WriteString(w, ";\n")
	}
	return nil
}

// sqlLiteral writes v of column c as a SQL literal: NULL, a number as it
// is, bytes in hex, anything else as a string.
func sqlLiteral(s *engineSession, c *sql.Column, v any) string {
	if v == nil {
		return "NULL"
	}
	t, null, err := cell(s.ctx, c, v)
	switch {
	case err != nil || null:
		return "NULL"
	case types.IsNumber(c.Type):
		return t
	}
	if b, ok := v.([]byte); ok {
		return fmt.Sprintf("X'%X'", b)
	}
	return sqlString(t)
}

func runTableImport(c cliContext, args []string) int {
	fs := newFlags("table", c)
	create := fs.BoolP("create-table", "c", false, "make the table, with columns from the file (--pk names the primary key)")
	update := fs.BoolP("update-table", "u", false, "insert the file's rows into the table, replacing rows with the same key")
	replace := fs.BoolP("replace-table", "r", false, "replace the table's rows with the file's")
	pk := fs.String("pk", "", "the primary key's columns, comma-separated (with -c)")
	fileType := fs.String("file-type", "", "csv or json (default: by the file's extension)")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	modes := 0
	for _, m := range []bool{*create, *update, *replace} {
		if m {
			modes++
		}
	}
	if len(pos) != 2 || modes != 1 || *create && *pk == "" {
		fmt.Fprintln(c.stderr, "verso table import: give one of -c (with --pk), -u or -r, then the table and the file (verso table --help)")
		return 2
	}
	table, path := pos[0], pos[1]
	format, err := formatOf(path, *fileType)
	if err == nil && format == "sql" {
		err = errors.New("import reads csv or json; run a .sql file with verso sql < file")
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "verso table import: %v\n", err)
		return 2
	}
	f, err := os.Open(joinDir(c.dir, path))
	if err != nil {
		fmt.Fprintf(c.stderr, "verso table import: %v\n", err)
		return 1
	}
	defer f.Close()
	cols, rows, err := readRows(f, format)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso table import: %s: %v\n", path, err)
		return 1
	}
	return withEngine(c, "table import", true, "LOAD DATA or INSERT", func(s *engineSession) error {
		var stmts []string
		switch {
		case *create:
			stmts = append(stmts, createTableFor(table, cols, rows, strings.Split(*pk, ",")))
		case *replace:
			stmts = append(stmts, "DELETE FROM "+sqlName(table))
		}
		stmts = append(stmts, "START TRANSACTION")
		for _, q := range stmts {
			if _, _, err := s.rows(q); err != nil {
				return err
			}
		}
		// Binary columns take the 0x... hex that exports write.
		binary := map[string]bool{}
		if _, crows, err := s.rows("SHOW COLUMNS FROM " + sqlName(table)); err == nil {
			for _, r := range crows {
				t := strings.ToLower(fmt.Sprint(r[1]))
				binary[strings.ToLower(fmt.Sprint(r[0]))] = strings.Contains(t, "blob") || strings.Contains(t, "binary")
			}
		}
		bar := progress(c.stderr, int64(len(rows)), "importing "+table, "rows")
		names := make([]string, len(cols))
		for i, n := range cols {
			names[i] = sqlName(n)
		}
		verb := "INSERT INTO "
		if *update {
			verb = "REPLACE INTO "
		}
		for start := 0; start < len(rows); start += insertBatch {
			end := min(start+insertBatch, len(rows))
			var b strings.Builder
			b.WriteString(verb + sqlName(table) + " (" + strings.Join(names, ", ") + ") VALUES ")
			for i, r := range rows[start:end] {
				if i > 0 {
					b.WriteString(", ")
				}
				vals := make([]string, len(r))
				for j, v := range r {
					switch {
					case v == nil:
						vals[j] = "NULL"
					case binary[strings.ToLower(cols[j])] && isHexLiteral(*v):
						vals[j] = "X'" + (*v)[2:] + "'"
					default:
						vals[j] = sqlString(*v)
					}
				}
				b.WriteString("(" + strings.Join(vals, ", ") + ")")
			}
			if _, _, err := s.rows(b.String()); err != nil {
				s.rows("ROLLBACK")
				return fmt.Errorf("rows %d to %d of %s: %w", start+1, end, path, err)
			}
			if bar != nil {
				bar.Add(end - start)
			}
		}
		if _, _, err := s.rows("COMMIT"); err != nil {
			return err
		}
		if bar != nil {
			bar.Finish()
		}
		fmt.Fprintf(c.stderr, "imported %d rows into %s\n", len(rows), table)
		return nil
	})
}

// isHexLiteral reports whether s is 0x and an even number of hex digits.
func isHexLiteral(s string) bool {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len(s)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

// readRows reads a CSV file with a header line, or a JSON file of an
// array of objects (or {"rows": [...]}, as exports write); a nil value is
// NULL (JSON null; in CSV an empty field, as Dolt reads it).
func readRows(r io.Reader, format string) (cols []string, rows [][]*string, err error) {
	if format == "csv" {
		cr := csv.NewReader(bufio.NewReader(r))
		cols, err = cr.Read()
		if err != nil {
			return nil, nil, fmt.Errorf("reading the header line: %w", err)
		}
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				return cols, rows, nil
			}
			if err != nil {
				return nil, nil, err
			}
			// An empty field is NULL, as Dolt reads CSV.
			row := make([]*string, len(rec))
			for i := range rec {
				if rec[i] != "" {
					row[i] = &rec[i]
				}
			}
			rows = append(rows, row)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var objs []map[string]any
	if err := json.Unmarshal(b, &objs); err != nil {
		var wrapped struct {
			Rows []map[string]any `json:"rows"`
		}
		if werr := json.Unmarshal(b, &wrapped); werr != nil {
			return nil, nil, fmt.Errorf("not a JSON array of objects, nor {\"rows\": [...]}: %v", err)
		}
		objs = wrapped.Rows
	}
	seen := map[string]bool{}
	for _, o := range objs {
		for k := range o {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	for _, o := range objs {
		row := make([]*string, len(cols))
		for i, k := range cols {
			switch v := o[k].(type) {
			case nil:
			case string:
				row[i] = &v
			default:
				t, _ := json.Marshal(v)
				s := string(t)
				row[i] = &s
			}
		}
		rows = append(rows, row)
	}
	return cols, rows, nil
}

// createTableFor returns a CREATE TABLE for the columns of an import:
// each column BIGINT if all its values are integers, DOUBLE if numbers,
// else TEXT (VARCHAR(255) in the primary key).
func createTableFor(table string, cols []string, rows [][]*string, pk []string) string {
	inPK := map[string]bool{}
	for _, k := range pk {
		inPK[strings.TrimSpace(k)] = true
	}
	defs := make([]string, len(cols))
	for i, c := range cols {
		isInt, isNum := true, true
		for _, r := range rows {
			if r[i] == nil || *r[i] == "" {
				continue
			}
			if _, err := strconv.ParseInt(*r[i], 10, 64); err != nil {
				isInt = false
			}
			if _, err := strconv.ParseFloat(*r[i], 64); err != nil {
				isNum = false
			}
		}
		typ := "TEXT"
		switch {
		case isInt:
			typ = "BIGINT"
		case isNum:
			typ = "DOUBLE"
		case inPK[c]:
			typ = "VARCHAR(255)"
		}
		defs[i] = sqlName(c) + " " + typ
		if inPK[c] {
			defs[i] += " NOT NULL"
		}
	}
	keys := make([]string, 0, len(pk))
	for _, k := range pk {
		keys = append(keys, sqlName(strings.TrimSpace(k)))
	}
	return "CREATE TABLE " + sqlName(table) + " (" + strings.Join(defs, ", ") + ", PRIMARY KEY (" + strings.Join(keys, ", ") + "))"
}

// runDump writes every table: a SQL script that makes them again, or a
// CSV or JSON file of each.
func runDump(c cliContext, args []string) int {
	fs := newFlags("dump", c)
	format := fs.StringP("result-format", "r", "sql", "sql, csv or json")
	file := fs.String("file", "", "the SQL file (default: doltdump.sql; - for stdout)")
	dirFlag := fs.String("directory", "", "the folder of the CSV or JSON files (default: doltdump)")
	force := fs.BoolP("force", "f", false, "overwrite an existing file")
	if _, code, ok := parseFlags(fs, args, 0); !ok {
		return code
	}
	if *format != "sql" && *format != "csv" && *format != "json" {
		fmt.Fprintf(c.stderr, "verso dump: -r is %q; give sql, csv or json\n", *format)
		return 2
	}
	return withEngine(c, "dump", false, "", func(s *engineSession) error {
		_, trows, err := s.rows("SHOW FULL TABLES")
		if err != nil {
			return err
		}
		var tables, views []string
		for _, r := range trows {
			switch fmt.Sprint(r[1]) {
			case "BASE TABLE":
				tables = append(tables, fmt.Sprint(r[0]))
			case "VIEW":
				views = append(views, fmt.Sprint(r[0]))
			}
		}
		var total int64
		for _, t := range tables {
			_, n, err := s.rows("SELECT COUNT(*) FROM " + sqlName(t))
			if err != nil {
				return err
			}
			k, _ := strconv.ParseInt(fmt.Sprint(n[0][0]), 10, 64)
			total += k
		}
		bar := progress(c.stderr, total, "dumping", "rows")
		defer func() {
			if bar != nil {
				bar.Finish()
			}
		}()
		if *format != "sql" {
			dir := joinDir(c.dir, cmp.Or(*dirFlag, "doltdump"))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, t := range tables {
				path := filepath.Join(dir, t+"."+*format)
				if err := createFile(path, *force, func(w io.Writer) error { return exportRows(s, w, t, *format, bar) }); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.stderr, "dumped %d tables into %s\n", len(tables), dir)
			return nil
		}
		write := func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			fmt.Fprintf(bw, "-- verso dump of %s\nSET FOREIGN_KEY_CHECKS=0;\nSET UNIQUE_CHECKS=0;\n\n", s.ctx.GetCurrentDatabase())
			for _, t := range tables {
				_, rows, err := s.rows("SHOW CREATE TABLE " + sqlName(t))
				if err != nil {
					return err
				}
				fmt.Fprintf(bw, "DROP TABLE IF EXISTS %s;\n%s;\n", sqlName(t), rows[0][1])
				if err := exportRows(s, bw, t, "sql", bar); err != nil {
					return err
				}
				bw.WriteString("\n")
			}
			if err := dumpObjects(s, bw, views); err != nil {
				return err
			}
			bw.WriteString("SET FOREIGN_KEY_CHECKS=1;\nSET UNIQUE_CHECKS=1;\n")
			return bw.Flush()
		}
		path := cmp.Or(*file, "doltdump.sql")
		if path == "-" {
			return write(c.stdout)
		}
		path = joinDir(c.dir, path)
		if err := createFile(path, *force, write); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "dumped %d tables into %s\n", len(tables), path)
		return nil
	})
}

// dumpObjects writes the views, triggers and stored procedures of the
// database, the bodies between DELIMITER ;; lines as mysqldump writes
// them.
func dumpObjects(s *engineSession, w io.Writer, views []string) error {
	for _, v := range views {
		_, rows, err := s.rows("SHOW CREATE VIEW " + sqlName(v))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s;\n\n", rows[0][1])
	}
	// From the database itself: information_schema and SHOW PROCEDURE
	// STATUS list only what the session's privileges cover, and this
	// session has none to show (it has no accounts).
	d, err := s.p.Database(s.ctx, s.ctx.GetCurrentDatabase())
	if err != nil {
		return err
	}
	var bodies []string
	if tdb, ok := d.(sql.TriggerDatabase); ok {
		trigs, err := tdb.GetTriggers(s.ctx)
		if err != nil {
			return err
		}
		for _, tr := range trigs {
			bodies = append(bodies, tr.CreateStatement)
		}
	}
	if pdb, ok := d.(sql.StoredProcedureDatabase); ok {
		procs, err := pdb.GetStoredProcedures(s.ctx)
		if err != nil {
			return err
		}
		for _, p := range procs {
			bodies = append(bodies, p.CreateStatement)
		}
	}
	if len(bodies) > 0 {
		fmt.Fprintf(w, "DELIMITER ;;\n%s;;\nDELIMITER ;\n\n", strings.Join(bodies, ";;\n"))
	}
	return nil
}

// createFile writes path with write, refusing to overwrite a file unless
// force.
func createFile(path string, force bool, write func(io.Writer) error) error {
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if !force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists; give --force to overwrite it", path)
	}
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runRm drops tables from the working set and stages the removal.
func runRm(c cliContext, args []string) int {
	fs := newFlags("rm", c)
	pos, code, ok := parseFlags(fs, args, -1)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(c.stderr, "verso rm: give the tables to remove (verso rm --help)")
		return 2
	}
	return withEngine(c, "rm", true, "DROP TABLE and CALL dolt_add", func(s *engineSession) error {
		for _, t := range pos {
			if _, _, err := s.rows("DROP TABLE " + sqlName(t)); err != nil {
				return err
			}
			// Stage the removal; a table never staged has none to stage.
			if _, _, err := s.rows("CALL dolt_add(" + sqlString(t) + ")"); err != nil && !strings.Contains(err.Error(), "no table") {
				return err
			}
		}
		return nil
	})
}

// runClean drops the tables that are untracked: new in the working set,
// neither staged nor committed (as dolt clean does).
func runClean(c cliContext, args []string) int {
	fs := newFlags("clean", c)
	dry := fs.BoolP("dry-run", "n", false, "print the tables that would be dropped, and drop none")
	pos, code, ok := parseFlags(fs, args, -1)
	if !ok {
		return code
	}
	return withEngine(c, "clean", !*dry, "DROP TABLE", func(s *engineSession) error {
		_, rows, err := s.rows("SELECT DISTINCT table_name FROM dolt_status WHERE status = 'new table' AND staged = 0 " +
			"AND table_name NOT IN (SELECT table_name FROM dolt_status WHERE staged = 1)")
		if err != nil {
			return err
		}
		only := map[string]bool{}
		for _, t := range pos {
			only[strings.ToLower(t)] = true
		}
		for _, r := range rows {
			t := fmt.Sprint(r[0])
			if len(only) > 0 && !only[strings.ToLower(t)] {
				continue
			}
			if *dry {
				fmt.Fprintf(c.stdout, "would drop %s\n", t)
				continue
			}
			if _, _, err := s.rows("DROP TABLE " + sqlName(t)); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "dropped %s\n", t)
		}
		return nil
	})
}

// runSchemaImport makes a table whose columns suit a CSV or JSON file
// (createTableFor), without its rows; --dry-run prints the statement.
func runSchemaImport(c cliContext, args []string) int {
	fs := newFlags("schema", c)
	create := fs.BoolP("create", "c", false, "make the table (the only mode)")
	pks := fs.String("pks", "", "the primary key's columns, comma-separated")
	dry := fs.Bool("dry-run", false, "print the CREATE TABLE statement, and make nothing")
	fileType := fs.String("file-type", "", "csv or json (default: by the file's extension)")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	if len(pos) != 2 || !*create || *pks == "" {
		fmt.Fprintln(c.stderr, "verso schema import: give --create and --pks, then the table and the file (verso schema --help)")
		return 2
	}
	format, err := formatOf(pos[1], *fileType)
	if err == nil && format == "sql" {
		err = errors.New("schema import reads csv or json")
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "verso schema import: %v\n", err)
		return 2
	}
	f, err := os.Open(joinDir(c.dir, pos[1]))
	if err != nil {
		fmt.Fprintf(c.stderr, "verso schema import: %v\n", err)
		return 1
	}
	defer f.Close()
	cols, rows, err := readRows(f, format)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso schema import: %s: %v\n", pos[1], err)
		return 1
	}
	stmt := createTableFor(pos[0], cols, rows, strings.Split(*pks, ","))
	if *dry {
		fmt.Fprintln(c.stdout, stmt+";")
		return 0
	}
	return withEngine(c, "schema import", true, stmt, func(s *engineSession) error {
		_, _, err := s.rows(stmt)
		return err
	})
}
