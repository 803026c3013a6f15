package systables

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// ErrBadArgument is returned for arguments that a table function does not
// take.
var ErrBadArgument = errors.New("systables: bad argument")

// Staged names the staged root in a revision argument.
const Staged = verso.Staged

// revision is a resolved revision argument: a commit's root, or the
// working or staged root (commit nil).
type revision struct {
	name   string
	commit *commitgraph.Commit
	root   commitgraph.RootValue
	// when is the date WORKING and STAGED show when set (diffRevision).
	when time.Time
}

// resolve resolves a revision spec: WORKING and STAGED (the session's
// working and staged roots), HEAD (the snapshot's head), or any spec
// commitgraph.Resolve takes (branches and tags as they are now, hashes,
// ~ and ^ steps).
func (v *View) resolve(ctx context.Context, spec string) (*revision, error) {
	r := &revision{name: spec}
	var err error
	switch strings.ToUpper(spec) {
	case Working:
		r.root = v.Working
		return r, nil
	case Staged:
		r.root, err = v.staged(ctx)
		return r, err
	case "HEAD":
		r.commit, err = v.head(ctx)
	default:
		r.commit, err = v.Graph.Resolve(ctx, spec, v.Branch)
	}
	if err != nil {
		return nil, err
	}
	r.root, err = v.openRoot(ctx, r.commit)
	return r, err
}

func (r *revision) date() any {
	switch {
	case r.commit != nil:
		return r.commit.Meta.Time
	case !r.when.IsZero():
		return r.when
	}
	return nil
}

// splitRange splits "a..b" or "a...b".
func splitRange(s string) (a, b string, three, ok bool) {
	if i := strings.Index(s, "..."); i > 0 && i+3 < len(s) {
		return s[:i], s[i+3:], true, true
	}
	if i := strings.Index(s, ".."); i > 0 && i+2 < len(s) {
		return s[:i], s[i+2:], false, true
	}
	return "", "", false, false
}

// ChangedTables returns the tables that differ from revision from to
// revision to (specs as dolt_diff() takes them, WORKING and STAGED
// included).
func ChangedTables(ctx *sql.Context, v *View, from, to string) ([]TableChange, error) {
	rf, err := v.resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	rt, err := v.resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	return RootChanges(ctx, v.Graph, rf.root, rt.root)
}

// IsRevision reports whether spec names a revision of v: WORKING, STAGED,
// HEAD, a branch, a tag, a commit hash, with steps.
func IsRevision(ctx *sql.Context, v *View, spec string) bool {
	_, err := v.resolve(ctx, spec)
	return err == nil
}
