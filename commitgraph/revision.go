package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/verso-db/verso/chunks"
)

// Revision specs.
//
// A spec is a base followed by any number of steps:
//
//	base:  HEAD                 the head of the current branch
//	       <32-character hash>  a commit's address
//	       <branch>             a branch's head (refs/heads/<branch> too)
//	       <tag>                a tag's commit (refs/tags/<tag> too)
//	       <remote>/<branch>    a remote-tracking branch (remotes/<remote>/<branch>
//	                            and refs/remotes/<remote>/<branch> too)
//	steps: ~N                   N first parents back (~ alone is ~1)
//	       ^N                   the N-th parent (^ alone is ^1; ^0 is the
//	                            commit itself)
//
// so main~3^2~1 is: three first parents back from main's head, its second
// parent, and that one's first parent. A base that is a valid hash names a
// commit when the store holds one there; otherwise, and for every other
// base, a branch wins over a tag of the same name.

// Resolve returns the commit that spec names. current is the branch HEAD
// stands for; an empty current makes HEAD an error.
func (db *DB) Resolve(ctx context.Context, spec, current string) (*Commit, error) {
	base, steps := spec, ""
	if i := strings.IndexAny(spec, "~^"); i >= 0 {
		base, steps = spec[:i], spec[i:]
	}
	c, err := db.resolveBase(ctx, spec, base, current)
	if err != nil {
		return nil, err
	}
	done := base
	for steps != "" {
		op := steps[0]
		j := 1
		for j < len(steps) && steps[j] >= '0' && steps[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			if n, err = strconv.Atoi(steps[1:j]); err != nil {
				return nil, fmt.Errorf("%w: %q: %q is not a count", ErrBadRevision, spec, steps[1:j])
			}
		}
		if j < len(steps) && steps[j] != '~' && steps[j] != '^' {
			return nil, fmt.Errorf("%w: %q: unexpected %q after %q", ErrBadRevision, spec, steps[j:], done+steps[:j])
		}
		switch op {
		case '~':
			for k := 0; k < n; k++ {
				if len(c.Parents) == 0 {
					return nil, fmt.Errorf("%w: %q: %s is the root commit (%s), %d more steps back were asked for",
						ErrNoSuchAncestor, spec, stepName(done, k), c.Addr, n-k)
				}
				if c, err = db.ReadCommit(ctx, c.Parents[0]); err != nil {
					return nil, err
				}
			}
		case '^':
			if n > 0 {
				if n > len(c.Parents) {
					return nil, fmt.Errorf("%w: %q: %s (%s) has %d parents, not %d", ErrNoSuchAncestor, spec, done, c.Addr, len(c.Parents), n)
				}
				if c, err = db.ReadCommit(ctx, c.Parents[n-1]); err != nil {
					return nil, err
				}
			}
		}
		done += steps[:j]
		steps = steps[j:]
	}
	return c, nil
}

// stepName names the commit k first parents back from done.
func stepName(done string, k int) string {
	if k == 0 {
		return done
	}
	return fmt.Sprintf("%s~%d", done, k)
}

// resolveBase resolves the part of a spec before its steps.
func (db *DB) resolveBase(ctx context.Context, spec, base, current string) (*Commit, error) {
	switch {
	case base == "":
		return nil, fmt.Errorf("%w: %q has no branch, tag or hash before its steps", ErrBadRevision, spec)
	case base == "HEAD" || base == "head":
		if current == "" {
			return nil, fmt.Errorf("%w: %q: HEAD needs a current branch", ErrBadRevision, spec)
		}
		return db.HeadCommit(ctx, current)
	case strings.HasPrefix(base, branchPrefix):
		return db.HeadCommit(ctx, strings.TrimPrefix(base, branchPrefix))
	case strings.HasPrefix(base, tagPrefix):
		return db.tagCommit(ctx, strings.TrimPrefix(base, tagPrefix))
	case strings.HasPrefix(base, RemoteTrackingPrefix):
		a, ok, err := db.ref(ctx, base)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q: no remote-tracking branch has that name", ErrBadRevision, base)
		}
		return db.ReadCommit(ctx, a)
	}
	if addr, err := chunks.ParseAddress(base); err == nil {
		c, err := db.ReadCommit(ctx, addr)
		if err == nil || !errors.Is(err, ErrNotCommit) {
			return c, err
		}
	}
	c, err := db.HeadCommit(ctx, base)
	if !errors.Is(err, ErrBranchNotFound) {
		return c, err
	}
	c, err = db.tagCommit(ctx, base)
	if !errors.Is(err, ErrTagNotFound) {
		return c, err
	}
	if strings.Contains(base, "/") {
		// A remote-tracking branch: origin/main, or remotes/origin/main.
		name := RemoteTrackingPrefix + strings.TrimPrefix(base, "remotes/")
		if a, ok, err := db.ref(ctx, name); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return db.ReadCommit(ctx, a)
		}
	}
	if len(base) == 32 {
		_, perr := chunks.ParseAddress(base)
		if perr == nil {
			return nil, fmt.Errorf("%w: %q: no commit, branch or tag has that name", ErrBadRevision, base)
		}
		if looksLikeHash(base) {
			return nil, fmt.Errorf("%w: %q is not a branch or tag, and not a commit hash: %v", ErrBadRevision, base, perr)
		}
	}
	if looksLikeHash(base) {
		return nil, fmt.Errorf("%w: %q is not a branch or tag, and not a commit hash (a hash has 32 characters of 0-9 and a-v)", ErrBadRevision, base)
	}
	return nil, fmt.Errorf("%w: %q: no branch or tag has that name", ErrBadRevision, base)
}

// looksLikeHash reports whether s is long and made only of hash characters:
// probably a mistyped or shortened hash.
func looksLikeHash(s string) bool {
	if len(s) < 16 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// tagCommit returns the commit the tag name points to.
func (db *DB) tagCommit(ctx context.Context, name string) (*Commit, error) {
	t, err := db.Tag(ctx, name)
	if err != nil {
		return nil, err
	}
	return db.ReadCommit(ctx, t.Commit)
}
