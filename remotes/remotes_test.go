package remotes

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// local is a database of the tests: a commit graph whose commits' roots
// are prolly maps of random rows, so that a history is many chunks that
// share most of their trees.
type local struct {
	store *chunks.MemoryStore
	g     *commitgraph.DB
	rows  prolly.Map
}

var epoch = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

func newLocal(t *testing.T) *local {
	t.Helper()
	ctx := context.Background()
	s := chunks.NewMemoryStore()
	g := commitgraph.New(s)
	if _, err := g.Init(ctx, "main", commitgraph.Meta{Author: commitgraph.Signature{Name: "t", Email: "t@x"}, Time: epoch, Message: "init"}); err != nil {
		t.Fatal(err)
	}
	return &local{store: s, g: g, rows: prolly.NewMap(g.NodeStore())}
}

// commit writes n random rows and commits them on branch.
func (l *local) commit(t *testing.T, rng *rand.Rand, branch string, n int) chunks.Address {
	t.Helper()
	ctx := context.Background()
	head, err := l.g.Head(ctx, branch)
	if err != nil {
		t.Fatal(err)
	}
	edits := make([]prolly.Edit, 0, n)
	seen := map[string]bool{}
	for len(edits) < n {
		k := fmt.Sprintf("k%06d", rng.Intn(100000))
		if !seen[k] {
			seen[k] = true
			edits = append(edits, prolly.Edit{Key: []byte(k), Value: []byte(fmt.Sprintf("v%d-%d", rng.Int63(), len(edits)))})
		}
	}
	sortEdits(edits)
	m, err := l.rows.Apply(ctx, edits)
	if err != nil {
		t.Fatal(err)
	}
	l.rows = m
	c, err := l.g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: branch, Root: m.Address(), ExpectedHead: head,
		Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "t", Email: "t@x"}, Time: epoch, Message: fmt.Sprint("c", rng.Int())}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Addr
}

