package commitgraph

import (
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrBadChunk is returned when stored bytes are not a valid commit, tag
	// or working-set chunk, or a root value or refs map holds a malformed
	// entry. It wraps chunks.ErrCorrupt.
	ErrBadChunk = fmt.Errorf("commitgraph: malformed chunk: %w", chunks.ErrCorrupt)
	// ErrNotCommit is returned when an address names a chunk that is not a
	// commit (or no chunk at all).
	ErrNotCommit = errors.New("commitgraph: no such commit")
	// ErrNotInitialized is returned by reads of a store that holds no
	// database yet (its root is zero): run Init first.
	ErrNotInitialized = errors.New("commitgraph: the store holds no database; initialize it first")
	// ErrAlreadyInitialized is returned by Init on a store that holds refs.
	ErrAlreadyInitialized = errors.New("commitgraph: the store already holds a database")
	// ErrBranchNotFound is returned for a branch that does not exist.
	ErrBranchNotFound = errors.New("commitgraph: branch not found")
	// ErrBranchExists is returned when creating or renaming to a branch
	// name that is taken.
	ErrBranchExists = errors.New("commitgraph: branch already exists")
	// ErrBranchMoved is returned when a branch's head is not the one the
	// caller expected: another writer committed to it first. Nothing was
	// changed; read the new head and try again.
	ErrBranchMoved = errors.New("commitgraph: branch moved")
	// ErrTagNotFound is returned for a tag that does not exist.
	ErrTagNotFound = errors.New("commitgraph: tag not found")
	// ErrTagExists is returned when creating a tag whose name is taken.
	ErrTagExists = errors.New("commitgraph: tag already exists")
	// ErrWorkingSetMoved is returned when a working set is not the one the
	// caller expected.
	ErrWorkingSetMoved = errors.New("commitgraph: working set moved")
	// ErrBadName is returned for a branch or tag name that is not allowed.
	ErrBadName = errors.New("commitgraph: bad ref name")
	// ErrBadRevision is returned for a revision spec that cannot be parsed
	// or names nothing.
	ErrBadRevision = errors.New("commitgraph: bad revision")
	// ErrNoSuchAncestor is returned for a revision such as HEAD~5 that walks
	// past a root commit, or main^2 on a commit with one parent.
	ErrNoSuchAncestor = errors.New("commitgraph: no such ancestor")
	// ErrNoMergeBase is returned when two commits share no ancestor.
	ErrNoMergeBase = errors.New("commitgraph: no common ancestor")
	// ErrTooLarge is returned when a commit's or tag's fields do not fit
	// their length fields.
	ErrTooLarge = errors.New("commitgraph: field too large")
	// ErrMergeConflict may be returned by a RootResolver to stop a merge.
	ErrMergeConflict = errors.New("commitgraph: merge conflict")
)

// badChunk wraps ErrBadChunk with a description.
func badChunk(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadChunk, fmt.Sprintf(format, args...))
}
