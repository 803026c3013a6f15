package verso_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// fsckSchema is a table with a secondary index and a unique one.
func fsckSchema() *verso.Schema {
	return &verso.Schema{
		Columns: []verso.Column{
			{Name: "k", Type: "int", Kind: verso.KindInt},
			{Name: "name", Type: "varchar(40)", Kind: verso.KindString},
			{Name: "n", Type: "int", Kind: verso.KindInt, Nullable: true},
		},
		PrimaryKey: []int{0},
		Indexes: []verso.Index{
			{Name: "by_n", Columns: []int{2}},
			{Name: "by_name", Columns: []int{1}, Unique: true},
		},
	}
}

func fsckRows(t *testing.T, db *verso.DB, branch string, from, to int64) {
	t.Helper()
	write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
		for k := from; k < to; k++ {
			name := branch + "-" + strings.Repeat("x", int(k%7)) + string(rune('a'+k%26)) + "-" + itoa(k)
			if err := txn.Insert(ctx, "items", verso.Int(k), verso.String(name), verso.Int(k%10)); err != nil {
				return err
			}
		}
		_, err := txn.AppendEvents(ctx, "order-"+itoa(from), verso.NoStream,
			verso.EventData{Type: "Placed", Data: []byte(`{"k":` + itoa(from) + `}`)},
			verso.EventData{Type: "Shipped"})
		return err
	})
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// fsckFixture makes a database folder with a few commits on main, a
// branch with commits of its own, a table with two indexes, events, a
// view and uncommitted changes in the working set; the store is compacted
// once, so the older chunks are in a table file and the last commit in the
// journal. It returns the folder, closed.
func fsckFixture(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := verso.Init(dir, verso.Options{})
	ok(t, err)
	write(t, db, "", func(ctx context.Context, txn *verso.Txn) error {
		if err := txn.CreateTable(ctx, "items", fsckSchema()); err != nil {
			return err
		}
		return txn.PutObject(ctx, commitgraph.ViewPrefix, "v", verso.EncodeObject("view", verso.String("select 1")))
	})
	fsckRows(t, db, "main", 0, 200)
	commitAll(t, db, "main", "one")
	ok(t, db.CreateBranch(ctx, "feature", ""))
	fsckRows(t, db, "feature", 1000, 1100)
	commitAll(t, db, "feature", "feature one")
	fsckRows(t, db, "main", 200, 300)
	commitAll(t, db, "main", "two")
	ok(t, db.Store().(*chunks.FileStore).Compact())
	fsckRows(t, db, "main", 300, 400)
	commitAll(t, db, "main", "three")
	fsckRows(t, db, "main", 400, 410) // uncommitted: in the working set only
	ok(t, db.Close())
	return dir
}

func storeFile(t *testing.T, dir, ext string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, verso.RepoDir, verso.StoreDir, "*"+ext))
	ok(t, err)
	if len(m) != 1 {
		t.Fatalf("%d files *%s in the store, want 1: %v", len(m), ext, m)
	}
	return m[0]
}

func check(t *testing.T, db *verso.DB, quick bool) *verso.CheckReport {
	t.Helper()
	rep, err := db.Check(context.Background(), verso.CheckOptions{Quick: quick})
	ok(t, err)
	for _, p := range rep.Problems {
		t.Logf("problem: %s", p)
	}
	return rep
}

func TestEngineCheckClean(t *testing.T) {
	dir := fsckFixture(t)
	db, err := verso.Open(dir, verso.Options{ReadOnly: true})
	ok(t, err)
	defer db.Close()
	calls := 0
	rep, err := db.Check(context.Background(), verso.CheckOptions{Progress: func(done, total int) {
		calls++
		if done < 1 || done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	}})
	ok(t, err)
	if !rep.OK() {
		t.Fatalf("problems in a clean database: %v", rep.Problems)
	}
	// init, one, feature one, two, three
	if rep.Commits != 5 || rep.Tables < 4 || rep.Chunks == 0 || calls == 0 {
		t.Fatalf("checked %d commits, %d tables, %d chunks, %d progress calls", rep.Commits, rep.Tables, rep.Chunks, calls)
	}
	if rep := check(t, db, true); !rep.OK() || rep.Chunks == 0 {
		t.Fatalf("quick: %d chunks, %v", rep.Chunks, rep.Problems)
	}

	mem := memDB(t)
	createKV(t, mem, "", "t")
	put(t, mem, "", "t", 1, 1)
	commitAll(t, mem, "", "c")
	if rep := check(t, mem, false); !rep.OK() || rep.Commits != 2 || rep.Tables != 1 {
		t.Fatalf("memory database: %d commits, %d tables, %v", rep.Commits, rep.Tables, rep.Problems)
	}
}

