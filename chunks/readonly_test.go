package chunks

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var readOnly = Options{ReadOnly: true}

// TestReadOnlyBesideWriter: a read-only store opens while the writer
// holds the folder's lock, sees its last commit as a snapshot, refuses
// writes, and holds no lock itself.
func TestReadOnlyBesideWriter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir, Options{})
	a, err := w.Put(ctx, []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	// Pending, uncommitted: a reader does not see it.
	pending, err := w.Put(ctx, []byte("pending"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.flush(w.active(), false); err != nil {
		t.Fatal(err)
	}

	r, err := OpenFileStore(dir, readOnly)
	if err != nil {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	if !r.ReadOnly() || w.ReadOnly() {
		t.Fatal("ReadOnly does not tell the stores apart")
	}
	if root, _ := r.Root(ctx); root != a {
		t.Fatalf("read-only root %s, want %s", root, a)
	}
	if b, err := r.Get(ctx, a); err != nil || string(b) != "first" {
		t.Fatalf("get: %q, %v", b, err)
	}
	if ok, _ := r.Has(ctx, pending); ok {
		t.Fatal("a read-only store sees a chunk put after the last commit")
	}
	if _, err := r.Put(ctx, []byte("x")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("put: %v, want ErrReadOnly", err)
	}
	if err := r.Commit(ctx, a, a); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("commit: %v, want ErrReadOnly", err)
	}
	if err := r.Compact(); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("compact: %v, want ErrReadOnly", err)
	}
	if err := r.Check(ctx); err != nil {
		t.Fatal(err)
	}

	// A snapshot: the writer's next commit and compaction do not move it.
	b, _ := w.Put(ctx, []byte("second"))
	if err := w.Commit(ctx, b, a); err != nil {
		t.Fatal(err)
	}
	if err := w.Compact(); err != nil {
		t.Fatal(err)
	}
	if root, _ := r.Root(ctx); root != a {
		t.Fatalf("the snapshot's root moved to %s", root)
	}
	if got, err := r.Get(ctx, a); err != nil || string(got) != "first" {
		t.Fatalf("get after the writer compacted the journal away: %q, %v", got, err)
	}
	r2 := openTest(t, dir, readOnly)
	if root, _ := r2.Root(ctx); root != b {
		t.Fatalf("a new read-only open sees %s, want %s", root, b)
	}
	if err := errors.Join(r.Close(), r2.Close(), w.Close()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}

	// No lock: a writer opens while a reader is open.
	r = openTest(t, dir, readOnly)
	w = openTest(t, dir, Options{})
	if err := errors.Join(w.Close(), r.Close()); err != nil {
		t.Fatal(err)
	}

	// Nothing to read is an error, and makes no folder.
	missing := filepath.Join(t.TempDir(), "none")
	if _, err := OpenFileStore(missing, readOnly); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open of no store: %v, want os.ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only open made the folder: %v", err)
	}
}

