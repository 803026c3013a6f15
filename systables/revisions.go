package systables

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// The two revisions a diff table function compares (dolt_diff,
// dolt_diff_stat, dolt_diff_summary, dolt_schema_diff, dolt_patch), read
// from its arguments as Dolt reads them:
//
//	('from', 'to'[, 'table'])   two revisions
//	('a..b'[, 'table'])         a to b
//	('a...b'[, 'table'])        the merge base of a and b to b
//
// A revision is WORKING or STAGED (the session's working and staged
// roots; only in upper case), or a commit spec: HEAD, a branch, a tag, a
// hash, with ~ and ^ steps. a...b takes commits only. Failures are worded
// as Dolt words them: "branch not found: x", "invalid ancestor spec",
// "target commit not found" (a hash no commit has), "expected strings for
// from and to revisions, got: a, " (an end of a..b left out).

// DiffArgs are the revision and table arguments of a diff table function.
type DiffArgs struct {
	// From and To are the two revisions, or Dots is "a..b" or "a...b"
	// (then From and To are "").
	From, To, Dots string
	// Table is the table argument, if HasTable.
	Table    string
	HasTable bool
}

// revisionEnds resolves the two revisions of a.
func (v *View) revisionEnds(ctx context.Context, a DiffArgs) (from, to *revision, err error) {
	fs, ts := a.From, a.To
	if a.Dots != "" {
		if fs, ts, err = v.splitDots(ctx, a.Dots); err != nil {
			return nil, nil, err
		}
	}
	if fs == "" || ts == "" {
		return nil, nil, fmt.Errorf("expected strings for from and to revisions, got: %s, %s", fs, ts)
	}
	if from, err = v.diffRevision(ctx, fs); err != nil {
		return nil, nil, err
	}
	if to, err = v.diffRevision(ctx, ts); err != nil {
		return nil, nil, err
	}
	return from, to, nil
}

// splitDots returns the two revisions of "a..b", or of "a...b" the merge
// base's hash and b.
func (v *View) splitDots(ctx context.Context, dots string) (from, to string, err error) {
	if parts := strings.Split(dots, "..."); len(parts) > 1 {
		a, err := v.diffCommit(ctx, parts[0])
		if err != nil {
			return "", "", err
		}
		b, err := v.diffCommit(ctx, parts[1])
		if err != nil {
			return "", "", err
		}
		mb, err := v.Graph.MergeBase(ctx, a.Addr, b.Addr)
		if err != nil {
			return "", "", err
		}
		return mb.Addr.String(), parts[1], nil
	}
	parts := strings.Split(dots, "..")
	return parts[0], parts[1], nil
}

// diffRevision resolves one revision: WORKING, STAGED or a commit spec.
// The revision's name is spec as given; its date is its commit's time, or
// the time of the call for WORKING and STAGED, as Dolt gives them.
func (v *View) diffRevision(ctx context.Context, spec string) (*revision, error) {
	if spec == Working || spec == Staged {
		r, err := v.resolve(ctx, spec)
		if err != nil {
			return nil, err
		}
		r.when = time.Now().UTC()
		return r, nil
	}
	c, err := v.diffCommit(ctx, spec)
	if err != nil {
		return nil, err
	}
	r := &revision{name: spec, commit: c}
	r.root, err = v.openRoot(ctx, c)
	return r, err
}

// diffCommit resolves a commit spec, with Dolt's words for a failure.
func (v *View) diffCommit(ctx context.Context, spec string) (*commitgraph.Commit, error) {
	var c *commitgraph.Commit
	var err error
	if spec == "HEAD" {
		c, err = v.head(ctx)
	} else {
		c, err = v.Graph.Resolve(ctx, spec, v.Branch)
	}
	if err != nil {
		return nil, doltRevisionError(spec, err)
	}
	return c, nil
}

// doltRevisionError words the failure to resolve spec as Dolt does: an
// empty spec, an ancestor past the root, a hash no commit has, and a name
// that is no branch, tag or commit.
func doltRevisionError(spec string, err error) error {
	switch {
	case spec == "":
		return errors.New("string is not a valid branch or hash")
	case errors.Is(err, commitgraph.ErrNoSuchAncestor):
		return errors.New("invalid ancestor spec")
	case errors.Is(err, commitgraph.ErrBadRevision), errors.Is(err, commitgraph.ErrNotCommit):
		base := spec
		if i := strings.IndexAny(spec, "~^"); i >= 0 {
			base = spec[:i]
		}
		if _, perr := chunks.ParseAddress(base); perr == nil {
			return errors.New("target commit not found")
		}
		return fmt.Errorf("branch not found: %s", base)
	}
	return err
}

// hash returns the revision as dolt_patch names it: its commit's hash, or
// WORKING or STAGED.
func (r *revision) hash() string {
	if r.commit == nil {
		return r.name
	}
	return r.commit.Addr.String()
}
