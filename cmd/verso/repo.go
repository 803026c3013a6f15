package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// A database lives in the folder .verso of its directory; package verso
// owns the layout (its layout.go), and the names are its.
const (
	repoDir  = verso.RepoDir
	storeDir = verso.StoreDir
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

// openDB opens the database of dir or of its nearest parent that has one:
// read-only for the commands that only read (a snapshot, which a server
// writing the database meanwhile does not stop), else for writing, which
// needs the database to itself (verso.ErrLocked while a server holds it).
//
// Its tables are opened with the SQL layer's collations, the sort keys
// of the string columns declared with a collation other than a binary one:
// the engine knows none of its own, and without them a diff or merge of
// such a table fails.
func openDB(dir string, readOnly bool) (*verso.DB, error) {
	root, err := verso.FindDatabase(dir)
	if errors.Is(err, verso.ErrNoDatabase) {
		abs, _ := filepath.Abs(cmp.Or(dir, "."))
		return nil, fmt.Errorf("no verso database in %s or any parent folder (run verso init)", abs)
	}
	if err != nil {
		return nil, err
	}
	return verso.Open(root, verso.Options{ReadOnly: readOnly, Collations: sqlserver.Collations()})
}

// heldElsewhere explains an open's verso.ErrLocked to a command that
// writes: another process, most likely a running verso sql-server, holds
// the database for writing, and what to run through it instead (sqlForm).
func heldElsewhere(err error, sqlForm string) error {
	if !errors.Is(err, verso.ErrLocked) {
		return err
	}
	return fmt.Errorf("another process (a running verso sql-server?) holds the database for writing; run %s through that server, or stop it first (%w)", sqlForm, err)
}

// identity returns the author of the commands run in dir: flags, then
// environment, then the settings (verso config: the database's, then the
// user's user.name and user.email), then the login. dir "" reads the
// user's settings only.
func identity(dir, name, email string) verso.Signature {
	if name == "" {
		name = cmp.Or(os.Getenv(envName), configValue(dir, "user.name"))
	}
	if email == "" {
		email = cmp.Or(os.Getenv(envEmail), configValue(dir, "user.email"))
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
	return verso.Signature{Name: name, Email: email}
}

func runInit(dir string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("init", cliContext{stdout: stdout, stderr: stderr})
	branch := fs.String("branch", "main", "name of the first branch")
	name := fs.String("name", "", "author name (default $"+envName+" or the login name)")
	email := fs.String("email", "", "author email (default $"+envEmail+" or <login>@localhost)")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	target := dir
	if len(pos) == 1 {
		target = joinDir(dir, pos[0])
	}
	if target == "" {
		target = "."
	}
	db, err := verso.Init(target, verso.Options{DefaultBranch: *branch, Author: identity(target, *name, *email)})
	if errors.Is(err, verso.ErrExists) {
		fmt.Fprintf(stderr, "verso init: %s already holds a database (%s)\n", target, filepath.Join(target, repoDir))
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	defer db.Close()
	first, err := db.Log(context.Background(), "", 1)
	if err != nil {
		fmt.Fprintf(stderr, "verso init: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Initialized empty verso database in %s\ncommit %s on branch %s\n", filepath.Join(db.Dir(), repoDir), first[0].Addr, *branch)
	return 0
}
