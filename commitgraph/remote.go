package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verso-db/verso/chunks"
)

// Remotes: their configuration and the remote-tracking refs, in the refs
// map beside the branches:
//
//	remotes/<name>                  -> a remote chunk (below)
//	refs/remotes/<remote>/<branch>  -> the commit <remote>'s <branch> was
//	                                   at when last fetched or pushed
//	upstream/<branch>               -> an upstream chunk: the remote branch
//	                                   <branch> pushes to and pulls from
//
// Remote chunk format, version 1. Integers are big-endian.
//
//	+----------------------------------------------------------+
//	| magic "VRMT" [4] | version u8 (1)                         |
//	| url: len u32 | bytes                                     |
//	| fetch spec count u16 | (len u16 | bytes) ...              |
//	| param count u16 | (key len u16 | bytes | value len u32 | bytes) ...  sorted by key |
//	+----------------------------------------------------------+
//
// The name is not in the chunk: it is the key of the ref.
//
// Upstream chunk format, version 1:
//
//	+----------------------------------------------------------+
//	| magic "VUPS" [4] | version u8 (1)                         |
//	| remote: len u16 | bytes                                  |
//	| remote branch: len u16 | bytes                           |
//	+----------------------------------------------------------+

const (
	RemotePrefix         = "remotes/"
	RemoteTrackingPrefix = "refs/remotes/"
	remoteMagic          = "VRMT"
	UpstreamPrefix       = "upstream/"
	upstreamMagic        = "VUPS"
)

// ErrRemoteNotFound: no remote has that name.
var ErrRemoteNotFound = errors.New("commitgraph: remote not found")

// ErrRemoteExists: a remote of that name exists already.
var ErrRemoteExists = errors.New("commitgraph: remote already exists")

// Remote is a remote's configuration.
type Remote struct {
	Name       string
	URL        string
	FetchSpecs []string
	Params     map[string]string
}

// EncodeRemote returns the chunk of r (without its name).
func EncodeRemote(r Remote) ([]byte, error) {
	var w writer
	w.header(remoteMagic)
	w.message("url", r.URL)
	w.u16(uint16(min(len(r.FetchSpecs), maxShort)))
	for _, s := range r.FetchSpecs {
		w.short("fetch spec", s)
	}
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.u16(uint16(min(len(keys), maxShort)))
	for _, k := range keys {
		w.short("param name", k)
		w.message("param value", r.Params[k])
	}
	if len(r.FetchSpecs) > maxShort || len(keys) > maxShort {
		w.fail(fmt.Errorf("%w: too many fetch specs or params", ErrTooLarge))
	}
	return w.result()
}

// DecodeRemote decodes a remote chunk; name is its ref's.
func DecodeRemote(name string, b []byte) (Remote, error) {
	r := reader{b: b, kind: "remote"}
	r.header(remoteMagic)
	rm := Remote{Name: name, URL: r.message("url"), Params: map[string]string{}}
	n := int(r.u16("fetch spec count"))
	for i := 0; i < n && r.err == nil; i++ {
		rm.FetchSpecs = append(rm.FetchSpecs, r.short("fetch spec"))
	}
	n = int(r.u16("param count"))
	prev := ""
	for i := 0; i < n && r.err == nil; i++ {
		k := r.short("param name")
		v := r.message("param value")
		if r.err == nil && i > 0 && k <= prev {
			r.err = badChunk("remote: params out of order")
		}
		prev = k
		rm.Params[k] = v
	}
	if err := r.done(); err != nil {
		return Remote{}, err
	}
	return rm, nil
}

// AddRemote stores a new remote's configuration.
func (db *DB) AddRemote(ctx context.Context, r Remote) error {
	if strings.ContainsAny(r.Name, "/. \t\n\x00:*?[\\^~") {
		return fmt.Errorf("%w: %q is not a remote name", ErrBadName, r.Name)
	}
	b, err := EncodeRemote(r)
	if err != nil {
		return err
	}
	a, err := db.cs.Put(ctx, b)
	if err != nil {
		return err
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, RemotePrefix+r.Name); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrRemoteExists, r.Name)
			}
			return err
		}
		tx.Set(RemotePrefix+r.Name, a)
		return nil
	})
}

// RemoveRemote deletes a remote and its remote-tracking refs.
func (db *DB) RemoveRemote(ctx context.Context, name string) error {
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, RemotePrefix+name); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrRemoteNotFound, name)
			}
			return err
		}
		tx.Delete(RemotePrefix + name)
		refs, err := tx.List(ctx, RemoteTrackingPrefix+name+"/")
		if err != nil {
			return err
		}
		for _, r := range refs {
			tx.Delete(r.Name)
		}
		return nil
	})
}

