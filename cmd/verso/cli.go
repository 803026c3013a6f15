package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
)

// The command line: cobra dispatches the commands and writes the list of
// them (verso help, verso --help); each command parses its own flags with
// pflag, GNU-style (--name value, --name=value, -n 5, combined short
// flags), and answers --help (or -h, or verso help <command>) with its
// synopsis, description and flags. The versioning commands parse the
// arguments of their SQL procedures instead (internal/doltargs, which
// takes the same forms).
//
// Exit codes: 0, 1 when the command fails, 2 on a usage error (an unknown
// command or flag, a missing argument), which is one line on stderr
// saying what was wrong and how to see the usage.

// cliCommand is a command of the command line.
type cliCommand struct {
	name     string
	synopsis string // the arguments, after the name
	short    string // one line, for the list of commands
	long     string // the description --help prints
	run      func(c cliContext, args []string) int
}

// cliContext is what a command runs with.
type cliContext struct {
	dir            string // -C's folder, "" for the current one
	stdin          io.Reader
	stdout, stderr io.Writer
}

// cliCommands lists the commands, in the order verso help lists them.
func cliCommands() []cliCommand {
	return []cliCommand{
		{name: "version", short: "print the program's version and its storage format versions",
			long: "Prints verso's version and the versions of the formats it writes.",
			run: func(c cliContext, args []string) int {
				fs := newFlags("version", c)
				if _, code, ok := parseFlags(fs, args, 0); !ok {
					return code
				}
				fmt.Fprintf(c.stdout, "verso %s\nstorage format %d (table files %d, commits %d)\n", moduleVersion(), verso.FormatVersion, verso.TableFormatVersion, verso.CommitFormatVersion)
				return 0
			}},
		{name: "init", synopsis: "[--branch main] [--name N] [--email E] [dir]", short: "create a database with a first empty commit",
			long: "Creates a database in dir (default: the current folder), with a first empty commit on --branch. The commit's author is --name and --email, else $" + envName + " and $" + envEmail + ", else the login name.",
			run:  func(c cliContext, args []string) int { return runInit(c.dir, args, c.stdout, c.stderr) }},
		{name: "status", short: "show the staged and unstaged changes (dolt_status)", long: vcsLong("status"),
			run: vcsCommand("status", runStatus)},
		{name: "add", synopsis: "<table>... | . | -A", short: "stage tables (dolt_add)", long: vcsLong("add"),
			run: vcsCommand("add", runAdd)},
		{name: "commit", synopsis: "-m <message> [-a|-A] [--allow-empty|--skip-empty] [--author \"Name <email>\"] [--date D] [--amend]", short: "record the staged changes as a commit (dolt_commit)", long: vcsLong("commit"),
			run: vcsCommand("commit", runCommit)},
		{name: "branch", synopsis: "[new [start] | -c old new | -m old new | -d|-D name... | -f]", short: "list, make, copy, rename or delete branches (dolt_branch)", long: vcsLong("branch"),
			run: vcsCommand("branch", runBranch)},
		{name: "checkout", synopsis: "<branch> | -b <new> [start] | <table>...", short: "switch branches or restore tables (dolt_checkout)", long: vcsLong("checkout"),
			run: vcsCommand("checkout", runCheckout)},
		{name: "merge", synopsis: "<branch> [--no-ff] [--squash] [-m <message>] | --abort", short: "merge a branch into the current one (dolt_merge)", long: vcsLong("merge"),
			run: vcsCommand("merge", runMerge)},
		{name: "tag", synopsis: "[<name> [ref] [-m <message>] | -d <name>]", short: "list, make or delete tags (dolt_tag)", long: vcsLong("tag"),
			run: vcsCommand("tag", runTag)},
		{name: "reset", synopsis: "[--soft|--hard] [ref] | <table>...", short: "move the branch or unstage tables (dolt_reset)", long: vcsLong("reset"),
			run: vcsCommand("reset", runReset)},
		{name: "cherry-pick", synopsis: "<revision>", short: "apply a commit's changes to the current branch (dolt_cherry_pick)", long: "Applies the changes of a commit to the current branch as a new commit: the arguments of the SQL procedure dolt_cherry_pick.",
			run: procCommand("cherry-pick", "dolt_cherry_pick")},
		{name: "revert", synopsis: "<revision>...", short: "undo commits with new commits (dolt_revert)", long: "Makes a commit that undoes the changes of each given commit: the arguments of the SQL procedure dolt_revert.",
			run: procCommand("revert", "dolt_revert")},
		{name: "conflicts", synopsis: "cat <table>... | resolve --ours|--theirs <table>...", short: "show or resolve a merge's conflicts",
			long: "conflicts cat prints the rows in conflict of each table (its dolt_conflicts_<table> system table); conflicts resolve keeps our or their side of each conflict of the tables (dolt_conflicts_resolve).",
			run:  runConflicts},
		{name: "remote", synopsis: "[-v] | add <name> <url> | remove|rm <name>", short: "list, add or remove remotes (dolt_remote)",
			long: "Without arguments, lists the remotes; -v adds each one's URL. add names a remote at a URL: file:///path (a folder; file://relative/path is made absolute) or s3://bucket/prefix (?endpoint=... and $AWS_ENDPOINT_URL for S3-compatible stores). remove (or rm) deletes a remote and its remote-tracking branches (origin/main, ...). Listing reads the database read-only; add and remove run dolt_remote through a server that holds the database.",
			run:  runRemoteCommand},
		{name: "clone", synopsis: "[--remote name] [-b branch] <url> [dir]", short: "make a new database from a remote",
			long: "Makes a database in dir (default: the last element of the URL's path), which must be new or empty, with every branch and tag of the remote at url, the remote itself (--remote, default origin) and its remote-tracking branches. The current branch is -b's (default: the remote's main, else its first branch), and its upstream is the remote's branch of that name. A clone that fails leaves nothing behind. On a terminal, a progress line shows the chunks and bytes received and the rate.",
			run:  runClone},
		{name: "fetch", synopsis: "[-p|--prune] [remote] [branch...]", short: "download a remote's branches into remote-tracking branches (dolt_fetch)",
			long: "Downloads what the database lacks of the remote's branches (all, or those named) and moves the remote-tracking branches <remote>/<branch> to them; the local branches stay. The remote is by default the current branch's upstream remote, else origin. --prune deletes the remote-tracking branches whose branch the remote no longer has. Through a server that holds the database, runs dolt_fetch. On a terminal, a progress line shows the chunks and bytes received and the rate.",
			run:  runFetch},
		{name: "pull", synopsis: "[--no-ff|--ff-only] [--squash] [--no-commit] [-p] [remote] [branch]", short: "fetch a remote's branch and merge it into the current one (dolt_pull)",
			long: "Fetches the remote's branch (default: the current branch's upstream; a remote alone must be the upstream's) and merges <remote>/<branch> into the current branch, as verso merge does: a fast-forward, a merge commit, or conflicts to resolve (exit 1). Through a server that holds the database, runs dolt_pull.",
			run:  runPull},
		{name: "push", synopsis: "[-f|--force] [-u|--set-upstream] [remote] [refspec]", short: "upload a branch to a remote and move the remote's branch (dolt_push)",
			long: "Uploads what the remote lacks of a branch's history and moves the remote's branch to it. refspec is branch (to the remote's branch of the same name), src:dst (any revision to the remote's branch dst), :dst (deletes dst on the remote), or +src:dst (forced). Without a refspec, the current branch goes to its upstream. A push that would drop commits from the remote's branch is rejected unless --force. --set-upstream makes the remote's branch the upstream of the pushed branch, for pull and push without arguments. Through a server that holds the database, runs dolt_push. On a terminal, a progress line shows the chunks and bytes sent and the rate.",
			run:  runPush},
		{name: "log", synopsis: "[--oneline] [--graph] [-n N] [--merges] [--author RE] [--decorate short|full|no] [--stat] [revision]", short: "print the history of a revision (default HEAD)",
			long: "Prints the commits reachable from revision (default HEAD), newest first. The database is opened read-only, so log works while a server holds it.",
			run:  func(c cliContext, args []string) int { return runLog(c.dir, args, c.stdout, c.stderr) }},
		{name: "diff", synopsis: "[from [to]] [table]", short: "print the rows added, removed and changed between two revisions",
			long: "Prints the rows added (+), removed (-) and changed between two revisions (default: HEAD and the working set), of every table or of one; the event log is the table dolt_events. The database is opened read-only, so diff works while a server holds it.",
			run:  func(c cliContext, args []string) int { return runDiff(c.dir, args, c.stdout, c.stderr) }},
		{name: "show", synopsis: "[revision]", short: "print a commit and its changes",
			long: "Prints a commit (default HEAD) as log does, then the rows it changed against its first parent, as diff does.",
			run:  runShow},
		{name: "blame", synopsis: "[revision] <table>", short: "print the commit that last wrote each row of a table",
			long: "Prints, for each row of a table at a revision (default HEAD), by its primary key, the commit that last wrote it: its hash, date, committer and message. It follows first parents, so a row changed on a merged branch is the merge's.",
			run:  runBlame},
		{name: "stash", synopsis: "[push] [-m msg] | list | apply [n] | pop [n] | drop [n] | clear", short: "put uncommitted changes aside, and back",
			long: "stash (push) saves the default branch's uncommitted changes, working and staged, as a stash and resets the branch to its head; list lists the stashes, newest first (stash@{0}); apply merges a stash's changes back into the working set (unstaged), refusing a clash; pop applies and drops it; drop and clear remove stashes.",
			run:  runStash},
		{name: "reflog", synopsis: "[--all] [ref]", short: "print where branches and tags have pointed, newest first",
			long: "Prints the commits a branch or tag (default: the current branch; --all: every one) has pointed at, newest first, from the history of the store's roots. The history goes back to the last garbage collection.",
			run:  runReflog},
		{name: "merge-base", synopsis: "<revision> <revision>", short: "print the best common ancestor of two revisions",
			long: "Prints the hash of the best common ancestor of two revisions (DOLT_MERGE_BASE).", run: runMergeBase},
		{name: "ls", synopsis: "[-v] [revision]", short: "list the tables",
			long: "Lists the tables of the working set, or of a revision; -v adds each table's row count.", run: runLs},
		{name: "schema", synopsis: "show [table...] | export [table] [file]", short: "print or export tables' CREATE TABLE statements",
			long: "schema show prints the CREATE TABLE statement of each table (default: all); schema export writes them, ending with ';', to a file or stdout.",
			run:  runSchema},
		{name: "table", synopsis: "export <table> <file|-> | import -c --pk id|-u|-r <table> <file>", short: "export or import a table's rows (CSV, JSON, SQL)",
			long: "table export writes a table's rows to a file, CSV, JSON or SQL INSERTs by its extension (or --file-type; - is stdout as CSV). table import reads a CSV file with a header line, or a JSON array of objects (or {\"rows\": [...]}, as export writes), into a table: -c makes it (columns BIGINT, DOUBLE or TEXT by their values; --pk names the key), -u inserts the rows replacing those with the same key, -r replaces the table's rows. A progress bar shows on a terminal.",
			run:  runTable},
		{name: "dump", synopsis: "[-r sql|csv|json] [--file F] [--directory D] [-f]", short: "write every table to a SQL script or to CSV or JSON files",
			long: "Writes every table: by default a SQL script (doltdump.sql) that makes the tables again with their rows, which verso sql or the mysql client loads; with -r csv or json one file per table in a folder (doltdump).",
			run:  runDump},
		{name: "clean", synopsis: "[--dry-run] [table...]", short: "drop the untracked tables",
			long: "Drops the tables that are new in the working set, neither staged nor committed (or only those named); --dry-run prints them instead.", run: runClean},
		{name: "rm", synopsis: "<table>...", short: "drop tables and stage their removal",
			long: "Drops the tables from the working set and stages the removal (DROP TABLE, then dolt_add).", run: runRm},
		{name: "config", synopsis: "--global --add <key> <value> | --get <key> | --unset <key>... | --list", short: "read and change the user's settings (user.name, user.email)",
			long: "Reads and changes the user's settings, kept in verso/config.json of the user's config folder: user.name and user.email are the author of commits the commands make, after --author and $" + envName + " / $" + envEmail + ".",
			run:  runConfig},
		{name: "sql", synopsis: "[-q QUERY] [-r table|csv|json] [--data-dir D] [< script.sql]", short: "run SQL against the database and print the results",
			long: "Runs SQL in this process against the database of the current folder (or the databases of --data-dir): the statements of -q, or a script on stdin. Results print as tables like the mysql client's, or as CSV or JSON; an error goes to stderr with its line, and the exit code is 1. While a server holds the database, queries read its last commit and a statement that writes fails with 1290.",
			run:  func(c cliContext, args []string) int { return runSQL(c.dir, args, c.stdin, c.stdout, c.stderr) }},
		{name: "sql-server", synopsis: "[flags]", short: "serve the database over the MySQL protocol",
			long: sqlServerLong,
			run:  func(c cliContext, args []string) int { return runSQLServer(c.dir, args, c.stdout, c.stderr) }},
		{name: "fsck", synopsis: "[--quick]", short: "check the database's chunks, commits, tables, indexes, event log and users file",
			long: "Checks that every chunk is present and matches its address, and every commit, closure, table, index, event log and schema object the branches, tags and working sets reach, and the users file. Prints each problem and exits 1 if there is any. Read-only: it runs beside a server.",
			run:  func(c cliContext, args []string) int { return runFsck(c.dir, args, c.stdout, c.stderr) }},
		{name: "gc", synopsis: "[--shallow|--full]", short: "drop what nothing reaches and return the space",
			long: "Collects garbage: drops every chunk no branch, tag, working set or commit reaches, and returns the space. It needs the database to itself; a running server does it online (CALL dolt_gc()).",
			run: func(c cliContext, args []string) int {
				for _, a := range args {
					if a == "--help" || a == "-h" {
						return runGC(c.dir, args, c.stdout, c.stderr)
					}
				}
				if code, ok := throughServer(c, "gc", procedureCall("dolt_gc", args)); ok {
					return code
				}
				return runGC(c.dir, args, c.stdout, c.stderr)
			}},
	}
}