// TestReadOnlyOpenRacesCompaction: a compaction that replaces the
// manifest and removes the journal it named, between a reader's read of
// the manifest and of the journal, makes the open start over and see the
// new files; a file missing from the manifest that is current fails.
func TestReadOnlyOpenRacesCompaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir, Options{CompactAt: -1})
	defer w.Close()
	var root Address
	for i := 0; i < 3; i++ {
		a, _ := w.Put(ctx, []byte(fmt.Sprintf("chunk %d", i)))
		if err := w.Commit(ctx, a, root); err != nil {
			t.Fatal(err)
		}
		root = a
	}
	reads := 0
	r, err := openReadOnlyWith(dir, readOnly, func(dir string) ([]byte, manifest, error) {
		reads++
		raw, m, err := readManifestShared(dir)
		if reads == 1 {
			// The writer compacts right after the reader read the
			// manifest: the journal it names is gone.
			if err := w.Compact(); err != nil {
				t.Fatal(err)
			}
			if _, serr := os.Stat(filepath.Join(dir, journalFileName(m.journals[0]))); !errors.Is(serr, os.ErrNotExist) {
				t.Fatalf("the compaction left the journal: %v", serr)
			}
		}
		return raw, m, err
	})
	if err != nil {
		t.Fatalf("open racing a compaction: %v", err)
	}
	defer r.Close()
	if got, _ := r.Root(ctx); got != root || r.Stats().Tables != 1 || reads < 3 {
		t.Fatalf("root %s (want %s), %d tables (want 1), %d manifest reads (want the first, the check, the next)", got, root, r.Stats().Tables, reads)
	}
	if b, err := r.Get(ctx, root); err != nil || string(b) != "chunk 2" {
		t.Fatalf("the last commit's chunk: %q, %v", b, err)
	}

	// A file the current manifest names is missing: damage, not a race.
	dir2 := t.TempDir()
	w2 := openTest(t, dir2, Options{CompactAt: -1})
	a, _ := w2.Put(ctx, []byte("x"))
	w2.Commit(ctx, a, Address{})
	w2.Compact()
	w2.Close()
	m, err := readManifest(dir2)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir2, tableFileName(m.tables[0])))
	if _, err := OpenFileStore(dir2, readOnly); !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "gave up") {
		t.Fatalf("a missing table: %v, want the file's error at once", err)
	}
}

// folderState describes every file of dir: name, size and SHA-256.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %x\n", e.Name(), len(data), sha256.Sum256(data))
	}
	return b.String()
}

