// Command verso is the command-line program of the verso database.
//
// Usage:
//
//	verso [-C dir] <command> [arguments]
//
//	verso version                   print the program's version and its storage format version
//	verso init [flags] [dir]        create a database in dir (default: the current folder)
//	verso log [flags] [revision]    print the history of a revision (default: HEAD)
//	verso diff [from [to]] [table]  print the rows changed between two revisions (default: HEAD and the working set)
//	verso sql-server [flags]        serve the database over the MySQL protocol
//	verso status|add|commit|branch|checkout|merge|tag|reset [arguments]
//	                                versioning, with the SQL procedures' arguments (vcs.go)
//	verso sql [flags]               run SQL (-q, or a script on stdin) and print the results
//	verso fsck [--quick]            check the database's chunks, commits, tables, indexes, event log and users file (fsck.go)
//
// -C dir runs the command as if started in dir.
//
// sql-server takes its settings from flags and from a YAML config file
// with Dolt's key names (config.go); it keeps accounts and grants in
// .verso-users of the data dir, or .verso/users of a database served alone
// (sqlserver's users file), and makes the secure_file_priv folder
// .verso-files there (.verso/files). Its log goes to stderr through
// log/slog at --log-level (config key log_level; default info: the
// start, the stop, warnings such as a damaged database of the data dir,
// which is left out while the others are served, and internal errors;
// debug adds every connection and statement), with the engine's logrus
// lines routed into it. sql runs the SQL engine in process (sql.go).
//
// The other commands are the engine's calls (package verso) without SQL:
// init, log, diff, status and the versioning commands, which take the
// arguments of the SQL procedures of their names (internal/doltargs
// parses both). They open tables with the SQL layer's collations
// (sqlserver.Collations), which the engine lacks, and that is all they
// take from it.
//
// Only one process writes a database: a server holds its store's lock.
// The commands that read (log, diff, status, fsck, branch and tag without
// arguments) open the store read-only, which needs no lock: a snapshot of
// its last commit, readable while a server writes. sql opens it for
// writing, and read-only when another process holds it: queries work,
// a statement that writes fails with MySQL's 1290 saying to run it
// through the server. The other commands write, and say to run their
// procedure through the server (or to stop it) when one holds the
// database.
// Tests: testdata/mysqlclient/*.sql run through the real mysql client
// (mysqlclient_test.go); crash_test.go kills a server process with
// SIGKILL after acknowledged commits.
//
// A database lives in the folder .verso/ of its directory (package
// verso's layout.go): .verso/chunks/ is the chunk store and .verso/HEAD
// names the current branch. The commands find the database in the current
// folder or the nearest parent folder that has one.
//
// Author identity (init's first commit): the flags --name and --email, else
// the environment variables VERSO_AUTHOR_NAME and VERSO_AUTHOR_EMAIL, else
// the login name of the current user and <login>@localhost.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// version is the release of this build; release builds set it with
// -ldflags "-X main.version=v1.2.3". Development builds report the module
// version recorded by the Go toolchain, if any.
var version = ""

