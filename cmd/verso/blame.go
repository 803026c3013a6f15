package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/verso-db/verso"
)

// verso blame: for each row of a table at a revision (default HEAD), the
// commit that last wrote it, as dolt blame prints. It follows the first
// parents from the revision: each commit's changes against its first
// parent name the rows that commit wrote, newest first, until every row
// has its commit (a row changed on a merged branch is the merge's, as
// git blame --first-parent has it); rows still unnamed at the first
// commit are that commit's. It reads one diff per commit it passes, and
// stops as soon as every row is named.

func runBlame(c cliContext, args []string) int {
	fs := newFlags("blame", c)
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(c.stderr, "verso blame: give the table (verso blame --help)")
		return 2
	}
	rev, table := "HEAD", pos[0]
	if len(pos) == 2 {
		rev, table = pos[0], pos[1]
	}
	db, err := openDB(c.dir, true)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso blame: %v\n", err)
		return 1
	}
	defer db.Close()
	if err := blame(context.Background(), db, c, rev, table); err != nil {
		fmt.Fprintf(c.stderr, "verso blame: %v\n", err)
		return 1
	}
	return 0
}

func blame(ctx context.Context, db *verso.DB, c cliContext, rev, table string) error {
	txn, err := db.Begin(ctx, "")
	if err != nil {
		return err
	}
	defer txn.Rollback()
	head, err := db.Resolve(ctx, rev, "")
	if err != nil {
		return err
	}
	root, err := txn.RootOf(ctx, head.Addr.String())
	if err != nil {
		return err
	}
	s, ok, err := db.TableSchema(ctx, root, table)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s has no table %q; verso ls %s lists its tables", rev, table, rev)
	}
	if len(s.PrimaryKey) == 0 {
		return fmt.Errorf("table %q has no primary key, so its rows have no identity to follow", table)
	}
	key := func(vals []verso.Value) string {
		parts := make([]string, len(s.PrimaryKey))
		for i, k := range s.PrimaryKey {
			parts[i] = valueCell(s.Columns[k], vals[k])
		}
		return strings.Join(parts, "\x00")
	}
	// The rows at the revision, in key order, then the commits from it.
	var order [][]string
	pending := map[string]bool{}
	named := map[string]*verso.Commit{}
	c0 := head
	for {
		var parentRoot verso.RootValue
		hasParent := len(c0.Parents) > 0
		if hasParent {
			if parentRoot, err = txn.RootOf(ctx, c0.Parents[0].String()); err != nil {
				return err
			}
		}
		croot, err := txn.RootOf(ctx, c0.Addr.String())
		if err != nil {
			return err
		}
		if c0 == head {
			// The first pass lists the revision's rows.
			if err := listRows(ctx, db, head, table, func(vals []verso.Value) {
				k := key(vals)
				pending[k] = true
				cells := make([]string, len(s.PrimaryKey))
				for i, pk := range s.PrimaryKey {
					cells[i] = valueCell(s.Columns[pk], vals[pk])
				}
				order = append(order, append(cells, k))
			}); err != nil {
				return err
			}
		}
		if !hasParent {
			for k := range pending {
				named[k] = c0
			}
			break
		}
		err = db.DiffTable(ctx, parentRoot, croot, table, func(ch verso.RowChange) error {
			if ch.To == nil {
				return nil
			}
			if k := key(ch.To); pending[k] {
				named[k] = c0
				delete(pending, k)
			}
			return nil
		})
		if errors.Is(err, verso.ErrTableNotFound) {
			break
		}
		if err != nil {
			return err
		}
		if len(pending) == 0 {
			break
		}
		if c0, err = db.Resolve(ctx, c0.Parents[0].String(), ""); err != nil {
			return err
		}
	}
	head2 := []string{}
	for _, k := range s.PrimaryKey {
		head2 = append(head2, s.Columns[k].Name)
	}
	grid := [][]string{append(head2, "commit", "commit date", "committer", "message")}
	for _, row := range order {
		k := row[len(row)-1]
		line := append([]string(nil), row[:len(row)-1]...)
		if cm := named[k]; cm != nil {
			subject, _, _ := strings.Cut(cm.Meta.Message, "\n")
			line = append(line, cm.Addr.String(), cm.Meta.Time.UTC().Format("2006-01-02 15:04:05"), cm.Meta.Author.Name, subject)
		} else {
			line = append(line, "", "", "", "")
		}
		grid = append(grid, line)
	}
	printGrid(c.stdout, grid)
	return nil
}

