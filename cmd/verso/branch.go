package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
)

// branch, checkout and tag: the engine's branch and tag calls (verso's
// branches.go), on the default branch, which checkout switches.

func runBranch(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args) == 1 && (args[0] == "-a" || args[0] == "--list")) {
		return withDB("branch", dir, true, stderr, func(ctx context.Context, db *verso.DB) error {
			bs, err := db.Branches(ctx)
			if err != nil {
				return err
			}
			for _, b := range bs {
				mark := " "
				if b.Name == db.DefaultBranch() {
					mark = "*"
				}
				fmt.Fprintf(stdout, "%s %s\n", mark, b.Name)
			}
			if len(args) == 0 || args[0] != "-a" {
				return nil
			}
			// -a adds the remote-tracking branches, as Dolt lists them.
			rbs, err := db.RemoteBranches(ctx)
			if err != nil {
				return err
			}
			for _, rb := range rbs {
				fmt.Fprintf(stdout, "  remotes/%s\n", rb.Name)
			}
			return nil
		})
	}
	return withDB("branch", dir, false, stderr, func(ctx context.Context, db *verso.DB) error {
		return branchCommand(ctx, db, args)
	})
}

func branchCommand(ctx context.Context, db *verso.DB, args []string) error {
	a, err := doltargs.Branch().Parse(args)
	if err != nil {
		return err
	}
	modes := 0
	for _, m := range []string{"copy", "move", "delete", "D"} {
		if a.Has(m) {
			modes++
		}
	}
	if modes > 1 && !(modes == 2 && a.Has("delete") && a.Has("D")) {
		return errors.New("give one of -c, -m and -d")
	}
	head := db.DefaultBranch()
	opts := verso.BranchOptions{Head: head, Force: a.Has("force")}
	switch {
	case a.Has("delete") || a.Has("D"):
		if len(a.Pos) == 0 {
			return errors.New("-d: name the branches to delete")
		}
		opts.Force = opts.Force || a.Has("D")
		for _, b := range a.Pos {
			err := db.DeleteBranch(ctx, b, opts)
			switch {
			case errors.Is(err, verso.ErrBranchCheckedOut):
				return fmt.Errorf("-d: cannot delete the checked out branch %q; check out another branch first with verso checkout", b)
			case errors.Is(err, verso.ErrDefaultBranch):
				return fmt.Errorf("-d: cannot delete %q, the default branch of the database (.verso/HEAD)", b)
			case errors.Is(err, verso.ErrNotMerged):
				return fmt.Errorf("-d: branch %q is not fully merged into %q; delete it anyway with -D (or -d -f)", b, head)
			case err != nil:
				return branchError("-d", "-f", b, err)
			}
		}
	case a.Has("copy"), a.Has("move"):
		verb := map[bool]string{true: "-c", false: "-m"}[a.Has("copy")]
		if len(a.Pos) != 2 {
			return fmt.Errorf("%s: give the branch and its new name (verso branch %s from to)", verb, verb)
		}
		from, to := a.Pos[0], a.Pos[1]
		if a.Has("copy") {
			err = db.CopyBranch(ctx, from, to, opts)
		} else {
			err = db.RenameBranch(ctx, from, to, opts)
		}
		switch {
		case errors.Is(err, verso.ErrDefaultBranch):
			return fmt.Errorf("-m: %q is the default branch of the database (.verso/HEAD) and cannot be renamed; copy it with -c instead", from)
		case errors.Is(err, verso.ErrBranchNotFound):
			return branchError("", "-f", from, err)
		case err != nil:
			return branchError("", "-f", to, err)
		}
	default:
		if len(a.Pos) == 0 || len(a.Pos) > 2 {
			return errors.New("give a branch name and an optional start point; verso branch lists the branches")
		}
		name, start := a.Pos[0], "HEAD"
		if len(a.Pos) == 2 {
			start = a.Pos[1]
		}
		var rev *verso.RevisionError
		err := db.SetBranch(ctx, name, start, opts)
		switch {
		case errors.Is(err, verso.ErrBranchCheckedOut):
			return fmt.Errorf("-f: %q is the checked-out branch; reset it with verso reset --hard %s instead", name, start)
		case errors.As(err, &rev):
			return fmt.Errorf("start point %q: %w", start, rev.Err)
		case err != nil:
			return branchError("", "-f", name, err)
		}
	}
	return nil
}

// branchError words the engine's refusal about branch, after prefix (an
// option, or ""); force is the option that overwrites a branch.
func branchError(prefix, force, branch string, err error) error {
	if prefix != "" {
		prefix += ": "
	}
	switch {
	case errors.Is(err, verso.ErrBranchNotFound):
		return fmt.Errorf("%sno branch named %q; verso branch lists the branches", prefix, branch)
	case errors.Is(err, verso.ErrBranchExists):
		return fmt.Errorf("%sa branch named %q already exists; choose another name, or give %s to overwrite it", prefix, branch, force)
	case errors.Is(err, verso.ErrBadName):
		return fmt.Errorf("%s%w", prefix, err)
	}
	return err
}

