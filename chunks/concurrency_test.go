package chunks

import (
	"context"
	"errors"
	"math/rand"
	"sync"
	"testing"
	"time"
)

// TestConcurrentPutCommit checks the Writer contract's concurrency
// guarantees on both stores, with no serialization by the callers:
// goroutines put chunks and commit roots naming them (retrying on
// ErrRootMoved) while readers read what was put. Every chunk is readable
// once its Put returned, and, since each writer's last call is a successful
// Commit after its last Put, every chunk is durable at the end: the file
// store, reopened, holds all of them and the last committed root. Run it
// with -race.
func TestConcurrentPutCommit(t *testing.T) {
	for _, name := range []string{"memory", "file"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			var s Store
			if name == "memory" {
				s = NewMemoryStore()
			} else {
				// Small compaction thresholds so that rotations run among
				// the puts and commits.
				s = openTest(t, dir, Options{CompactAt: 32 << 10, MaxTables: 2})
			}
			const writers, readers, perWriter = 4, 2, 60
			var (
				mu        sync.Mutex
				put       []Address
				committed = AddressSet{} // roots of successful Commits
			)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for g := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewSource(int64(g)))
					for i := range perWriter {
						a, err := s.Put(ctx, randomChunk(r))
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						put = append(put, a)
						mu.Unlock()
						if i%3 != 2 && i != perWriter-1 {
							continue
						}
						for {
							root, err := s.Root(ctx)
							if err != nil {
								t.Error(err)
								return
							}
							err = s.Commit(ctx, a, root)
							if err == nil {
								mu.Lock()
								committed.Add(a)
								mu.Unlock()
								break
							}
							if !errors.Is(err, ErrRootMoved) {
								t.Error(err)
								return
							}
						}
					}
				}()
			}
			var rg sync.WaitGroup
			for g := range readers {
				rg.Add(1)
				go func() {
					defer rg.Done()
					r := rand.New(rand.NewSource(int64(100 + g)))
					for {
						select {
						case <-stop:
							return
						default:
						}
						mu.Lock()
						var a Address
						if len(put) > 0 {
							a = put[r.Intn(len(put))]
						}
						mu.Unlock()
						if a.IsEmpty() {
							continue
						}
						b, err := s.Get(ctx, a)
						if err != nil {
							t.Errorf("get %s after its put returned: %v", a, err)
							return
						}
						if Of(b) != a {
							t.Errorf("get %s returned other bytes", a)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			rg.Wait()
			if t.Failed() {
				return
			}
			if len(put) != writers*perWriter {
				t.Fatalf("%d chunks put, want %d", len(put), writers*perWriter)
			}
			last, err := s.Root(ctx)
			if err != nil || !committed.Has(last) {
				t.Fatalf("root %s, %v: not one a Commit set", last, err)
			}
			if name == "file" {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s = openTest(t, dir, Options{})
			}
			defer s.Close()
			if root, err := s.Root(ctx); err != nil || root != last {
				t.Fatalf("root %s, %v after reopening; want %s", root, err, last)
			}
			absent, err := s.HasMany(ctx, put)
			if err != nil {
				t.Fatal(err)
			}
			if len(absent) > 0 {
				t.Fatalf("%d of %d committed chunks are missing", len(absent), len(put))
			}
			if fs, ok := s.(*FileStore); ok {
				if err := fs.Check(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestPutDuringCommitSync checks that a commit's sync holds up no Put: a
// chunk put while a commit syncs is stored at once, is not part of that
// commit (reopened without another commit, the store has the commit's
// root and chunk and not it), and the next commit makes it durable.
func TestPutDuringCommitSync(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	r := rand.New(rand.NewSource(1))
	x, err := s.Put(ctx, randomChunk(r))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	s.beforeSync = func() { close(entered); <-release }
	committed := make(chan error, 1)
	go func() { committed <- s.Commit(ctx, x, Address{}) }()
	<-entered
	s.beforeSync = nil // read by the next commit only, after this one
	yData := randomChunk(r)
	put := make(chan error, 1)
	var y Address
	go func() {
		var err error
		y, err = s.Put(ctx, yData)
		put <- err
	}()
	select {
	case err := <-put:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("a Put waited for a commit's sync")
	}
	if root, err := s.Root(ctx); err != nil || !root.IsEmpty() {
		t.Fatalf("root during the sync: %s, %v; want the previous (empty) root", root, err)
	}
	close(release)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if b, err := s.Get(ctx, y); err != nil || Of(b) != y {
		t.Fatalf("the chunk put during the sync: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, dir, Options{})
	if root, _ := s.Root(ctx); root != x {
		t.Fatalf("root after reopen %s, want %s", root, x)
	}
	if _, err := s.Get(ctx, x); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, y); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a chunk put after the commit record, never committed, read back: %v", err)
	}
	if _, err := s.Put(ctx, yData); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, y, x); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, Options{})
	defer s.Close()
	if _, err := s.Get(ctx, y); err != nil {
		t.Fatal(err)
	}
}
