// Command versobench-size says where a database's bytes go: it opens the
// database in the folder given (read-only, so it runs beside a server)
// and prints verso.DB.Usage: the chunks and on-disk bytes of each kind of
// thing the refs reach (commits, closures, root values, tables' rows and
// indexes, the event log, working sets, refs), of what nothing reaches
// (garbage), and the files' framing (root records, table indexes).
//
//	go run ./cmd/versobench-size DIR
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/verso-db/verso"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: versobench-size DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "versobench-size:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	db, err := verso.Open(dir, verso.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.Usage(context.Background())
	if err != nil {
		return err
	}
	n := float64(max(u.Commits, 1))
	fmt.Printf("%s: %d commits, %.1f MB of files (%.0f bytes a commit)\n\n", dir, u.Commits, float64(u.Files)/1e6, float64(u.Files)/n)
	fmt.Println("| kind | chunks | bytes | bytes a commit | share |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	row := func(k string, chunks int, b int64) {
		fmt.Printf("| %s | %d | %d | %.0f | %.1f%% |\n", k, chunks, b, float64(b)/n, 100*float64(b)/float64(max(u.Files, 1)))
	}
	for _, k := range u.Kinds {
		row(k.Name, k.Chunks, k.Bytes)
	}
	row("garbage (nothing reaches it)", u.Garbage.Chunks, u.Garbage.Bytes)
	row("framing (journal root records, table indexes and footers)", 0, u.Framing)
	return nil
}
