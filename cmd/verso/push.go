package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// verso push [-f|--force] [-u|--set-upstream] [remote] [refspec]: the
// engine's DB.Push, as dolt push behaves. A refspec (branch names may
// be written refs/heads/<b>) is b (b to b),
// src:dst (src, any revision, to the remote's branch dst), :dst (delete
// dst on the remote) or +src:dst (forced). Without a refspec the current
// branch goes to its upstream, which must have the branch's name (and be
// on the remote given, if one is); without an upstream the push is
// refused with the command that sets one. The result prints as Dolt's
// and git's do:
//
//	To file:///srv/shop
//	 * [new branch]          main -> main
//	   <old>..<new>          main -> main
//	 + <old>...<new>         main -> main (forced update)
//	 - [deleted]             other
//
// A push that would drop the remote's commits is rejected (exit 1) unless
// forced.

// refspec is a push's source and destination.
type refspec struct {
	src, dst string // src "" deletes dst
	force    bool   // a leading +
}

// parseRefspec parses b, src:dst, :dst or +src:dst.
func parseRefspec(s string) (refspec, error) {
	var r refspec
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		r.force, s = true, rest
	}
	src, dst, colon := strings.Cut(s, ":")
	src, dst = strings.TrimPrefix(src, "refs/heads/"), strings.TrimPrefix(dst, "refs/heads/")
	if !colon {
		dst = src
	}
	r.src, r.dst = src, dst
	switch {
	case dst == "":
		return r, fmt.Errorf("the refspec %q names no branch of the remote to push to", s)
	case src == "" && r.force:
		return r, fmt.Errorf("the refspec %q deletes a branch: it takes no +", "+"+s)
	}
	return r, nil
}

// runPush is verso push.
func runPush(c cliContext, args []string) int {
	fs := newFlags("push", c)
	force := fs.BoolP("force", "f", false, "move the remote's branch even when that drops commits from it")
	setUpstream := fs.BoolP("set-upstream", "u", false, "make the remote's branch the upstream of the pushed branch (what pull and push without arguments use)")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	var spec *refspec
	if len(pos) == 2 {
		r, err := parseRefspec(pos[1])
		if err != nil {
			fmt.Fprintf(c.stderr, "verso push: %v (verso push --help)\n", err)
			return 2
		}
		if r.src == "" && *setUpstream {
			fmt.Fprintln(c.stderr, "verso push: --set-upstream needs a branch to push, not a deletion (verso push --help)")
			return 2
		}
		spec = &r
	}
	if code, ok := throughServer(c, "push", procedureCall("dolt_push", args)); ok {
		return code
	}
	return withDB("push", c.dir, false, c.stderr, func(ctx context.Context, db *verso.DB) error {
		remote := ""
		if len(pos) > 0 {
			remote = pos[0]
		}
		if spec == nil {
			r, err := defaultPush(ctx, db, remote)
			if err != nil {
				return err
			}
			remote, spec = r.remote, &r.spec
		}
		if *setUpstream {
			if _, err := db.Graph().Head(ctx, spec.src); err != nil {
				return fmt.Errorf("--set-upstream needs a branch to push, and %q is not one", spec.src)
			}
		}
		return push(ctx, c, db, remote, *spec, *force || spec.force, *setUpstream)
	})
}

// pushTarget is where a push without a refspec goes.
type pushTarget struct {
	remote string
	spec   refspec
}

