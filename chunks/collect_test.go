package chunks

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// The collector's tests build graphs of test chunks: a count byte, that
// many raw addresses, then random bytes (which may, as in real chunks,
// be anything). reach returns what a root reaches by the chunk layout,
// independently of the collector's conservative scan.

func graphChunk(r *rand.Rand, refs []Address) []byte {
	b := []byte{byte(len(refs))}
	for _, a := range refs {
		b = append(b, a[:]...)
	}
	b = append(b, randomChunk(r)...)
	return b
}

func graphRefs(b []byte) []Address {
	if len(b) == 0 {
		return nil
	}
	n := int(b[0])
	out := make([]Address, 0, n)
	for i := 0; i < n && 1+(i+1)*AddressSize <= len(b); i++ {
		var a Address
		copy(a[:], b[1+i*AddressSize:])
		out = append(out, a)
	}
	return out
}

// reach returns every address reachable from roots in s, failing t if
// one cannot be read or does not match its address.
func reach(t testing.TB, ctx context.Context, s Store, roots ...Address) map[Address]bool {
	t.Helper()
	seen := map[Address]bool{}
	stack := append([]Address(nil), roots...)
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if a.IsEmpty() || seen[a] {
			continue
		}
		seen[a] = true
		b, err := s.Get(ctx, a)
		if err != nil {
			t.Fatalf("reachable chunk %s: %v", a, err)
		}
		if Of(b) != a {
			t.Fatalf("chunk %s does not match its address", a)
		}
		stack = append(stack, graphRefs(b)...)
	}
	return seen
}

// held returns every address the store holds.
func held(t testing.TB, s Store) map[Address]bool {
	t.Helper()
	out := map[Address]bool{}
	switch s := s.(type) {
	case *MemoryStore:
		s.mu.RLock()
		for a := range s.chunks {
			out[a] = true
		}
		s.mu.RUnlock()
	case *FileStore:
		s.mu.RLock()
		for _, j := range s.journals {
			for a := range j.index {
				out[a] = true
			}
		}
		for _, tb := range s.tables {
			for i := 0; i < tb.count; i++ {
				a, _, _ := tb.entry(i)
				out[a] = true
			}
		}
		s.mu.RUnlock()
	default:
		t.Fatalf("held: store %T", s)
	}
	return out
}