// flip xors the byte at off of the file at path.
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	ok(t, err)
	if off < 0 {
		off += int64(len(b))
	}
	b[off] ^= 0x5a
	ok(t, os.WriteFile(path, b, 0o644))
}

func hasProblem(rep *verso.CheckReport, where, what string) bool {
	for _, p := range rep.Problems {
		if strings.Contains(p.Where, where) && strings.Contains(p.Err.Error(), what) {
			return true
		}
	}
	return false
}

// reachedChunk returns the chunk of the table items at the head of the
// branch feature, the commit's hash and its root's.
func reachedChunk(t *testing.T, db *verso.DB) (table, commit, root chunks.Address) {
	t.Helper()
	ctx := context.Background()
	head, err := db.Graph().HeadCommit(ctx, "feature")
	ok(t, err)
	rv, err := db.Graph().OpenRoot(ctx, head.Root)
	ok(t, err)
	_, addr, found, err := verso.FindTable(ctx, rv, "items")
	ok(t, err)
	if !found {
		t.Fatal("no table items at feature")
	}
	return addr, head.Addr, head.Root
}

// TestEngineCheckTableFileByte damages a chunk inside the table file, one
// that the branch feature reaches: the store opens (the index is whole);
// the quick check reports the chunk with the file and its offset, the full
// check that too, and the commit, root and table that read it, and goes on
// to check the rest.
func TestEngineCheckTableFileByte(t *testing.T) {
	dir := fsckFixture(t)
	db, err := verso.Open(dir, verso.Options{ReadOnly: true})
	ok(t, err)
	table, commit, root := reachedChunk(t, db)
	data, err := db.Store().Get(context.Background(), table)
	ok(t, err)
	ok(t, db.Close())
	path := storeFile(t, dir, ".table")
	file, err := os.ReadFile(path)
	ok(t, err)
	off := bytes.Index(file, data)
	if off < 0 {
		t.Fatal("the table chunk is not stored uncompressed in the table file")
	}
	flip(t, path, int64(off+len(data)/2))

	db, err = verso.Open(dir, verso.Options{ReadOnly: true})
	ok(t, err)
	defer db.Close()
	rep := check(t, db, true)
	if rep.Count() != 1 || !hasProblem(rep, "chunk store", path) || !chunks.IsCorrupt(rep.Problems[0].Err) || !strings.Contains(rep.Problems[0].Err.Error(), "offset") {
		t.Fatalf("quick check of a damaged table file: %v", rep.Problems)
	}
	rep = check(t, db, false)
	where := "commit " + commit.String() + " (branch feature), root " + root.String() + ", table items"
	if rep.Count() != 2 || !hasProblem(rep, "chunk store", path) || !hasProblem(rep, where, table.String()) {
		t.Fatalf("full check of a damaged table file: %v", rep.Problems)
	}
	if !chunks.IsCorrupt(rep.Problems[1].Err) {
		t.Fatalf("%s: not marked corrupt", rep.Problems[1])
	}
	if rep.Commits != 5 {
		t.Fatalf("the check stopped after %d commits", rep.Commits)
	}
}

