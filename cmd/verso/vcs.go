package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
)

// The versioning commands (status, add, commit, branch, checkout, merge,
// tag, reset) take the arguments of Dolt's procedures of the same names
// (dolt_add, ...), parsed as those are (internal/doltargs): verso commit
// -am "msg" is CALL dolt_commit('-am', 'msg'). Each makes the engine's
// call (package verso) on the database's default branch, the one
// .verso/HEAD names; checkout makes another branch the default. The
// commands that only read (status, and branch and tag without arguments)
// open the database read-only, so they work while a server holds it; the
// others need it to themselves, and say to run their procedure through
// the server when one holds it.

// withDB runs fn over the local database, opened read-only or for
// writing, and prints its error as cmd's.
func withDB(cmd, dir string, readOnly bool, stderr io.Writer, fn func(ctx context.Context, db *verso.DB) error) int {
	db, err := openDB(dir, readOnly)
	if err != nil {
		fmt.Fprintf(stderr, "verso %s: %v\n", cmd, heldElsewhere(err, "CALL dolt_"+cmd+"(...)"))
		return 1
	}
	err = fn(context.Background(), db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// withTxn runs fn in a transaction on the default branch of the local
// database, opened for writing. The engine's calls fn makes are durable
// when they return; the transaction itself writes nothing.
func withTxn(cmd, dir string, stderr io.Writer, fn func(ctx context.Context, txn *verso.Txn) error) int {
	return withDB(cmd, dir, false, stderr, func(ctx context.Context, db *verso.DB) error {
		txn, err := db.Begin(ctx, "")
		if err != nil {
			return err
		}
		return fn(ctx, txn)
	})
}

// author returns --author's signature, or the identity of the command
// line in dir (identity).
func author(dir string, a *doltargs.Args) (verso.Signature, error) {
	if !a.Has("author") {
		return identity(dir, "", ""), nil
	}
	name, email, err := doltargs.ParseAuthor(a.Vals["author"])
	return verso.Signature{Name: name, Email: email}, err
}

// noTable words the engine's refusal of a table that neither root holds.
func noTable(err error) error {
	var nt *verso.TableNotFoundError
	if errors.As(err, &nt) {
		return fmt.Errorf("no table %q; verso sql -q 'SHOW TABLES' lists the tables", nt.Table)
	}
	return err
}

func runStatus(dir string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "verso status: takes no arguments")
		return 2
	}
	return withDB("status", dir, true, stderr, func(ctx context.Context, db *verso.DB) error {
		txn, err := db.Begin(ctx, "")
		if err != nil {
			return err
		}
		es, err := txn.Status(ctx)
		if err != nil {
			return err
		}
		sort.SliceStable(es, func(i, j int) bool { return es[i].Table < es[j].Table })
		fmt.Fprintf(stdout, "On branch %s\n", txn.Branch())
		section := func(title string, keep func(e verso.StatusEntry) bool) {
			var lines []string
			for _, e := range es {
				if keep(e) {
					lines = append(lines, fmt.Sprintf("\t%-12s%s", e.Status.String()+":", e.Name()))
				}
			}
			if len(lines) > 0 {
				fmt.Fprintf(stdout, "%s\n%s\n", title, strings.Join(lines, "\n"))
			}
		}
		section("Changes to be committed:", func(e verso.StatusEntry) bool { return e.Staged })
		section("Changes not staged for commit:", func(e verso.StatusEntry) bool {
			return !e.Staged && e.Status != verso.StatusConflict && e.Status != verso.StatusNew
		})
		section("Untracked tables:", func(e verso.StatusEntry) bool { return !e.Staged && e.Status == verso.StatusNew })
		section("Unmerged tables (resolve the conflicts, then verso add):", func(e verso.StatusEntry) bool { return e.Status == verso.StatusConflict })
		if len(es) == 0 {
			fmt.Fprintln(stdout, "nothing to commit, working tree clean")
		}
		return nil
	})
}

func runAdd(dir string, args []string, stdout, stderr io.Writer) int {
	return withTxn("add", dir, stderr, func(ctx context.Context, txn *verso.Txn) error {
		a, err := doltargs.Add().Parse(args)
		if err != nil {
			return err
		}
		all := a.Has("all")
		var names []string
		for _, p := range a.Pos {
			if p == "." {
				all = true
			} else {
				names = append(names, p)
			}
		}
		if !all && len(names) == 0 {
			return errors.New("nothing specified, nothing added; name the tables to stage, or '.' (or -A) for all")
		}
		if all {
			return txn.StageAll(ctx)
		}
		return noTable(txn.Stage(ctx, names...))
	})
}

