package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// verso fetch [-p|--prune] [remote] [branch...] and verso pull [remote]
// [branch]: the engine's DB.Fetch, and a fetch followed by a merge of
// <remote>/<branch> into the current branch (Txn.Merge), as dolt fetch
// and dolt pull behave. Both print the remote-tracking branches the fetch
// moved, as git does:
//
//	From file:///srv/shop
//	 * [new branch]          main -> origin/main
//	   <old>..<new>          main -> origin/main
//	 + <old>...<new>         main -> origin/main (forced update)
//	 - [deleted]             (none) -> origin/other
//
// and pull then prints the merge as verso merge does (printMerge), after
// git's "Updating <old>..<new>" and "Fast-forward" for a fast-forward;
// conflicts fail it (exit 1) and stay in the working set to resolve.

// runFetch is verso fetch.
func runFetch(c cliContext, args []string) int {
	fs := newFlags("fetch", c)
	prune := fs.BoolP("prune", "p", false, "delete the remote-tracking branches whose branch the remote no longer has")
	pos, code, ok := parseFlags(fs, args, -1)
	if !ok {
		return code
	}
	if *prune && len(pos) > 1 {
		fmt.Fprintln(c.stderr, "verso fetch: --prune fetches every branch of the remote; name no branches with it (verso fetch --help)")
		return 2
	}
	if code, ok := throughServer(c, "fetch", procedureCall("dolt_fetch", args)); ok {
		return code
	}
	return withDB("fetch", c.dir, false, c.stderr, func(ctx context.Context, db *verso.DB) error {
		remote := "origin"
		if len(pos) > 0 {
			remote = pos[0]
		} else if up, has, err := upstreamOf(ctx, db, db.DefaultBranch()); err != nil {
			return err
		} else if has {
			remote = up.Remote
		}
		var branches []string
		if len(pos) > 1 {
			branches = pos[1:]
		}
		_, err := fetch(ctx, c, db, remote, verso.FetchOptions{Branches: branches, Prune: *prune})
		return err
	})
}

// fetch runs db.Fetch with the progress display and prints the
// remote-tracking branches it moved.
func fetch(ctx context.Context, c cliContext, db *verso.DB, remote string, opts verso.FetchOptions) (verso.FetchResult, error) {
	before, err := trackingHeads(ctx, db, remote)
	if err != nil {
		return verso.FetchResult{}, err
	}
	show := transferProgress(c.stderr, false)
	opts.Progress = show.callback()
	res, err := db.Fetch(ctx, remote, opts)
	show.finish(err == nil)
	if errors.Is(err, verso.ErrNoRemoteRef) {
		for _, b := range opts.Branches {
			if _, ok := res.Heads[b]; !ok {
				return res, fmt.Errorf("the remote %s has no branch %q", remote, b)
			}
		}
	}
	if err != nil {
		return res, remoteFailure(err, remote)
	}
	after, err := trackingHeads(ctx, db, remote)
	if err != nil {
		return res, err
	}
	var names []string
	for b := range before {
		names = append(names, b)
	}
	for b := range after {
		if _, ok := before[b]; !ok {
			names = append(names, b)
		}
	}
	slices.Sort(names)
	from := false
	for _, b := range names {
		old, had := before[b]
		head, has := after[b]
		tracking := remote + "/" + b
		var line string
		switch {
		case !had && has:
			line = refLine("*", "[new branch]", b+" -> "+tracking)
		case had && !has:
			line = refLine("-", "[deleted]", "(none) -> "+tracking)
		case old == head:
			continue
		case descends(ctx, db, old, head):
			line = refLine(" ", old.String()+".."+head.String(), b+" -> "+tracking)
		default:
			line = refLine("+", old.String()+"..."+head.String(), b+" -> "+tracking+" (forced update)")
		}
		if !from {
			fmt.Fprintf(c.stdout, "From %s\n", res.Remote.URL)
			from = true
		}
		fmt.Fprintln(c.stdout, line)
	}
	return res, nil
}

