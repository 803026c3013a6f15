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
	p, err := openProvider(dir, *dataDir)
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
	fmt.Fprintf(stdout, "verso sql-server listening on %s\n", s.Addr())
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

// openProvider opens the databases to serve (see runSQLServer).
func openProvider(dir, dataDir string) (*sqlserver.Provider, error) {
	if dataDir != "" {
		return sqlserver.NewProvider(joinDir(dir, dataDir))
	}
	root, err := findRepoRoot(dir)
	if err != nil {
		return nil, err
	}
	p, err := sqlserver.NewProvider(root)
	if err != nil {
		return nil, err
	}
	if err := p.AddDatabaseDir(filepath.Base(root), root); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

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
			return "", errors.New("no verso database in " + abs + " or any parent folder (run verso init, or give --data-dir)")
		}
	}
}
