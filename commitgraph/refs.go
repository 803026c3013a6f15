package commitgraph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// The refs map.
//
// Every ref of a database lives in one prolly map whose root address is the
// chunk store's root. Its keys are the refs' names as UTF-8 bytes (so they
// sort by bytes), its values the 20 bytes of an address:
//
//	refs/heads/<branch>         -> the branch's head commit
//	refs/tags/<tag>             -> a tag chunk (tag.go)
//	workingSets/heads/<branch>  -> a working-set chunk (workingset.go)
//	refs/stash/<n>              -> a stash's commit (the engine's stash.go),
//	                               n its 16-digit sequence number
//
// Every change to refs is one compare-and-swap of the store root: read the
// root, run the change against the refs map it names, write the new map,
// and Commit(new, old). When another writer moved the root in between, the
// change runs again from the new root; a change that finds the ref it
// depends on moved (a branch head that is not the expected one) fails with
// ErrBranchMoved instead of overwriting it.

const (
	branchPrefix     = "refs/heads/"
	tagPrefix        = "refs/tags/"
	workingSetPrefix = "workingSets/heads/"
	// StashPrefix names the stashes' refs.
	StashPrefix = "refs/stash/"
)

func branchRef(name string) string     { return branchPrefix + name }
func tagRef(name string) string        { return tagPrefix + name }
func workingSetRef(name string) string { return workingSetPrefix + name }

// maxRefRetries bounds the retries of one ref update against other writers.
const maxRefRetries = 10000

// Ref is one entry of the refs map.
type Ref struct {
	Name string
	Addr chunks.Address
}

// RefTx is one attempt at an atomic change to the refs: reads see the
// refs as of the attempt's root plus the attempt's own writes.
type RefTx struct {
	refs  prolly.Map
	edits map[string]*chunks.Address // nil: delete
}

func decodeRefValue(name string, v []byte) (chunks.Address, error) {
	var a chunks.Address
	if len(v) != chunks.AddressSize {
		return a, badChunk("refs: %q holds %d bytes, want an address", name, len(v))
	}
	copy(a[:], v)
	return a, nil
}

// Get returns the address of the ref name.
func (tx *RefTx) Get(ctx context.Context, name string) (chunks.Address, bool, error) {
	if a, ok := tx.edits[name]; ok {
		if a == nil {
			return chunks.Address{}, false, nil
		}
		return *a, true, nil
	}
	v, ok, err := tx.refs.Get(ctx, []byte(name))
	if err != nil || !ok {
		return chunks.Address{}, false, err
	}
	a, err := decodeRefValue(name, v)
	return a, err == nil, err
}

// Set points the ref name at a.
func (tx *RefTx) Set(name string, a chunks.Address) { tx.edits[name] = &a }

// Delete removes the ref name.
func (tx *RefTx) Delete(name string) { tx.edits[name] = nil }

