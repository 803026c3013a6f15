package commitgraph

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
	"github.com/verso-db/verso/prolly"
)

// DefaultBranch is the branch Init creates when given none.
const DefaultBranch = "main"

// DB is a database's commit graph over a chunk store. It is safe for
// concurrent use: every change to refs is a compare-and-swap of the store
// root (see refs.go).
type DB struct {
	cs      chunks.Store
	ns      *prolly.NodeStore
	commits *commitCache // decoded commits (commitcache.go)
	retries atomic.Uint64
	// version1 makes WriteCommit write format-1 commits (closures without
	// aliases), as older builds did: for tests of old histories.
	version1 bool
}

// New returns the commit graph of the database in cs. It reads nothing:
// Init creates a database in an empty store.
func New(cs chunks.Store) *DB {
	return &DB{cs: cs, ns: prolly.NewNodeStore(cs), commits: newCommitCache(DefaultCommitCacheBytes)}
}

// Store returns the chunk store under db.
func (db *DB) Store() chunks.Store { return db.cs }

// NodeStore returns the node store db reads and writes prolly maps with;
// the table layer should use it too, to share its cache of decoded nodes.
func (db *DB) NodeStore() *prolly.NodeStore { return db.ns }

// Retries returns how many ref updates ran again because another writer
// moved the store root first.
func (db *DB) Retries() uint64 { return db.retries.Load() }

