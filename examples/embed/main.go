// Command embed is a Go program that embeds verso as a library: it opens
// (or makes) a database folder, writes a row in a transaction, commits it
// to the history and prints the log, then reads the same database through
// the database/sql driver. It is built and tested as a module of
// its own, outside verso's, so it uses only what a user's program can.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/driver"
)

func main() {
	dir := ".embed-data"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(context.Background(), dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run counts visits in the database of dir and prints its history.
func run(ctx context.Context, dir string, out io.Writer) error {
	db, err := verso.Open(dir, verso.Options{})
	if err != nil {
		if db, err = verso.Init(dir, verso.Options{}); err != nil {
			return err
		}
	}
	defer db.Close()
	txn, err := db.Begin(ctx, "")
	if err != nil {
		return err
	}
	if _, err := txn.Table(ctx, "visits"); err != nil {
		err := txn.CreateTable(ctx, "visits", &verso.Schema{
			Columns: []verso.Column{
				{Name: "id", Type: "int", Kind: verso.KindInt},
				{Name: "n", Type: "int", Kind: verso.KindInt},
			},
			PrimaryKey: []int{0},
		})
		if err != nil {
			return err
		}
	}
	n := int64(0)
	if row, ok, err := txn.Get(ctx, "visits", verso.Int(1)); err != nil {
		return err
	} else if ok {
		n = row[1].AsInt()
	}
	if err := txn.Put(ctx, "visits", verso.Int(1), verso.Int(n+1)); err != nil {
		return err
	}
	me := verso.Signature{Name: "embed", Email: "embed@example.com"}
	if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprintf("visit %d", n+1), Author: me, StageAll: true}); err != nil {
		return err
	}
	log, err := db.Log(ctx, "", 0)
	if err != nil {
		return err
	}
	for _, c := range log {
		fmt.Fprintln(out, c.Meta.Message)
	}

	// The same database through SQL, in process.
	c, err := driver.NewConnector(db, driver.Config{CommitName: "embed", CommitEmail: "embed@example.com"})
	if err != nil {
		return err
	}
	sdb := sql.OpenDB(c)
	defer sdb.Close()
	var visits int64
	if err := sdb.QueryRowContext(ctx, "SELECT n FROM visits WHERE id = 1").Scan(&visits); err != nil {
		return err
	}
	var commits int64
	if err := sdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM dolt_log").Scan(&commits); err != nil {
		return err
	}
	fmt.Fprintf(out, "SQL: %d visits, %d commits\n", visits, commits)
	return nil
}