func runCommit(dir string, args []string, stdout, stderr io.Writer) int {
	return withTxn("commit", dir, stderr, func(ctx context.Context, txn *verso.Txn) error {
		a, err := doltargs.Commit().Parse(args)
		if err != nil {
			return err
		}
		if len(a.Pos) > 0 {
			return fmt.Errorf("unexpected argument %q; give the message with -m", a.Pos[0])
		}
		if a.Has("allow-empty") && a.Has("skip-empty") {
			return errors.New("--allow-empty and --skip-empty contradict each other; give one")
		}
		opts := verso.CommitOptions{
			Message:  a.Vals["message"],
			StageAll: a.Has("ALL"), StageTracked: a.Has("all"),
			AllowEmpty: a.Has("allow-empty"), SkipEmpty: a.Has("skip-empty"), Amend: a.Has("amend"),
		}
		if opts.Author, err = author(dir, a); err != nil {
			return err
		}
		if a.Has("date") {
			if opts.Time, err = doltargs.ParseDate(a.Vals["date"]); err != nil {
				return err
			}
		}
		if !a.Has("message") && !a.Has("amend") {
			return errors.New("no commit message; give one with -m")
		}
		made, err := txn.CommitChanges(ctx, opts)
		switch {
		case errors.Is(err, verso.ErrNothingToCommit):
			return errors.New("nothing to commit: no changes are staged; stage them with verso add (or commit with -a or -A), or give --allow-empty")
		case errors.Is(err, verso.ErrUnresolvedConflicts):
			return errConflicts(ctx, txn)
		case err != nil:
			return err
		case made == nil:
			fmt.Fprintln(stdout, "nothing to commit (--skip-empty)")
			return nil
		}
		subject, _, _ := strings.Cut(made.Meta.Message, "\n")
		fmt.Fprintf(stdout, "[%s %s] %s\n", txn.Branch(), made.Addr, subject)
		return nil
	})
}

// errConflicts is the error of a commit refused for unresolved conflicts.
func errConflicts(ctx context.Context, txn *verso.Txn) error {
	cs, err := txn.Conflicts(ctx)
	if err != nil {
		return err
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Table
	}
	return fmt.Errorf("cannot commit: unresolved merge conflicts in %s; resolve them (in verso sql: dolt_conflicts_resolve, or edit the rows and delete them from dolt_conflicts_<table>), stage the tables with verso add and commit, or abort the merge with verso merge --abort", strings.Join(names, ", "))
}

func runReset(dir string, args []string, stdout, stderr io.Writer) int {
	return withTxn("reset", dir, stderr, func(ctx context.Context, txn *verso.Txn) error {
		a, err := doltargs.Reset().Parse(args)
		if err != nil {
			return err
		}
		if a.Has("soft") && a.Has("hard") {
			return errors.New("--soft and --hard contradict each other; give one")
		}
		// A first argument that resolves to a commit is a revision;
		// anything else names tables.
		opts := verso.ResetOptions{Soft: a.Has("soft"), Hard: a.Has("hard"), Tables: a.Pos}
		if len(a.Pos) > 0 && a.AfterDashes != 0 {
			_, err := txn.DB().Resolve(ctx, a.Pos[0], txn.Branch())
			var rev *verso.RevisionError
			switch {
			case err == nil:
				opts.Rev, opts.Tables = a.Pos[0], a.Pos[1:]
			case !errors.As(err, &rev):
				return err
			case opts.Hard || opts.Soft:
				return fmt.Errorf("%q: %w", a.Pos[0], rev.Err)
			}
		}
		if (opts.Hard || opts.Soft) && len(opts.Tables) > 0 {
			return fmt.Errorf("--hard and --soft take a revision, not tables (%q)", opts.Tables[0])
		}
		if opts.Rev != "" && len(opts.Tables) > 0 {
			return errors.New("resetting tables to another commit is not supported; give a revision or tables")
		}
		return noTable(txn.Reset(ctx, opts))
	})
}

// vcsCommands are the versioning commands by name.
var vcsCommands = map[string]func(dir string, args []string, stdout, stderr io.Writer) int{
	"status": runStatus, "add": runAdd, "commit": runCommit, "branch": runBranch,
	"checkout": runCheckout, "merge": runMerge, "tag": runTag, "reset": runReset,
}

const versioningHelp = `Versioning commands take the arguments of the SQL procedure of the same
name and do what it does, on the local database (the one of the current
folder or its nearest parent):

  verso status                       staged and unstaged changes (dolt_status)
  verso add <table>... | . | -A      stage tables                 (dolt_add)
  verso commit -m msg [-a|-A] [--allow-empty|--skip-empty]
               [--author "Name <email>"] [--date d] [--amend]    (dolt_commit)
  verso branch                       list branches; with arguments dolt_branch:
               new [start] | -c old new | -m old new | -d|-D name... | -f
  verso checkout branch | -b new [start] | table...              (dolt_checkout)
  verso merge branch [--no-ff] [-m msg] | --abort               (dolt_merge)
  verso tag                          list tags; with arguments dolt_tag:
               name [ref] [-m msg] | -d name
  verso reset [--soft|--hard] [ref] | table...                  (dolt_reset)

checkout also makes the branch the database's current one (.verso/HEAD),
which verso sql-server sessions start on. Committer identity: the
environment variables VERSO_AUTHOR_NAME and VERSO_AUTHOR_EMAIL, else the
login name.
`
