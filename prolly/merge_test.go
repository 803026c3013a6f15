package prolly

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// refMerge merges three models with the resolver.
func refMerge(t testing.TB, base, ours, theirs *model, resolve Resolver) *model {
	out := ours.clone()
	keys := map[string]bool{}
	for _, m := range []*model{base, ours, theirs} {
		for _, k := range m.keys {
			keys[string(k)] = true
		}
	}
	for k := range keys {
		vb, inB := base.vals[k]
		vo, inO := ours.vals[k]
		vt, inT := theirs.vals[k]
		sameO := inB == inO && bytes.Equal(vb, vo)
		sameT := inB == inT && bytes.Equal(vb, vt)
		switch {
		case sameT:
		case sameO:
			if inT {
				out.put([]byte(k), vt)
			} else {
				out.del([]byte(k))
			}
		case inO == inT && bytes.Equal(vo, vt):
		default:
			v, keep, err := resolve(Conflict{Key: []byte(k), Base: vb, Ours: vo, Theirs: vt, InBase: inB, InOurs: inO, InTheirs: inT})
			if err != nil {
				t.Fatal(err)
			}
			if keep {
				out.put([]byte(k), v)
			} else {
				out.del([]byte(k))
			}
		}
	}
	return out
}

// concatResolver keeps both values, concatenated, or drops a key one side
// deleted.
func concatResolver(c Conflict) ([]byte, bool, error) {
	if !c.InOurs || !c.InTheirs {
		return nil, false, nil
	}
	return append(append(append([]byte{}, c.Ours...), '|'), c.Theirs...), true, nil
}

func TestMergeModel(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(testing.TB) chunks.Store) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(testSeed(t), 10))
		for round := 0; round < 40; round++ {
			ns := NewNodeStore(newStore(t))
			n := []int{0, 1, 50, 3000, 15000}[round%5]
			space := 2*n + 5
			base := randModel(r, n, space)
			mBase := build(t, ns, base)
			ours, theirs := base.clone(), base.clone()
			var eo, et []Edit
			switch round % 3 {
			case 0:
				eo, et = randBatch(r, ours, 1+r.IntN(50), space), randBatch(r, theirs, 1+r.IntN(50), space)
			case 1:
				eo, et = randBatch(r, ours, 1+r.IntN(3000), space), randBatch(r, theirs, 1+r.IntN(3000), space)
			case 2:
				eo, et = edgeBatch(r, ours), edgeBatch(r, theirs)
			}
			mOurs, err := mBase.Apply(ctx, eo)
			if err != nil {
				t.Fatal(err)
			}
			mTheirs, err := mBase.Apply(ctx, et)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range []Resolver{concatResolver, ResolveOurs, ResolveTheirs} {
				want := refMerge(t, base, ours, theirs, res)
				got, err := Merge(ctx, mBase, mOurs, mTheirs, res)
				if err != nil {
					t.Fatal(err)
				}
				compareAll(t, got, want)
				checkMap(t, got)
				if b := build(t, NewNodeStore(chunks.NewMemoryStore()), want); b.Address() != got.Address() {
					t.Fatalf("merged tree %s, built tree %s", got.Address(), b.Address())
				}
			}
			// Merging with an unchanged side gives the other side.
			if got, err := Merge(ctx, mBase, mBase, mTheirs, FailOnConflict); err != nil || got.Address() != mTheirs.Address() {
				t.Fatalf("merge into unchanged ours: %v", err)
			}
			if got, err := Merge(ctx, mBase, mOurs, mBase, FailOnConflict); err != nil || got.Address() != mOurs.Address() {
				t.Fatalf("merge of unchanged theirs: %v", err)
			}
		}
	})
}

func TestMergeConflictError(t *testing.T) {
	ctx := context.Background()
	ns := NewNodeStore(chunks.NewMemoryStore())
	base, _ := NewMap(ns).Apply(ctx, []Edit{{Key: []byte("k"), Value: []byte("0")}})
	ours, _ := base.Apply(ctx, []Edit{{Key: []byte("k"), Value: []byte("1")}})
	theirs, _ := base.Apply(ctx, []Edit{{Key: []byte("k"), Value: []byte("2")}})
	if _, err := Merge(ctx, base, ours, theirs, FailOnConflict); !errors.Is(err, ErrConflict) {
		t.Fatalf("conflict: %v", err)
	}
}