// TestReadOnlyWritesNothing: a read-only open leaves a torn tail, a
// leftover file and a manifest's temporary copy where a writer's open
// would cut or remove them, and still reads the last commit.
func TestReadOnlyWritesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir, Options{})
	a, _ := w.Put(ctx, []byte("kept"))
	if err := w.Commit(ctx, a, Address{}); err != nil {
		t.Fatal(err)
	}
	j := w.active().path
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	torn := appendChunkRecord(nil, Of([]byte("torn")), CodecRaw, []byte("torn"))
	f, err := os.OpenFile(j, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(torn[:len(torn)-3])
	f.Close()
	for _, name := range []string{"000099.journal", manifestTmpName} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("leftover"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := folderState(t, dir)
	r := openTest(t, dir, readOnly)
	if root, _ := r.Root(ctx); root != a {
		t.Fatalf("root %s, want %s", root, a)
	}
	if err := errors.Join(r.Check(ctx), r.Close()); err != nil {
		t.Fatal(err)
	}
	if after := folderState(t, dir); after != before {
		t.Fatalf("a read-only open changed the folder:\nbefore\n%safter\n%s", before, after)
	}
}

// readOnlyCommit builds commit n over prev in w: a few chunks and a root
// chunk listing the commit's number, prev and the chunks.
func readOnlyCommit(ctx context.Context, w Store, r *rand.Rand, n int, prev Address) (Address, error) {
	var list strings.Builder
	fmt.Fprintf(&list, "commit %d\nprev %s\n", n, prev)
	for i, k := 0, 1+r.Intn(12); i < k; i++ {
		a, err := w.Put(ctx, randomChunk(r))
		if err != nil {
			return Address{}, err
		}
		fmt.Fprintf(&list, "%s\n", a)
	}
	return w.Put(ctx, []byte(list.String()))
}

// readChain reads the chain of commits from root back to the empty root,
// checking every chunk against its address; it returns the number of root
// and of commits in the chain, which must agree.
func readChain(ctx context.Context, s Store, root Address) (int, error) {
	top, commits := -1, 0
	for !root.IsEmpty() {
		data, err := s.Get(ctx, root)
		if err != nil {
			return 0, fmt.Errorf("root %s: %w", root, err)
		}
		if Of(data) != root {
			return 0, fmt.Errorf("root %s holds the wrong bytes", root)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		n, err := strconv.Atoi(strings.TrimPrefix(lines[0], "commit "))
		if err != nil || len(lines) < 2 {
			return 0, fmt.Errorf("root %s: bad list %q", root, data)
		}
		if top < 0 {
			top = n
		}
		prev, err := ParseAddress(strings.TrimPrefix(lines[1], "prev "))
		if err != nil {
			return 0, fmt.Errorf("root %s: %w", root, err)
		}
		for _, l := range lines[2:] {
			a, err := ParseAddress(l)
			if err != nil {
				return 0, err
			}
			b, err := s.Get(ctx, a)
			if err != nil {
				return 0, fmt.Errorf("commit %d: chunk %s: %w", n, a, err)
			}
			if Of(b) != a {
				return 0, fmt.Errorf("commit %d: chunk %s holds the wrong bytes", n, a)
			}
		}
		commits++
		root = prev
	}
	if top < 0 {
		top = 0
	}
	if top != commits {
		return 0, fmt.Errorf("the chain of commit %d holds %d commits", top, commits)
	}
	return top, nil
}

// TestReadOnlyReplayInMemory: during ReplayInMemory a read-only store
// takes Puts and staged commits in memory, refuses a synced commit, and
// reads the new chunks and root; after it, writes are refused again; the
// folder is never written.
func TestReadOnlyReplayInMemory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir, Options{})
	a, _ := w.Put(ctx, []byte("on file"))
	if err := w.CommitStaged(ctx, a, Address{}, 7); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := folderState(t, dir)
	r := openTest(t, dir, readOnly)
	if got := r.LogPosition(); got != 7 {
		t.Fatalf("read-only log position %d, want 7", got)
	}
	var b Address
	err := r.ReplayInMemory(func() error {
		var err error
		if b, err = r.Put(ctx, []byte("in memory")); err != nil {
			return err
		}
		if err := r.Commit(ctx, b, a); !errors.Is(err, ErrReadOnly) {
			t.Errorf("a synced commit while replaying: %v, want ErrReadOnly", err)
		}
		if err := r.CommitStaged(ctx, b, b, 8); !errors.Is(err, ErrRootMoved) {
			t.Errorf("a staged commit from the wrong root: %v, want ErrRootMoved", err)
		}
		return r.CommitStaged(ctx, b, a, 8)
	})
	if err != nil {
		t.Fatal(err)
	}
	if roots, err := r.RootHistory(ctx); err != nil || len(roots) != 1 || roots[0] != a {
		t.Fatalf("root history after the replay: %v, %v; want the file's root %s alone", roots, err, a)
	}
	if st := r.Stats(); st.Journals != 1 || st.NurseryBytes == 0 {
		t.Fatalf("stats after the replay: %+v, want the one journal file and the replay's bytes apart", st)
	}
	if root, _ := r.Root(ctx); root != b || r.LogPosition() != 8 {
		t.Fatalf("root %s at %d after the replay, want %s at 8", root, r.LogPosition(), b)
	}
	for addr, want := range map[Address]string{a: "on file", b: "in memory"} {
		if got, err := r.Get(ctx, addr); err != nil || string(got) != want {
			t.Fatalf("Get(%s) = %q, %v; want %q", addr, got, err, want)
		}
	}
	if _, err := r.Put(ctx, []byte("after")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Put after the replay: %v, want ErrReadOnly", err)
	}
	if err := r.CommitStaged(ctx, a, b, 9); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("CommitStaged after the replay: %v, want ErrReadOnly", err)
	}
	if err := errors.Join(r.Check(ctx), r.Close()); err != nil {
		t.Fatal(err)
	}
	if after := folderState(t, dir); after != before {
		t.Fatalf("the folder changed:\n%s\nafter:\n%s", before, after)
	}
	w = openTest(t, dir, Options{})
	if ok, _ := w.Has(ctx, b); ok {
		t.Fatal("the writer finds the chunk put in memory")
	}
}

