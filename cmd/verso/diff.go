package main

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/verso-db/verso"
)

// runDiff prints the rows added, removed and changed between two
// revisions, table by table:
//
//	verso diff                      HEAD against the working set
//	verso diff <from>               from against the working set
//	verso diff <from> <to>          from against to
//	verso [...] <table>             only that table
//
// A revision is what dolt_diff() takes: HEAD, WORKING, STAGED, a branch, a
// tag, a commit hash, with ~ and ^ steps (verso.Txn.RootOf). An argument
// that is no revision names a table. The rows come from the engine's
// diffs (verso.ChangedTables, DB.DiffTable), whose cost follows the size
// of the change, printed as dolt_diff() shows them (cells.go). The event
// log is the table dolt_events: its rows are the events added (+), removed
// (-, retention's removals included) and renumbered (< >, after a merge).
// The database is opened read-only, so diff works while a server holds it.
func runDiff(dir string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("diff", cliContext{stdout: stdout, stderr: stderr})
	stat := fs.Bool("stat", false, "print each changed table with its counts of rows added, removed and modified")
	cached := fs.Bool("cached", false, "compare HEAD with the staged changes (also --staged)")
	fs.BoolVar(cached, "staged", false, "the same as --cached")
	format := fs.StringP("result-format", "r", "table", "table, or sql: the statements that make the second revision's rows from the first's")
	pos, code, ok := parseFlags(fs, args, 3)
	if !ok {
		return code
	}
	if *format != "table" && *format != "sql" {
		fmt.Fprintf(stderr, "verso diff: -r is %q; give table or sql\n", *format)
		return 2
	}
	db, err := openDB(dir, true)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	defer db.Close()
	ctx := context.Background()
	txn, err := db.Begin(ctx, "")
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	from, to, table := "HEAD", verso.Working, ""
	if *cached {
		to = verso.Staged
	}
	var revs []string
	for i, a := range pos {
		if i == len(pos)-1 && len(pos) == 3 {
			table = a
			continue
		}
		if i == len(pos)-1 {
			if _, err := txn.RootOf(ctx, a); err != nil {
				table = a
				continue
			}
		}
		revs = append(revs, a)
	}
	if len(revs) > 0 {
		from = revs[0]
	}
	if len(revs) > 1 {
		to = revs[1]
	}
	fromRoot, err := txn.RootOf(ctx, from)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	toRoot, err := txn.RootOf(ctx, to)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	changes, err := verso.ChangedTables(ctx, fromRoot, toRoot)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	found := false
	for _, ch := range changes {
		if table != "" && !strings.EqualFold(ch.Table, table) {
			continue
		}
		found = true
		var err error
		switch {
		case *stat:
			err = printDiffStat(ctx, db, stdout, fromRoot, toRoot, ch)
		case *format == "sql":
			err = printDiffSQL(ctx, db, stdout, fromRoot, toRoot, ch)
		default:
			fromName := ch.Table
			if ch.From != "" {
				fromName = ch.From
			}
			fmt.Fprintf(stdout, "diff --verso a/%s b/%s\n", fromName, ch.Table)
			if ch.From != "" {
				fmt.Fprintf(stdout, "renamed from %s\n", ch.From)
			}
			if ch.SchemaChange {
				fmt.Fprintln(stdout, "the schema changed")
			}
			if ch.DataChange {
				err = printTableDiff(ctx, db, stdout, fromRoot, toRoot, ch)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "verso diff: %s: %v\n", ch.Table, err)
			return 1
		}
	}
	if table != "" && !found {
		fmt.Fprintf(stderr, "verso diff: table %q did not change between %s and %s\n", table, from, to)
	}
	return 0
}

// rowCounts counts the rows of ch's table added, removed and modified
// from root from to root to.
func rowCounts(ctx context.Context, db *verso.DB, from, to verso.RootValue, ch verso.TableChange) (added, removed, modified int, err error) {
	err = db.DiffChange(ctx, from, to, ch, func(c verso.RowChange) error {
		switch {
		case c.From == nil:
			added++
		case c.To == nil:
			removed++
		default:
			modified++
		}
		return nil
	})
	return added, removed, modified, err
}

