package verso

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verso-db/verso/chunks"
)

// The reflog: where each branch and tag has pointed, newest first.
//
// It is read from the store's history of roots (chunks.RootHistorian):
// every commit of the store (a branch or tag moved, a working set
// written) appends its root to the journal, and each root is a version
// of the refs. Reflog compares each version with the one before and
// lists the refs that moved. The history goes back as far as the
// journal does: a collection (DB.GC) or a compaction starts it anew, and
// an entry whose commit a collection dropped still shows its hash. As
// Dolt's, it has no times: a root records none.

// ReflogEntry is one move of a ref.
type ReflogEntry struct {
	Ref     string // refs/heads/<branch> or refs/tags/<tag>
	Commit  Hash   // where it pointed from then on
	Tag     Hash   // for a tag, the tag's own address (its chunk)
	Deleted bool   // the ref was deleted (Commit is where it last pointed)
}

// ErrNoReflog is returned by Reflog for a store that keeps no history
// of its root.
var ErrNoReflog = errors.New("verso: this store keeps no history of its refs")

// Reflog returns the moves of the refs, newest first: of every branch
// and tag with all, else of ref (a branch or tag name, or refs/heads/...,
// refs/tags/...; "" for the default branch).
func (db *DB) Reflog(ctx context.Context, ref string, all bool) ([]ReflogEntry, error) {
	h, ok := db.store.(chunks.RootHistorian)
	if !ok {
		return nil, ErrNoReflog
	}
	roots, err := h.RootHistory(ctx)
	if err != nil {
		return nil, err
	}
	want := func(string) bool { return true }
	if !all {
		if ref == "" {
			ref = db.DefaultBranch()
		}
		names := map[string]bool{ref: true, "refs/heads/" + ref: true, "refs/tags/" + ref: true}
		want = func(r string) bool { return names[r] }
	}
	// Each root's moves, in the history's order; sorted by name within.
	var byRoot [][]ReflogEntry
	prev := map[string]Hash{}
	var prevRoot chunks.Address
	for _, root := range roots {
		if root == prevRoot || root.IsEmpty() {
			continue
		}
		prevRoot = root
		snap, err := db.graph.SnapshotAt(ctx, root)
		if err != nil {
			if chunks.IsNotFound(err) {
				// Collected since: the history left starts later.
				clear(prev)
				continue
			}
			return nil, err
		}
		cur := map[string]Hash{}
		branches, err := snap.Branches(ctx)
		if err != nil {
			if chunks.IsNotFound(err) {
				clear(prev)
				continue
			}
			return nil, err
		}
		for _, b := range branches {
			cur["refs/heads/"+b.Name] = b.Head
		}
		tags, err := snap.TagRefs(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range tags {
			name := "refs/tags/" + t.Name
			if old, ok := prev["tag-chunk:"+name]; ok && old == t.Addr {
				cur[name], cur["tag-chunk:"+name] = prev[name], t.Addr
				continue
			}
			tag, err := db.graph.ReadTag(ctx, t)
			if err != nil {
				if chunks.IsNotFound(err) {
					continue
				}
				return nil, err
			}
			cur[name], cur["tag-chunk:"+name] = tag.Commit, t.Addr
		}
		var moves []ReflogEntry
		for name, c := range cur {
			if strings.HasPrefix(name, "tag-chunk:") || !want(name) {
				continue
			}
			if old, ok := prev[name]; !ok || old != c {
				moves = append(moves, ReflogEntry{Ref: name, Commit: c, Tag: cur["tag-chunk:"+name]})
			}
		}
		for name, c := range prev {
			if _, ok := cur[name]; !ok && !strings.HasPrefix(name, "tag-chunk:") && want(name) {
				moves = append(moves, ReflogEntry{Ref: name, Commit: c, Deleted: true})
			}
		}
		slices.SortFunc(moves, func(a, b ReflogEntry) int { return strings.Compare(a.Ref, b.Ref) })
		if len(moves) > 0 {
			byRoot = append(byRoot, moves)
		}
		prev = cur
	}
	var out []ReflogEntry
	for i := len(byRoot) - 1; i >= 0; i-- {
		out = append(out, byRoot[i]...)
	}
	if len(out) == 0 && !all {
		if _, err := db.Resolve(ctx, ref, ""); err != nil {
			return nil, fmt.Errorf("%w: no ref named %q has moved in the history kept", ErrBranchNotFound, ref)
		}
	}
	return out, nil
}
