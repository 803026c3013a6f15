package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/sqlserver"
)

// The versioning commands (status, add, commit, branch, checkout, merge,
// tag, reset) run the SQL procedures of the same names (dolt_add, ...)
// through an engine embedded over the local database, so the command line
// and SQL share one implementation and one set of messages. Arguments pass
// through unchanged: verso commit -am "msg" is CALL dolt_commit('-am',
// 'msg'). The session's branch is the one .verso/HEAD names; checkout
// writes the new one there. The commands that only read (status, and
// branch and tag without arguments) open the database read-only, so they
// work while a server holds it; the others need it to themselves.

// local is an engine over the database of the current folder.
type local struct {
	root string
	name string
	p    *sqlserver.Provider
	e    *sqle.Engine
	ctx  *sql.Context
}

// openLocal opens the local database, read-only or for writing.
func openLocal(dir string, readOnly bool) (*local, error) {
	root, err := findRepoRoot(dir)
	if err != nil {
		return nil, err
	}
	p := sqlserver.NewMemoryProvider()
	name := filepath.Base(root)
	add := p.AddDatabaseDir
	if readOnly {
		add = p.AddDatabaseDirReadOnly
	}
	if err := add(name, root); err != nil {
		return nil, err
	}
	p.SetCommitter(identity("", ""))
	l := &local{root: root, name: name, p: p, e: sqlserver.NewEngine(p)}
	l.ctx = sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	l.ctx.SetCurrentDatabase(name)
	return l, nil
}

func (l *local) Close() error {
	err := l.e.Close()
	if perr := l.p.Close(); err == nil {
		err = perr
	}
	return err
}

// query runs q and returns its rows.
func (l *local) query(q string) ([]sql.Row, error) {
	_, iter, _, err := l.e.Query(l.ctx, q)
	if err != nil {
		return nil, err
	}
	return sql.RowIterToRows(l.ctx, iter)
}

// call runs CALL proc(args...) with the arguments quoted.
func (l *local) call(proc string, args []string) ([]sql.Row, error) {
	_, rows, err := l.callSchema(proc, args)
	return rows, err
}