// Remotes returns every remote, sorted by name.
func (db *DB) Remotes(ctx context.Context) ([]Remote, error) {
	refs, err := db.Refs(ctx, RemotePrefix)
	if err != nil {
		return nil, err
	}
	out := make([]Remote, 0, len(refs))
	for _, ref := range refs {
		r, err := db.readRemote(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (db *DB) readRemote(ctx context.Context, ref Ref) (Remote, error) {
	b, err := db.cs.Get(ctx, ref.Addr)
	if err != nil {
		return Remote{}, fmt.Errorf("commitgraph: remote %q: %w", ref.Name, err)
	}
	return DecodeRemote(strings.TrimPrefix(ref.Name, RemotePrefix), b)
}

// GetRemote returns the remote called name.
func (db *DB) GetRemote(ctx context.Context, name string) (Remote, error) {
	a, ok, err := db.ref(ctx, RemotePrefix+name)
	if err != nil {
		return Remote{}, err
	}
	if !ok {
		return Remote{}, fmt.Errorf("%w: %q", ErrRemoteNotFound, name)
	}
	return db.readRemote(ctx, Ref{Name: RemotePrefix + name, Addr: a})
}

// RemoteBranch is a remote-tracking ref: Name is "<remote>/<branch>".
type RemoteBranch struct {
	Name   string
	Remote string
	Branch string
	Head   chunks.Address
}

// RemoteBranches returns the remote-tracking refs, sorted by name.
func (db *DB) RemoteBranches(ctx context.Context) ([]RemoteBranch, error) {
	refs, err := db.Refs(ctx, RemoteTrackingPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]RemoteBranch, 0, len(refs))
	for _, r := range refs {
		name := strings.TrimPrefix(r.Name, RemoteTrackingPrefix)
		remote, branch, _ := strings.Cut(name, "/")
		out = append(out, RemoteBranch{Name: name, Remote: remote, Branch: branch, Head: r.Addr})
	}
	return out, nil
}

// SetRemoteBranches sets (or, for a zero address, deletes) remote-tracking
// refs of remote: branch name -> commit, in one step.
func (db *DB) SetRemoteBranches(ctx context.Context, remote string, heads map[string]chunks.Address, prune bool) error {
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if prune {
			refs, err := tx.List(ctx, RemoteTrackingPrefix+remote+"/")
			if err != nil {
				return err
			}
			for _, r := range refs {
				if _, ok := heads[strings.TrimPrefix(r.Name, RemoteTrackingPrefix+remote+"/")]; !ok {
					tx.Delete(r.Name)
				}
			}
		}
		for b, a := range heads {
			if a.IsEmpty() {
				tx.Delete(RemoteTrackingPrefix + remote + "/" + b)
			} else {
				tx.Set(RemoteTrackingPrefix+remote+"/"+b, a)
			}
		}
		return nil
	})
}

// Upstream is the remote branch a branch pushes to and pulls from.
type Upstream struct {
	Remote string
	Branch string
}

// EncodeUpstream returns u's chunk.
func EncodeUpstream(u Upstream) ([]byte, error) {
	var w writer
	w.header(upstreamMagic)
	w.short("remote", u.Remote)
	w.short("remote branch", u.Branch)
	return w.result()
}

// DecodeUpstream decodes an upstream chunk.
func DecodeUpstream(b []byte) (Upstream, error) {
	r := reader{b: b, kind: "upstream"}
	r.header(upstreamMagic)
	u := Upstream{Remote: r.short("remote"), Branch: r.short("remote branch")}
	return u, r.done()
}

// SetUpstream records u as branch's upstream (a zero u removes it).
func (db *DB) SetUpstream(ctx context.Context, branch string, u Upstream) error {
	var a chunks.Address
	if u != (Upstream{}) {
		b, err := EncodeUpstream(u)
		if err != nil {
			return err
		}
		if a, err = db.cs.Put(ctx, b); err != nil {
			return err
		}
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, branchRef(branch)); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
			}
			return err
		}
		if a.IsEmpty() {
			tx.Delete(UpstreamPrefix + branch)
		} else {
			tx.Set(UpstreamPrefix+branch, a)
		}
		return nil
	})
}

// Upstreams returns every branch's upstream, by branch.
func (db *DB) Upstreams(ctx context.Context) (map[string]Upstream, error) {
	refs, err := db.Refs(ctx, UpstreamPrefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Upstream, len(refs))
	for _, r := range refs {
		b, err := db.cs.Get(ctx, r.Addr)
		if err != nil {
			return nil, fmt.Errorf("commitgraph: %s: %w", r.Name, err)
		}
		u, err := DecodeUpstream(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		out[strings.TrimPrefix(r.Name, UpstreamPrefix)] = u
	}
	return out, nil
}

// MirrorBranches is a read replica's pull, in one compare-and-swap of the
// refs: the remote-tracking branches of remote become track (a zero
// address deletes one); each local branch of set points at its commit
// with the commit's root as its working set (any uncommitted change of
// the branch is dropped: a replica takes no writes of its own); each
// branch of drop is deleted with its working set and upstream. When
// expect is not nil, each branch of set and drop must still be at the
// head expect gives it (a zero address: absent), or the update fails with
// ErrBranchMoved and changes nothing.
func (db *DB) MirrorBranches(ctx context.Context, remote string, track, set map[string]chunks.Address, drop []string, expect map[string]chunks.Address) error {
	for b := range set {
		if err := CheckName(b); err != nil {
			return err
		}
	}
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if expect != nil {
			check := func(b string) error {
				at, ok, err := tx.Get(ctx, branchRef(b))
				if err != nil {
					return err
				}
				if want := expect[b]; ok != !want.IsEmpty() || ok && at != want {
					return fmt.Errorf("%w: %q", ErrBranchMoved, b)
				}
				return nil
			}
			for b := range set {
				if err := check(b); err != nil {
					return err
				}
			}
			for _, b := range drop {
				if err := check(b); err != nil {
					return err
				}
			}
		}
		for b, a := range track {
			if a.IsEmpty() {
				tx.Delete(RemoteTrackingPrefix + remote + "/" + b)
			} else {
				tx.Set(RemoteTrackingPrefix+remote+"/"+b, a)
			}
		}
		for b, a := range set {
			// An unchanged head and an absent working set leave the refs'
			// root as it was: UpdateRefs then writes nothing.
			tx.Set(branchRef(b), a)
			tx.Delete(workingSetRef(b))
		}
		for _, b := range drop {
			tx.Delete(branchRef(b))
			tx.Delete(workingSetRef(b))
			tx.Delete(UpstreamPrefix + b)
		}
		return nil
	})
}