// TestReadOnlyWhileWriting: readers open read-only again and again while
// a writer commits, compacting its journal into tables and merging them
// every few commits. Every root a reader sees is one the writer committed
// (recorded before its Commit, which a reader may see before it returns),
// later than or equal to the reader's previous one, and the whole chain
// of commits under it is readable.
func TestReadOnlyWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, dir, Options{CompactAt: 16 << 10, MaxTables: 2})
	r := rand.New(rand.NewSource(seed(t)))
	const commits = 150

	var mu sync.Mutex
	committed := map[Address]int{}
	done := make(chan struct{})
	var werr error
	go func() {
		defer close(done)
		prev := Address{}
		for n := 1; n <= commits; n++ {
			root, err := readOnlyCommit(ctx, w, r, n, prev)
			if err == nil {
				mu.Lock()
				committed[root] = n
				mu.Unlock()
				err = w.Commit(ctx, root, prev)
			}
			if err != nil {
				werr = fmt.Errorf("commit %d: %w", n, err)
				return
			}
			prev = root
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	var opens, withTables sync.Map
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last, n, tabled := 0, 0, 0
			defer func() { opens.Store(g, n); withTables.Store(g, tabled) }()
			for finished := false; !finished; {
				select {
				case <-done:
					finished = true // one more open after the last commit
				default:
				}
				s, err := OpenFileStore(dir, readOnly)
				if err != nil {
					errs <- fmt.Errorf("open %d: %w", n, err)
					return
				}
				n++
				if s.Stats().Tables > 0 {
					tabled++
				}
				root, _ := s.Root(ctx)
				mu.Lock()
				want, ok := committed[root]
				mu.Unlock()
				top, err := readChain(ctx, s, root)
				s.Close()
				switch {
				case err != nil:
					errs <- fmt.Errorf("open %d: %w", n, err)
					return
				case !root.IsEmpty() && !ok:
					errs <- fmt.Errorf("open %d sees root %s, which the writer never committed", n, root)
					return
				case top != want || top < last:
					errs <- fmt.Errorf("open %d sees commit %d (recorded %d) after commit %d", n, top, want, last)
					return
				case finished && top != commits && werr == nil:
					errs <- fmt.Errorf("the open after the last commit sees commit %d of %d", top, commits)
					return
				}
				last = top
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("the writer's close (and its background compactions): %v", err)
	}
	var total, tabled int
	opens.Range(func(_, v any) bool { total += v.(int); return true })
	withTables.Range(func(_, v any) bool { tabled += v.(int); return true })
	t.Logf("%d read-only opens during %d commits, %d of them with table files", total, commits, tabled)
	if tabled == 0 {
		t.Error("no read-only open happened after a compaction")
	}
}

// TestReadOnlyBesideWriterProcess: the same over processes, with the
// crash test's child as the writer (it commits in a loop, compacting
// often, and is killed at the end): every snapshot a reader opens reads
// whole, and each reaches the one before it.
func TestReadOnlyBesideWriterProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process; skipped with -short")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("the writer printed nothing: %s", stderr.String())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	var prev Address
	opens, roots := 0, map[Address]bool{}
	for deadline := time.Now().Add(1500 * time.Millisecond); time.Now().Before(deadline); {
		s, err := OpenFileStore(dir, readOnly)
		if err != nil {
			t.Fatalf("open %d: %v", opens, err)
		}
		opens++
		root, _ := s.Root(ctx)
		chain := walkChain(t, s, root)
		if !prev.IsEmpty() && !chain[prev] {
			t.Fatalf("open %d: root %s does not reach the previous open's %s", opens, root, prev)
		}
		if err := errors.Join(s.Check(ctx), s.Close()); err != nil {
			t.Fatal(err)
		}
		prev, roots[root] = root, true
	}
	cmd.Process.Kill()
	cmd.Wait()
	names := []string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	t.Logf("%d read-only opens saw %d roots; files at the end: %v", opens, len(roots), names)
	if len(roots) < 2 {
		t.Errorf("the readers saw %d roots: the writer did not commit while they read", len(roots))
	}
}
