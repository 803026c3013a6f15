package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
	"github.com/verso-db/verso/prolly"
)

// ErrCheck is returned by Check for a database that breaks an invariant.
var ErrCheck = errors.New("commitgraph: check failed")

// Check verifies the whole database: every ref names a chunk of its kind
// (branches commits, tags tag chunks of commits, working sets working-set
// chunks), and every commit reachable from a ref decodes, has the height
// 1 + its greatest parent height, a root value whose entries decode, and
// exactly the closure its parents give, merge-child aliases included for a
// commit of format 2 (whose parents must be of format 2 too): the closure
// is rebuilt from the parents in scratch memory and its address compared (closures are history
// independent, so equal sets have equal addresses). It reads every commit
// and writes nothing to the store: use it in tests. A root value that the
// store does not hold at all is not reported (tests commit made-up root
// addresses); one that is there must decode.
func (db *DB) Check(ctx context.Context) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCheck, fmt.Sprintf(format, args...))
	}
	refs, err := db.Refs(ctx, "")
	if err != nil {
		return err
	}
	scratch := prolly.NewNodeStore(&overlayStore{Store: chunks.NewMemoryStore(), base: db.cs})
	var queue []chunks.Address
	for _, r := range refs {
		switch {
		case strings.HasPrefix(r.Name, branchPrefix):
			queue = append(queue, r.Addr)
		case strings.HasPrefix(r.Name, tagPrefix):
			t, err := db.readTag(ctx, strings.TrimPrefix(r.Name, tagPrefix), r.Addr)
			if err != nil {
				return err
			}
			queue = append(queue, t.Commit)
		case strings.HasPrefix(r.Name, workingSetPrefix):
			b, err := db.cs.Get(ctx, r.Addr)
			if err != nil {
				return fmt.Errorf("%w: ref %q: %v", ErrCheck, r.Name, err)
			}
			if _, err := DecodeWorkingSet(b); err != nil {
				return fmt.Errorf("ref %q: %w", r.Name, err)
			}
			if _, ok, err := db.ref(ctx, branchRef(strings.TrimPrefix(r.Name, workingSetPrefix))); err != nil || !ok {
				return fail("working set %q of no branch", r.Name)
			}
		case strings.HasPrefix(r.Name, StashPrefix), strings.HasPrefix(r.Name, RemoteTrackingPrefix):
			queue = append(queue, r.Addr)
		case strings.HasPrefix(r.Name, UpstreamPrefix):
			b, err := db.cs.Get(ctx, r.Addr)
			if err == nil {
				_, err = DecodeUpstream(b)
			}
			if err != nil {
				return fmt.Errorf("%w: ref %q: %v", ErrCheck, r.Name, err)
			}
		case strings.HasPrefix(r.Name, RemotePrefix):
			if _, err := db.readRemote(ctx, r); err != nil {
				return fmt.Errorf("%w: %v", ErrCheck, err)
			}
		default:
			return fail("unknown ref %q", r.Name)
		}
	}
	seen := map[chunks.Address]bool{}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[a] {
			continue
		}
		seen[a] = true
		c, err := db.ReadCommit(ctx, a)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCheck, err)
		}
		pcs := make([]*Commit, len(c.Parents))
		h := closure.Height(1)
		for i, p := range c.Parents {
			pc, err := db.ReadCommit(ctx, p)
			if err != nil {
				return fail("commit %s, parent %d: %v", a, i+1, err)
			}
			if c.HasAliases() && !pc.HasAliases() {
				return fail("commit %s of format %d has parent %s of format %d", a, c.Version, p, pc.Version)
			}
			pcs[i] = pc
			h = max(h, pc.Height+1)
			queue = append(queue, p)
		}
		if c.Height != h {
			return fail("commit %s has height %d, its parents make %d", a, c.Height, h)
		}
		ps, err := db.closureParents(ctx, scratch, pcs, c.HasAliases())
		if err != nil {
			return fail("commit %s: %v", a, err)
		}
		want, err := closure.BuildTail(ctx, scratch, ps, maxTail(c.Version))
		if err != nil {
			return fail("commit %s: rebuild closure: %v", a, err)
		}
		got, err := openClosure(ctx, scratch, c)
		if err != nil {
			return fail("commit %s: %v", a, err)
		}
		if !want.Equal(got) {
			return fail("commit %s has closure %s with tail %v, its parents make %s with tail %v", a, c.Closure, c.Tail, want.Address(), want.Tail())
		}
		root, err := db.OpenRoot(ctx, c.Root)
		if chunks.IsNotFound(err) {
			continue // see the caveat in the doc comment
		}
		if err != nil {
			return fail("commit %s: %v", a, err)
		}
		if _, err := root.Entries(ctx, ""); err != nil {
			return fail("commit %s: root value: %v", a, err)
		}
	}
	return nil
}

// overlayStore reads from itself, then from base, and writes only to
// itself: Check rebuilds closures without writing to the database.
type overlayStore struct {
	chunks.Store
	base chunks.Reader
}

var _ chunks.Store = (*overlayStore)(nil)

func (s *overlayStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	b, err := s.Store.Get(ctx, a)
	if chunks.IsNotFound(err) {
		return s.base.Get(ctx, a)
	}
	return b, err
}
