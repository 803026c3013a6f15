package chunks

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestNurseryConcurrent runs writers that commit staged (now and then
// synced) in nursery mode while nursery collections, young and full
// collections, compactions and SyncStaged run; then, at random moments, it
// copies the store's files as a crash would leave them (what was written,
// nursery lost) and checks that the copy opens at a root at least as
// recent as the last one made durable, with everything the root reaches. At the end the nursery collections must have dropped
// chunks, and a close and reopen must find the last root.
func TestNurseryConcurrent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{CompactAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if err := s.SetNursery(true); err != nil {
		t.Fatal(err)
	}
	var log atomic.Uint64
	ws := startWriters(3, func(w int, ops *sync.RWMutex) func() error {
		r := rand.New(rand.NewSource(seed(t) + int64(w)))
		var stash [][]byte
		commit := func(ctx context.Context, root, old Address) error {
			if r.Intn(20) == 0 {
				return s.Commit(ctx, root, old)
			}
			return s.CommitStaged(ctx, root, old, log.Add(1))
		}
		return func() error { return concurrentWriteWith(ctx, s, r, ops, &stash, commit) }
	})
	r := rand.New(rand.NewSource(seed(t)))
	dropped, crashes := 0, 0
	for i := 0; i < 60; i++ {
		var err error
		switch k := r.Intn(10); {
		case k < 6:
			var st CollectStats
			st, err = s.Collect(ctx, CollectOptions{Nursery: true, Quiesce: ws.quiesce})
			dropped += st.ChunksBefore - st.ChunksAfter
		case k == 6:
			_, err = s.Collect(ctx, CollectOptions{Young: r.Intn(2) == 0, Quiesce: ws.quiesce})
		case k == 7:
			err = s.Compact()
		case k == 8:
			err = s.SyncStaged()
		default:
			crashes++
			crashCopy(t, s)
		}
		if err != nil {
			t.Fatal(err)
		}
		ws.check(t)
	}
	ws.finish(t)
	if dropped == 0 {
		t.Fatal("the nursery collections dropped nothing")
	}
	root, _ := s.Root(ctx)
	reach(t, ctx, s, root)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = OpenFileStore(dir, Options{CompactAt: -1}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Root(ctx); got != root {
		t.Fatalf("reopened at %s, want %s", got, root)
	}
	reach(t, ctx, s, root)
	t.Logf("%d chunks dropped by nursery collections, %d crash copies", dropped, crashes)
}

// crashCopy copies s's files as a crash would leave them and opens the
// copy (openCopy): its root must be at least as recent as s's durable
// position before the copy, and reach all it names.
func crashCopy(t *testing.T, s *FileStore) {
	t.Helper()
	floor := s.DurablePosition()
	if _, pos := openCopy(t, s, true); pos < floor {
		t.Fatalf("a crash copy opened at log position %d, before %d, which was durable", pos, floor)
	}
}

// TestNurseryDurableSteps: in nursery mode a staged root lives in memory
// only, and each step that must make it durable does: a crash copy taken
// right after it opens at that root, with everything it reaches; one taken
// before it, at the last durable root.
func TestNurseryDurableSteps(t *testing.T) {
	ctx := context.Background()
	steps := map[string]func(s *FileStore) error{
		"sync staged": (*FileStore).SyncStaged,
		"compaction":  (*FileStore).Compact,
		"nursery collection": func(s *FileStore) error {
			_, err := s.Collect(ctx, CollectOptions{Nursery: true})
			return err
		},
		"young collection": func(s *FileStore) error {
			_, err := s.Collect(ctx, CollectOptions{Young: true})
			return err
		},
		"nursery off": func(s *FileStore) error { return s.SetNursery(false) },
	}
	for name, step := range steps {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewSource(seed(t)))
			dir := t.TempDir()
			s, err := OpenFileStore(dir, Options{CompactAt: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.SetNursery(true); err != nil {
				t.Fatal(err)
			}
			durable := Address{}
			root := Address{}
			for round := 0; round < 3; round++ {
				for i := 0; i < 20; i++ {
					// Each root names the previous one and a new leaf.
					leaf, err := s.Put(ctx, graphChunk(r, nil))
					if err != nil {
						t.Fatal(err)
					}
					refs := []Address{leaf}
					if !root.IsEmpty() && r.Intn(2) == 0 {
						refs = append(refs, root)
					}
					next, err := s.Put(ctx, graphChunk(r, refs))
					if err != nil {
						t.Fatal(err)
					}
					if err := s.CommitStaged(ctx, next, root, uint64(round*100+i+1)); err != nil {
						t.Fatal(err)
					}
					root = next
				}
				if s.NurseryBytes() == 0 || !s.HoldsStaged() {
					t.Fatal("staged commits left the nursery empty")
				}
				if got, _ := openCopy(t, s, false); got != durable {
					t.Fatalf("round %d: a crash before the step opened at %s, want %s", round, got, durable)
				}
				if err := step(s); err != nil {
					t.Fatal(err)
				}
				if got, _ := openCopy(t, s, false); got != root {
					t.Fatalf("round %d: a crash after the step opened at %s, want %s", round, got, root)
				}
				if s.HoldsStaged() {
					t.Fatalf("round %d: the root is still held staged after the step", round)
				}
				if got, want := s.DurablePosition(), uint64(round*100+20); got != want {
					t.Fatalf("round %d: durable position %d after the step, want %d", round, got, want)
				}
				durable = root
				if name == "nursery off" {
					s.SetNursery(true)
				}
			}
		})
	}
}

// openCopy copies s's files into a new folder, as a crash would leave
// them (with hold, under the store's writer's locks, so that no file is
// half written or replaced while writers go on), opens the copy, checks
// that its root reaches everything it names, and returns the root and its
// log position.
func openCopy(t *testing.T, s *FileStore, hold bool) (Address, uint64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copy")
	err := os.MkdirAll(dir, 0o755)
	if hold {
		s.cmu.Lock()
		s.wmu.Lock()
		s.mu.RLock()
	}
	names, rerr := os.ReadDir(s.dir)
	err = errors.Join(err, rerr)
	for _, e := range names {
		if err != nil || e.Name() == lockName {
			continue
		}
		var b []byte
		if b, err = os.ReadFile(filepath.Join(s.dir, e.Name())); err == nil {
			err = os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		}
	}
	if hold {
		s.mu.RUnlock()
		s.wmu.Unlock()
		s.cmu.Unlock()
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenFileStore(dir, Options{CompactAt: -1})
	if err != nil {
		t.Fatalf("a crash copy does not open: %v", err)
	}
	defer c.Close()
	root, _ := c.Root(context.Background())
	reach(t, context.Background(), c, root)
	return root, c.LogPosition()
}