// trackingHeads returns the remote-tracking branches of remote, by the
// remote's branch name.
func trackingHeads(ctx context.Context, db *verso.DB, remote string) (map[string]chunks.Address, error) {
	rbs, err := db.RemoteBranches(ctx)
	if err != nil {
		return nil, err
	}
	heads := map[string]chunks.Address{}
	for _, rb := range rbs {
		if rb.Remote == remote {
			heads[rb.Branch] = rb.Head
		}
	}
	return heads, nil
}

// runPull is verso pull.
func runPull(c cliContext, args []string) int {
	fs := newFlags("pull", c)
	noFF := fs.Bool("no-ff", false, "make a merge commit even when the merge could fast-forward")
	ffOnly := fs.Bool("ff-only", false, "refuse a merge that cannot fast-forward")
	squash := fs.Bool("squash", false, "merge the changes into the working set, staged, without a commit")
	noCommit := fs.Bool("no-commit", false, "leave the merge uncommitted")
	prune := fs.BoolP("prune", "p", false, "fetch every branch of the remote and delete the remote-tracking branches whose branch it no longer has")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	switch {
	case *noFF && *ffOnly:
		fmt.Fprintln(c.stderr, "verso pull: --no-ff and --ff-only contradict each other; give one")
		return 2
	case *squash && *noFF:
		fmt.Fprintln(c.stderr, "verso pull: --squash and --no-ff contradict each other; give one")
		return 2
	}
	if code, ok := throughServer(c, "pull", procedureCall("dolt_pull", args)); ok {
		return code
	}
	conflicts := false
	code = withDB("pull", c.dir, false, c.stderr, func(ctx context.Context, db *verso.DB) error {
		cur := db.DefaultBranch()
		up, has, err := upstreamOf(ctx, db, cur)
		if err != nil {
			return err
		}
		var remote, branch string
		switch {
		case len(pos) == 2:
			remote, branch = pos[0], pos[1]
		case len(pos) == 1 && (!has || up.Remote != pos[0]):
			return fmt.Errorf("you asked to pull from the remote %s, but did not name a branch; because it is not the upstream remote of the current branch %s, name one: verso pull %s <branch>", pos[0], cur, pos[0])
		case !has:
			return fmt.Errorf("there is no tracking information for the current branch %s; name the branch to merge (verso pull <remote> <branch>), or make one the upstream with verso push --set-upstream <remote> %s", cur, cur)
		default:
			remote, branch = up.Remote, up.Branch
		}
		opts := verso.FetchOptions{Branches: []string{branch}}
		if *prune {
			opts = verso.FetchOptions{Prune: true}
		}
		res, err := fetch(ctx, c, db, remote, opts)
		if err != nil {
			return err
		}
		if _, ok := res.Heads[branch]; !ok {
			return fmt.Errorf("the remote %s has no branch %q", remote, branch)
		}
		head, err := db.Resolve(ctx, cur, cur)
		if err != nil {
			return err
		}
		txn, err := db.Begin(ctx, "")
		if err != nil {
			return err
		}
		margs := []string{"-m", fmt.Sprintf("Merge branch '%s' of %s into %s", branch, res.Remote.URL, cur)}
		for flag, set := range map[string]bool{"--no-ff": *noFF, "--ff-only": *ffOnly, "--squash": *squash, "--no-commit": *noCommit} {
			if set {
				margs = append(margs, flag)
			}
		}
		mres, msg, err := merge(ctx, c.dir, txn, append(margs, remote+"/"+branch))
		if err != nil {
			return err
		}
		if mres.FastForward && !mres.UpToDate && mres.Theirs != nil {
			fmt.Fprintf(c.stdout, "Updating %s..%s\nFast-forward\n", head.Addr, mres.Theirs.Addr)
		}
		conflicts = printMerge(c.stdout, mres, msg)
		return nil
	})
	if code == 0 && conflicts {
		return 1
	}
	return code
}
