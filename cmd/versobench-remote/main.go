// Command versobench-remote builds the fixtures of the remotes benchmark
// (scripts/remote-bench.sh) and profiles verso's side of a transfer.
//
//	versobench-remote history -n 10000 -dir DIR -sql FILE
//
// writes the history fixture of the history benchmark (package histgen,
// with cmd/versobench-history's options: a table t of 8 rows, each commit
// changing a few; every 50 commits a side branch of 3 commits merged
// back; seed 1) into a new verso database in DIR, through the Go API, and
// the same history as SQL statements in FILE (histgen.SQL: Dolt's
// version-control procedures), for `dolt sql < FILE` in a new Dolt
// database. The working set of DIR is left at the first commit's: run
// `verso reset --hard` before writing to it.
//
//	versobench-remote stored DIR
//
// prints the bytes of the database folder DIR/.verso as du -sb counts
// them, but with each journal file counted up to the end of its records:
// the zeros the store writes ahead of them (up to 8 MiB, its reserve:
// chunks/reserve.go) are not data. It opens the store read-only.
//
//	versobench-remote profile -cpuprofile FILE push|clone|fetch ARGS
//
// runs one transfer through the Go API (verso.Push, verso.Clone,
// verso.Fetch) with a CPU profile of it, and prints its time and what it
// copied:
//
//	push  DIR REMOTE BRANCH   (DIR's remote REMOTE, branch BRANCH to BRANCH)
//	clone URL DIR
//	fetch DIR REMOTE
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/remotes"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "history":
		err = history(os.Args[2:])
	case "profile":
		err = profile(os.Args[2:])
	case "stored":
		if len(os.Args) != 3 {
			usage()
		}
		err = stored(os.Args[2])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "versobench-remote:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: versobench-remote history -n N -dir DIR -sql FILE\n       versobench-remote stored DIR\n       versobench-remote profile -cpuprofile FILE push DIR REMOTE BRANCH | clone URL DIR | fetch DIR REMOTE")
	os.Exit(2)
}

func history(args []string) error {
	fs := flag.NewFlagSet("history", flag.ExitOnError)
	n := fs.Int("n", 10000, "commits")
	rows := fs.Int("rows", 8, "rows t starts with")
	dir := fs.String("dir", "", "folder of the new verso database")
	sqlFile := fs.String("sql", "", "file for the SQL script of the same history")
	fs.Parse(args)
	if *dir == "" || *sqlFile == "" {
		usage()
	}
	ctx := context.Background()
	db, err := verso.Init(*dir, verso.Options{Author: verso.Signature{Name: "versobench", Email: "versobench@localhost"}})
	if err != nil {
		return err
	}
	start := time.Now()
	h, err := histgen.Build(ctx, db.Graph(), histgen.Options{Commits: *n, Rows: *rows, Seed: 1, BranchEvery: 50, BranchLen: 3, RefsEvery: 10000})
	if err != nil {
		db.Close()
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	fmt.Printf("verso: %d commits written in %s\n", len(h.Commits), time.Since(start).Round(time.Millisecond))
	script, err := histgen.SQL(h.Ops)
	if err != nil {
		return err
	}
	f, err := os.Create(*sqlFile)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, st := range script {
		for _, s := range st {
			w.WriteString(s)
			w.WriteString(";\n")
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func profile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ExitOnError)
	out := fs.String("cpuprofile", "", "write a CPU profile of the transfer here")
	fs.Parse(args)
	a := fs.Args()
	if len(a) < 1 {
		usage()
	}
	ctx := context.Background()
	// The transfer calls its progress function after each round of reads
	// (a level of the walk) and at the end.
	rounds := 0
	progress := func(remotes.Progress) { rounds++ }
	var run func() (remotes.Progress, error)
	switch {
	case a[0] == "push" && len(a) == 4:
		db, err := verso.Open(a[1], verso.Options{})
		if err != nil {
			return err
		}
		defer db.Close()
		run = func() (remotes.Progress, error) {
			r, err := db.Push(ctx, a[2], a[3], a[3], verso.PushOptions{Progress: progress})
			return r.Copied, err
		}
	case a[0] == "clone" && len(a) == 3:
		run = func() (remotes.Progress, error) {
			var p remotes.Progress
			db, err := verso.Clone(ctx, a[1], a[2], verso.CloneOptions{Progress: func(q remotes.Progress) { p = q; progress(q) }})
			if err == nil {
				err = db.Close()
			}
			return p, err
		}
	case a[0] == "fetch" && len(a) == 3:
		db, err := verso.Open(a[1], verso.Options{})
		if err != nil {
			return err
		}
		defer db.Close()
		run = func() (remotes.Progress, error) {
			r, err := db.Fetch(ctx, a[2], verso.FetchOptions{Progress: progress})
			return r.Copied, err
		}
	default:
		return errors.New("profile: want push DIR REMOTE BRANCH, clone URL DIR or fetch DIR REMOTE, not " + strings.Join(a, " "))
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	p, err := run()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s, %d chunks, %d bytes (uncompressed), %d rounds of reads\n", a[0], time.Since(start).Round(time.Millisecond), p.Chunks, p.Bytes, max(rounds-1, 0))
	return nil
}

func stored(dir string) error {
	repo := filepath.Join(dir, verso.RepoDir)
	var n int64
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".journal") {
			return nil // counted below, to the end of its records
		}
		n += fi.Size() // directories too, as du -sb counts them
		return nil
	})
	if err != nil {
		return err
	}
	cs, err := chunks.OpenFileStore(filepath.Join(repo, verso.StoreDir), chunks.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	n += cs.Stats().JournalBytes
	if err := cs.Close(); err != nil {
		return err
	}
	fmt.Println(n)
	return nil
}
