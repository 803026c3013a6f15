package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/bytesize"
)

// runGC is verso gc [--shallow|--full]: the engine's DB.GC over the
// database, which needs it to itself (a running server answers CALL
// dolt_gc() instead). It prints what it did; it exits 1 on failure and 2
// on a usage error.
func runGC(dir string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gc", cliContext{stdout: stdout, stderr: stderr})
	shallow := fs.BoolP("shallow", "s", false, "fold the journal into table files only, dropping nothing")
	full := fs.BoolP("full", "f", false, "collect everything nothing reaches (what gc does without flags: verso keeps one generation)")
	if _, code, ok := parseFlags(fs, args, 0); !ok {
		return code
	}
	switch {
	case *shallow && *full:
		fmt.Fprintln(stderr, "verso gc: give --shallow or --full, not both")
		return 2
	}
	db, err := openDB(dir, false)
	if err != nil {
		fmt.Fprintf(stderr, "verso gc: %v\n", heldElsewhere(err, "CALL dolt_gc()"))
		return 1
	}
	defer db.Close()
	opts := verso.GCOptions{Shallow: *shallow}
	if isTerminal(stderr) {
		// A bar per phase: reading what is live, then copying it.
		var bar *progressbar.ProgressBar
		phase := ""
		opts.Progress = func(p string, done, total int) {
			if p != phase {
				if bar != nil {
					bar.Finish()
				}
				phase, bar = p, progress(stderr, int64(total), map[string]string{"mark": "marking", "copy": "copying"}[p], "chunks")
			}
			bar.Set(done)
		}
		defer func() {
			if bar != nil {
				bar.Finish()
			}
		}()
	}
	rep, err := db.GC(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "verso gc: %v\n", err)
		return 1
	}
	if *shallow {
		fmt.Fprintf(stdout, "compacted: %s -> %s in %s\n", bytesize.Format(uint64(rep.BytesBefore)), bytesize.Format(uint64(rep.BytesAfter)), rep.Took.Round(time.Millisecond))
		return 0
	}
	fmt.Fprintf(stdout, "collected: %s -> %s, kept %d of %d chunks, in %s\n",
		bytesize.Format(uint64(rep.BytesBefore)), bytesize.Format(uint64(rep.BytesAfter)), rep.ChunksAfter, rep.ChunksBefore, rep.Took.Round(time.Millisecond))
	return 0
}