// TestEngineCheckJournalByte damages a chunk of the last commit in the
// journal: damage that a valid root record follows is inside committed
// data, and the store refuses to open, naming the file and the offset
// (chunks' design: never drop acknowledged commits silently). fsck reports
// that error.
func TestEngineCheckJournalByte(t *testing.T) {
	dir := fsckFixture(t)
	path := storeFile(t, dir, ".journal")
	b, err := os.ReadFile(path)
	ok(t, err)
	records := len(bytes.TrimRight(b, "\x00")) // without the zeros the journal keeps ahead
	flip(t, path, int64(records/2))
	_, err = verso.Open(dir, verso.Options{ReadOnly: true})
	if !chunks.IsCorrupt(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("open of a damaged journal: %v", err)
	}
}

// TestEngineCheckManifestByte damages the manifest, whose checksum covers
// every byte: the open fails with a corruption error naming it.
func TestEngineCheckManifestByte(t *testing.T) {
	dir := fsckFixture(t)
	path := filepath.Join(dir, verso.RepoDir, verso.StoreDir, "MANIFEST")
	for _, off := range []int64{0, 9, 20, -9, -1} {
		orig, err := os.ReadFile(path)
		ok(t, err)
		flip(t, path, off)
		_, err = verso.Open(dir, verso.Options{ReadOnly: true})
		if !chunks.IsCorrupt(err) || !strings.Contains(err.Error(), path) {
			t.Fatalf("byte %d of the manifest flipped: open: %v", off, err)
		}
		t.Logf("byte %d: %v", off, err)
		ok(t, os.WriteFile(path, orig, 0o644))
	}
}

// TestEngineCheckTruncated cuts files short. A table file cut short loses
// its footer: the open fails naming it. A journal cut inside its last
// commit is a torn tail, as a crash leaves it: the store opens at the
// commit before, which checks clean (the cut cannot be told from a write a
// power loss interrupted). A journal cut inside its header fails the open.
func TestEngineCheckTruncated(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		dir := fsckFixture(t)
		path := storeFile(t, dir, ".table")
		st, err := os.Stat(path)
		ok(t, err)
		ok(t, os.Truncate(path, st.Size()*2/3))
		_, err = verso.Open(dir, verso.Options{ReadOnly: true})
		if !chunks.IsCorrupt(err) || !strings.Contains(err.Error(), path) {
			t.Fatalf("open of a truncated table file: %v", err)
		}
	})
	t.Run("journal", func(t *testing.T) {
		dir := fsckFixture(t)
		path := storeFile(t, dir, ".journal")
		b, err := os.ReadFile(path)
		ok(t, err)
		records := len(bytes.TrimRight(b, "\x00")) // without the zeros kept after them
		ok(t, os.Truncate(path, int64(records-10)))
		db, err := verso.Open(dir, verso.Options{ReadOnly: true})
		ok(t, err)
		defer db.Close()
		rep := check(t, db, false)
		if !rep.OK() {
			t.Fatalf("torn tail: %v", rep.Problems)
		}
		c, err := db.Graph().HeadCommit(context.Background(), "main")
		ok(t, err)
		if c.Meta.Message != "three" {
			t.Logf("head after the cut: %q", c.Meta.Message)
		}
	})
	t.Run("journal header", func(t *testing.T) {
		dir := fsckFixture(t)
		path := storeFile(t, dir, ".journal")
		ok(t, os.Truncate(path, 3))
		_, err := verso.Open(dir, verso.Options{ReadOnly: true})
		if err == nil {
			t.Fatal("open of a journal cut inside its header succeeded")
		}
		t.Logf("open: %v", err)
	})
}

// hidingStore is a file store that has lost one chunk.
type hidingStore struct {
	*chunks.FileStore
	hide chunks.Address
}

func (s *hidingStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	if a == s.hide {
		return nil, chunks.ErrNotFound
	}
	return s.FileStore.Get(ctx, a)
}