func runCheckout(dir string, args []string, stdout, stderr io.Writer) int {
	return withTxn("checkout", dir, stderr, func(ctx context.Context, txn *verso.Txn) error {
		msg, err := checkout(ctx, txn, args)
		if err != nil {
			return err
		}
		if msg != "" {
			fmt.Fprintln(stdout, msg)
		}
		return nil
	})
}

// checkout runs verso checkout and returns what it says: the branch it
// switched to, or nothing for tables checked out.
func checkout(ctx context.Context, txn *verso.Txn, args []string) (string, error) {
	a, err := doltargs.Checkout().Parse(args)
	if err != nil {
		return "", err
	}
	db := txn.DB()
	switched := func(b string) (string, error) {
		if err := db.SetDefaultBranch(ctx, b); err != nil {
			return "", err
		}
		return fmt.Sprintf("Switched to branch '%s'", b), nil
	}
	if a.Has("b") || a.Has("B") {
		opt := "b"
		if a.Has("B") {
			opt = "B"
		}
		name := a.Vals[opt]
		if len(a.Pos) > 1 {
			return "", fmt.Errorf("-%s: give the new branch and an optional start point", opt)
		}
		if len(a.Pos) == 1 {
			err = db.SetBranch(ctx, name, a.Pos[0], verso.BranchOptions{Head: txn.Branch(), Force: opt == "B"})
		} else {
			// From HEAD, the new branch takes the working set along, as
			// Dolt's does.
			err = txn.ForkBranch(ctx, name, opt == "B")
		}
		var rev *verso.RevisionError
		switch {
		case len(a.Pos) == 1 && errors.As(err, &rev):
			return "", fmt.Errorf("-%s: start point %q: %w", opt, a.Pos[0], rev.Err)
		case errors.Is(err, verso.ErrBranchCheckedOut):
			return "", fmt.Errorf("-B: %q is checked out; reset it with verso reset --hard instead", name)
		case err != nil:
			return "", branchError("-"+opt, "-B", name, err)
		}
		return switched(name)
	}
	if len(a.Pos) == 0 {
		return "", errors.New("name a branch to switch to, or tables whose working changes to discard")
	}
	if a.AfterDashes < 0 && len(a.Pos) == 1 {
		if msg, err := switched(a.Pos[0]); !errors.Is(err, verso.ErrBranchNotFound) {
			return msg, err
		}
	}
	tables, rev := a.Pos, "" // verso checkout ref -- t...
	if a.AfterDashes > 1 {
		return "", errors.New("give one revision before '--' and the tables after it")
	}
	if a.AfterDashes == 1 {
		rev, tables = a.Pos[0], a.Pos[1:]
		if len(tables) == 0 {
			return "", errors.New("name the tables to check out after '--'")
		}
	}
	err = txn.CheckoutTables(ctx, rev, tables)
	var re *verso.RevisionError
	var nt *verso.TableNotFoundError
	switch {
	case errors.As(err, &re):
		return "", fmt.Errorf("%q: %w", rev, re.Err)
	case errors.As(err, &nt) && rev == "" && len(tables) == 1:
		return "", fmt.Errorf("no branch or table named %q; verso branch lists the branches, and verso checkout -b %s makes one", nt.Table, nt.Table)
	case errors.As(err, &nt) && rev == "":
		return "", fmt.Errorf("no table named %q; verso sql -q 'SHOW TABLES' lists the tables", nt.Table)
	}
	return "", noTable(err)
}

func runTag(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return withDB("tag", dir, true, stderr, func(ctx context.Context, db *verso.DB) error {
			ts, err := db.Tags(ctx)
			if err != nil {
				return err
			}
			for _, t := range ts {
				fmt.Fprintln(stdout, t.Name)
			}
			return nil
		})
	}
	return withDB("tag", dir, false, stderr, func(ctx context.Context, db *verso.DB) error {
		a, err := doltargs.Tag().Parse(args)
		if err != nil {
			return err
		}
		if a.Has("verbose") {
			return errors.New("-v: verso tag without arguments lists the tags")
		}
		if a.Has("delete") {
			if len(a.Pos) == 0 {
				return errors.New("-d: name the tags to delete")
			}
			for _, t := range a.Pos {
				if err := db.DeleteTag(ctx, t); errors.Is(err, verso.ErrTagNotFound) {
					return fmt.Errorf("-d: no tag named %q; verso tag lists the tags", t)
				} else if err != nil {
					return err
				}
			}
			return nil
		}
		if len(a.Pos) == 0 || len(a.Pos) > 2 {
			return errors.New("give a tag name and an optional revision (verso tag name [rev]); verso tag lists the tags")
		}
		ref := "HEAD"
		if len(a.Pos) == 2 {
			ref = a.Pos[1]
		}
		opts := verso.TagOptions{Message: a.Vals["message"]}
		if opts.Tagger, err = author(dir, a); err != nil {
			return err
		}
		_, err = db.CreateTag(ctx, a.Pos[0], ref, opts)
		var rev *verso.RevisionError
		switch {
		case errors.As(err, &rev):
			return fmt.Errorf("%q: %w", ref, rev.Err)
		case errors.Is(err, verso.ErrTagExists):
			return fmt.Errorf("a tag named %q already exists; delete it first with verso tag -d %s", a.Pos[0], a.Pos[0])
		}
		return err
	})
}