// List returns the refs whose names begin with prefix, sorted by name.
func (tx *RefTx) List(ctx context.Context, prefix string) ([]Ref, error) {
	var out []Ref
	it := tx.refs.Iter(ctx, prolly.PrefixRange([]byte(prefix)))
	for it.Next(ctx) {
		name := string(it.Key())
		if _, edited := tx.edits[name]; edited {
			continue
		}
		a, err := decodeRefValue(name, it.Value())
		if err != nil {
			return nil, err
		}
		out = append(out, Ref{name, a})
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	for name, a := range tx.edits {
		if a != nil && strings.HasPrefix(name, prefix) {
			out = append(out, Ref{name, *a})
		}
	}
	slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// errNoChange makes UpdateRefs return nil without writing.
var errNoChange = errors.New("no change")

// UpdateRefs runs fn against the current refs and writes its changes with
// one compare-and-swap of the store root. When another writer moved the
// root first, fn runs again against the new refs (so fn must decide from
// what it reads, and return ErrBranchMoved or the like when a ref it
// depends on is not what the caller expected). An error from fn aborts the
// update and is returned as is.
func (db *DB) UpdateRefs(ctx context.Context, fn func(tx *RefTx) error) error {
	return db.updateRefs(ctx, fn, db.cs.Commit)
}

// updateRefs is UpdateRefs with the store commit commit.
func (db *DB) updateRefs(ctx context.Context, fn func(tx *RefTx) error, commit func(ctx context.Context, newRoot, expected chunks.Address) error) error {
	for attempt := 0; attempt < maxRefRetries; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		root, err := db.cs.Root(ctx)
		if err != nil {
			return err
		}
		refs, err := prolly.OpenMap(ctx, db.ns, root)
		if err != nil {
			return fmt.Errorf("commitgraph: open refs %s: %w", root, err)
		}
		tx := &RefTx{refs: refs, edits: map[string]*chunks.Address{}}
		if err := fn(tx); err != nil {
			if errors.Is(err, errNoChange) {
				return nil
			}
			return err
		}
		if len(tx.edits) == 0 {
			return nil
		}
		edits := make([]prolly.Edit, 0, len(tx.edits))
		for name, a := range tx.edits {
			if a == nil {
				edits = append(edits, prolly.Edit{Key: []byte(name), Delete: true})
			} else {
				edits = append(edits, prolly.Edit{Key: []byte(name), Value: bytes.Clone(a[:])})
			}
		}
		slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
		next, err := refs.Apply(ctx, edits)
		if err != nil {
			return fmt.Errorf("commitgraph: write refs: %w", err)
		}
		if next.Address() == root {
			return nil
		}
		err = commit(ctx, next.Address(), root)
		if errors.Is(err, chunks.ErrRootMoved) {
			db.retries.Add(1)
			continue
		}
		return err
	}
	return fmt.Errorf("commitgraph: refs update gave up after %d attempts against other writers", maxRefRetries)
}

// View runs fn against the refs as of one read of the store root, for
// reads that must see one consistent state (a branch and its working set,
// say). fn must not write: its changes are dropped.
func (db *DB) View(ctx context.Context, fn func(tx *RefTx) error) error {
	root, err := db.cs.Root(ctx)
	if err != nil {
		return err
	}
	if root.IsEmpty() {
		return ErrNotInitialized
	}
	refs, err := prolly.OpenMap(ctx, db.ns, root)
	if err != nil {
		return fmt.Errorf("commitgraph: open refs %s: %w", root, err)
	}
	return fn(&RefTx{refs: refs, edits: map[string]*chunks.Address{}})
}

// Refs returns every ref whose name begins with prefix, sorted by name.
func (db *DB) Refs(ctx context.Context, prefix string) ([]Ref, error) {
	var out []Ref
	err := db.View(ctx, func(tx *RefTx) error {
		var err error
		out, err = tx.List(ctx, prefix)
		return err
	})
	return out, err
}

// ref reads one ref of the current root.
func (db *DB) ref(ctx context.Context, name string) (a chunks.Address, ok bool, err error) {
	err = db.View(ctx, func(tx *RefTx) error {
		a, ok, err = tx.Get(ctx, name)
		return err
	})
	return a, ok, err
}

// CheckName reports whether name may name a branch or a tag: not empty, at
// most 255 bytes, made of printable characters other than space and
// ~^:?*[\, with no "..", "//" or "@{", not beginning with "-" or ".", and not
// beginning or ending with "/" or ending with ".lock" or ".".
func CheckName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w: %q %s", ErrBadName, name, why) }
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > 255:
		return bad("is longer than 255 bytes")
	case name == "HEAD":
		return bad("is reserved")
	case strings.HasPrefix(name, "-"), strings.HasPrefix(name, "."), strings.HasPrefix(name, "/"):
		return bad("begins with " + name[:1])
	case strings.HasSuffix(name, "/"), strings.HasSuffix(name, ".lock"), strings.HasSuffix(name, "."):
		return bad("has a forbidden ending")
	case strings.Contains(name, ".."), strings.Contains(name, "//"), strings.Contains(name, "@{"):
		return bad(`contains "..", "//" or "@{"`)
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			return bad(fmt.Sprintf("contains %q", r))
		}
	}
	return nil
}
