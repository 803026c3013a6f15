package main

import (
	"github.com/schollz/progressbar/v3"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/server"
)

// runFsck is verso fsck [--quick]: the engine's DB.Check over the database
// opened read-only (so it runs beside a server), and, unless --quick, the
// users files a server of the database reads (server.CheckUsersFile);
// each problem on a line of stdout, then a summary. It exits 1 on any problem, a store that cannot be
// opened for its damage included, and 2 on a usage error. A progress line
// goes to stderr when stderr is a terminal.
func runFsck(dir string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fsck", cliContext{stdout: stdout, stderr: stderr})
	quick := fs.Bool("quick", false, "check only that every chunk of the store is present and matches its address")
	if _, code, ok := parseFlags(fs, args, 0); !ok {
		return code
	}
	db, err := openDB(dir, true)
	if err != nil {
		if isDamage(err) {
			fmt.Fprintf(stdout, "open: %v\n1 problem: the store cannot be opened\n", err)
		} else {
			fmt.Fprintf(stderr, "verso fsck: %v\n", err)
		}
		return 1
	}
	defer db.Close()
	opts := verso.CheckOptions{Quick: *quick}
	if isTerminal(stderr) {
		var bar *progressbar.ProgressBar
		opts.Progress = func(done, total int) {
			if bar == nil {
				bar = progress(stderr, int64(total), "checking", "chunks")
			}
			bar.Set(done)
			if done == total {
				bar.Finish()
			}
		}
	}
	rep, err := db.Check(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "verso fsck: %v\n", err)
		return 1
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, p)
	}
	if rep.More > 0 {
		fmt.Fprintf(stdout, "... and %d more\n", rep.More)
	}
	count := rep.Count()
	if !*quick {
		for _, path := range usersFiles(db.Dir()) {
			if err := server.CheckUsersFile(path); err != nil {
				fmt.Fprintf(stdout, "users file: %v\n", err)
				count++
			}
		}
	}
	what := fmt.Sprintf("checked %d chunks", rep.Chunks)
	if !*quick {
		what = fmt.Sprintf("checked %d commits, %d tables, %d chunks", rep.Commits, rep.Tables, rep.Chunks)
	}
	switch n := count; n {
	case 0:
		fmt.Fprintf(stdout, "%s: no problems\n", what)
		return 0
	case 1:
		fmt.Fprintf(stdout, "%s: 1 problem\n", what)
	default:
		fmt.Fprintf(stdout, "%s: %d problems\n", what, n)
	}
	return 1
}

// usersFiles returns the users files a server would read for the database
// in dir: its own (.verso/users, served alone) and its data dir's
// (.verso-users in the parent folder), those that exist.
func usersFiles(dir string) []string {
	var out []string
	for _, p := range []string{filepath.Join(dir, repoDir, "users"), filepath.Join(filepath.Dir(dir), usersFileName)} {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// isDamage reports whether an open failed on the store's bytes (a
// checksum, a format or a version) rather than for want of a database.
func isDamage(err error) bool {
	return errors.Is(err, verso.ErrCorrupt) || errors.Is(err, verso.ErrVersion)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
