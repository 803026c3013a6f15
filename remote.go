package verso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/remotes"
)

// Remotes: a database shares its history with others through remotes on
// object storage (package remotes): Push uploads what a remote lacks of a
// branch's history and moves the remote's branch; Fetch downloads what
// this database lacks of the remote's branches and records where they
// were as remote-tracking branches (origin/main), which revisions, merges
// and diffs then name like any branch.

// Remote is a remote's configuration.
type Remote = commitgraph.Remote

// RemoteBranch is a remote-tracking branch.
type RemoteBranch = commitgraph.RemoteBranch

// Errors of remotes.
var (
	ErrRemoteNotFound = commitgraph.ErrRemoteNotFound
	ErrRemoteExists   = commitgraph.ErrRemoteExists
	// ErrRemoteMoved: a push found the remote's branch where the pushed
	// commit does not descend from.
	ErrRemoteMoved = remotes.ErrRemoteMoved
	// ErrNoRemoteRef: the remote has no such branch.
	ErrNoRemoteRef = remotes.ErrNoRemoteRef
	// ErrEmptyRemote: the remote holds no branch (a clone's).
	ErrEmptyRemote = errors.New("verso: the remote holds no branch")
)

// AddRemote adds the remote name at url (file:///path or
// s3://bucket/prefix), fetching its branches into refs/remotes/<name>/.
func (db *DB) AddRemote(ctx context.Context, name, url string, params map[string]string) error {
	if params == nil {
		params = map[string]string{}
	}
	return db.graph.AddRemote(ctx, Remote{Name: name, URL: url,
		FetchSpecs: []string{"refs/heads/*:refs/remotes/" + name + "/*"}, Params: params})
}

// RemoveRemote removes a remote and its remote-tracking branches.
func (db *DB) RemoveRemote(ctx context.Context, name string) error {
	return db.graph.RemoveRemote(ctx, name)
}

// Remotes returns the remotes, sorted by name.
func (db *DB) Remotes(ctx context.Context) ([]Remote, error) { return db.graph.Remotes(ctx) }

// RemoteBranches returns the remote-tracking branches, sorted by name.
func (db *DB) RemoteBranches(ctx context.Context) ([]RemoteBranch, error) {
	return db.graph.RemoteBranches(ctx)
}

// openRemote opens the remote called name.
func (db *DB) openRemote(ctx context.Context, name string) (Remote, *remotes.Store, error) {
	r, err := db.graph.GetRemote(ctx, name)
	if err != nil {
		return r, nil, err
	}
	bs, err := remotes.OpenURL(ctx, r.URL)
	if err != nil {
		return r, nil, err
	}
	s, err := remotes.Open(ctx, bs)
	if err != nil {
		bs.Close()
		return r, nil, fmt.Errorf("remote %q: %w", name, err)
	}
	return r, s, nil
}

// enumerable returns the database's store as a transfer's source.
func (db *DB) enumerable() (remotes.Enumerable, error) {
	src, ok := db.store.(remotes.Enumerable)
	if !ok {
		return nil, fmt.Errorf("verso: this database's store (%T) cannot list its chunks, which a push needs", db.store)
	}
	return src, nil
}

// PushOptions tune Push.
type PushOptions struct {
	// Force moves the remote's branch even when that drops commits from it.
	Force bool
	// Progress, if set, hears how the upload goes.
	Progress func(remotes.Progress)
}

// PushResult says what a push did.
type PushResult struct {
	Remote Remote
	// Old is where the remote's branch was (zero if it was new); New is
	// where it is now (zero if it was deleted).
	Old, New chunks.Address
	// Copied is what was uploaded.
	Copied remotes.Progress
}

// UpToDate reports whether the remote's branch was already where it was
// pushed.
func (r PushResult) UpToDate() bool { return r.Old == r.New }