// sqlServerLong is sql-server's description.
const sqlServerLong = `Serves the database of the current folder (or every database of --data-dir)
over the MySQL protocol until interrupted. Settings come from the flags and
from --config, a YAML file with Dolt's key names (flags override it; every key
is in cmd/verso/config.go).

Without a password, only a loopback --host is allowed. TLS uses a certificate
made in .verso-tls of the data dir unless one is given (or --no-tls); on a
loopback host the server also listens on /tmp/mysql.sock when no other server
does. LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE need the FILE privilege and
reach only the folder of --secure-file-priv (default: .verso-files of the data
dir); NULL disables them.`

// vcsSpecs are the options of the versioning commands (status has none).
var vcsSpecs = map[string]func() doltargs.Spec{
	"add": doltargs.Add, "commit": doltargs.Commit, "branch": doltargs.Branch, "checkout": doltargs.Checkout,
	"merge": doltargs.Merge, "tag": doltargs.Tag, "reset": doltargs.Reset,
}

// vcsCommand runs the versioning command name with run, which parses the
// procedure's arguments itself; --help or -h (before any "--") prints the
// command's usage and its options instead.
func vcsCommand(name string, run func(dir string, args []string, stdout, stderr io.Writer) int) func(cliContext, []string) int {
	return func(c cliContext, args []string) int {
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--help" || a == "-h" {
				printUsage(c.stdout, name, nil)
				if spec, ok := vcsSpecs[name]; ok {
					fmt.Fprintf(c.stdout, "\noptions (as dolt_%s's): %s\n", name, spec().Usage())
				}
				return 0
			}
		}
		// The forms that only read; branch -a (with the remote-tracking
		// branches) and --list are the command line's, not dolt_branch's.
		reads := name == "status" || (name == "branch" || name == "tag") && len(args) == 0 ||
			name == "branch" && len(args) == 1 && (args[0] == "-a" || args[0] == "--list")
		if spec, ok := vcsSpecs[name]; ok && !reads {
			// A usage error before the database is opened.
			if _, err := spec().Parse(args); err != nil {
				fmt.Fprintf(c.stderr, "verso %s: %v (verso %s --help)\n", name, err, name)
				return 2
			}
		}
		// The forms that write go through a running server that holds
		// the database (serverinfo.go).
		if !reads {
			if name == "checkout" {
				if _, _, held := runningServer(c.dir); held {
					fmt.Fprintln(c.stderr, "verso checkout: a verso sql-server holds the database, and checkout changes its default branch; stop the server first, or switch a session's branch with CALL dolt_checkout(...)")
					return 1
				}
			} else if code, ok := throughServer(c, name, procedureCall("dolt_"+name, args)); ok {
				return code
			}
		}
		return run(c.dir, args, c.stdout, c.stderr)
	}
}

