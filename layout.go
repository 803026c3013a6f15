package verso

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// The layout of a database folder: this file is its one owner (the SQL
// server's data dir and the command-line program both go through it).
//
//	<dir>/.verso/          the database
//	<dir>/.verso/chunks/   the chunk store (chunks.FileStore)
//	<dir>/.verso/HEAD      the default branch's name and a newline
//	<dir>/.verso/redo-0.log, redo-1.log
//	                       the redo log: row changes the chunk store may
//	                       not hold durably yet (redolog.go)
//
// A data dir of the server holds database folders; a folder's name is its
// database's. The server keeps its own files beside them in folders whose
// names begin with '.' (.verso-users, .verso-files).
const (
	// RepoDir is the folder of a database inside its directory.
	RepoDir = ".verso"
	// StoreDir is the folder of the chunk store inside RepoDir.
	StoreDir = "chunks"
	headFile = "HEAD"
)

// The versions of the formats this build writes: the chunk store's
// journal and manifest (chunks.FormatVersion), its table files
// (chunks.TableFormatVersion) and commit chunks
// (commitgraph.CommitFormatVersion). It reads every earlier version.
const (
	FormatVersion       = chunks.FormatVersion
	TableFormatVersion  = chunks.TableFormatVersion
	CommitFormatVersion = commitgraph.CommitFormatVersion
)

// IsDatabase reports whether dir holds a database (dir/.verso/chunks).
func IsDatabase(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, RepoDir, StoreDir))
	return err == nil && fi.IsDir()
}

// FindDatabase returns dir, or its nearest parent folder, that holds a
// database.
func FindDatabase(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if IsDatabase(d) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w in %s or any parent folder (run verso init)", ErrNoDatabase, abs)
		}
	}
}

// Init makes a new database in dir (created if missing): its folder, a
// first commit on opts.DefaultBranch (main if empty) by opts.Author, and
// opens it. It fails with ErrBadName for a branch name not allowed, and
// with ErrExists if dir holds a database already.
func Init(dir string, opts Options) (*DB, error) {
	branch := opts.DefaultBranch
	if branch == "" {
		branch = commitgraph.DefaultBranch
	}
	if err := commitgraph.CheckName(branch); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, RepoDir)); err == nil {
		return nil, fmt.Errorf("%w: %s holds %s", ErrExists, abs, RepoDir)
	}
	if err := os.MkdirAll(filepath.Join(abs, RepoDir), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(abs, RepoDir, headFile), []byte(branch+"\n"), 0o644); err != nil {
		os.RemoveAll(filepath.Join(abs, RepoDir))
		return nil, err
	}
	db, err := Open(abs, opts)
	if err != nil {
		os.RemoveAll(filepath.Join(abs, RepoDir))
		return nil, err
	}
	return db, nil
}

// Open opens the database in dir, which Init made. The database's name is
// dir's base name unless opts.Name gives one. A database folder whose
// store holds no commit yet (made by hand, or by an Init that crashed)
// gets its first commit. Only one process may open a database at a time
// (chunks.FileStore's lock).
func Open(dir string, opts Options) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(abs)
	}
	if _, err := os.Stat(filepath.Join(abs, RepoDir)); err != nil {
		return nil, fmt.Errorf("%w in %s (run verso init)", ErrNoDatabase, abs)
	}
	cs, err := chunks.OpenFileStore(filepath.Join(abs, RepoDir, StoreDir), chunks.Options{ReadOnly: opts.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("opening database %q: %w", name, err)
	}
	branch := commitgraph.DefaultBranch
	if b, err := os.ReadFile(filepath.Join(abs, RepoDir, headFile)); err == nil {
		if h := strings.TrimSpace(string(b)); h != "" {
			branch = h
		}
	}
	db, err := newDB(name, abs, cs, branch, opts)
	if err != nil {
		cs.Close()
		return nil, fmt.Errorf("opening database %q: %w", name, err)
	}
	return db, nil
}

// OpenMemory returns a new database held in memory (chunks.MemoryStore),
// with a first commit on opts.DefaultBranch (main if empty): for tests and
// temporary data. Close drops it.
func OpenMemory(name string, opts Options) (*DB, error) {
	branch := opts.DefaultBranch
	if branch == "" {
		branch = commitgraph.DefaultBranch
	}
	return newDB(name, "", chunks.NewMemoryStore(), branch, opts)
}

// SetDefaultBranch makes branch the database's default branch: the one
// .verso/HEAD names, which Begin("") and new sessions use.
func (db *DB) SetDefaultBranch(ctx context.Context, branch string) error {
	if _, err := db.graph.Head(ctx, branch); err != nil {
		return err
	}
	if db.dir != "" {
		if err := writeFileSynced(filepath.Join(db.dir, RepoDir, headFile), []byte(branch+"\n")); err != nil {
			return err
		}
	}
	db.mu.Lock()
	db.branch = branch
	db.mu.Unlock()
	return nil
}

// writeFileSynced replaces the file name with data: it writes a
// temporary file beside it, syncs it and renames it over name.
func writeFileSynced(name string, data []byte) error {
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

// initMeta is the metadata of a database's first commit, by author
// (verso's own name if empty).
func initMeta(author Signature) commitgraph.Meta {
	if author == (Signature{}) {
		author = commitgraph.Signature{Name: "verso", Email: "verso@localhost"}
	}
	return commitgraph.Meta{Author: author, Message: "Initialize data repository"}
}

// OpenStore returns the database over the chunk store cs (a store of the
// caller's making: a memory store, a wrapped file store), giving a store
// without refs its first commit on opts.DefaultBranch (main if empty).
// Close closes cs if it has a Close method.
func OpenStore(name string, cs chunks.Store, opts Options) (*DB, error) {
	branch := opts.DefaultBranch
	if branch == "" {
		branch = commitgraph.DefaultBranch
	}
	return newDB(name, "", cs, branch, opts)
}