func (s *hidingStore) GetMany(ctx context.Context, addrs []chunks.Address, found func(chunks.Address, []byte)) error {
	for _, a := range addrs {
		if b, err := s.Get(ctx, a); err == nil {
			found(a, b)
		} else if !chunks.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (s *hidingStore) Has(ctx context.Context, a chunks.Address) (bool, error) {
	if a == s.hide {
		return false, nil
	}
	return s.FileStore.Has(ctx, a)
}

func (s *hidingStore) HasMany(ctx context.Context, addrs []chunks.Address) (chunks.AddressSet, error) {
	set, err := s.FileStore.HasMany(ctx, addrs)
	delete(set, s.hide)
	return set, err
}

// TestEngineCheckMissingChunk loses the chunk of the table as the branch
// feature's head has it: the check reports it at the commit and the table,
// and goes on to check the rest.
func TestEngineCheckMissingChunk(t *testing.T) {
	dir := fsckFixture(t)
	cs, err := chunks.OpenFileStore(filepath.Join(dir, verso.RepoDir, verso.StoreDir), chunks.Options{ReadOnly: true})
	ok(t, err)
	db, err := verso.OpenStore("fsck", cs, verso.Options{ReadOnly: true})
	ok(t, err)
	addr, commit, root := reachedChunk(t, db)
	ok(t, db.Close())

	cs, err = chunks.OpenFileStore(filepath.Join(dir, verso.RepoDir, verso.StoreDir), chunks.Options{ReadOnly: true})
	ok(t, err)
	db, err = verso.OpenStore("fsck", &hidingStore{FileStore: cs, hide: addr}, verso.Options{ReadOnly: true})
	ok(t, err)
	defer db.Close()
	rep := check(t, db, false)
	where := "commit " + commit.String() + " (branch feature), root " + root.String() + ", table items"
	if rep.Count() != 1 || !hasProblem(rep, where, "not found") {
		t.Fatalf("a missing table chunk: %v", rep.Problems)
	}
	if rep.Commits != 5 || rep.Tables < 4 {
		t.Fatalf("the check stopped: %d commits, %d tables", rep.Commits, rep.Tables)
	}
}

// TestEngineCheckIndexMismatch commits, on a branch of its own, a table
// whose rows are of one version and whose index by_n is of an older one:
// every chunk is whole, and the table's check reports the row that lacks
// its index entry, by key, at the commit and the branch.
func TestEngineCheckIndexMismatch(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	write(t, db, "", func(ctx context.Context, txn *verso.Txn) error {
		return txn.CreateTable(ctx, "items", fsckSchema())
	})
	fsckRows(t, db, "main", 0, 10)
	old := commitAll(t, db, "main", "old")
	write(t, db, "", func(ctx context.Context, txn *verso.Txn) error {
		return txn.Put(ctx, "items", verso.Int(1), verso.String("one"), verso.Int(99))
	})
	cur := commitAll(t, db, "main", "new")
	tableChunk := func(c *verso.Commit) []byte {
		rv, err := db.Graph().OpenRoot(ctx, c.Root)
		ok(t, err)
		_, addr, _, err := verso.FindTable(ctx, rv, "items")
		ok(t, err)
		b, err := db.Store().Get(ctx, addr)
		ok(t, err)
		return b
	}
	// The table chunk (tables/table.go): magic and version (12 bytes),
	// schema and rows addresses, auto-increment (8), index count (2), then
	// the index maps' addresses: by_n's is the first.
	const byN = 12 + 2*chunks.AddressSize + 8 + 2
	bad := tableChunk(cur)
	copy(bad[byN:byN+chunks.AddressSize], tableChunk(old)[byN:])
	addr, err := db.Store().Put(ctx, bad)
	ok(t, err)
	rv, err := db.Graph().OpenRoot(ctx, cur.Root)
	ok(t, err)
	rv, err = rv.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "items", Addr: addr})
	ok(t, err)
	c, err := db.Graph().WriteCommit(ctx, rv.Address(), []chunks.Address{cur.Addr}, commitgraph.Meta{Author: jane, Message: "bad"})
	ok(t, err)
	ok(t, db.Graph().CreateBranch(ctx, "bad", c.Addr))

	rep := check(t, db, false)
	where := "commit " + c.Addr.String() + " (branch bad), root " + rv.Address().String() + ", table items"
	if rep.Count() != 1 || !hasProblem(rep, where, `has no entry in index "by_n"`) {
		t.Fatalf("a table whose index is of another version: %v", rep.Problems)
	}
}
