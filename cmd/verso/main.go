// Command verso is the command-line program of the verso database.
//
// Usage:
//
//	verso [-C dir] <command> [arguments]
//
// The commands are listed in cli.go (cliCommands), which dispatches them
// with cobra; verso help lists them and verso <command> --help describes
// one. -C dir runs the command as if started in dir.
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
// take from it. remote, clone, fetch, pull and push are the engine's
// remotes, as Dolt's commands of those names behave (remote.go, push.go,
// fetch.go), with a progress line on a terminal (transfer.go).
//
// Only one process writes a database: a server holds its store's lock.
// The commands that read (log, diff, status, fsck, branch and tag without
// arguments, ls, show, ...) open the store read-only, which needs no lock:
// a snapshot of its last commit, readable while a server writes. sql opens
// it for writing; when a running server holds it, sql sends its
// statements to that server (sqlremote.go), and when another process
// without a server holds it, queries read it and a statement that writes
// fails with MySQL's 1290. The commands that write through a procedure
// run it through the server that holds the database (serverinfo.go); the
// others say to run their SQL through the server (or to stop it).
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

// moduleVersion is this build's version: the release's, else the one
// the Go toolchain recorded.
func moduleVersion() string {
	if version != "" {
		return version
	}
	return verso.Version()
}
