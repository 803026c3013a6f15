package tablemerge

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// goldenConflicts builds a fixed conflict set.
func goldenConflicts(f *fixture) *ConflictSet {
	f.t.Helper()
	long := strings.Repeat("large value ", 300) // out of line
	cs, err := NewConflictSet(f.ns, testSchema(), chunks.Address{0xAB, 0xCD}).Edit(f.ctx, []Conflict{
		{Key: prolly.EncodeKey(nil, prolly.Int(1)), Base: row(1, 10, "x"), Ours: row(1, 11, "x"), Theirs: row(1, 12, nil)},
		{Key: prolly.EncodeKey(nil, prolly.Int(2)), Base: row(2, 20, "y"), Theirs: row(2, 21, long)},
		{Key: prolly.EncodeKey(nil, prolly.Int(3)), Ours: row(3, nil, "o"), Theirs: row(3, 30, "t")},
	}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return cs
}

// TestConflictSetGolden pins the address of a fixed conflict set: a change
// of the format (or of anything below it) fails here, loudly.
func TestConflictSetGolden(t *testing.T) {
	f := newFixture(t)
	cs := goldenConflicts(f)
	addr, err := cs.Write(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	const want = "njbi3jq6cvpqo2h0ab6ee6rba5uoqbel"
	if addr.String() != want {
		t.Fatalf("conflict set address %s, want %s: the conflict format changed; give it a new version instead", addr, want)
	}
	got, err := LoadConflictSet(f.ctx, f.ns, addr)
	if err != nil {
		t.Fatal(err)
	}
	if got.Theirs != cs.Theirs || got.Count() != 3 || !sameSchema(got.Schema, testSchema()) {
		t.Fatalf("loaded %+v", got)
	}
	var out []string
	if err := got.Each(f.ctx, func(c Conflict) bool {
		out = append(out, tables.KeyText(c.Key)+fmtRow(c.Base)+fmtRow(c.Ours)+fmtRow(c.Theirs))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want2 := "(1)(1,10,x)(1,11,x)(1,12,NULL) (2)(2,20,y)-(2,21," + strings.Repeat("large value ", 300) + ") (3)-(3,NULL,o)(3,30,t)"
	if s := strings.Join(out, " "); s != want2 {
		t.Fatalf("conflicts:\n got %.200s\nwant %.200s", s, want2)
	}
}

// TestConflictDecodeErrors: corrupt bytes are errors that chunks.IsCorrupt
// recognizes.
func TestConflictDecodeErrors(t *testing.T) {
	f := newFixture(t)
	good, err := EncodeConflict(f.ctx, f.ns, Conflict{Ours: row(1, 2, "a"), Theirs: row(1, 3, "b")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeConflict(good, 3); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":            nil,
		"no side":          {0},
		"base only":        {sideBase, 0},
		"unknown side":     {0x0A},
		"truncated":        good[:len(good)-1],
		"trailing":         append(bytes.Clone(good), 0),
		"bad length":       {sideOurs, 0xFF},
		"non-canonical":    append([]byte{sideOurs, 0x80 | good[1], 0x00}, good[2:len(good)/2]...),
		"wrong col number": good,
	} {
		ncols := 3
		if name == "wrong col number" {
			ncols = 4
		}
		if _, err := DecodeConflict(b, ncols); err == nil || !chunks.IsCorrupt(err) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
	set := encodeSet(chunks.Address{1}, chunks.Address{}, chunks.Address{2})
	if _, _, _, err := DecodeConflictSetChunk(set); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(set)
	bad[11] = 2
	for name, b := range map[string][]byte{
		"short": set[:10], "version": bad, "magic": append([]byte("X"), set[1:]...),
		"no map": encodeSet(chunks.Address{1}, chunks.Address{}, chunks.Address{}),
	} {
		if _, _, _, err := DecodeConflictSetChunk(b); !chunks.IsCorrupt(err) {
			t.Errorf("%s: %v, want a corruption error", name, err)
		}
	}
}

// FuzzDecodeConflict: the decoder never panics, and what it accepts
// re-encodes to the same bytes (one canonical encoding).
func FuzzDecodeConflict(f *testing.F) {
	fx := &fixture{ctx: t0ctx, ns: prolly.NewNodeStore(chunks.NewMemoryStore())}
	for _, c := range []Conflict{
		{Base: row(1, 10, "x"), Ours: row(1, 11, "x"), Theirs: row(1, 12, nil)},
		{Ours: row(3, nil, "o")},
		{Base: row(2, 20, "y"), Theirs: row(2, 21, "z")},
	} {
		b, err := EncodeConflict(fx.ctx, fx.ns, c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 3)
	}
	f.Add([]byte{sideOurs, 0}, 0)
	f.Fuzz(func(t *testing.T, b []byte, ncols int) {
		if ncols < 0 || ncols > 64 {
			return
		}
		c, err := DecodeConflict(b, ncols)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		for _, r := range [][]tables.Value{c.Base, c.Ours, c.Theirs} {
			for _, v := range r {
				if v.Kind() == prolly.KindRef || v.Kind() == prolly.KindString && len(v.AsString()) > prolly.LargeInlineLimit {
					return // Refs and long strings re-encode through the store
				}
			}
		}
		again, err := EncodeConflict(fx.ctx, fx.ns, c)
		if err != nil {
			t.Fatalf("decoded conflict does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("non-canonical encoding accepted:\n%x\n%x", b, again)
		}
	})
}

// FuzzDecodeConflictSetChunk: the chunk decoder never panics.
func FuzzDecodeConflictSetChunk(f *testing.F) {
	f.Add(encodeSet(chunks.Address{1}, chunks.Address{3}, chunks.Address{2}))
	f.Add([]byte(conflictMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, th, m, err := DecodeConflictSetChunk(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption error", err)
			}
			return
		}
		if !bytes.Equal(encodeSet(s, th, m), b) {
			t.Fatal("accepted bytes do not re-encode")
		}
	})
}

var t0ctx = context.Background()

// TestConflictSetCheck: Check finds rows stored under another row's key
// and keys of the wrong shape.
func TestConflictSetCheck(t *testing.T) {
	f := newFixture(t)
	if err := goldenConflicts(f).Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Conflict{
		"row under another key": {Key: prolly.EncodeKey(nil, prolly.Int(1)), Ours: row(2, 0, "a"), Theirs: row(2, 1, "a")},
		"key of two values":     {Key: prolly.EncodeKey(nil, prolly.Int(1), prolly.Int(1)), Ours: row(1, 0, "a")},
	} {
		cs, err := NewConflictSet(f.ns, testSchema(), chunks.Address{}).Edit(f.ctx, []Conflict{c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Check(f.ctx); !chunks.IsCorrupt(err) {
			t.Errorf("%s: Check() = %v, want a corruption error", name, err)
		}
	}
}