// Push makes branch dst of the remote point at the commit src names (a
// branch, tag or any revision), uploading what the remote lacks of its
// history, and records the remote-tracking branch <remote>/<dst>. An
// empty src deletes dst on the remote. Without opts.Force the push must
// be a fast-forward of the remote's branch, or it fails with
// ErrRemoteMoved and changes no branch.
func (db *DB) Push(ctx context.Context, remote, src, dst string, opts PushOptions) (PushResult, error) {
	var res PushResult
	if err := commitgraph.CheckName(dst); err != nil {
		return res, err
	}
	var to chunks.Address
	if src != "" {
		c, err := db.Resolve(ctx, src, db.DefaultBranch())
		if err != nil {
			return res, err
		}
		to = c.Addr
	}
	source, err := db.enumerable()
	if err != nil {
		return res, err
	}
	err = db.withRemote(ctx, remote, func(r Remote, rs *remotes.Store) error {
		res.Remote = r
		pr, err := remotes.PushRef(ctx, source, rs, "refs/heads/"+dst, to, remotes.PushOptions{Force: opts.Force, Copy: remotes.CopyOptions{Progress: opts.Progress}})
		res.Old, res.New, res.Copied = pr.Old, to, pr.Copied
		return err
	})
	if err != nil {
		return res, err
	}
	return res, db.graph.SetRemoteBranches(ctx, remote, map[string]chunks.Address{dst: to}, false)
}

// FetchOptions tune Fetch.
type FetchOptions struct {
	// Branches limits the fetch to these of the remote's branches; all if
	// empty. An entry "b:t" fetches the remote's b into the
	// remote-tracking branch <remote>/t instead of <remote>/b.
	Branches []string
	// Prune deletes the remote-tracking branches whose branch the remote
	// no longer has (only when all branches are fetched).
	Prune bool
	// Progress, if set, hears how the download goes.
	Progress func(remotes.Progress)
}

// FetchResult says what a fetch did.
type FetchResult struct {
	Remote Remote
	// Heads are the remote's branches fetched, by name.
	Heads map[string]chunks.Address
	// Copied is what was downloaded.
	Copied remotes.Progress
}

// Fetch downloads what this database lacks of the remote's branches and
// sets the remote-tracking branches <remote>/<branch> to them, in one
// step once every chunk is in.
func (db *DB) Fetch(ctx context.Context, remote string, opts FetchOptions) (FetchResult, error) {
	res := FetchResult{Heads: map[string]chunks.Address{}}
	err := db.withRemote(ctx, remote, func(r Remote, rs *remotes.Store) error {
		res.Remote = r
		return db.fetch(ctx, remote, rs, opts, &res)
	})
	if err != nil {
		return res, err
	}
	return res, db.graph.SetRemoteBranches(ctx, remote, res.Heads, opts.Prune && len(opts.Branches) == 0)
}

// fetch is Fetch's download, from the remote rs.
func (db *DB) fetch(ctx context.Context, remote string, rs *remotes.Store, opts FetchOptions, res *FetchResult) error {
	refs, err := remotes.Refs(ctx, rs)
	if err != nil {
		return fmt.Errorf("remote %q: %w", remote, err)
	}
	var want []commitgraph.Ref
	remoteHeads := map[string]chunks.Address{}
	for _, ref := range refs {
		if b, ok := strings.CutPrefix(ref.Name, "refs/heads/"); ok {
			remoteHeads[b] = ref.Addr
			if len(opts.Branches) == 0 {
				want = append(want, ref)
				res.Heads[b] = ref.Addr
			}
		}
	}
	for _, spec := range opts.Branches {
		b, into, ok := strings.Cut(spec, ":")
		if !ok {
			into = b
		}
		a, ok := remoteHeads[b]
		if !ok {
			return fmt.Errorf("%w: %q on remote %q", ErrNoRemoteRef, b, remote)
		}
		want = append(want, commitgraph.Ref{Name: "refs/heads/" + b, Addr: a})
		res.Heads[into] = a
	}
	if res.Copied, err = remotes.FetchRefs(ctx, rs, db.store, want, remotes.CopyOptions{Progress: opts.Progress}); err != nil {
		return fmt.Errorf("fetch from %q: %w", remote, err)
	}
	return nil
}

// CloneOptions tune Clone.
type CloneOptions struct {
	Options
	// Remote is the name the remote gets in the clone; origin if empty.
	Remote string
	// Branch is the clone's default branch; the remote's main, or else
	// its first branch, if empty.
	Branch string
	// Progress, if set, hears how the download goes.
	Progress func(remotes.Progress)
}