// TestCollectModel builds random histories (a root chunk naming earlier
// chunks, garbage left behind by roots replaced, pins that keep other
// roots alive), collects at random moments, and checks after each
// collection that the store holds exactly what the root and the pins
// reach, all of it readable.
func TestCollectModel(t *testing.T) {
	ctx := context.Background()
	for _, h := range harnesses() {
		t.Run(h.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(seed(t)))
			dir := t.TempDir()
			s := h.open(t, dir)
			defer func() { s.Close() }()
			var pool []Address // chunks some root may name
			var pins []Address
			for step := 0; step < 60; step++ {
				// A few writes: new chunks naming older ones, then a new root.
				for i, n := 0, 1+r.Intn(20); i < n; i++ {
					var refs []Address
					for k := r.Intn(4); k > 0 && len(pool) > 0; k-- {
						refs = append(refs, pool[r.Intn(len(pool))])
					}
					a, err := s.Put(ctx, graphChunk(r, refs))
					if err != nil {
						t.Fatal(err)
					}
					pool = append(pool, a)
				}
				old, _ := s.Root(ctx)
				var refs []Address
				for k := 1 + r.Intn(5); k > 0; k-- {
					refs = append(refs, pool[r.Intn(len(pool))])
				}
				root, err := s.Put(ctx, graphChunk(r, refs))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Commit(ctx, root, old); err != nil {
					t.Fatal(err)
				}
				if r.Intn(6) == 0 {
					pins = append(pins, pool[r.Intn(len(pool))])
				}
				if r.Intn(5) == 0 && len(pins) > 0 {
					pins = pins[1:]
				}
				if fs, ok := s.(*FileStore); ok && r.Intn(8) == 0 {
					if err := fs.Compact(); err != nil {
						t.Fatal(err)
					}
				}
				if r.Intn(4) != 0 {
					continue
				}
				// Half the collections of a file store are young: they
				// keep every chunk of its table files.
				fs, isFile := s.(*FileStore)
				young := isFile && r.Intn(2) == 0
				inTables := map[Address]bool{}
				if young {
					// The tables the collection begins with: after a
					// background compaction the last commit began.
					fs.compactMu.Lock()
					fs.compactMu.Unlock() //nolint:staticcheck // waiting for it is the point
					fs.mu.RLock()
					for _, tb := range fs.tables {
						for i := 0; i < tb.count; i++ {
							a, _, _ := tb.entry(i)
							inTables[a] = true
						}
					}
					fs.mu.RUnlock()
				}
				st, err := s.(Collector).Collect(ctx, CollectOptions{Pins: func() []Address { return pins }, Young: young})
				if err != nil {
					t.Fatalf("step %d: collect (young %v): %v", step, young, err)
				}
				want := reach(t, ctx, s, append([]Address{root}, pins...)...)
				got := held(t, s)
				for a := range want {
					if !got[a] {
						t.Fatalf("step %d (young %v): reachable %s is gone", step, young, a)
					}
				}
				for a := range got {
					if !want[a] && !inTables[a] {
						t.Fatalf("step %d (young %v): %s is kept but nothing reaches it", step, young, a)
					}
				}
				for a := range inTables {
					if !got[a] {
						t.Fatalf("step %d: a young collection dropped %s of a table file", step, a)
					}
				}
				// What the collection dropped is gone for Get too, though
				// the store kept the small chunks it was given (recent.go).
				for _, a := range pool {
					if !got[a] {
						if _, err := s.Get(ctx, a); !IsNotFound(err) {
							t.Fatalf("step %d (young %v): Get of collected %s: %v, want not found", step, young, a, err)
						}
					}
				}
				if st.ChunksAfter != len(got) || st.ChunksBefore < st.ChunksAfter {
					t.Fatalf("step %d (young %v): stats %+v, %d held, %d reachable", step, young, st, len(got), len(want))
				}
				// The pool keeps only what survived.
				var live []Address
				for _, a := range pool {
					if want[a] {
						live = append(live, a)
					}
				}
				pool = live
				if h.durable {
					s.Close()
					s = h.open(t, dir)
					reach(t, ctx, s, append([]Address{root}, pins...)...)
				}
			}
		})
	}
}

// TestCollectConcurrent runs writers that build new roots on what the
// current root reaches while collections run, and checks that every
// chunk the last root reaches survives. Writers take a shared lock from
// their first Put to their Commit, and Quiesce waits for the ones that
// began before the barrier, as the engine's transactions do.
func TestCollectConcurrent(t *testing.T) {
	ctx := context.Background()
	for _, h := range harnesses() {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			s := h.open(t, dir)
			defer func() { s.Close() }()
			ws := startWriters(3, func(w int, ops *sync.RWMutex) func() error {
				r := rand.New(rand.NewSource(int64(w)))
				var stash [][]byte
				return func() error { return concurrentWrite(ctx, s, r, ops, &stash) }
			})
			collections := 0
			for i := 0; i < 15; i++ {
				if fs, ok := s.(*FileStore); ok && i%3 == 2 {
					if err := fs.Compact(); err != nil {
						t.Fatal(err)
					}
				}
				_, err := s.(Collector).Collect(ctx, CollectOptions{Young: i%2 == 1, Quiesce: ws.quiesce})
				if err != nil {
					t.Fatal(err)
				}
				collections++
				ws.check(t)
			}
			ws.finish(t)
			root, _ := s.Root(ctx)
			reach(t, ctx, s, root)
			if h.durable {
				s.Close()
				s = h.open(t, dir)
				root2, _ := s.Root(ctx)
				if root2 != root {
					t.Fatalf("reopened at %s, want %s", root2, root)
				}
				reach(t, ctx, s, root)
			}
		})
	}
}

// writers are goroutines that write to a store while a test collects it:
// each write holds ops for reading, so that quiesce (a collection's
// Quiesce) waits for the writes in flight.
type writers struct {
	ops  sync.RWMutex
	stop atomic.Bool
	wg   sync.WaitGroup
	errc chan error
}