// listRows calls fn with each row of table at commit c, in key order.
func listRows(ctx context.Context, db *verso.DB, c *verso.Commit, table string, fn func([]verso.Value)) error {
	txn, err := db.BeginAt(ctx, c)
	if err != nil {
		return err
	}
	defer txn.Rollback()
	tb, err := txn.Table(ctx, table)
	if err != nil {
		return err
	}
	it := tb.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		fn(it.Row())
	}
	return it.Err()
}

// runReflog prints where the branches and tags have pointed, newest
// first (verso.DB.Reflog): of the current branch, of a ref, or --all.
func runReflog(c cliContext, args []string) int {
	fs := newFlags("reflog", c)
	all := fs.Bool("all", false, "every branch and tag")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	ref := ""
	if len(pos) == 1 {
		ref = pos[0]
	}
	db, err := openDB(c.dir, true)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso reflog: %v\n", err)
		return 1
	}
	defer db.Close()
	ctx := context.Background()
	log, err := db.Reflog(ctx, ref, *all)
	if err != nil {
		fmt.Fprintf(c.stderr, "verso reflog: %v\n", err)
		return 1
	}
	for _, e := range log {
		subject := "(a commit collected since)"
		if cm, err := db.Resolve(ctx, e.Commit.String(), ""); err == nil {
			subject, _, _ = strings.Cut(cm.Meta.Message, "\n")
		}
		ref := e.Ref
		if e.Deleted {
			ref += ", deleted"
		}
		fmt.Fprintf(c.stdout, "%s (%s) %s\n", e.Commit, ref, subject)
	}
	return 0
}

// cliStashList is the stash list of the command line: Dolt's.
const cliStashList = "dolt-cli"

// runStash puts the default branch's changes aside and back (verso's
// stash.go), in the list dolt-cli as Dolt's command line does: stash
// [push] [-m msg], list, apply [n], pop [n], drop [n], clear; n is 0 (the
// newest) or stash@{n}.
func runStash(c cliContext, args []string) int {
	sub := "push"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := newFlags("stash", c)
	message := fs.StringP("message", "m", "", "the stash's message (push)")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	index := 0
	if len(pos) == 1 {
		s := strings.TrimSuffix(strings.TrimPrefix(pos[0], "stash@{"), "}")
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || sub == "push" || sub == "list" || sub == "clear" {
			fmt.Fprintf(c.stderr, "verso stash: unexpected argument %q (verso stash --help)\n", pos[0])
			return 2
		}
		index = n
	}
	read := sub == "list"
	if !read {
		// Through a running server, as CALL dolt_stash(sub, 'dolt-cli').
		call := []string{sub, cliStashList}
		if sub == "push" && *message != "" {
			call = append(call, "-m", *message)
		}
		if len(pos) == 1 {
			call = append(call, fmt.Sprintf("stash@{%d}", index))
		}
		if code, ok := throughServer(c, "stash", procedureCall("dolt_stash", call)); ok {
			return code
		}
	}
	return withDB("stash", c.dir, read, c.stderr, func(ctx context.Context, db *verso.DB) error {
		switch sub {
		case "list":
			all, err := db.Stashes(ctx, cliStashList)
			if err != nil {
				return err
			}
			for _, s := range all {
				fmt.Fprintf(c.stdout, "stash@{%d}: %s\n", s.Index, s.Message)
			}
			return nil
		case "drop":
			s, err := db.StashDrop(ctx, cliStashList, index)
			if err == nil {
				fmt.Fprintf(c.stdout, "Dropped stash@{%d} (%s)\n", index, s.Commit.Addr)
			}
			return err
		case "clear":
			return db.StashClear(ctx, cliStashList)
		}
		txn, err := db.Begin(ctx, "")
		if err != nil {
			return err
		}
		defer txn.Rollback()
		switch sub {
		case "push":
			s, err := txn.Stash(ctx, cliStashList, *message, identity(c.dir, "", ""))
			if errors.Is(err, verso.ErrNothingToStash) {
				fmt.Fprintln(c.stdout, "No local changes to save")
				return nil
			}
			if err == nil {
				fmt.Fprintf(c.stdout, "Saved working directory and index state %s\n", s.Message)
			}
			return err
		case "apply", "pop":
			s, err := txn.StashApply(ctx, cliStashList, index, sub == "pop")
			if err == nil && sub == "pop" {
				fmt.Fprintf(c.stdout, "Dropped stash@{%d} (%s)\n", index, s.Commit.Addr)
			}
			return err
		}
		return fmt.Errorf("%q is not push, list, apply, pop, drop or clear (verso stash --help)", sub)
	})
}