// procedureCall is the CALL of procedure proc with args, each a string.
func procedureCall(proc string, args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = sqlString(a)
	}
	return "CALL " + proc + "(" + strings.Join(quoted, ", ") + ")"
}

// vcsLong is the description of a versioning command.
func vcsLong(name string) string {
	return "Takes the arguments of the SQL procedure dolt_" + name + " and does what it does, on the local database's default branch (the one .verso/HEAD names). Commands that only read open the database read-only, so they work while a server holds it; the others need it to themselves and say to run their procedure through the server when one holds it. See verso help versioning."
}

// findCommand returns the command named name.
func findCommand(name string) (cliCommand, bool) {
	for _, c := range cliCommands() {
		if c.name == name {
			return c, true
		}
	}
	return cliCommand{}, false
}

// run runs the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runCLI(args, os.Stdin, stdout, stderr)
}

func runCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := cliContext{stdin: stdin, stdout: stdout, stderr: stderr}
	for len(args) >= 2 && args[0] == "-C" {
		c.dir, args = joinDir(c.dir, args[1]), args[2:]
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-v") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) >= 2 && args[0] == "help" && args[1] == "versioning" {
		fmt.Fprint(stdout, versioningHelp)
		return 0
	}
	code := 0
	root := &cobra.Command{
		Use:   "verso",
		Short: "verso is a versioned SQL database",
		Long: "verso is a versioned SQL database: every change is a commit in a content-addressed graph, " +
			"with branches, merges and diffs, served over the MySQL protocol.\n\n" +
			"-C dir (before the command) runs the command as if started in dir.",
		SilenceErrors: true,
		SilenceUsage:  true,
		// With no command: the list of commands, and a usage error.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(stderr)
			cmd.Help()
			code = 2
			return nil
		},
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, cc := range cliCommands() {
		sub := &cobra.Command{
			Use:                strings.TrimSpace(cc.name + " " + cc.synopsis),
			Short:              cc.short,
			Long:               cc.long,
			DisableFlagParsing: true, // each command parses its own (newFlags)
			RunE: func(_ *cobra.Command, args []string) error {
				code = cc.run(c, args)
				return nil
			},
		}
		sub.SetHelpFunc(func(*cobra.Command, []string) { code = cc.run(c, []string{"--help"}) })
		root.AddCommand(sub)
	}
	if err := root.Execute(); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown command") {
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			msg = fmt.Sprintf("unknown command %q", name)
		}
		fmt.Fprintf(stderr, "verso: %s; verso help lists the commands\n", msg)
		return 2
	}
	return code
}

