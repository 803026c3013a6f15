package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Errors in Dolt's words. Dolt's procedures answer with their own
// messages (most without the procedure's name), which scripts written
// for Dolt match; verso answers with the same ones where it refuses the
// same thing (testdata/doltcorpus holds Dolt's answers).

// revisionError words the failure to resolve the revision spec (a branch,
// tag, hash or HEAD~n) as Dolt does: an empty spec, a hash of no commit, a
// name that is no branch or tag, and an ancestor past the root.
func revisionError(spec string, err error) error {
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