// printDiffStat prints a changed table's line of diff --stat:
// " t | 2 rows added, 1 removed, 0 modified (schema changed)".
func printDiffStat(ctx context.Context, db *verso.DB, w io.Writer, from, to verso.RootValue, ch verso.TableChange) error {
	var a, r, m int
	if ch.DataChange {
		var err error
		if a, r, m, err = rowCounts(ctx, db, from, to, ch); err != nil {
			return err
		}
	}
	schema := ""
	if ch.SchemaChange {
		schema = " (schema changed)"
	}
	name := ch.Table
	if ch.From != "" {
		name = ch.From + " -> " + ch.Table
	}
	fmt.Fprintf(w, " %s | %d %s added, %d removed, %d modified%s\n", name, a, plural(uint64(a), "row", "rows"), r, m, schema)
	return nil
}

// printDiffSQL prints the statements that make table's rows at root to
// from those at root from: DELETE, INSERT and UPDATE by primary key (a
// table without one is rewritten whole); a schema change is a comment,
// for the schema's statements are not derived.
func printDiffSQL(ctx context.Context, db *verso.DB, w io.Writer, from, to verso.RootValue, ch verso.TableChange) error {
	if ch.From != "" {
		fmt.Fprintf(w, "RENAME TABLE %s TO %s;\n", sqlName(ch.From), sqlName(ch.Table))
	}
	if ch.SchemaChange && !(ch.From != "" && sameSchema(ctx, db, from, to, ch)) {
		fmt.Fprintf(w, "-- the schema of %s changed: run its new CREATE TABLE (verso schema show %s)\n", sqlName(ch.Table), ch.Table)
	}
	if !ch.DataChange {
		return nil
	}
	s, ok, err := db.TableSchema(ctx, to, ch.Table)
	if err == nil && !ok {
		s, ok, err = db.TableSchema(ctx, from, ch.Table)
	}
	if err != nil || !ok {
		return err
	}
	literal := func(i int, v verso.Value) string {
		if v.IsNull() {
			return "NULL"
		}
		return sqlString(valueCell(s.Columns[i], v))
	}
	where := func(vals []verso.Value) string {
		var conds []string
		for _, i := range s.PrimaryKey {
			conds = append(conds, sqlName(s.Columns[i].Name)+" = "+literal(i, vals[i]))
		}
		if len(conds) == 0 {
			for i, c := range s.Columns {
				if vals[i].IsNull() {
					conds = append(conds, sqlName(c.Name)+" IS NULL")
				} else {
					conds = append(conds, sqlName(c.Name)+" = "+literal(i, vals[i]))
				}
			}
			return strings.Join(conds, " AND ") + " LIMIT 1"
		}
		return strings.Join(conds, " AND ")
	}
	tbl := sqlName(ch.Table)
	return db.DiffChange(ctx, from, to, ch, func(c verso.RowChange) error {
		switch {
		case c.From == nil:
			vals := make([]string, len(c.To))
			for i, v := range c.To {
				vals[i] = literal(i, v)
			}
			fmt.Fprintf(w, "INSERT INTO %s VALUES (%s);\n", tbl, strings.Join(vals, ", "))
		case c.To == nil:
			fmt.Fprintf(w, "DELETE FROM %s WHERE %s;\n", tbl, where(c.From))
		default:
			var sets []string
			for i, col := range s.Columns {
				if literal(i, c.From[i]) != literal(i, c.To[i]) {
					sets = append(sets, sqlName(col.Name)+" = "+literal(i, c.To[i]))
				}
			}
			fmt.Fprintf(w, "UPDATE %s SET %s WHERE %s;\n", tbl, strings.Join(sets, ", "), where(c.From))
		}
		return nil
	})
}