// startWriters starts n writers; writer w calls the function that
// newWrite(w, ops) returns until finish, or until it fails.
func startWriters(n int, newWrite func(w int, ops *sync.RWMutex) func() error) *writers {
	ws := &writers{errc: make(chan error, n)}
	for w := range n {
		write := newWrite(w, &ws.ops)
		ws.wg.Add(1)
		go func() {
			defer ws.wg.Done()
			for !ws.stop.Load() {
				if err := write(); err != nil {
					ws.errc <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		}()
	}
	return ws
}

func (ws *writers) quiesce(context.Context) error {
	ws.ops.Lock()
	ws.ops.Unlock() //nolint:staticcheck // waiting for the writes in flight is the point
	return nil
}

// check fails t if a writer failed so far.
func (ws *writers) check(t *testing.T) {
	t.Helper()
	select {
	case err := <-ws.errc:
		t.Fatal(err)
	default:
	}
}

// finish stops the writers, waits for them and fails t if one failed.
func (ws *writers) finish(t *testing.T) {
	t.Helper()
	ws.stop.Store(true)
	ws.wg.Wait()
	close(ws.errc)
	for err := range ws.errc {
		t.Fatal(err)
	}
}

// concurrentWrite makes one new root: it reads what the current root
// names, puts chunks naming some of it, and commits. It also puts again
// the bytes of chunks it read from earlier roots (stash), which may be
// garbage by then, and names them: a Put of a chunk the store holds must
// keep it.
func concurrentWrite(ctx context.Context, s Store, r *rand.Rand, ops *sync.RWMutex, stash *[][]byte) error {
	return concurrentWriteWith(ctx, s, r, ops, stash, s.Commit)
}

// concurrentWriteWith is concurrentWrite with commit instead of s.Commit.
func concurrentWriteWith(ctx context.Context, s Store, r *rand.Rand, ops *sync.RWMutex, stash *[][]byte,
	commit func(ctx context.Context, root, old Address) error) error {
	ops.RLock()
	defer ops.RUnlock()
	for {
		old, err := s.Root(ctx)
		if err != nil {
			return err
		}
		var names []Address
		if !old.IsEmpty() {
			b, err := s.Get(ctx, old)
			if err != nil {
				return fmt.Errorf("read root %s: %w", old, err)
			}
			names = graphRefs(b)
			for _, a := range names {
				c, err := s.Get(ctx, a)
				if err != nil {
					return fmt.Errorf("read %s named by root %s: %w", a, old, err)
				}
				if len(*stash) < 50 && r.Intn(4) == 0 {
					*stash = append(*stash, c)
				}
			}
		}
		var refs []Address
		for _, a := range names {
			if r.Intn(3) != 0 {
				refs = append(refs, a)
			}
		}
		if len(*stash) > 0 && r.Intn(2) == 0 {
			i := r.Intn(len(*stash))
			a, err := s.Put(ctx, (*stash)[i]) // held, perhaps garbage
			if err != nil {
				return err
			}
			refs = append(refs, a)
			(*stash)[i] = (*stash)[len(*stash)-1]
			*stash = (*stash)[:len(*stash)-1]
		}
		runtime.Gosched() // let a collection's finish fall between the Puts and the Commit
		for i := r.Intn(4); i >= 0 && len(refs) < 200; i-- {
			a, err := s.Put(ctx, graphChunk(r, nil))
			if err != nil {
				return err
			}
			refs = append(refs, a)
		}
		root, err := s.Put(ctx, graphChunk(r, refs))
		if err != nil {
			return err
		}
		err = commit(ctx, root, old)
		if errors.Is(err, ErrRootMoved) {
			continue
		}
		return err
	}
}

const collectChildEnv = "VERSO_CHUNKS_COLLECT_CHILD"

// TestCollectCrash ends a child process at each step of a collection and
// checks that the store opens either as it was or as collected, with its
// root and everything it reaches.
func TestCollectCrash(t *testing.T) {
	if dir := os.Getenv(collectChildEnv); dir != "" {
		s, err := OpenFileStore(dir, Options{})
		if err == nil {
			_, err = s.Collect(context.Background(), CollectOptions{crashAt: os.Getenv(collectChildEnv + "_STEP")})
		}
		fmt.Fprintln(os.Stderr, "child: collection finished:", err)
		os.Exit(0)
	}
	ctx := context.Background()
	for _, step := range []string{"mark", "copy", "manifest", "remove", ""} {
		t.Run("at "+step, func(t *testing.T) {
			dir := t.TempDir()
			s, err := OpenFileStore(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(seed(t)))
			var root Address
			for i := 0; i < 40; i++ {
				var refs []Address
				if !root.IsEmpty() && r.Intn(2) == 0 {
					refs = append(refs, root)
				}
				for k := 0; k < 5; k++ {
					a, _ := s.Put(ctx, graphChunk(r, nil))
					refs = append(refs, a)
				}
				next, _ := s.Put(ctx, graphChunk(r, refs))
				if err := s.Commit(ctx, next, root); err != nil {
					t.Fatal(err)
				}
				root = next
			}
			want := reach(t, ctx, s, root)
			total := len(held(t, s))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCollectCrash$")
			cmd.Env = append(os.Environ(), collectChildEnv+"="+dir, collectChildEnv+"_STEP="+step)
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if (step == "") != (code == 0) {
				t.Fatalf("child exited %d: %s", code, out)
			}
			s, err = OpenFileStore(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got, _ := s.Root(ctx); got != root {
				t.Fatalf("root %s after the crash, want %s", got, root)
			}
			reach(t, ctx, s, root)
			n := len(held(t, s))
			switch step {
			case "mark", "copy", "manifest":
				if n != total {
					t.Fatalf("a crash before the manifest left %d chunks, want all %d", n, total)
				}
			default:
				if n != len(want) {
					t.Fatalf("a crash after the manifest left %d chunks, want the %d reachable", n, len(want))
				}
			}
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			st := s.Stats()
			if files := st.Journals + st.Tables; len(entries) != files+2 { // + MANIFEST, LOCK
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("folder holds %v, the store names %d files", names, files)
			}
		})
	}
}

func TestCollectRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Put(ctx, []byte("x"))
	if err := s.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := s.Collect(ctx, CollectOptions{Quiesce: func(context.Context) error {
			close(started)
			<-release
			return nil
		}})
		done <- err
	}()
	<-started
	if _, err := s.Collect(ctx, CollectOptions{}); !errors.Is(err, ErrCollecting) {
		t.Fatalf("a second collection: %v, want ErrCollecting", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	quit := errors.New("stop")
	if _, err := s.Collect(ctx, CollectOptions{Quiesce: func(context.Context) error { return quit }}); !errors.Is(err, quit) {
		t.Fatalf("a quiesce that fails: %v", err)
	}
	if s.barrier != nil {
		t.Fatal("an aborted collection left its barrier up")
	}
	s.Close()
	ro, err := OpenFileStore(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Collect(ctx, CollectOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("collect of a read-only store: %v", err)
	}
}

// TestCollectKeepsRootsCommittedDuring: a root put before the barrier and
// committed after it was current while the collection ran, so a reader
// may hold it; it must survive even once replaced.
func TestCollectKeepsRootsCommittedDuring(t *testing.T) {
	ctx := context.Background()
	for _, h := range harnesses() {
		t.Run(h.name, func(t *testing.T) {
			s := h.open(t, t.TempDir())
			defer s.Close()
			r := rand.New(rand.NewSource(seed(t)))
			leaf, _ := s.Put(ctx, graphChunk(r, nil))
			r1, _ := s.Put(ctx, graphChunk(r, []Address{leaf})) // put before the barrier
			other, _ := s.Put(ctx, graphChunk(r, nil))
			_, err := s.(Collector).Collect(ctx, CollectOptions{Quiesce: func(context.Context) error {
				if err := s.Commit(ctx, r1, Address{}); err != nil {
					return err
				}
				r2, _ := s.Put(ctx, graphChunk(r, []Address{other}))
				return s.Commit(ctx, r2, r1) // r1 is replaced, but a reader may hold it
			}})
			if err != nil {
				t.Fatal(err)
			}
			reach(t, ctx, s, r1)
		})
	}
}

// TestCollectProgress: a collection reports its mark and copy phases,
// the copy's last report being all of the chunks it keeps.
func TestCollectProgress(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFileStore(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, err := s.Put(ctx, []byte("root"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if _, err := s.Put(ctx, []byte{byte(i), byte(i >> 8), 'g'}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(ctx, root, Address{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var lastCopy [2]int
	st, err := s.Collect(ctx, CollectOptions{Progress: func(phase string, done, total int) {
		seen[phase]++
		if phase == "copy" {
			lastCopy = [2]int{done, total}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if seen["mark"] == 0 || seen["copy"] == 0 || lastCopy[0] != lastCopy[1] || lastCopy[1] != st.ChunksAfter {
		t.Errorf("progress: %v, last copy %v, kept %d", seen, lastCopy, st.ChunksAfter)
	}
}
