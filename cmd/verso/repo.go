package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// The layout of a database folder:
//
//	<dir>/.verso/          the database
//	<dir>/.verso/chunks/   the chunk store (chunks.FileStore)
//	<dir>/.verso/HEAD      the current branch's name and a newline
const (
	repoDir  = ".verso"
	storeDir = "chunks"
	headFile = "HEAD"
	envName  = "VERSO_AUTHOR_NAME"
	envEmail = "VERSO_AUTHOR_EMAIL"
)

// joinDir resolves d against base, as -C does.
func joinDir(base, d string) string {
	if base == "" || filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(base, d)
}

// repo is an open database.
type repo struct {
	root   string // the folder holding .verso
	store  *chunks.FileStore
	db     *commitgraph.DB
	branch string // the current branch
}

// findRepo opens the database in dir or its nearest parent that has one,
// read-only: for commands that only read (a snapshot, which a server
// writing the database meanwhile does not stop; see chunks' read-only
// open).
func findRepo(dir string) (*repo, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, repoDir, storeDir)); err == nil && fi.IsDir() {
			return openRepoWith(d, chunks.Options{ReadOnly: true})
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("no verso database in %s or any parent folder (run verso init)", abs)
		}
	}
}

// openRepo opens the database in root for writing.
func openRepo(root string) (*repo, error) { return openRepoWith(root, chunks.Options{}) }

func openRepoWith(root string, opts chunks.Options) (*repo, error) {
	cs, err := chunks.OpenFileStore(filepath.Join(root, repoDir, storeDir), opts)
	if err != nil {
		return nil, err
	}
	r := &repo{root: root, store: cs, db: commitgraph.New(cs), branch: commitgraph.DefaultBranch}
	if b, err := os.ReadFile(filepath.Join(root, repoDir, headFile)); err == nil {
		if name := strings.TrimSpace(string(b)); name != "" {
			r.branch = name
		}
	}
	return r, nil
}

func (r *repo) Close() error { return r.store.Close() }

// heldElsewhere explains a store's ErrLocked to a command that writes:
// another process, most likely a running verso sql-server, holds the
// database for writing, and what to run through it instead (sqlForm).
func heldElsewhere(err error, sqlForm string) error {
	if !errors.Is(err, chunks.ErrLocked) {
		return err
	}
	return fmt.Errorf("another process (a running verso sql-server?) holds the database for writing; run %s through that server, or stop it first (%w)", sqlForm, err)
}

// identity returns the author: flags, then environment, then the login.
func identity(name, email string) commitgraph.Signature {
	if name == "" {
		name = os.Getenv(envName)
	}
	if email == "" {
		email = os.Getenv(envEmail)
	}
	login := "verso"
	if u, err := user.Current(); err == nil && u.Username != "" {
		login = u.Username
	}
	if name == "" {
		name = login
	}
	if email == "" {
		email = login + "@localhost"
	}
	return commitgraph.Signature{Name: name, Email: email}
}

// parseArgs parses flags and positional arguments in any order.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runInit(dir string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	branch := fs.String("branch", commitgraph.DefaultBranch, "name of the first branch")
	name := fs.String("name", "", "author name (default $"+envName+" or the login name)")
	email := fs.String("email", "", "author email (default $"+envEmail+" or <login>@localhost)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		fmt.Fprintln(stderr, "verso init: at most one folder")
		return 2
	}
	target := dir
	if len(pos) == 1 {
		target = joinDir(dir, pos[0])
	}
	if target == "" {
		target = "."
	}
	if err := commitgraph.CheckName(*branch); err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	if _, err := os.Stat(filepath.Join(target, repoDir)); err == nil {
		fmt.Fprintf(stderr, "verso init: %s already holds a database (%s)\n", target, filepath.Join(target, repoDir))
		return 1
	}
	if err := os.MkdirAll(filepath.Join(target, repoDir), 0o755); err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	r, err := openRepo(target)
	if err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	defer r.Close()
	c, err := r.db.Init(context.Background(), *branch, commitgraph.Meta{Author: identity(*name, *email), Message: "Initialize data repository"})
	if err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(target, repoDir, headFile), []byte(*branch+"\n"), 0o644); err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	abs, _ := filepath.Abs(target)
	fmt.Fprintf(stdout, "Initialized empty verso database in %s\ncommit %s on branch %s\n", filepath.Join(abs, repoDir), c.Addr, *branch)
	return 0
}
