package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Conflict is a key that both sides of a merge changed, differently. A
// value is nil when its In flag is false (the key is absent there).
type Conflict struct {
	Key                      []byte
	Base, Ours, Theirs       []byte
	InBase, InOurs, InTheirs bool
}

// Resolver decides a conflicting key: keep it with value, or drop it
// (keep false). It may return an error (ErrConflict, say) to stop the
// merge; Merge returns that error wrapped with the key.
type Resolver func(c Conflict) (value []byte, keep bool, err error)

// ResolveOurs is a Resolver that keeps our side.
func ResolveOurs(c Conflict) ([]byte, bool, error) { return c.Ours, c.InOurs, nil }

// ResolveTheirs is a Resolver that takes their side.
func ResolveTheirs(c Conflict) ([]byte, bool, error) { return c.Theirs, c.InTheirs, nil }

// FailOnConflict is a Resolver that stops the merge at the first conflict.
func FailOnConflict(c Conflict) ([]byte, bool, error) { return nil, false, ErrConflict }

// mergeBatch is how many edits Merge gathers before applying them.
const mergeBatch = 4096

// Merge merges the changes from base to theirs into ours. A key changed on
// one side only takes that change; a key changed the same way on both sides
// takes it once; a key changed differently on each side goes to resolve.
// Merge walks the two diffs from base together, so its cost follows the
// size of the changes, and applies theirs' changes to ours in batches.
func Merge(ctx context.Context, base, ours, theirs Map, resolve Resolver) (Map, error) {
	do, dt := NewDiffer(base, ours), NewDiffer(base, theirs)
	okO, okT := do.Next(ctx), dt.Next(ctx)
	result := ours
	var edits []Edit
	flush := func() error {
		if len(edits) == 0 {
			return nil
		}
		var err error
		result, err = result.Apply(ctx, edits)
		edits = edits[:0]
		return err
	}
	for okO || okT {
		var c int
		switch {
		case !okO:
			c = 1
		case !okT:
			c = -1
		default:
			c = bytes.Compare(do.Diff().Key, dt.Diff().Key)
		}
		switch {
		case c < 0: // only ours changed the key: ours has it already
			okO = do.Next(ctx)
			continue
		case c > 0: // only theirs changed it: take their change
			e := dt.Diff()
			edits = append(edits, Edit{Key: e.Key, Value: e.To, Delete: e.Type == Removed})
		default:
			o, t := do.Diff(), dt.Diff()
			okO = do.Next(ctx)
			if o.Type == Removed && t.Type == Removed || o.Type != Removed && t.Type != Removed && bytes.Equal(o.To, t.To) {
				break // the same change on both sides
			}
			v, keep, err := resolve(Conflict{
				Key: o.Key, Base: o.From, Ours: o.To, Theirs: t.To,
				InBase: o.Type != Added, InOurs: o.Type != Removed, InTheirs: t.Type != Removed,
			})
			if err != nil {
				return Map{}, fmt.Errorf("prolly: merging key %x: %w", o.Key, err)
			}
			if !keep && o.Type != Removed || keep && (o.Type == Removed || !bytes.Equal(v, o.To)) {
				edits = append(edits, Edit{Key: o.Key, Value: v, Delete: !keep})
			}
		}
		okT = dt.Next(ctx)
		if len(edits) >= mergeBatch {
			if err := flush(); err != nil {
				return Map{}, err
			}
		}
	}
	if err := do.Err(); err != nil {
		return Map{}, err
	}
	if err := dt.Err(); err != nil {
		return Map{}, err
	}
	if err := flush(); err != nil {
		return Map{}, err
	}
	return result, nil
}
