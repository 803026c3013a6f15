package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/verso-db/verso/sqlserver"
)

// runSQLServer serves databases over the MySQL protocol until interrupted.
// With --data-dir it serves every database folder of that folder; without,
// the database of the current folder (or its nearest parent with one),
// under the folder's name, and CREATE DATABASE makes sub-folders of it.
func runSQLServer(dir string, args []string, stdout, stderr io.Writer) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	return serveSQL(dir, args, stdout, stderr, sig)
}

// serveSQL is runSQLServer, stopping when stop receives.
func serveSQL(dir string, args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("sql-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 3306, "port to listen on")
	dataDir := fs.String("data-dir", "", "serve every database folder in this folder")
	timeout := fs.Duration("timeout", sqlserver.DefaultConnTimeout, "read and write timeout of client connections")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "verso sql-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	p, serving, err := openProvider(dir, *dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	defer p.Close()
	s, err := sqlserver.NewServer(p, sqlserver.ServerConfig{
		Address:     net.JoinHostPort(*host, strconv.Itoa(*port)),
		ReadTimeout: *timeout, WriteTimeout: *timeout,
	})
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "verso sql-server listening on %s\nserving %s\n", s.Addr(), serving)
	done := make(chan error, 1)
	go func() { done <- s.Start() }()
	select {
	case <-stop:
		s.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return 0
	case err := <-done:
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
			return 1
		}
		return 0
	}
}

// openProvider opens the databases to serve (see runSQLServer). Without a
// data dir and outside any database, it serves the current folder as the
// data dir, as Dolt does: each database folder in it is a database, and
// CREATE DATABASE makes new ones there. A data dir that does not exist yet
// is created.
func openProvider(dir, dataDir string) (p *sqlserver.Provider, serving string, err error) {
	if dataDir != "" {
		d := joinDir(dir, dataDir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, "", fmt.Errorf("create the data dir: %w", err)
		}
		p, err := sqlserver.NewProvider(d)
		return p, "the databases in " + d, err
	}
	root, err := findRepoRoot(dir)
	if errors.Is(err, errNoRepo) {
		if dir == "" {
			dir = "."
		}
		abs, _ := filepath.Abs(dir)
		p, err := sqlserver.NewProvider(dir)
		return p, "the databases in " + abs + " (CREATE DATABASE makes one here)", err
	}
	if err != nil {
		return nil, "", err
	}
	p, err = sqlserver.NewProvider(root)
	if err != nil {
		return nil, "", err
	}
	if err := p.AddDatabaseDir(filepath.Base(root), root); err != nil {
		p.Close()
		return nil, "", err
	}
	return p, "the database " + filepath.Base(root) + " in " + root, nil
}

// errNoRepo says that no folder up from the current one holds a database.
var errNoRepo = errors.New("no verso database")

// findRepoRoot returns the folder holding the database of dir or of its
// nearest parent that has one, without opening it.
func findRepoRoot(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, repoDir, storeDir)); err == nil && fi.IsDir() {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w in %s or any parent folder (run verso init, or give --data-dir)", errNoRepo, abs)
		}
	}
}