// Clone makes a new database in dir (which must not hold one) from the
// remote at url, as Dolt clones: one local branch (opts.Branch, else
// the remote's main, else its first) tracking the remote's, the remote's
// tags, the remote itself (as opts.Remote) and a remote-tracking branch
// for each of the remote's branches. A clone that fails, or a process
// killed while it clones, leaves no database behind: it is built in
// dir/.verso.clone and renamed to dir/.verso once complete (the next
// clone into dir removes what a killed one left).
func Clone(ctx context.Context, url, dir string, opts CloneOptions) (db *DB, err error) {
	name := opts.Remote
	if name == "" {
		name = "origin"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, RepoDir)); err == nil {
		return nil, fmt.Errorf("%w: %s holds %s", ErrExists, abs, RepoDir)
	}
	bs, err := remotes.OpenURL(ctx, url)
	if err != nil {
		return nil, err
	}
	rs, err := remotes.Open(ctx, bs)
	if err != nil {
		bs.Close()
		return nil, err
	}
	defer rs.Close()
	refs, err := remotes.Refs(ctx, rs)
	if err != nil {
		return nil, err
	}
	heads := map[string]chunks.Address{}
	var first string
	for _, r := range refs {
		if b, ok := strings.CutPrefix(r.Name, "refs/heads/"); ok {
			heads[b] = r.Addr
			if first == "" {
				first = b
			}
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("%w to clone: %s", ErrEmptyRemote, url)
	}
	branch := opts.Branch
	switch {
	case branch != "":
		if _, ok := heads[branch]; !ok {
			return nil, fmt.Errorf("%w: %q on the remote %s", ErrNoRemoteRef, branch, url)
		}
	case heads[commitgraph.DefaultBranch] != chunks.Address{}:
		branch = commitgraph.DefaultBranch
	default:
		branch = first
	}
	made := false
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		made = true
	}
	tmp := filepath.Join(abs, cloneDir)
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if made {
				os.RemoveAll(abs)
			} else {
				os.RemoveAll(tmp)
			}
		}
	}()
	cs, err := chunks.OpenFileStore(filepath.Join(tmp, StoreDir), chunks.Options{})
	if err != nil {
		return nil, err
	}
	err = func() error {
		defer cs.Close()
		// The new store holds nothing: the remote's table files come
		// whole (remotes.CopyTables), each checked as it is added.
		if _, err := remotes.CopyTables(ctx, rs, cs, remotes.CopyOptions{Progress: opts.Progress}); err != nil {
			return fmt.Errorf("clone %s: %w", url, err)
		}
		for _, r := range refs {
			if ok, err := cs.Has(ctx, r.Addr); err != nil || !ok {
				if err == nil {
					err = fmt.Errorf("%w: the remote's %s names %s, which none of its table files holds", chunks.ErrCorrupt, r.Name, r.Addr)
				}
				return fmt.Errorf("clone %s: %w", url, err)
			}
		}
		g := commitgraph.New(cs)
		rc, err := commitgraph.EncodeRemote(Remote{URL: url, FetchSpecs: []string{"refs/heads/*:refs/remotes/" + name + "/*"}, Params: map[string]string{}})
		if err != nil {
			return err
		}
		ra, err := cs.Put(ctx, rc)
		if err != nil {
			return err
		}
		ub, err := commitgraph.EncodeUpstream(Upstream{Remote: name, Branch: branch})
		if err != nil {
			return err
		}
		ua, err := cs.Put(ctx, ub)
		if err != nil {
			return err
		}
		return g.UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
			for _, r := range refs {
				if b, ok := strings.CutPrefix(r.Name, "refs/heads/"); ok {
					tx.Set(commitgraph.RemoteTrackingPrefix+name+"/"+b, r.Addr)
				} else {
					tx.Set(r.Name, r.Addr) // a tag
				}
			}
			tx.Set("refs/heads/"+branch, heads[branch])
			tx.Set(commitgraph.UpstreamPrefix+branch, ua)
			tx.Set(commitgraph.RemotePrefix+name, ra)
			return nil
		})
	}()
	if err != nil {
		return nil, err
	}
	if err := writeFileSynced(filepath.Join(tmp, headFile), []byte(branch+"\n")); err != nil {
		return nil, err
	}
	if err := syncPath(tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(abs, RepoDir)); err != nil {
		return nil, err
	}
	if err := syncPath(abs); err != nil {
		return nil, err
	}
	return Open(abs, opts.Options)
}