func sortEdits(e []prolly.Edit) {
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && string(e[j].Key) < string(e[j-1].Key); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

func openRemote(t *testing.T, dir string) *Store {
	t.Helper()
	bs, err := OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), bs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// reachable copies everything the remote's refs reach into a fresh
// memory store: it fails if any chunk of their histories is unreadable.
func checkRemote(t *testing.T, dir string) map[string]chunks.Address {
	t.Helper()
	ctx := context.Background()
	r := openRemote(t, dir)
	refs, err := Refs(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	dst := chunks.NewMemoryStore()
	if _, err := FetchRefs(ctx, r, dst, refs, CopyOptions{}); err != nil {
		t.Fatalf("the remote's history does not read whole: %v", err)
	}
	g := commitgraph.New(dst)
	out := map[string]chunks.Address{}
	for _, ref := range refs {
		out[ref.Name] = ref.Addr
		for it := g.Log(ctx, ref.Addr); it.Next(ctx); {
			if _, err := prolly.OpenMap(ctx, g.NodeStore(), it.Commit().Root); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestPushFetchModel runs random commits, pushes (forced or not) and
// fetches of three databases through one file remote, against a model
// of the remote's refs, checking after each step that the remote reads
// whole from a fresh open, that a refused push changed nothing, and that
// a fetch leaves nothing to copy a second time.
func TestPushFetchModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	dir := t.TempDir()
	dbs := []*local{newLocal(t), newLocal(t), newLocal(t)}
	model := map[string]chunks.Address{}
	branches := []string{"main", "b1", "b2"}
	for step := 0; step < 60; step++ {
		l := dbs[rng.Intn(len(dbs))]
		b := branches[rng.Intn(len(branches))]
		if _, err := l.g.Head(ctx, b); errors.Is(err, commitgraph.ErrBranchNotFound) {
			main, _ := l.g.Head(ctx, "main")
			if err := l.g.CreateBranch(ctx, b, main); err != nil {
				t.Fatal(err)
			}
		}
		switch op := rng.Intn(3); op {
		case 0:
			l.commit(t, rng, b, 1+rng.Intn(50))
		case 1:
			head, _ := l.g.Head(ctx, b)
			force := rng.Intn(4) == 0
			r := openRemote(t, dir)
			res, err := PushRef(ctx, l.store, r, "refs/heads/"+b, head, PushOptions{Force: force})
			old, had := model["refs/heads/"+b]
			ff := !had || old == head
			if had && !ff {
				ff, _ = l.g.IsAncestor(ctx, old, head)
			}
			switch {
			case err == nil && (force || ff):
				model["refs/heads/"+b] = head
				if res.Old != old {
					t.Fatalf("step %d: the push says the remote was at %s; the model has %s", step, res.Old, old)
				}
			case errors.Is(err, ErrRemoteMoved) && !force && !ff:
			default:
				t.Fatalf("step %d: push %s (force %v, fast-forward %v): %v", step, b, force, ff, err)
			}
		case 2:
			r := openRemote(t, dir)
			refs, err := Refs(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := FetchRefs(ctx, r, l.store, refs, CopyOptions{}); err != nil {
				t.Fatal(err)
			}
			again, err := FetchRefs(ctx, r, l.store, refs, CopyOptions{})
			if err != nil || again.Chunks != 0 {
				t.Fatalf("step %d: a second fetch copied %d chunks (%v)", step, again.Chunks, err)
			}
			// The fetched heads' histories read in full locally.
			for _, ref := range refs {
				for it := l.g.Log(ctx, ref.Addr); it.Next(ctx); {
				}
				if _, err := l.g.ReadCommit(ctx, ref.Addr); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := checkRemote(t, dir)
		if fmt.Sprint(got) != fmt.Sprint(model) {
			t.Fatalf("step %d: the remote's refs %v; the model's %v", step, got, model)
		}
	}
}

// TestPushUploadsOnlyTheChange checks that a push of one more commit
// uploads about that commit's chunks, not the database again.
func TestPushUploadsOnlyTheChange(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(1))
	l := newLocal(t)
	for i := 0; i < 20; i++ {
		l.commit(t, rng, "main", 2000)
	}
	dir := t.TempDir()
	head, _ := l.g.Head(ctx, "main")
	first, err := PushRef(ctx, l.store, openRemote(t, dir), "refs/heads/main", head, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	head = l.commit(t, rng, "main", 10)
	second, err := PushRef(ctx, l.store, openRemote(t, dir), "refs/heads/main", head, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first push: %d chunks, %d bytes; one commit of 10 rows: %d chunks, %d bytes", first.Copied.Chunks, first.Copied.Bytes, second.Copied.Chunks, second.Copied.Bytes)
	if second.Copied.Chunks > 40 || second.Copied.Bytes*20 > first.Copied.Bytes {
		t.Fatalf("a one-commit push copied %d chunks, %d bytes (the first push %d bytes)", second.Copied.Chunks, second.Copied.Bytes, first.Copied.Bytes)
	}
}

// TestConcurrentPushers runs pushers in goroutines, each through a Store
// of its own as separate processes would be: of pushes of sibling
// commits to one branch exactly one wins and the others get
// ErrRemoteMoved; pushes to distinct branches all land.
func TestConcurrentPushers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(2))
	base := newLocal(t)
	base.commit(t, rng, "main", 100)
	dir := t.TempDir()
	head, _ := base.g.Head(ctx, "main")
	if _, err := PushRef(ctx, base.store, openRemote(t, dir), "refs/heads/main", head, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	const n = 6
	heads := make([]chunks.Address, n)
	for i := range heads {
		// Each pusher's commit is a child of base's head: siblings.
		base.commit(t, rng, "main", 5)
		heads[i], _ = base.g.Head(ctx, "main")
		if err := base.g.SetHead(ctx, "main", heads[i], head); err != nil {
			t.Fatal(err)
		}
	}
	for round, sameBranch := range []bool{true, false} {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bs, _ := OpenFile(dir)
				r, err := Open(ctx, bs)
				if err != nil {
					errs[i] = err
					return
				}
				defer r.Close()
				name := "refs/heads/main"
				if !sameBranch {
					name = fmt.Sprintf("refs/heads/p%d", i)
				}
				_, errs[i] = PushRef(ctx, base.store, r, name, heads[i], PushOptions{})
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case sameBranch && errors.Is(err, ErrRemoteMoved):
			default:
				t.Fatalf("round %d: pusher %d: %v", round, i, err)
			}
		}
		if sameBranch && won != 1 || !sameBranch && won != n {
			t.Fatalf("round %d: %d of %d pushes won", round, won, n)
		}
		refs := checkRemote(t, dir)
		if sameBranch {
			found := false
			for _, h := range heads {
				found = found || refs["refs/heads/main"] == h
			}
			if !found {
				t.Fatalf("main is at %s, which no pusher pushed", refs["refs/heads/main"])
			}
		} else {
			for i := 0; i < n; i++ {
				if refs[fmt.Sprintf("refs/heads/p%d", i)] != heads[i] {
					t.Fatalf("p%d is at %s, not %s", i, refs[fmt.Sprintf("refs/heads/p%d", i)], heads[i])
				}
			}
		}
	}
}

// faulty is a Blobstore that fails every call from the k-th on, as a
// network that drops or a process that dies between two calls.
type faulty struct {
	Blobstore
	mu    sync.Mutex
	calls int
	k     int
}

var errInjected = errors.New("injected failure")

func (f *faulty) step() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls > f.k {
		return errInjected
	}
	return nil
}

func (f *faulty) Put(ctx context.Context, name string, data []byte) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.Blobstore.Put(ctx, name, data)
}

func (f *faulty) CheckAndPut(ctx context.Context, name, expected string, data []byte) (string, error) {
	if err := f.step(); err != nil {
		return "", err
	}
	return f.Blobstore.CheckAndPut(ctx, name, expected, data)
}

func (f *faulty) Get(ctx context.Context, name string) ([]byte, string, error) {
	if err := f.step(); err != nil {
		return nil, "", err
	}
	return f.Blobstore.Get(ctx, name)
}

// TestPushFailsAtEveryStep cuts a push off at each of its calls to the
// remote in turn: the remote is then readable, at its old root or (once
// the manifest is written) the new one, never between.
func TestPushFailsAtEveryStep(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	l := newLocal(t)
	l.commit(t, rng, "main", 3000)
	dir := t.TempDir()
	old, _ := l.g.Head(ctx, "main")
	if _, err := PushRef(ctx, l.store, openRemote(t, dir), "refs/heads/main", old, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		l.commit(t, rng, "main", 500)
	}
	next, _ := l.g.Head(ctx, "main")
	for k := 0; ; k++ {
		bs, _ := OpenFile(dir)
		f := &faulty{Blobstore: bs, k: k}
		r, err := Open(ctx, f)
		if err == nil {
			_, err = PushRef(ctx, l.store, r, "refs/heads/main", next, PushOptions{})
			r.Close()
		}
		got := checkRemote(t, dir)["refs/heads/main"]
		if err == nil {
			if got != next {
				t.Fatalf("a push that succeeded left main at %s", got)
			}
			t.Logf("the push took %d calls", k)
			return
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("cut at call %d: %v", k, err)
		}
		if got != old && got != next {
			t.Fatalf("cut at call %d: main at %s", k, got)
		}
		if got == next {
			// The manifest was written and the answer lost: done too.
			return
		}
		if k > 100 {
			t.Fatal("the push never finished")
		}
	}
}

// TestCorruptRemote flips a byte of a chunk in a remote table file: a
// fetch reports the damage and copies nothing into the local store.
func TestCorruptRemote(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(4))
	l := newLocal(t)
	l.commit(t, rng, "main", 500)
	dir := t.TempDir()
	head, _ := l.g.Head(ctx, "main")
	if _, err := PushRef(ctx, l.store, openRemote(t, dir), "refs/heads/main", head, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tables", "*.table"))
	if len(files) != 1 {
		t.Fatalf("%d table files", len(files))
	}
	b, _ := os.ReadFile(files[0])
	b[chunks.TableHeaderSize+100] ^= 0x40
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRemote(t, dir)
	refs, err := Refs(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	dst := chunks.NewMemoryStore()
	_, err = FetchRefs(ctx, r, dst, refs, CopyOptions{})
	if !chunks.IsCorrupt(err) {
		t.Fatalf("fetch of a damaged remote: %v; want a corruption error", err)
	}
	t.Log(err)
	if dst.Len() != 0 {
		t.Fatalf("a failed fetch put %d chunks into the local store", dst.Len())
	}
}

// TestManifestGolden pins the manifest's bytes.
func TestManifestGolden(t *testing.T) {
	m := manifest{root: chunks.Of([]byte("root")), tables: []tableRef{{name: chunks.Of([]byte("t1")), size: 1000, count: 3}, {name: chunks.Of([]byte("t2")), size: 4096, count: 100}}}
	b := m.encode()
	const want = "p265vgjemiortgjok6o91eee85ev2hn0"
	if got := chunks.Of(b).String(); got != want {
		t.Errorf("the manifest's address is %s, want %s: a format change needs a new version", got, want)
	}
	back, err := decodeManifest(b)
	if err != nil || fmt.Sprint(back) != fmt.Sprint(m) {
		t.Fatalf("round trip: %v %v", back, err)
	}
}

func FuzzDecodeManifest(f *testing.F) {
	m := manifest{root: chunks.Of([]byte("root")), tables: []tableRef{{name: chunks.Of([]byte("t1")), size: 1000, count: 3}}}
	f.Add(m.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			if !chunks.IsCorrupt(err) && !errors.Is(err, chunks.ErrVersion) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		if string(m.encode()) != string(b) {
			t.Fatal("a manifest that decodes does not encode to the same bytes")
		}
	})
}

// TestFileBlobstoreConformance runs the Blobstore contract's tests over a
// folder.
func TestFileBlobstoreConformance(t *testing.T) {
	bs, err := OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runBlobstoreConformance(t, bs)
}

// TestPushFetchS3 pushes a history to a remote on the S3 server of
// VERSO_S3_URL, pushes a second commit from a fresh Store, and fetches
// it whole into an empty store, checked as TestPushFetchModel checks a
// folder's.
func TestPushFetchS3(t *testing.T) {
	ctx := context.Background()
	bs := s3TestStore(t)
	rng := rand.New(rand.NewSource(5))
	l := newLocal(t)
	l.commit(t, rng, "main", 3000)
	open := func() *Store {
		r, err := Open(ctx, bs)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	head, _ := l.g.Head(ctx, "main")
	if _, err := PushRef(ctx, l.store, open(), "refs/heads/main", head, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	head = l.commit(t, rng, "main", 10)
	if _, err := PushRef(ctx, l.store, open(), "refs/heads/main", head, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	r := open()
	refs, err := Refs(ctx, r)
	if err != nil || len(refs) != 1 || refs[0].Addr != head {
		t.Fatalf("the S3 remote's refs: %v %v", refs, err)
	}
	dst := chunks.NewMemoryStore()
	if _, err := FetchRefs(ctx, r, dst, refs, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	g := commitgraph.New(dst)
	n := 0
	for it := g.Log(ctx, head); it.Next(ctx); n++ {
		if _, err := prolly.OpenMap(ctx, g.NodeStore(), it.Commit().Root); err != nil {
			t.Fatal(err)
		}
	}
	if n != 3 {
		t.Fatalf("the fetched log has %d commits, want 3", n)
	}
}

// TestCopyTables: a remote of several pushes (more table files than are
// copied whole) copied into an empty file store holds every chunk of the
// remote, and a damaged table file is refused with a corruption error,
// whether it is copied whole or chunk by chunk.
func TestCopyTables(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(5))
	l := newLocal(t)
	dir := t.TempDir()
	for i := 0; i < maxWholeTables+3; i++ {
		l.commit(t, rng, "main", 50+rng.Intn(400))
		head, _ := l.g.Head(ctx, "main")
		if _, err := PushRef(ctx, l.store, openRemote(t, dir), "refs/heads/main", head, PushOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	r := openRemote(t, dir)
	if r.Tables() != maxWholeTables+3 {
		t.Fatalf("%d remote tables", r.Tables())
	}
	var want []chunks.Address
	r.EachRecord(func(a chunks.Address, _ int) { want = append(want, a) })
	dst, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var last Progress
	p, err := CopyTables(ctx, r, dst, CopyOptions{Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Chunks != len(want) || !last.Done || last.Chunks != p.Chunks {
		t.Fatalf("copied %+v (last progress %+v), the remote holds %d chunks", p, last, len(want))
	}
	for _, a := range want {
		if ok, err := dst.Has(ctx, a); err != nil || !ok {
			t.Fatalf("chunk %s not copied: %v", a, err)
		}
	}
	if err := dst.Check(ctx); err != nil {
		t.Fatal(err)
	}

	// Damage the largest file (copied whole) and the smallest (chunk by
	// chunk), each in turn.
	files, _ := filepath.Glob(filepath.Join(dir, "tables", "*.table"))
	slices.SortFunc(files, func(a, b string) int {
		sa, _ := os.Stat(a)
		sb, _ := os.Stat(b)
		return int(sb.Size() - sa.Size())
	})
	for _, f := range []string{files[0], files[len(files)-1]} {
		b, _ := os.ReadFile(f)
		orig := slices.Clone(b)
		b[chunks.TableHeaderSize+20] ^= 0x08
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = CopyTables(ctx, openRemote(t, dir), d, CopyOptions{})
		d.Close()
		if !chunks.IsCorrupt(err) {
			t.Errorf("a damaged %s: %v, want a corruption error", filepath.Base(f), err)
		}
		os.WriteFile(f, orig, 0o644)
	}
}

// TestPushTableFilesWhole: a push to an empty remote from a file store
// uploads its table files as they are and the chunks of its journal in a
// table of their own; a fetch of the remote gives back every chunk.
func TestPushTableFilesWhole(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(6))
	l := newLocal(t)
	for i := 0; i < 5; i++ {
		l.commit(t, rng, "main", 2000)
	}
	src, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	copied := chunks.AddressSet{}
	sync := func() {
		t.Helper()
		var addrs []chunks.Address
		l.store.EachRecord(func(a chunks.Address, _ int) {
			if !copied.Has(a) {
				addrs = append(addrs, a)
			}
		})
		for _, a := range addrs {
			b, err := l.store.Get(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := src.Put(ctx, b); err != nil {
				t.Fatal(err)
			}
			copied.Add(a)
		}
		root, _ := l.store.Root(ctx)
		old, _ := src.Root(ctx)
		if err := src.Commit(ctx, root, old); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	if err := src.Compact(); err != nil {
		t.Fatal(err)
	}
	l.commit(t, rng, "main", 50) // in the journal only
	sync()
	var tables int
	src.WithTableFiles(func(fs []chunks.TableFile) error { tables = len(fs); return nil })
	if tables != 1 {
		t.Fatalf("the source has %d table files", tables)
	}
	dir := t.TempDir()
	head, _ := l.g.Head(ctx, "main")
	var last Progress
	res, err := PushRef(ctx, src, openRemote(t, dir), "refs/heads/main", head, PushOptions{Copy: CopyOptions{Progress: func(p Progress) { last = p }}})
	if err != nil {
		t.Fatal(err)
	}
	if last.Chunks != res.Copied.Chunks || res.Copied.Chunks < len(copied)-10 {
		t.Errorf("copied %+v, last progress %+v, the source holds %d chunks", res.Copied, last, len(copied))
	}
	r := openRemote(t, dir)
	if r.Tables() != 2 {
		t.Errorf("the remote holds %d table files, want the source's one and one of its journal's chunks", r.Tables())
	}
	dst := chunks.NewMemoryStore()
	refs, err := Refs(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FetchRefs(ctx, r, dst, refs, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	// What head reaches, found by a copy from the source itself.
	reach := chunks.NewMemoryStore()
	if _, err := Copy(ctx, l.store, reach, []chunks.Address{head}, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	reach.EachRecord(func(a chunks.Address, _ int) {
		n++
		if ok, _ := dst.Has(ctx, a); !ok {
			t.Errorf("chunk %s, which main reaches, not fetched back", a)
		}
	})
	if n < 100 {
		t.Fatalf("main reaches only %d chunks", n)
	}
}

// TestConjoin: many pushes leave the remote naming at most
// maxRemoteTables table files; the history stays whole (a fetch gets
// every chunk main reaches), through a Store just opened and through one
// opened before the merges, which keeps the indexes it read.
func TestConjoin(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(8))
	l := newLocal(t)
	dir := t.TempDir()
	var early *Store
	most := 0
	for i := 0; i < maxRemoteTables+20; i++ {
		l.commit(t, rng, "main", 20+rng.Intn(60))
		head, _ := l.g.Head(ctx, "main")
		r := openRemote(t, dir)
		if _, err := PushRef(ctx, l.store, r, "refs/heads/main", head, PushOptions{}); err != nil {
			t.Fatal(err)
		}
		most = max(most, r.Tables())
		if i == 5 {
			early = openRemote(t, dir)
		}
	}
	if most > maxRemoteTables {
		t.Fatalf("the remote named %d table files", most)
	}
	r := openRemote(t, dir)
	objects, _ := filepath.Glob(filepath.Join(dir, "tables", "*.table"))
	t.Logf("%d table files named, %d on the remote", r.Tables(), len(objects))
	if len(objects) <= r.Tables() {
		t.Fatal("no table file was merged")
	}
	head, _ := l.g.Head(ctx, "main")
	reach := chunks.NewMemoryStore()
	if _, err := Copy(ctx, l.store, reach, []chunks.Address{head}, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, from := range []*Store{r, early} {
		refs, err := Refs(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		dst := chunks.NewMemoryStore()
		if _, err := FetchRefs(ctx, from, dst, refs, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
		reach.EachRecord(func(a chunks.Address, _ int) {
			if ok, _ := dst.Has(ctx, a); !ok {
				t.Fatalf("chunk %s, which main reaches, not fetched", a)
			}
		})
	}
}
