//go:build filestore

package prolly

// With the filestore tag, every test that runs over forEachStore runs over
// the durable file store too. The tag exists because chunks.FileStore is
// being written on another branch; once both are merged, drop the tag.
//
//	go test -tags filestore ./prolly/

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/verso-db/verso/chunks"
)

func init() {
	stores = append(stores, struct {
		name string
		open func(t testing.TB) chunks.Store
	}{"file", func(t testing.TB) chunks.Store {
		s, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}})
}

// TestFileStoreCommitReopen commits a map's root, reopens the store and
// finds the same map.
func TestFileStoreCommitReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(testSeed(t), 15))
	m := randModel(r, 20000, 40000)
	mp := build(t, NewNodeStore(s), m)
	mp2, err := mp.Apply(ctx, randBatch(r, m, 500, 40000))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, mp2.Address(), chunks.Address{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, err := s.Root(ctx)
	if err != nil || root != mp2.Address() {
		t.Fatalf("root %s, %v; want %s", root, err, mp2.Address())
	}
	again, err := OpenMap(ctx, NewNodeStore(s), root)
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, again)
	compareAll(t, again, m)
}
