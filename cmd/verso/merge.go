package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
)

// What verso merge prints, as dolt_merge's message column says it.
const (
	msgMergeOK    = "merge successful"
	msgUpToDate   = "Everything up-to-date"
	msgConflicts  = "conflicts found; resolve them (dolt_conflicts_resolve, or edit the tables and delete the rows of dolt_conflicts_<table>), then dolt_add and dolt_commit; or abort with dolt_merge('--abort')"
	msgMergeAbort = "merge aborted"
)

// runMerge merges a branch into the default branch (verso.Txn.Merge) and
// prints the result: the message, the merge commit (or the new head of a
// fast-forward), and the number of tables with conflicts, which make the
// command fail (exit 1) as git's does. Columns added on one side get their
// literal defaults for the other side's rows; a default that is an
// expression needs dolt_merge, in SQL.
func runMerge(dir string, args []string, stdout, stderr io.Writer) int {
	conflicts := false
	code := withTxn("merge", dir, stderr, func(ctx context.Context, txn *verso.Txn) error {
		res, msg, err := merge(ctx, dir, txn, args)
		if err != nil {
			return err
		}
		conflicts = printMerge(stdout, res, msg)
		return nil
	})
	if code == 0 && conflicts {
		return 1
	}
	return code
}

// printMerge prints a merge's result as verso merge does (verso pull
// too): the message, then the commit made (or the new head of a
// fast-forward), or the tables with conflicts; it reports whether there
// were conflicts, which fail the command.
func printMerge(stdout io.Writer, res *verso.MergeResult, msg string) (conflicts bool) {
	fmt.Fprintln(stdout, msg)
	if res != nil && res.Commit != nil && len(res.Conflicts) == 0 {
		fmt.Fprintf(stdout, "commit %s\n", res.Commit.Addr)
	}
	if res != nil && len(res.Conflicts) > 0 {
		fmt.Fprintf(stdout, "CONFLICT: %d tables have conflicts; fix them (verso status, SELECT * FROM dolt_conflicts), then verso add and verso commit, or verso merge --abort\n", len(res.Conflicts))
		return true
	}
	return false
}

// merge runs verso merge: the merge's result (nil for an abort) and its
// message.
func merge(ctx context.Context, dir string, txn *verso.Txn, args []string) (*verso.MergeResult, string, error) {
	a, err := doltargs.Merge().Parse(args)
	if err != nil {
		return nil, "", err
	}
	if a.Has("abort") {
		if len(a.Pos) > 0 {
			return nil, "", errors.New("--abort takes no branch")
		}
		if err := txn.AbortMerge(ctx); errors.Is(err, verso.ErrNoMerge) {
			return nil, "", errors.New("there is no merge to abort")
		} else if err != nil {
			return nil, "", err
		}
		return nil, msgMergeAbort, nil
	}
	switch {
	case len(a.Pos) != 1:
		return nil, "", errors.New("name one branch (or commit) to merge, for example verso merge feature")
	case a.Has("no-ff") && a.Has("ff-only"):
		return nil, "", errors.New("--no-ff and --ff-only contradict each other; give one")
	case a.Has("squash") && a.Has("no-ff"):
		return nil, "", errors.New("--squash and --no-ff contradict each other; give one")
	}
	opts := verso.MergeOptions{
		Message: a.Vals["message"],
		NoFF:    a.Has("no-ff"), FFOnly: a.Has("ff-only"), Squash: a.Has("squash"), NoCommit: a.Has("no-commit"),
	}
	if opts.Author, err = author(dir, a); err != nil {
		return nil, "", err
	}
	res, err := txn.Merge(ctx, a.Pos[0], opts)
	if err != nil {
		return nil, "", mergeError(txn.Branch(), a.Pos[0], err)
	}
	switch {
	case res.UpToDate:
		return res, msgUpToDate, nil
	case len(res.Conflicts) > 0:
		return res, msgConflicts, nil
	}
	return res, msgMergeOK, nil
}

// mergeError words the engine's refusal to merge theirs into branch.
func mergeError(branch, theirs string, err error) error {
	var unc *verso.UncommittedError
	var clash *verso.UntrackedClashError
	var stomp *verso.StompError
	switch {
	case errors.As(err, &stomp):
		return fmt.Errorf("the merge would overwrite uncommitted changes to %s; commit them (verso commit -Am ...) or discard them (verso reset --hard) first", strings.Join(stomp.Tables, ", "))
	case errors.Is(err, verso.ErrNotFastForward):
		return fmt.Errorf("not possible to fast-forward %s to %s (the branches have diverged), aborting; merge without --ff-only", branch, theirs)
	case errors.Is(err, verso.ErrMergeActive):
		return errors.New("merging is not possible because you have not committed an active merge; commit it (verso add, then verso commit) or abort it with verso merge --abort")
	case errors.As(err, &unc) && unc.Conflicts:
		return fmt.Errorf("the working set has unresolved conflicts in %s; resolve them and commit, or discard them with verso reset --hard", strings.Join(unc.Tables, ", "))
	case errors.As(err, &unc):
		return fmt.Errorf("cannot merge with uncommitted changes (in %s); commit them (verso commit -Am ...) or discard them (verso reset --hard) first", strings.Join(unc.Tables, ", "))
	case errors.As(err, &clash):
		return fmt.Errorf("the merge would overwrite the untracked table %s of the working set; commit it (verso add, verso commit) or drop it first", clash.Table)
	}
	return err
}