// cloneDir is the folder, beside RepoDir, that Clone builds a database
// in before it renames it to RepoDir.
const cloneDir = RepoDir + ".clone"

// CloneLeftover reports whether dir holds nothing but what a clone that
// did not finish left (a process killed while it cloned): a clone into
// dir may go ahead.
func CloneLeftover(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.Name() != cloneDir {
			return false
		}
	}
	return true
}

// syncPath fsyncs a folder, so that the names in it are durable.
func syncPath(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Upstream is the remote branch a branch pushes to and pulls from.
type Upstream = commitgraph.Upstream

// SetUpstream records the remote branch that branch tracks (a zero
// Upstream removes it).
func (db *DB) SetUpstream(ctx context.Context, branch string, u Upstream) error {
	return db.graph.SetUpstream(ctx, branch, u)
}

// Upstreams returns every branch's upstream, by branch.
func (db *DB) Upstreams(ctx context.Context) (map[string]Upstream, error) {
	return db.graph.Upstreams(ctx)
}

// GetRemote returns the remote called name (ErrRemoteNotFound).
func (db *DB) GetRemote(ctx context.Context, name string) (Remote, error) {
	return db.graph.GetRemote(ctx, name)
}

// RemoteHeads reads the remote's branches, by name.
func (db *DB) RemoteHeads(ctx context.Context, remote string) (map[string]chunks.Address, error) {
	var refs []commitgraph.Ref
	err := db.withRemote(ctx, remote, func(_ Remote, rs *remotes.Store) error {
		var err error
		refs, err = remotes.Refs(ctx, rs)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]chunks.Address{}
	for _, r := range refs {
		if b, ok := strings.CutPrefix(r.Name, "refs/heads/"); ok {
			out[b] = r.Addr
		}
	}
	return out, nil
}

// ReplicateOptions tune Replicate.
type ReplicateOptions struct {
	// Heads are patterns (path.Match: * and ? within a name) naming the
	// remote's branches to mirror, as @@dolt_replicate_heads lists them.
	// Empty mirrors every branch, and then deletes the local branches the
	// remote no longer has (but the database's default branch). A pattern
	// that matches no branch of the remote is no error: the branch may not
	// exist yet.
	Heads []string
	// FastForwardOnly refuses (ErrDiverged) to move a local branch whose
	// head is not an ancestor of the remote's, instead of resetting it to
	// the remote's.
	FastForwardOnly bool
}

// ReplicateResult says what Replicate did.
type ReplicateResult struct {
	// Moved, Created and Deleted name the local branches changed.
	Moved, Created, Deleted []string
	// Copied is what was downloaded.
	Copied remotes.Progress
}

// ErrDiverged is returned by Replicate with FastForwardOnly for a local
// branch that has commits the remote's branch does not.
var ErrDiverged = errors.New("verso: the branch has diverged from the remote's")

// Replicate makes this database a mirror of the remote's branches that
// opts.Heads selects, as a read replica pulls: it downloads what it lacks
// of them, then in one step sets the remote-tracking branches and points
// each local branch of the same name at the remote's head, with the
// head's root as its working set (uncommitted changes of those branches
// are dropped). When every branch is mirrored, local branches the remote
// no longer has are deleted. A pull that finds the remote where the
// local branches already are downloads nothing and writes nothing.
func (db *DB) Replicate(ctx context.Context, remote string, opts ReplicateOptions) (ReplicateResult, error) {
	var res ReplicateResult
	for _, p := range opts.Heads {
		if _, err := path.Match(p, ""); err != nil {
			return res, fmt.Errorf("verso: replicated heads: bad pattern %q: %w", p, err)
		}
	}
	err := db.withRemote(ctx, remote, func(_ Remote, rs *remotes.Store) error {
		var err error
		res, err = db.replicate(ctx, remote, rs, opts)
		return err
	})
	return res, err
}

// replicate is Replicate from the remote rs.
func (db *DB) replicate(ctx context.Context, remote string, rs *remotes.Store, opts ReplicateOptions) (ReplicateResult, error) {
	var res ReplicateResult
	match := func(b string) bool {
		for _, p := range opts.Heads {
			if ok, _ := path.Match(p, b); ok {
				return true
			}
		}
		return len(opts.Heads) == 0
	}
	refs, err := remotes.Refs(ctx, rs)
	if err != nil {
		return res, fmt.Errorf("remote %q: %w", remote, err)
	}
	branches, err := db.graph.Branches(ctx)
	if err != nil {
		return res, err
	}
	local := make(map[string]chunks.Address, len(branches))
	for _, b := range branches {
		local[b.Name] = b.Head
	}
	track := map[string]chunks.Address{}
	set := map[string]chunks.Address{}
	var want []commitgraph.Ref
	for _, ref := range refs {
		b, ok := strings.CutPrefix(ref.Name, "refs/heads/")
		if !ok || !match(b) {
			continue
		}
		track[b] = ref.Addr
		if at, ok := local[b]; ok && at == ref.Addr {
			continue
		}
		set[b] = ref.Addr
		want = append(want, ref)
	}
	var drop []string
	if len(opts.Heads) == 0 {
		for b := range local {
			if _, ok := track[b]; !ok && b != db.DefaultBranch() {
				drop = append(drop, b)
			}
		}
		// Remote-tracking branches of branches gone from the remote.
		gone, err := db.graph.RemoteBranches(ctx)
		if err != nil {
			return res, err
		}
		for _, rb := range gone {
			if rb.Remote == remote {
				if _, ok := track[rb.Branch]; !ok {
					track[rb.Branch] = chunks.Address{}
				}
			}
		}
	}
	if len(want) > 0 {
		if res.Copied, err = remotes.FetchRefs(ctx, rs, db.store, want, remotes.CopyOptions{}); err != nil {
			return res, fmt.Errorf("fetch from %q: %w", remote, err)
		}
	}
	for b, a := range set {
		at, ok := local[b]
		if !ok {
			res.Created = append(res.Created, b)
			continue
		}
		res.Moved = append(res.Moved, b)
		if opts.FastForwardOnly {
			ff, err := db.graph.IsAncestor(ctx, at, a)
			if err != nil {
				return res, err
			}
			if !ff {
				return res, fmt.Errorf("%w: %q (local %s, remote %q %s)", ErrDiverged, b, at, remote, a)
			}
		}
	}
	res.Deleted = drop
	slices.Sort(res.Moved)
	slices.Sort(res.Created)
	slices.Sort(res.Deleted)
	return res, db.graph.MirrorBranches(ctx, remote, track, set, drop, local)
}

// openedRemote is a remote kept open (DB.remotes).
type openedRemote struct {
	mu  sync.Mutex // held by the one operation using s
	url string
	s   *remotes.Store // nil until opened, and after a failed operation
}

// withRemote runs fn with the remote called name open: the Store kept
// from the last operation on it while the remote's URL has not changed,
// so that a pull or push reads only the manifest and the indexes of table
// files new since (a read replica pulls, and a primary pushes, at every
// transaction). Operations on one remote run one at a time; one that
// fails drops the Store (whatever it held half done, such as chunks of a
// push that lost its race, goes with it) and the next opens it again.
func (db *DB) withRemote(ctx context.Context, name string, fn func(Remote, *remotes.Store) error) error {
	r, err := db.graph.GetRemote(ctx, name)
	if err != nil {
		return err
	}
	db.remotesMu.Lock()
	if db.remotes == nil {
		db.remotes = map[string]*openedRemote{}
	}
	o := db.remotes[name]
	if o == nil {
		o = &openedRemote{}
		db.remotes[name] = o
	}
	db.remotesMu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.s != nil && o.url != r.URL {
		o.s.Close()
		o.s = nil
	}
	if o.s == nil {
		_, s, err := db.openRemote(ctx, name)
		if err != nil {
			return err
		}
		o.s, o.url = s, r.URL
	}
	if err := fn(r, o.s); err != nil {
		o.s.Close()
		o.s = nil
		return err
	}
	return nil
}

// closeRemotes closes the remotes kept open.
func (db *DB) closeRemotes() {
	db.remotesMu.Lock()
	defer db.remotesMu.Unlock()
	for name, o := range db.remotes {
		o.mu.Lock()
		if o.s != nil {
			o.s.Close()
			o.s = nil
		}
		o.mu.Unlock()
		delete(db.remotes, name)
	}
}