// Init creates a database in an empty store: a first commit of the empty
// root value on branch (DefaultBranch if empty) with meta. It returns
// ErrAlreadyInitialized if the store holds refs.
func (db *DB) Init(ctx context.Context, branch string, meta Meta) (*Commit, error) {
	if branch == "" {
		branch = DefaultBranch
	}
	if err := CheckName(branch); err != nil {
		return nil, err
	}
	c, err := db.WriteCommit(ctx, chunks.Address{}, nil, meta)
	if err != nil {
		return nil, err
	}
	err = db.UpdateRefs(ctx, func(tx *RefTx) error {
		if !tx.refs.Address().IsEmpty() {
			return ErrAlreadyInitialized
		}
		tx.Set(branchRef(branch), c.Addr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Initialized reports whether the store holds a database.
func (db *DB) Initialized(ctx context.Context) (bool, error) {
	root, err := db.cs.Root(ctx)
	return !root.IsEmpty(), err
}

// ReadCommit reads and decodes the commit at addr: one chunk read, none
// when the commit is in the DB's cache of decoded commits (commitcache.go;
// callers share the commits it returns and must not change them). It
// returns an error wrapping ErrNotCommit when the store holds no chunk
// there or the chunk is not a commit, and ErrBadChunk for a damaged one.
func (db *DB) ReadCommit(ctx context.Context, addr chunks.Address) (*Commit, error) {
	if c, ok := db.commits.get(addr); ok {
		return c, nil
	}
	b, err := db.cs.Get(ctx, addr)
	if chunks.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %s", ErrNotCommit, addr)
	}
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(commitMagic)) {
		return nil, fmt.Errorf("%w: %s is not a commit", ErrNotCommit, addr)
	}
	c, err := DecodeCommit(addr, b)
	if err != nil {
		return nil, fmt.Errorf("commitgraph: read commit %s: %w", addr, err)
	}
	db.commits.put(c)
	return c, nil
}

// SetCommitCacheBytes bounds the cache of decoded commits that ReadCommit
// keeps to n bytes (DefaultCommitCacheBytes until set; 0 caches nothing).
func (db *DB) SetCommitCacheBytes(n int64) {
	db.commits.setMax(int(min(n, int64(^uint(0)>>1))))
}

// CommitCacheLen returns the number of decoded commits cached and the sum
// of their costs in bytes.
func (db *DB) CommitCacheLen() (commits, bytes int) { return db.commits.len() }

// EvictCommits drops from the cache of decoded commits those whose address
// drop reports (the commits a garbage collection removed), and returns how
// many it dropped.
func (db *DB) EvictCommits(drop func(chunks.Address) bool) int {
	return db.commits.evictIf(drop)
}

// Closure opens the closure of c: its base, and its tail.
func (db *DB) Closure(ctx context.Context, c *Commit) (closure.Closure, error) {
	return openClosure(ctx, db.ns, c)
}

func openClosure(ctx context.Context, ns *prolly.NodeStore, c *Commit) (closure.Closure, error) {
	cl, err := closure.Open(ctx, ns, c.Closure)
	if err != nil || len(c.Tail) == 0 {
		return cl, err
	}
	tail := make([]closure.Entry, len(c.Tail))
	for i, a := range c.Tail {
		tail[i] = closure.Entry{Height: c.Height - 1 - closure.Height(i), Addr: a}
	}
	return cl.WithTail(tail)
}

// WriteCommit writes a commit of root with parents (the mainline first)
// and meta, with its closure, and returns it. It moves no ref: CommitRoot
// and the ref methods do that. A zero meta.Time means now, and at least a
// millisecond after the latest parent's, so that a history made faster
// than the clock's millisecond still orders by time as it does by
// height.
func (db *DB) WriteCommit(ctx context.Context, root chunks.Address, parents []chunks.Address, meta Meta) (*Commit, error) {
	now := meta.Time.IsZero()
	if now {
		meta.Time = time.Now()
	}
	meta.Time = time.UnixMilli(meta.Time.UnixMilli()).UTC()
	if !meta.AuthorTime.IsZero() {
		meta.AuthorTime = time.UnixMilli(meta.AuthorTime.UnixMilli()).UTC()
	}
	c := &Commit{Root: root, Parents: parents, Height: 1, Meta: meta, Version: db.writeVersion()}
	pcs := make([]*Commit, 0, len(parents))
	for i, p := range parents {
		for _, q := range parents[:i] {
			if q == p {
				return nil, fmt.Errorf("commitgraph: parent %s given twice", p)
			}
		}
		pc, err := db.ReadCommit(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("commitgraph: parent %d: %w", i+1, err)
		}
		pcs = append(pcs, pc)
		c.Height = max(c.Height, pc.Height+1)
		if now && !c.Meta.Time.After(pc.Meta.Time) {
			c.Meta.Time = pc.Meta.Time.Add(time.Millisecond)
		}
		if !pc.HasAliases() {
			c.Version = commitVersion1
		}
	}
	if c.Meta.AuthorTime.Equal(c.Meta.Time) {
		c.Meta.AuthorTime = time.Time{} // one time: the chunk holds it once
	}
	if c.Height > closure.MaxHeight {
		return nil, fmt.Errorf("commitgraph: height %d above %d", c.Height, closure.MaxHeight)
	}
	ps, err := db.closureParents(ctx, db.ns, pcs, c.HasAliases())
	if err != nil {
		return nil, err
	}
	cl, err := closure.BuildTail(ctx, db.ns, ps, maxTail(c.Version))
	if err != nil {
		return nil, err
	}
	c.Closure = cl.Address()
	for _, e := range cl.Tail() {
		c.Tail = append(c.Tail, e.Addr)
	}
	b, err := encodeCommit(c)
	if err != nil {
		return nil, err
	}
	if c.Addr, err = db.cs.Put(ctx, b); err != nil {
		return nil, err
	}
	return c, nil
}

// writeVersion is the version of the commits db writes on version-2
// parents: commitVersion, or commitVersion1 in tests of old histories.
func (db *DB) writeVersion() uint8 {
	if db.version1 {
		return commitVersion1
	}
	return commitVersion
}

// maxTail is the longest closure tail a commit of format v has.
func maxTail(v uint8) int {
	if v >= commitVersion {
		return closure.MaxTail
	}
	return 0
}

// closureParents returns what closure.Build needs of each parent commit:
// its entry and closure (opened in ns), and, if aliases, the heights of
// its own parents when it is a merge (one chunk read per parent of a
// merge). Without aliases the closure is built as a version-1 writer built
// it: the parents' closures and the parents, no aliases added.
func (db *DB) closureParents(ctx context.Context, ns *prolly.NodeStore, pcs []*Commit, aliases bool) ([]closure.Parent, error) {
	ps := make([]closure.Parent, len(pcs))
	for i, pc := range pcs {
		cl, err := openClosure(ctx, ns, pc)
		if err != nil {
			return nil, err
		}
		ps[i] = closure.Parent{Entry: pc.Entry(), Closure: cl, Merge: pc.IsMerge()}
		if !aliases || !pc.IsMerge() {
			continue
		}
		for _, q := range pc.Parents {
			qc, err := db.ReadCommit(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("commitgraph: parent of %s: %w", pc.Addr, err)
			}
			ps[i].Parents = append(ps[i].Parents, qc.Height)
		}
	}
	return ps, nil
}

// CommitOptions says what CommitRoot commits where.
type CommitOptions struct {
	// Branch is the branch to commit to; it must exist.
	Branch string
	// Root is the root value to commit.
	Root chunks.Address
	// ExpectedHead is the head the caller built on: the commit's first
	// parent. If the branch's head is another commit when the commit is
	// written, CommitRoot returns ErrBranchMoved and changes nothing.
	ExpectedHead chunks.Address
	// MergeParents are further parents, for a merge commit.
	MergeParents []chunks.Address
	// Meta describes the commit; a zero Time means now.
	Meta Meta
	// WorkingSet, if not nil, is written as the branch's working set in the
	// same atomic step (for example working = staged = Root after a commit
	// of everything staged).
	WorkingSet *WorkingSet
}

// CommitRoot writes a commit of opts.Root whose parents are the branch's
// expected head and opts.MergeParents, and moves the branch to it with one
// compare-and-swap of the store root. Changes by other writers to other
// refs are retried over; a move of the same branch fails with
// ErrBranchMoved.
func (db *DB) CommitRoot(ctx context.Context, opts CommitOptions) (*Commit, error) {
	if err := CheckName(opts.Branch); err != nil {
		return nil, err
	}
	if opts.ExpectedHead.IsEmpty() {
		return nil, fmt.Errorf("%w: commit to %q without an expected head", ErrBranchMoved, opts.Branch)
	}
	parents := append([]chunks.Address{opts.ExpectedHead}, opts.MergeParents...)
	c, err := db.WriteCommit(ctx, opts.Root, parents, opts.Meta)
	if err != nil {
		return nil, err
	}
	var wsAddr chunks.Address
	if opts.WorkingSet != nil {
		if wsAddr, err = db.putWorkingSet(ctx, *opts.WorkingSet); err != nil {
			return nil, err
		}
	}
	err = db.UpdateRefs(ctx, func(tx *RefTx) error {
		if err := checkHead(ctx, tx, opts.Branch, opts.ExpectedHead); err != nil {
			return err
		}
		tx.Set(branchRef(opts.Branch), c.Addr)
		if opts.WorkingSet != nil {
			tx.Set(workingSetRef(opts.Branch), wsAddr)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// checkHead returns nil if branch's head in tx is expected.
func checkHead(ctx context.Context, tx *RefTx, branch string, expected chunks.Address) error {
	head, ok, err := tx.Get(ctx, branchRef(branch))
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
	case head != expected:
		return fmt.Errorf("%w: %q is at %s, not the expected %s", ErrBranchMoved, branch, head, expected)
	}
	return nil
}