// quoteString returns s as a SQL string literal.
func quoteString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`)
	return "'" + r.Replace(s) + "'"
}

// withLocal runs fn over the local database, printing its error. The
// command writes: it needs the database's store to itself.
func withLocal(cmd, dir string, stderr io.Writer, fn func(l *local) error) int {
	return runLocal(cmd, dir, false, stderr, fn)
}

// readLocal is withLocal for a command that only reads: it opens the
// database read-only.
func readLocal(cmd, dir string, stderr io.Writer, fn func(l *local) error) int {
	return runLocal(cmd, dir, true, stderr, fn)
}

func runLocal(cmd, dir string, readOnly bool, stderr io.Writer, fn func(l *local) error) int {
	l, err := openLocal(dir, readOnly)
	if err != nil {
		fmt.Fprintf(stderr, "verso %s: %v\n", cmd, heldElsewhere(err, "CALL dolt_"+cmd+"(...)"))
		return 1
	}
	err = fn(l)
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// runProcedure is a command that is one procedure call.
func runProcedure(cmd, proc, dir string, args []string, stdout, stderr io.Writer) int {
	return withLocal(cmd, dir, stderr, func(l *local) error {
		_, err := l.call(proc, args)
		return err
	})
}

func runAdd(dir string, args []string, stdout, stderr io.Writer) int {
	return runProcedure("add", "dolt_add", dir, args, stdout, stderr)
}

func runReset(dir string, args []string, stdout, stderr io.Writer) int {
	return runProcedure("reset", "dolt_reset", dir, args, stdout, stderr)
}

// runMerge runs dolt_merge and prints its result by column: the message,
// the merge commit and the number of tables with conflicts, which make
// the command fail (exit 1) as git's does.
func runMerge(dir string, args []string, stdout, stderr io.Writer) int {
	conflicts := false
	code := withLocal("merge", dir, stderr, func(l *local) error {
		sch, rows, err := l.callSchema("dolt_merge", args)
		if err != nil {
			return err
		}
		for _, r := range rows {
			col := func(name string) any {
				for i, c := range sch {
					if strings.EqualFold(c.Name, name) && i < len(r) {
						return r[i]
					}
				}
				return nil
			}
			if m, _ := col("message").(string); m != "" {
				fmt.Fprintln(stdout, m)
			}
			if h, _ := col("hash").(string); h != "" {
				fmt.Fprintf(stdout, "commit %s\n", h)
			}
			if n, ok := col("conflicts").(int64); ok && n > 0 {
				conflicts = true
				fmt.Fprintf(stdout, "CONFLICT: %d tables have conflicts; fix them (verso status, SELECT * FROM dolt_conflicts), then verso add and verso commit, or verso merge --abort\n", n)
			}
		}
		return nil
	})
	if code == 0 && conflicts {
		return 1
	}
	return code
}

// callSchema is call with the result's schema.
func (l *local) callSchema(proc string, args []string) (sql.Schema, []sql.Row, error) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = quoteString(a)
	}
	sch, iter, _, err := l.e.Query(l.ctx, fmt.Sprintf("CALL %s(%s)", proc, strings.Join(quoted, ", ")))
	if err != nil {
		return nil, nil, err
	}
	rows, err := sql.RowIterToRows(l.ctx, iter)
	return sch, rows, err
}

func runCommit(dir string, args []string, stdout, stderr io.Writer) int {
	return withLocal("commit", dir, stderr, func(l *local) error {
		rows, err := l.call("dolt_commit", args)
		if err != nil {
			return err
		}
		if len(rows) == 1 && rows[0][0] == nil {
			fmt.Fprintln(stdout, "nothing to commit (--skip-empty)")
			return nil
		}
		c, err := l.query("SELECT active_branch(), message FROM dolt_log ORDER BY commit_order DESC LIMIT 1")
		if err != nil {
			return err
		}
		subject, _, _ := strings.Cut(fmt.Sprint(c[0][1]), "\n")
		fmt.Fprintf(stdout, "[%v %v] %s\n", c[0][0], rows[0][0], subject)
		return nil
	})
}

func runStatus(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "verso status: takes no arguments")
		return 2
	}
	return readLocal("status", dir, stderr, func(l *local) error {
		b, err := l.query("SELECT active_branch()")
		if err != nil {
			return err
		}
		rows, err := l.query("SELECT table_name, staged, status FROM dolt_status ORDER BY table_name")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "On branch %v\n", b[0][0])
		section := func(title string, keep func(staged bool, status string) bool) {
			var lines []string
			for _, r := range rows {
				if keep(r[1].(bool), r[2].(string)) {
					lines = append(lines, fmt.Sprintf("\t%-12s%v", r[2].(string)+":", r[0]))
				}
			}
			if len(lines) > 0 {
				fmt.Fprintf(stdout, "%s\n%s\n", title, strings.Join(lines, "\n"))
			}
		}
		section("Changes to be committed:", func(s bool, st string) bool { return s })
		section("Changes not staged for commit:", func(s bool, st string) bool { return !s && st != "conflict" && st != "new table" })
		section("Untracked tables:", func(s bool, st string) bool { return !s && st == "new table" })
		section("Unmerged tables (resolve the conflicts, then verso add):", func(s bool, st string) bool { return st == "conflict" })
		if len(rows) == 0 {
			fmt.Fprintln(stdout, "nothing to commit, working tree clean")
		}
		return nil
	})
}

func runBranch(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args) == 1 && (args[0] == "-a" || args[0] == "--list")) {
		return readLocal("branch", dir, stderr, func(l *local) error {
			rows, err := l.query("SELECT name, name = active_branch() FROM dolt_branches ORDER BY name")
			if err != nil {
				return err
			}
			for _, r := range rows {
				mark := " "
				if cur, _ := r[1].(bool); cur {
					mark = "*"
				}
				fmt.Fprintf(stdout, "%s %v\n", mark, r[0])
			}
			return nil
		})
	}
	return runProcedure("branch", "dolt_branch", dir, args, stdout, stderr)
}

func runTag(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return readLocal("tag", dir, stderr, func(l *local) error {
			rows, err := l.query("SELECT tag_name FROM dolt_tags ORDER BY tag_name")
			if err != nil {
				return err
			}
			for _, r := range rows {
				fmt.Fprintln(stdout, r[0])
			}
			return nil
		})
	}
	return runProcedure("tag", "dolt_tag", dir, args, stdout, stderr)
}

func runCheckout(dir string, args []string, stdout, stderr io.Writer) int {
	return withLocal("checkout", dir, stderr, func(l *local) error {
		rows, err := l.call("dolt_checkout", args)
		if err != nil {
			return err
		}
		b, err := l.query("SELECT active_branch()")
		if err != nil {
			return err
		}
		branch := fmt.Sprint(b[0][0])
		head := filepath.Join(l.root, repoDir, headFile)
		cur, err := os.ReadFile(head)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if strings.TrimSpace(string(cur)) != branch {
			if err := writeFileAtomic(head, []byte(branch+"\n")); err != nil {
				return err
			}
		}
		if len(rows) == 1 && len(rows[0]) > 1 {
			if msg := fmt.Sprint(rows[0][1]); msg != "" {
				fmt.Fprintln(stdout, msg)
			}
		}
		return nil
	})
}

// writeFileAtomic replaces the file name with data: write a temporary
// file beside it, sync, rename.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// vcsCommands are the versioning commands by name.
var vcsCommands = map[string]func(dir string, args []string, stdout, stderr io.Writer) int{
	"status": runStatus, "add": runAdd, "commit": runCommit, "branch": runBranch,
	"checkout": runCheckout, "merge": runMerge, "tag": runTag, "reset": runReset,
}

const versioningHelp = `Versioning commands run the SQL procedure of the same name over the
local database (the one of the current folder or its nearest parent), with
the same arguments:

  verso status                       staged and unstaged changes (dolt_status)
  verso add <table>... | . | -A      stage tables                 (dolt_add)
  verso commit -m msg [-a|-A] [--allow-empty|--skip-empty]
               [--author "Name <email>"] [--date d] [--amend]    (dolt_commit)
  verso branch                       list branches; with arguments dolt_branch:
               new [start] | -c old new | -m old new | -d|-D name... | -f
  verso checkout branch | -b new [start] | table...              (dolt_checkout)
  verso merge branch [--no-ff] [-m msg] | --abort               (dolt_merge)
  verso tag                          list tags; with arguments dolt_tag:
               name [ref] [-m msg] | -d name
  verso reset [--soft|--hard] [ref] | table...                  (dolt_reset)

checkout also makes the branch the database's current one (.verso/HEAD),
which verso sql-server sessions start on. Committer identity: the
environment variables VERSO_AUTHOR_NAME and VERSO_AUTHOR_EMAIL, else the
login name.
`
