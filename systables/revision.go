package systables

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// resolveCommit resolves a revision spec to a commit: HEAD (and HEAD~n,
// HEAD^2, ...) from the view's HEAD, anything else as commitgraph.Resolve
// does (branches and tags as they are now, hashes, with steps). A spec
// that names nothing is a *verso.RevisionError.
func (v *View) resolveCommit(ctx context.Context, spec string) (*commitgraph.Commit, error) {
	base, steps := spec, ""
	if i := strings.IndexAny(spec, "~^"); i >= 0 {
		base, steps = spec[:i], spec[i:]
	}
	resolved := spec
	if strings.EqualFold(base, "HEAD") {
		h, err := v.head(ctx)
		if err != nil {
			return nil, err
		}
		if steps == "" {
			return h, nil
		}
		resolved = h.Addr.String() + steps
	}
	c, err := v.Graph.Resolve(ctx, resolved, v.Branch)
	if err != nil {
		return nil, &verso.RevisionError{Rev: spec, Err: err}
	}
	return c, nil
}

// RevisionError words the failure err to resolve the revision spec (a
// branch, tag, hash or HEAD~n) as Dolt does: an empty spec, a hash of no
// commit, a name that is no branch or tag, and an ancestor past the root.
// Other errors are returned as they are.
func RevisionError(spec string, err error) error {
	base := spec
	if i := strings.IndexAny(spec, "~^"); i >= 0 {
		base = spec[:i]
	}
	switch {
	case spec == "":
		return errors.New("string is not a valid branch or hash")
	case errors.Is(err, commitgraph.ErrNoSuchAncestor):
		return errors.New("invalid ancestor spec")
	case errors.Is(err, commitgraph.ErrBadRevision), errors.Is(err, commitgraph.ErrNotCommit):
		if _, perr := chunks.ParseAddress(base); perr == nil {
			return errors.New("target commit not found")
		}
		return fmt.Errorf("branch not found: %s", base)
	}
	return err
}
