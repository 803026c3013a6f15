package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	gmssql "github.com/dolthub/go-mysql-server/sql"
	vtmysql "github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/internal/atomicfile"
)

// The commands that write, beside a running server.
//
// Only one process writes a database, and a running verso sql-server
// holds it. So that the commands that write still work, the server
// writes a file naming its process, its addresses and an account of its
// own for local tools (a superuser localhost, with a random password,
// made at each start and never stored elsewhere):
//
//	{"pid": 1234, "addr": "127.0.0.1:3306", "socket": "/tmp/mysql.sock",
//	 "user": "verso-local", "password": "..."}
//
// in .verso/sql-server.json of a database it serves alone, or in
// .verso-sql-server.json of its data dir (mode 0600: readable by the
// server's user only, who can read the database's files anyway), and
// removes it when it stops. A command that writes (commit, add, branch,
// tag, merge, reset, cherry-pick, revert, conflicts resolve, stash, gc,
// remote add and remove, fetch, pull, push), finding
// the file and the server answering at its address, runs its SQL
// procedure through the server, with the same arguments, and prints the
// procedure's result. checkout, which changes the database's default
// branch, is refused then: a session's branch is the session's own.

// serverInfo is the content of the file.
type serverInfo struct {
	PID      int    `json:"pid"`
	Addr     string `json:"addr"`
	Socket   string `json:"socket,omitempty"`
	User     string `json:"user"`
	Password string `json:"password"`
}

// Names of the file.
const (
	serverInfoFile     = "sql-server.json"        // in a database's .verso folder
	dataDirServerInfo  = ".verso-sql-server.json" // in a data dir
	localToolsUser     = "verso-local"
	localToolsPassword = 18 // random bytes of its password
)

// newLocalPassword returns a random password for the local tools' account.
func newLocalPassword() (string, error) {
	b := make([]byte, localToolsPassword)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// writeServerInfo writes info to path (atomicfile) and returns the
// function that removes it.
func writeServerInfo(path string, info serverInfo) (remove func(), err error) {
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// runningServer returns the server that holds the database of dir, and
// the database's name there; ok is false when no file names one or the
// server it names does not answer (a file left by a server that died).
func runningServer(dir string) (info serverInfo, db string, ok bool) {
	root, err := findRepoRoot(dir)
	if err != nil {
		return serverInfo{}, "", false
	}
	db = filepath.Base(root)
	for _, path := range []string{filepath.Join(root, repoDir, serverInfoFile), filepath.Join(filepath.Dir(root), dataDirServerInfo)} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if json.Unmarshal(b, &info) != nil || info.Addr == "" {
			continue
		}
		c, err := net.DialTimeout("tcp", info.Addr, time.Second)
		if err != nil {
			continue
		}
		c.Close()
		return info, db, true
	}
	return serverInfo{}, "", false
}

// dialServer opens a connection to the server of info, on database db,
// whose session records the command line's author.
func dialServer(dir string, info serverInfo, db string) (*sql.DB, *sql.Conn, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.DBName = info.User, info.Password, db
	cfg.Net, cfg.Addr = "tcp", info.Addr
	if info.Socket != "" {
		if _, err := os.Stat(info.Socket); err == nil {
			cfg.Net, cfg.Addr = "unix", info.Socket
		}
	}
	cfg.MultiStatements = true
	pool, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, nil, err
	}
	// One connection: the session's identity, then the statements. The
	// commits record the command line's author, not the tools' account.
	conn, err := pool.Conn(context.Background())
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	who := identity(dir, "", "")
	if _, err := conn.ExecContext(context.Background(), "SET @@dolt_committer_name = ?, @@dolt_committer_email = ?", who.Name, who.Email); err != nil {
		conn.Close()
		pool.Close()
		return nil, nil, err
	}
	return pool, conn, nil
}

// throughServer runs query on the server that holds the database of
// c.dir, as command name, printing each result set as a table. ok is
// false when no server holds it.
func throughServer(c cliContext, name, query string) (code int, ok bool) {
	info, db, found := runningServer(c.dir)
	if !found {
		return 0, false
	}
	pool, sc, err := dialServer(c.dir, info, db)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso %s: %v\n", name, serverError(err))
		return 1, true
	}
	defer pool.Close()
	defer sc.Close()
	fmt.Fprintf(c.stderr, "(a verso sql-server holds the database: running %s through it, at %s)\n", firstWord(query), info.Addr)
	// verso sql's runner prints the results (sqlremote.go).
	stmt, err := ast.Parse(query)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso %s: %v\n", name, err)
		return 1, true
	}
	out := bufio.NewWriter(c.stdout)
	defer out.Flush()
	r := &sqlRunner{ctx: gmssql.NewEmptyContext(), format: "table", out: out, stderr: c.stderr, remote: sc}
	if err := r.runRemote(query, stmt, false); err != nil {
		fmt.Fprintf(c.stderr, "verso %s: %v\n", name, serverError(err))
		return 1, true
	}
	return 0, true
}

// serverError is the message of a server's error, without the driver's
// "Error 1105 (HY000):" prefix (nor the runner's number).
func serverError(err error) string {
	if me, ok := err.(*mysql.MySQLError); ok {
		return me.Message
	}
	if se, ok := err.(*vtmysql.SQLError); ok {
		return se.Message
	}
	return err.Error()
}

func firstWord(q string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(q), "(")
	return w
}