// newFlags returns the flag set of command name: GNU-style flags, whose
// --help prints the command's usage to stdout.
func newFlags(name string, c cliContext) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.SortFlags = true
	fs.Usage = func() { printUsage(c.stdout, name, fs) }
	return fs
}

// printUsage prints the help of command name, with the flags of fs (nil
// for none).
func printUsage(w io.Writer, name string, fs *pflag.FlagSet) {
	cc, _ := findCommand(name)
	fmt.Fprintf(w, "usage: verso %s\n\n", strings.TrimSpace(name+" "+cc.synopsis))
	if cc.long != "" {
		fmt.Fprintf(w, "%s\n", wrap(cc.long, 76))
	}
	if fs != nil && fs.HasFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", fs.FlagUsages())
	}
}

// parseFlags parses args into fs and returns the positional arguments, at
// most maxPos of them (-1 for any number). When ok is false the command
// stops with code: 0 after printing its help, 2 after a usage error,
// which it printed.
func parseFlags(fs *pflag.FlagSet, args []string, maxPos int) (pos []string, code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		return nil, 0, false
	case err != nil:
		fmt.Fprintf(fs.Output(), "verso %s: %v (verso %s --help lists the flags)\n", fs.Name(), err, fs.Name())
		return nil, 2, false
	}
	pos = fs.Args()
	if maxPos >= 0 && len(pos) > maxPos {
		what := "no arguments"
		if maxPos > 0 {
			what = fmt.Sprintf("at most %d", maxPos)
		}
		fmt.Fprintf(fs.Output(), "verso %s: %s takes %s, but got %q (verso %s --help)\n", fs.Name(), fs.Name(), what, pos, fs.Name())
		return nil, 2, false
	}
	return pos, 0, true
}

// wrap breaks s into lines of at most width characters at spaces; a
// blank line separates paragraphs, and a single line break is a space.
func wrap(s string, width int) string {
	var b strings.Builder
	for i, para := range strings.Split(s, "\n\n") {
		if i > 0 {
			b.WriteString("\n\n")
		}
		n := 0
		for j, word := range strings.Fields(para) {
			if j > 0 && n+1+len(word) > width {
				b.WriteByte('\n')
				n = 0
			} else if j > 0 {
				b.WriteByte(' ')
				n++
			}
			b.WriteString(word)
			n += len(word)
		}
	}
	return b.String()
}
