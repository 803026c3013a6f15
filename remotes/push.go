package remotes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// ErrRemoteMoved: a push found the remote's branch at a commit that is
// not an ancestor of the one pushed.
var ErrRemoteMoved = errors.New("remotes: the remote moved on: fetch and merge, or push with --force")

// ErrNoRemoteRef: the remote has no such branch or tag.
var ErrNoRemoteRef = errors.New("remotes: the remote has no such ref")

// PushOptions tunes PushRef.
type PushOptions struct {
	// Force sets the remote's ref even when that drops commits from it.
	Force bool
	// Copy tunes the transfer of the chunks.
	Copy CopyOptions
}

// PushResult says what a push did.
type PushResult struct {
	// Old is where the remote's ref was (zero if it had none).
	Old chunks.Address
	// Copied is what the remote lacked and was uploaded.
	Copied Progress
}

// PushRef makes the remote's ref name (refs/heads/<b> or refs/tags/<t>)
// point at to, after uploading what of to's history the remote lacks from
// src. A zero to deletes the ref. Unless opts.Force, the remote's branch
// must be an ancestor of to (a fast-forward), or the push fails with
// ErrRemoteMoved and changes no ref (its uploaded tables are named by no
// manifest). A push races other pushers through the manifest's
// conditional write: it retries over a push to another ref, and checks
// the fast-forward again against a push to the same one.
func PushRef(ctx context.Context, src Enumerable, r *Store, name string, to chunks.Address, opts PushOptions) (PushResult, error) {
	var res PushResult
	if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") {
		return res, fmt.Errorf("remotes: push %q: only branches and tags are pushed", name)
	}
	if !to.IsEmpty() {
		// To an empty remote, the source's table files go up whole (no
		// chunk read, decoded or encoded again), then Copy puts what they
		// lack (what the source holds in its journal) as it would.
		var base Progress
		if ts, ok := src.(TableFileSource); ok && r.empty() {
			// Empty as last read: read the manifest again to be sure (a
			// Store kept open may be behind another writer's push).
			if _, err := r.Root(ctx); err != nil {
				return res, err
			}
			if r.empty() {
				var err error
				if base, err = r.uploadTableFiles(ctx, ts, opts.Copy.Progress); err != nil {
					return res, err
				}
			}
		}
		copyOpts := opts.Copy
		if base.Chunks > 0 && opts.Copy.Progress != nil {
			copyOpts.Progress = func(p Progress) {
				opts.Copy.Progress(Progress{Chunks: base.Chunks + p.Chunks, Bytes: base.Bytes + p.Bytes, Done: p.Done})
			}
		}
		p, err := Copy(ctx, src, r, []chunks.Address{to}, copyOpts)
		if err != nil {
			return res, err
		}
		res.Copied = Progress{Chunks: base.Chunks + p.Chunks, Bytes: base.Bytes + p.Bytes, Done: p.Done}
	}
	g := commitgraph.New(r)
	err := g.UpdateRefs(ctx, func(tx *commitgraph.RefTx) error {
		cur, ok, err := tx.Get(ctx, name)
		if err != nil {
			return err
		}
		res.Old = chunks.Address{}
		if ok {
			res.Old = cur
		}
		if to.IsEmpty() {
			if !ok {
				return fmt.Errorf("%w: %s", ErrNoRemoteRef, name)
			}
			tx.Delete(name)
			return nil
		}
		if ok && cur != to && !opts.Force {
			if strings.HasPrefix(name, "refs/tags/") {
				return fmt.Errorf("%w: the tag %s exists on the remote at another commit", ErrRemoteMoved, strings.TrimPrefix(name, "refs/tags/"))
			}
			ff, err := g.IsAncestor(ctx, cur, to)
			if err != nil {
				return err
			}
			if !ff {
				return fmt.Errorf("%w (%s is at %s, not an ancestor of %s)", ErrRemoteMoved, name, cur, to)
			}
		}
		tx.Set(name, to)
		return nil
	})
	return res, err
}

// Refs returns the remote's branches and tags (refs/heads/..., refs/tags/...).
func Refs(ctx context.Context, r *Store) ([]commitgraph.Ref, error) {
	root, err := r.Root(ctx)
	if err != nil || root.IsEmpty() {
		return nil, err
	}
	g := commitgraph.New(r)
	var out []commitgraph.Ref
	for _, prefix := range []string{"refs/heads/", "refs/tags/"} {
		refs, err := g.Refs(ctx, prefix)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// FetchRefs copies into dst what dst lacks of the history of every ref
// of refs (as Refs returned them), and returns what it copied. It writes
// no ref: the caller records the remote-tracking refs once the chunks
// are in (and commits them with its own root).
func FetchRefs(ctx context.Context, r *Store, dst chunks.Store, refs []commitgraph.Ref, opts CopyOptions) (Progress, error) {
	roots := make([]chunks.Address, 0, len(refs))
	for _, ref := range refs {
		roots = append(roots, ref.Addr)
	}
	return Copy(ctx, r, dst, roots, opts)
}