func main() {
	// The engine logs a few lines through logrus's standard logger (an
	// invalid DECIMAL in a CAST, say): in the commands' own format on
	// stderr, warnings and errors only. sql-server routes it into its log
	// at its --log-level.
	sqlserver.ForwardLogrus(logrus.StandardLogger(), slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	dir := ""
	for len(args) >= 2 && args[0] == "-C" {
		dir, args = joinDir(dir, args[1]), args[2:]
	}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "verso %s\nstorage format %d (table files %d, commits %d)\n", moduleVersion(), verso.FormatVersion, verso.TableFormatVersion, verso.CommitFormatVersion)
		return 0
	case "init":
		return runInit(dir, args[1:], stdout, stderr)
	case "log":
		return runLog(dir, args[1:], stdout, stderr)
	case "diff":
		return runDiff(dir, args[1:], stdout, stderr)
	case "sql-server":
		return runSQLServer(dir, args[1:], stdout, stderr)
	case "status", "add", "commit", "branch", "checkout", "merge", "tag", "reset":
		return vcsCommands[args[0]](dir, args[1:], stdout, stderr)
	case "sql":
		return runSQL(dir, args[1:], os.Stdin, stdout, stderr)
	case "fsck":
		return runFsck(dir, args[1:], stdout, stderr)
	case "gc":
		return runGC(dir, args[1:], stdout, stderr)
	case "help", "--help", "-h":
		if len(args) > 1 && args[1] == "versioning" {
			fmt.Fprint(stdout, versioningHelp)
			return 0
		}
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "verso: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: verso [-C dir] <command> [arguments]

commands:
  version   print the program's version and its storage format version
  init      create a database with a first empty commit on main
            verso init [--branch main] [--name N] [--email E] [dir]
  log       print the history of a revision (default HEAD)
            verso log [--oneline] [--graph] [-n N] [revision]
  diff      print the rows added, removed and changed between two revisions
            verso diff [from [to]] [table]   (default: HEAD against the working set)
  sql-server
            serve the database (or every database of --data-dir) over the
            MySQL protocol until interrupted
            verso sql-server [--config FILE] [-H|--host 127.0.0.1] [-P|--port 3306]
                             [--data-dir D] [-u|--user root] [-p|--password P]
                             [--max-connections N] [--back-log N]
                             [--max-connections-timeout 1m] [-t|--timeout 8h|SECONDS]
                             [--read-timeout D] [--write-timeout D]
                             [--secure-file-priv DIR|NULL]
                             [--connect-timeout 10s] [--max-query-memory 1G]
                             [-l|--log-level debug|info|warn|error] [-f|--logformat text|json]
                             [-r|--readonly] [--no-auto-commit] [--auto-gc=false]
                             [--socket PATH] [--tls-cert F --tls-key F] [--tls-ca F]
                             [--no-tls] [--require-secure-transport]
                             [--doltcfg-dir DIR] [--privilege-file F]
            The config file (YAML, Dolt's names; flags override it; every
            key is in cmd/verso/config.go):
              data_dir: D                  # relative to the file's folder
              user: {name: root, password: P}
              listener: {host: H, port: N, socket: PATH, max_connections: N,
                         back_log: N, read_timeout_millis: N,
                         write_timeout_millis: N, connect_timeout_millis: N,
                         tls_cert: F, tls_key: F, require_secure_transport: B}
              behavior: {read_only: B, autocommit: B, max_query_memory: 1G}
              secure_file_priv: DIR        # or NULL; MySQL's name
              log_level: info              # debug: every connection and statement
            Without a password, only a loopback --host is allowed. TLS uses
            a certificate made in .verso-tls of the data dir unless one is
            given (or --no-tls); on a loopback host the server also listens
            on /tmp/mysql.sock when no other server does.
            LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE need the FILE
            privilege and reach only the folder of --secure-file-priv
            (default: .verso-files of the data dir); NULL disables them.
  status, add, commit, branch, checkout, merge, tag, reset
            Git-style versioning, as the SQL procedures dolt_add, ... with
            the same arguments: verso commit -am "msg", verso checkout -b b
            (see "verso help versioning")
  sql       run SQL against the database of the current folder (or the
            databases of --data-dir): -q "QUERY", or a script on stdin
            verso sql [-q QUERY] [-r table|csv|json] [--data-dir D] [< script.sql]
  fsck      check the database: every chunk present and matching its address,
            and every commit, closure, table, index, event log and schema
            object the branches, tags and working sets reach, and the users
            file; prints each problem and exits 1 if there is any
            (read-only: runs beside a server)
            verso fsck [--quick]   (--quick: the chunks only)
  gc        collect garbage: drop every chunk no branch, tag, working set
            or commit reaches, and return the space (a running server
            does it online: CALL dolt_gc())
            verso gc [--shallow|--full]   (--shallow: compact the journal only)
  help      print this message

-C dir runs the command as if started in dir. Author identity: --name and
--email, else $VERSO_AUTHOR_NAME and $VERSO_AUTHOR_EMAIL, else the login name.
`)
}

func moduleVersion() string {
	if version != "" {
		return version
	}
	return verso.Version()
}
