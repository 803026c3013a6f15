package chunks

import (
	"bufio"
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestRootHistory: a file store lists the roots it committed, in order,
// across a reopen (from its journal), and from its read-only open; a
// memory store lists them too.
func TestRootHistory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	s, err := OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemoryStore()
	var want []Address
	prev, mprev := Address{}, Address{}
	for i := range 5 {
		data := []byte{byte(i), 'r'}
		a, err := s.Put(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, a, prev); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Put(ctx, data); err != nil {
			t.Fatal(err)
		}
		if err := m.Commit(ctx, a, mprev); err != nil {
			t.Fatal(err)
		}
		// A commit of the same root is a root record too.
		if i == 2 {
			if err := s.Commit(ctx, a, a); err != nil {
				t.Fatal(err)
			}
			if err := m.Commit(ctx, a, a); err != nil {
				t.Fatal(err)
			}
			want = append(want, a)
		}
		want = append(want, a)
		prev, mprev = a, a
	}
	check := func(what string, h RootHistorian) {
		t.Helper()
		got, err := h.RootHistory(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	check("open", s)
	check("memory", m)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = OpenFileStore(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("reopened", s)
	ro, err := OpenFileStore(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check("read-only", ro)
	ro.Close()
	s.Close()
}

// FuzzJournalRoots: any bytes after a journal header give roots or an
// error, never a panic; a journal of valid records gives its roots.
func FuzzJournalRoots(f *testing.F) {
	var root Address
	root[0] = 7
	chunk := appendChunkRecord(nil, Address{1}, CodecRaw, []byte("x"))
	valid := appendRootRecord(chunk, root)
	valid2 := appendCommitRecord(slices.Clone(chunk), root, uint64(len(chunk)), chainNext(0, chunk[len(chunk)-8:]))
	f.Add(uint32(1), valid)
	f.Add(uint32(1), valid[:len(valid)-3])
	f.Add(uint32(1), []byte{0, 0, 0, 0, 2})
	f.Add(uint32(2), valid2)
	f.Add(uint32(2), valid)
	f.Fuzz(func(t *testing.T, v uint32, body []byte) {
		b := append(appendJournalHeader(nil, v), body...)
		roots, err := journalRoots(bufio.NewReader(bytes.NewReader(b)), int64(len(b)))
		if err == nil && ((v == 1 && bytes.Equal(body, valid)) || (v == 2 && bytes.Equal(body, valid2))) && (len(roots) != 1 || roots[0] != root) {
			t.Fatalf("roots of a valid journal: %v", roots)
		}
	})
}
