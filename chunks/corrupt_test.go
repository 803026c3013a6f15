package chunks

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journalFixture is a closed store whose one journal holds several commits
// of small chunks, with what each commit made durable.
type journalFixture struct {
	dir      string
	journal  []byte
	manifest []byte
	records  []int64   // start offset of each record, then the end of the last
	rootEnds []int64   // end offset of each root record
	roots    []Address // the root committed by each root record
	batches  [][]Address
}

func newJournalFixture(t *testing.T, r *rand.Rand, commits int) *journalFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(dir, Options{CompactAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	fx := &journalFixture{dir: dir}
	var root Address
	for c := 0; c < commits; c++ {
		var batch []Address
		for i, n := 0, 1+r.Intn(3); i < n; i++ {
			data := make([]byte, 20+r.Intn(150))
			r.Read(data)
			a, err := s.Put(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, a)
		}
		if err := s.Commit(ctx, batch[0], root); err != nil {
			t.Fatal(err)
		}
		root = batch[0]
		fx.roots = append(fx.roots, root)
		fx.batches = append(fx.batches, batch)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fx.journal, err = os.ReadFile(filepath.Join(dir, journalFileName(1)))
	if err != nil {
		t.Fatal(err)
	}
	fx.manifest, err = os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	off := int64(journalHeaderSize)
	for off < int64(len(fx.journal)) && nonZeroEnd(fx.journal, off) > off {
		rec, err := decodeRecord(fx.journal[off:])
		if err != nil {
			t.Fatalf("fixture journal at %d: %v", off, err)
		}
		fx.records = append(fx.records, off)
		off += int64(rec.size)
		if rec.kind != recordKindChunk {
			fx.rootEnds = append(fx.rootEnds, off)
		}
	}
	fx.journal = fx.journal[:off] // without the zeros of the reserve
	fx.records = append(fx.records, off)
	return fx
}

// open writes journal bytes beside the fixture's manifest in a new folder
// and opens a store there.
func (fx *journalFixture) open(t *testing.T, journal []byte) (*FileStore, string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, manifestName), fx.manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, journalFileName(1))
	if err := os.WriteFile(path, journal, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFileStore(dir, Options{CompactAt: -1})
	return s, path, err
}

// expectCommit checks that s holds exactly the first n commits of the
// fixture.
func (fx *journalFixture) expectCommit(t *testing.T, s *FileStore, n int, what string) {
	t.Helper()
	ctx := context.Background()
	var want Address
	if n > 0 {
		want = fx.roots[n-1]
	}
	if root, _ := s.Root(ctx); root != want {
		t.Fatalf("%s: root %s, want the root of commit %d, %s", what, root, n, want)
	}
	for c, batch := range fx.batches {
		for _, a := range batch {
			has, err := s.Has(ctx, a)
			if err != nil || has != (c < n) {
				t.Fatalf("%s: chunk of commit %d present=%v (err %v), want %v", what, c+1, has, err, c < n)
			}
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// committedBefore returns how many commits end at or before offset.
func (fx *journalFixture) committedBefore(offset int64) int {
	n := 0
	for n < len(fx.rootEnds) && fx.rootEnds[n] <= offset {
		n++
	}
	return n
}

// TestJournalCutAtEveryOffset cuts the journal at every byte offset of its
// last records: the store opens at the last commit whose root record is
// whole, and accepts new commits after it.
func TestJournalCutAtEveryOffset(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	fx := newJournalFixture(t, r, 6)
	from := fx.records[len(fx.records)-12]
	cuts := 0
	for cut := from; cut <= int64(len(fx.journal)); cut++ {
		s, path, err := fx.open(t, fx.journal[:cut])
		if err != nil {
			t.Fatalf("cut at %d: open: %v", cut, err)
		}
		n := fx.committedBefore(cut)
		what := fmt.Sprintf("cut at %d", cut)
		fx.expectCommit(t, s, n, what)
		if cut%7 == 0 { // the cut store takes new commits, which survive a reopen
			ctx := context.Background()
			a, err := s.Put(ctx, []byte("after the cut"))
			if err == nil {
				err = s.Commit(ctx, a, fx.rootOf(n))
			}
			if err != nil {
				t.Fatalf("%s: commit after the cut: %v", what, err)
			}
			s.Close()
			s, err = OpenFileStore(filepath.Dir(path), Options{CompactAt: -1})
			if err != nil {
				t.Fatalf("%s: reopen after a new commit: %v", what, err)
			}
			if root, _ := s.Root(ctx); root != a {
				t.Fatalf("%s: new commit lost on reopen", what)
			}
		}
		s.Close()
		if b, err := os.ReadFile(path); err == nil && cut%7 != 0 && nonZeroEnd(b, 0) > fx.endOf(n) {
			t.Fatalf("%s: journal holds bytes up to %d after open, want its torn tail cleared from %d", what, nonZeroEnd(b, 0), fx.endOf(n))
		}
		cuts++
	}
	t.Logf("%d cuts over the last %d bytes", cuts, int64(len(fx.journal))-from)
}

func (fx *journalFixture) rootOf(n int) Address {
	if n == 0 {
		return Address{}
	}
	return fx.roots[n-1]
}

func (fx *journalFixture) endOf(n int) int64 {
	if n == 0 {
		return journalHeaderSize
	}
	return fx.rootEnds[n-1]
}

// TestJournalFlippedBytes damages one byte at a time. Damage in the last
// commit record is a torn tail: the store opens at the commit before.
// Damage anywhere before it has a commit after it that names the records
// (a valid one, or the last, whose records hold no sector of zeros as a
// torn write leaves them): opening fails with a corruption error that
// names the file and the damaged record's offset, and nothing is cut.
func TestJournalFlippedBytes(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	fx := newJournalFixture(t, r, 6)
	lastRoot := fx.records[len(fx.records)-2]
	checked := 0
	for off := int64(0); off < int64(len(fx.journal)); off++ {
		if off >= journalHeaderSize && off < lastRoot-600 && r.Intn(8) != 0 {
			continue // a sample of the older records, every byte of the last ones
		}
		damaged := append([]byte(nil), fx.journal...)
		damaged[off] ^= byte(1 + r.Intn(255))
		s, path, err := fx.open(t, damaged)
		what := fmt.Sprintf("byte %d flipped", off)
		checked++
		switch {
		case off >= lastRoot:
			if err != nil {
				t.Fatalf("%s (in the last commit record): open: %v", what, err)
			}
			fx.expectCommit(t, s, len(fx.roots)-1, what)
			s.Close()
		case off < journalHeaderSize:
			if err == nil || !(IsCorrupt(err) || errors.Is(err, ErrVersion)) {
				t.Fatalf("%s (in the header): err %v, want a corruption error", what, err)
			}
		default:
			rec := fx.recordAt(off)
			if err == nil {
				s.Close()
				t.Fatalf("%s (record at %d): opened without error", what, rec)
			}
			if !IsCorrupt(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", rec)) {
				t.Fatalf("%s: err %q, want a corruption error naming %s and offset %d", what, err, path, rec)
			}
			if b, _ := os.ReadFile(path); len(b) != len(damaged) {
				t.Fatalf("%s: the journal was cut to %d bytes", what, len(b))
			}
		}
	}
	t.Logf("%d damaged journals checked", checked)
}

// recordAt returns the start of the record holding offset off.
func (fx *journalFixture) recordAt(off int64) int64 {
	start := fx.records[0]
	for _, r := range fx.records {
		if r > off {
			break
		}
		start = r
	}
	return start
}
