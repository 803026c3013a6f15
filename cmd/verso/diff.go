package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/sqlserver"
	"github.com/verso-db/verso/systables"
)

// runDiff prints the rows added, removed and changed between two
// revisions, table by table:
//
//	verso diff                      HEAD against the working set
//	verso diff <from>               from against the working set
//	verso diff <from> <to>          from against to
//	verso [...] <table>             only that table
//
// A revision is anything dolt_diff() takes: HEAD, WORKING, STAGED, a
// branch, a tag, a commit hash, with ~ and ^ steps. An argument that is no
// revision names a table. The rows come from dolt_diff('from', 'to', 't'),
// whose cost follows the size of the change. The event log is the table
// dolt_events: its rows are the events added (+), removed (-, retention's
// removals included) and renumbered (< >, after a merge). The database is
// opened read-only, so diff works while a server holds it.
func runDiff(dir string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 3 {
		fmt.Fprintln(stderr, "verso diff: at most two revisions and a table")
		return 2
	}
	root, err := findRepoRoot(dir)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	name := filepath.Base(root)
	p := sqlserver.NewMemoryProvider()
	defer p.Close()
	if err := p.AddDatabaseDirReadOnly(name, root); err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	e := sqlserver.NewEngine(p)
	defer e.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	ctx.SetCurrentDatabase(name)
	v, err := p.SystemView(ctx, name)
	if err != nil {
		fmt.Fprintf(stderr, "verso diff: %v\n", err)
		return 1
	}
	from, to, table := "HEAD", systables.Working, ""
	var revs []string
	for i, a := range pos {
		if i == len(pos)-1 && (len(pos) == 3 || !systables.IsRevision(ctx, v, a)) {
			table = a
			continue
		}
		revs = append(revs, a)
	}
	if len(revs) > 0 {
		from = revs[0]
	}
	if len(revs) > 1 {
		to = revs[1]
	}
	changes, err := systables.ChangedTables(ctx, v, from, to)
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
		fmt.Fprintf(stdout, "diff --verso a/%s b/%s\n", ch.Table, ch.Table)
		if ch.SchemaChange {
			fmt.Fprintln(stdout, "the schema changed")
		}
		if !ch.DataChange {
			continue
		}
		if err := printTableDiff(ctx, e, stdout, from, to, ch.Table); err != nil {
			fmt.Fprintf(stderr, "verso diff: %s: %v\n", ch.Table, err)
			return 1
		}
	}
	if table != "" && !found {
		fmt.Fprintf(stderr, "verso diff: table %q did not change between %s and %s\n", table, from, to)
	}
	return 0
}

// printTableDiff prints the rows of dolt_diff(from, to, table): a removed
// row after "-", an added one after "+", a changed one twice, "<" before
// and ">" after.
func printTableDiff(ctx *sql.Context, e *sqle.Engine, w io.Writer, from, to, table string) error {
	q := fmt.Sprintf("SELECT * FROM dolt_diff(%s, %s, %s)", quote(from), quote(to), quote(table))
	sch, it, _, err := e.Query(ctx, q)
	if err != nil {
		return err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return err
	}
	// to_<c>..., to_commit, to_commit_date, from_<c>..., from_commit,
	// from_commit_date, diff_type
	n := (len(sch) - 5) / 2
	head := []string{""}
	for _, c := range sch[:n] {
		head = append(head, strings.TrimPrefix(c.Name, "to_"))
	}
	out := [][]string{head}
	line := func(mark string, vals sql.Row) {
		l := []string{mark}
		for _, v := range vals {
			l = append(l, diffCell(v))
		}
		out = append(out, l)
	}
	for _, r := range rows {
		to, fromVals := r[:n], r[n+2:2*n+2]
		switch r[len(r)-1] {
		case systables.DiffAdded:
			line("+", to)
		case systables.DiffRemoved:
			line("-", fromVals)
		default:
			line("<", fromVals)
			line(">", to)
		}
	}
	printGrid(w, out)
	return nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func diffCell(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05.999999")
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
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