// sameSchema reports whether a renamed table kept its schema.
func sameSchema(ctx context.Context, db *verso.DB, from, to verso.RootValue, ch verso.TableChange) bool {
	fs, fok, err := db.TableSchema(ctx, from, ch.From)
	if err != nil || !fok {
		return false
	}
	ts, tok, err := db.TableSchema(ctx, to, ch.Table)
	return err == nil && tok && reflect.DeepEqual(fs, ts)
}

// printTableDiff prints the rows of ch's table that differ from root from
// to root to: a removed row after "-", an added one after "+", a changed one
// twice, "<" before and ">" after. A table neither root holds is the event
// log (dolt_events).
func printTableDiff(ctx context.Context, db *verso.DB, w io.Writer, from, to verso.RootValue, ch verso.TableChange) error {
	table := ch.Table
	s, ok, err := db.TableSchema(ctx, to, table)
	if err == nil && !ok {
		s, ok, err = db.TableSchema(ctx, from, table)
	}
	if err != nil {
		return err
	}
	if !ok && strings.EqualFold(table, verso.EventsTable) {
		return printEventsDiff(ctx, db, w, from, to)
	}
	if !ok {
		return fmt.Errorf("%w: %q", verso.ErrTableNotFound, table)
	}
	head := []string{""}
	for _, c := range s.Columns {
		head = append(head, c.Name)
	}
	out := [][]string{head}
	line := func(mark string, vals []verso.Value) {
		l := []string{mark}
		for i, v := range vals {
			l = append(l, valueCell(s.Columns[i], v))
		}
		out = append(out, l)
	}
	err = db.DiffChange(ctx, from, to, ch, func(c verso.RowChange) error {
		switch {
		case c.From == nil:
			line("+", c.To)
		case c.To == nil:
			line("-", c.From)
		default:
			line("<", c.From)
			line(">", c.To)
		}
		return nil
	})
	if err != nil {
		return err
	}
	printGrid(w, out)
	return nil
}

// printEventsDiff prints the events added to and removed from the log
// from root from to root to, in dolt_events' columns; a position whose
// event differs on the two sides (a removal, then an addition) is a change,
// "<" before and ">" after.
func printEventsDiff(ctx context.Context, db *verso.DB, w io.Writer, from, to verso.RootValue) error {
	type change struct {
		mark     string
		from, to *verso.Event
	}
	var cs []change
	err := db.DiffEvents(ctx, from, to, func(c verso.EventChange) error {
		e := c.Event
		last := len(cs) - 1
		switch {
		case c.Added && last >= 0 && cs[last].mark == "-" && cs[last].from.Position == e.Position:
			cs[last].mark, cs[last].to = "<", &e
		case c.Added:
			cs = append(cs, change{mark: "+", to: &e})
		default:
			cs = append(cs, change{mark: "-", from: &e})
		}
		return nil
	})
	if err != nil {
		return err
	}
	out := [][]string{append([]string{""}, eventColumns()...)}
	for _, c := range cs {
		switch c.mark {
		case "+":
			out = append(out, append([]string{"+"}, eventCells(c.to)...))
		case "-":
			out = append(out, append([]string{"-"}, eventCells(c.from)...))
		default:
			out = append(out, append([]string{"<"}, eventCells(c.from)...), append([]string{">"}, eventCells(c.to)...))
		}
	}
	printGrid(w, out)
	return nil
}

// printGrid prints rows as a table with a header line.
func printGrid(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	sep := "+"
	for _, n := range width {
		sep += strings.Repeat("-", n+2) + "+"
	}
	fmt.Fprintln(w, sep)
	for i, r := range rows {
		s := "|"
		for j, c := range r {
			s += " " + c + strings.Repeat(" ", width[j]-len(c)) + " |"
		}
		fmt.Fprintln(w, s)
		if i == 0 {
			fmt.Fprintln(w, sep)
		}
	}
	fmt.Fprintln(w, sep)
}
