package commitgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Snapshot is the refs as of one read of the store root: every branch
// head, tag and working set at one moment. A SQL transaction takes one
// with its working-set snapshot, so the history it shows (dolt_log and the
// other system tables) is the history of that moment, whatever other
// writers commit meanwhile. It is immutable and safe for concurrent use.
type Snapshot struct {
	db   *DB
	root chunks.Address
	refs prolly.Map
}

// Snapshot returns the refs as they are now.
func (db *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	root, err := db.cs.Root(ctx)
	if err != nil {
		return nil, err
	}
	return db.SnapshotAt(ctx, root)
}

// Root returns the store root the snapshot was read from: two snapshots
// with one root hold the same refs.
func (s *Snapshot) Root() chunks.Address { return s.root }

func (s *Snapshot) tx() *RefTx { return &RefTx{refs: s.refs, edits: map[string]*chunks.Address{}} }

// Head returns the head of branch, or an error wrapping ErrBranchNotFound.
func (s *Snapshot) Head(ctx context.Context, branch string) (chunks.Address, error) {
	a, ok, err := s.tx().Get(ctx, branchRef(branch))
	if err == nil && !ok {
		err = fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
	}
	return a, err
}

// WorkingSet returns the working set of branch (see DB.WorkingSet).
func (s *Snapshot) WorkingSet(ctx context.Context, branch string) (WorkingSet, error) {
	ws, _, err := readWorkingSet(ctx, s.db, s.tx(), branch)
	return ws, err
}

// Branches returns every branch, sorted by name.
func (s *Snapshot) Branches(ctx context.Context) ([]Branch, error) {
	refs, err := s.tx().List(ctx, branchPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]Branch, len(refs))
	for i, r := range refs {
		out[i] = Branch{Name: strings.TrimPrefix(r.Name, branchPrefix), Head: r.Addr}
	}
	return out, nil
}

// Tags returns every tag, sorted by name.
func (s *Snapshot) Tags(ctx context.Context) ([]*Tag, error) {
	refs, err := s.tx().List(ctx, tagPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]*Tag, 0, len(refs))
	for _, r := range refs {
		t, err := s.db.readTag(ctx, strings.TrimPrefix(r.Name, tagPrefix), r.Addr)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// SnapshotAt returns the refs as of the store root root, one the store
// had (chunks.RootHistorian): for a log of the refs. It fails when the
// chunks of that root are gone (a collection keeps only the current
// root's).
func (db *DB) SnapshotAt(ctx context.Context, root chunks.Address) (*Snapshot, error) {
	if root.IsEmpty() {
		return nil, ErrNotInitialized
	}
	refs, err := prolly.OpenMap(ctx, db.ns, root)
	if err != nil {
		return nil, fmt.Errorf("commitgraph: open refs %s: %w", root, err)
	}
	return &Snapshot{db: db, root: root, refs: refs}, nil
}

// TagRef is a tag's ref: its name and the tag chunk's address.
type TagRef struct {
	Name string
	Addr chunks.Address
}

// TagRefs returns every tag's ref, sorted by name, without reading the
// tags (Tags does).
func (s *Snapshot) TagRefs(ctx context.Context) ([]TagRef, error) {
	refs, err := s.tx().List(ctx, tagPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]TagRef, len(refs))
	for i, r := range refs {
		out[i] = TagRef{Name: strings.TrimPrefix(r.Name, tagPrefix), Addr: r.Addr}
	}
	return out, nil
}

// ReadTag reads the tag chunk of the tag ref r.
func (db *DB) ReadTag(ctx context.Context, r TagRef) (*Tag, error) {
	return db.readTag(ctx, r.Name, r.Addr)
}