// defaultPush returns where the current branch goes without a refspec:
// its upstream, on remote if one is given.
func defaultPush(ctx context.Context, db *verso.DB, remote string) (pushTarget, error) {
	cur := db.DefaultBranch()
	up, has, err := upstreamOf(ctx, db, cur)
	if err != nil {
		return pushTarget{}, err
	}
	if remote == "" && has {
		remote = up.Remote
	}
	switch {
	case !has:
		hint := remote
		if hint == "" {
			hint = likelyRemote(ctx, db)
		}
		return pushTarget{}, fmt.Errorf("the current branch %s has no upstream branch; to push it and make the remote's branch its upstream, run verso push --set-upstream %s %s", cur, hint, cur)
	case up.Remote != remote:
		return pushTarget{}, fmt.Errorf("%s is not the upstream remote of the current branch %s (%s/%s is); name the branch to push: verso push %s %s", remote, cur, up.Remote, up.Branch, remote, cur)
	case up.Branch != cur:
		return pushTarget{}, fmt.Errorf("the upstream of the current branch %s is %s/%s, whose name differs; name both: verso push %s %s:%s", cur, up.Remote, up.Branch, up.Remote, cur, up.Branch)
	}
	return pushTarget{remote: remote, spec: refspec{src: cur, dst: up.Branch}}, nil
}

// push pushes spec to remote and prints the result; setUpstream records
// the remote's branch as the upstream of spec.src once pushed.
func push(ctx context.Context, c cliContext, db *verso.DB, remote string, spec refspec, force, setUpstream bool) error {
	show := transferProgress(c.stderr, true)
	res, err := db.Push(ctx, remote, spec.src, spec.dst, verso.PushOptions{Force: force, Progress: show.callback()})
	show.finish(err == nil)
	var rev *verso.RevisionError
	switch {
	case errors.Is(err, verso.ErrRemoteMoved):
		fmt.Fprintf(c.stderr, "To %s\n%s\n", res.Remote.URL, refLine("!", "[rejected]", spec.src+" -> "+spec.dst+" (non-fast-forward)"))
		return fmt.Errorf("failed to push some refs to '%s': the remote's %s has commits that %s lacks; integrate them (verso pull %s %s) and push again, or push with --force to overwrite them",
			res.Remote.URL, spec.dst, spec.src, remote, spec.dst)
	case errors.Is(err, verso.ErrNoRemoteRef) && spec.src == "":
		return fmt.Errorf("the remote %s has no branch %q to delete", remote, spec.dst)
	case errors.As(err, &rev):
		return fmt.Errorf("%q matches no branch, tag or commit to push: %w", spec.src, rev.Err)
	case err != nil:
		return remoteFailure(err, remote)
	}
	printPush(ctx, c.stdout, db, res, spec, force)
	if setUpstream {
		if err := db.SetUpstream(ctx, spec.src, verso.Upstream{Remote: remote, Branch: spec.dst}); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "branch '%s' set up to track '%s/%s'.\n", spec.src, remote, spec.dst)
	}
	return nil
}

// printPush prints what a push did to the remote's branch.
func printPush(ctx context.Context, w io.Writer, db *verso.DB, res verso.PushResult, spec refspec, force bool) {
	if res.UpToDate() {
		fmt.Fprintln(w, "Everything up-to-date")
		return
	}
	fmt.Fprintf(w, "To %s\n", res.Remote.URL)
	move := spec.src + " -> " + spec.dst
	switch {
	case res.New.IsEmpty():
		fmt.Fprintln(w, refLine("-", "[deleted]", spec.dst))
	case res.Old.IsEmpty():
		fmt.Fprintln(w, refLine("*", "[new branch]", move))
	case force && !descends(ctx, db, res.Old, res.New):
		fmt.Fprintln(w, refLine("+", res.Old.String()+"..."+res.New.String(), move+" (forced update)"))
	default:
		fmt.Fprintln(w, refLine(" ", res.Old.String()+".."+res.New.String(), move))
	}
}

// refLine is a line of a push's or fetch's result: a flag, a summary in a
// column, and the refs.
func refLine(flag, summary, refs string) string {
	return fmt.Sprintf(" %s %-21s %s", flag, summary, refs)
}

// descends reports whether new descends from old (false when that cannot
// be told: old is not in this database).
func descends(ctx context.Context, db *verso.DB, old, new chunks.Address) bool {
	ok, err := db.Graph().IsAncestor(ctx, old, new)
	return err == nil && ok
}
