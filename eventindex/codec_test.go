package eventindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
)

func TestEventRoundTrip(t *testing.T) {
	e := Event{Position: 9, Stream: "order-1", Number: 300, ID: NewEventID(), Type: "Placed",
		Data: []byte(`{"a":1}`), Metadata: []byte(`{}`), Created: time.UnixMicro(1700000000123456).UTC()}
	b := encodeEvent(nil, &e)
	got, err := decodeEvent(9, b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(e) {
		t.Fatalf("got %+v want %+v", got, e)
	}
	for i := 0; i < len(b); i++ {
		if _, err := decodeEvent(9, b[:i]); !chunks.IsCorrupt(err) {
			t.Fatalf("prefix %d: %v", i, err)
		}
	}
	if _, err := decodeEvent(9, append(b, 0)); !chunks.IsCorrupt(err) {
		t.Fatal(err)
	}
}

func TestStreamMetaRoundTrip(t *testing.T) {
	for _, m := range []streamMeta{{}, {Next: 5, First: 2, SoftDeleted: true}, {Next: 1 << 40, First: 1 << 39, MaxCount: 3, MaxAge: 1e6, TruncateBefore: 7}, {HardDeleted: true, Next: 2, First: 2}} {
		b := encodeStreamMeta(nil, &m)
		got, err := decodeStreamMeta(b)
		if err != nil || got != m {
			t.Fatalf("%+v: %+v %v", m, got, err)
		}
	}
	if _, err := decodeStreamMeta([]byte{1, 0, 1, 2}); !chunks.IsCorrupt(err) {
		t.Fatal("first > next accepted")
	}
	if _, err := decodeStreamMeta([]byte{1, 0, 0x80, 0, 0}); !chunks.IsCorrupt(err) {
		t.Fatal("overlong varint accepted")
	}
}

func TestEventIDText(t *testing.T) {
	id := NewEventID()
	got, err := ParseEventID(id.String())
	if err != nil || got != id {
		t.Fatal(err)
	}
	if _, err := ParseEventID("zz"); err == nil {
		t.Fatal("bad id parsed")
	}
}

// TestGoldenAddresses pins the addresses of a fixed log: a change to any
// format shows here. The category and type indexes changed deliberately
// with cross values (version 1 of their values, codec.go); the pair index
// came after, leaving the others as they were.
func TestGoldenAddresses(t *testing.T) {
	l, _ := newTestLog(t)
	b := l.Batch()
	for i := 1; i <= 40; i++ {
		e := ev(fmt.Sprintf("T%d", i%3), byte(i))
		if _, err := b.Append(ctx, fmt.Sprintf("c%d-%d", i%4, i%7), Any, []EventData{e}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.SetStreamMetadata(ctx, "c1-1", StreamMetadata{MaxCount: 1}); err != nil {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	var got bytes.Buffer
	for i, a := range l.Addresses() {
		fmt.Fprintf(&got, "%s %s\n", Names[i], a)
	}
	want := `events/log gj95m335jd8q9lfujnv7bmi0m14i8bo5
events/by-stream 9p0abq7o5bqf9bgbnh4tqbigaigpheo0
events/by-category 39i39ob753tc6on4nlr08ivrk8slfdd8
events/by-type hj62miaeaokvticgu632si8160dp9vea
events/by-id f0fpdjo8h5ephtdubfmgla6lf1mqbug7
events/streams cvm43vlsgrfsf1hs5esgbq53om13ir54
events/by-pair jibvjg2brtuq702e63dme398gs4la19a
`
	if got.String() != want {
		t.Fatalf("golden addresses changed:\n%s", got.String())
	}
}

func FuzzDecodeEvent(f *testing.F) {
	e := Event{Stream: "a-b", Number: 3, Type: "T", Data: []byte(`{}`), Created: time.UnixMicro(5)}
	f.Add(encodeEvent(nil, &e))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeEvent(1, b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		if re := encodeEvent(nil, &got); !bytes.Equal(re, b) {
			t.Fatalf("not canonical: %x -> %x", b, re)
		}
	})
}

func FuzzDecodeStreamMeta(f *testing.F) {
	m := streamMeta{Next: 5, First: 1, MaxCount: 2, MaxAge: 9, TruncateBefore: 1}
	f.Add(encodeStreamMeta(nil, &m))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeStreamMeta(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		if re := encodeStreamMeta(nil, &got); !bytes.Equal(re, b) {
			t.Fatalf("not canonical: %x -> %x", b, re)
		}
	})
}

func FuzzDecodeSmall(f *testing.F) {
	f.Add(encodeHead(7), logKey(3), streamKey("a", 2))
	f.Fuzz(func(t *testing.T, head, key, skey []byte) {
		for _, err := range []error{
			func() error { _, err := decodeHead(head); return err }(),
			func() error { _, err := decodePos(head); return err }(),
			func() error { _, err := decodeLogKey(key); return err }(),
			func() error { _, _, err := decodeNameNumKey(skey); return err }(),
			func() error { _, _, err := decodeStreamsKey(skey); return err }(),
			func() error { _, err := decodeOrderedUint(key); return err }(),
		} {
			if err != nil && !chunks.IsCorrupt(err) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
		}
		if p, err := decodeHead(head); err == nil && !bytes.Equal(encodeHead(p), head) {
			t.Fatal("head not canonical")
		}
		if p, err := decodeLogKey(key); err == nil && !bytes.Equal(logKey(p), key) {
			t.Fatal("log key not canonical")
		}
	})
}

func TestCrossValue(t *testing.T) {
	// FNV-1a test vectors: the hash is part of the format.
	for name, h := range map[string]uint32{"a": 0xe40c292c, "foobar": 0xbf9cf968} {
		if got := nameHash(name); got != h {
			t.Fatalf("nameHash(%q) = %#x, want %#x", name, got, h)
		}
	}
	v := encodeCross("order")
	if len(v) != crossLen || v[0] != crossVersion {
		t.Fatalf("% x", v)
	}
	if h, ok, err := decodeCross(v); err != nil || !ok || h != nameHash("order") {
		t.Fatal(h, ok, err)
	}
	if _, ok, err := decodeCross(nil); err != nil || ok {
		t.Fatal("empty value:", ok, err)
	}
	for _, b := range [][]byte{{1}, {1, 2, 3, 4}, {2, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}} {
		if _, _, err := decodeCross(b); !chunks.IsCorrupt(err) {
			t.Fatalf("% x: %v", b, err)
		}
	}
}

func FuzzDecodeCross(f *testing.F) {
	f.Add(encodeCross("T5"))
	f.Add([]byte{})
	f.Add([]byte{2, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok, err := decodeCross(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		var re []byte
		if ok {
			re = binary.BigEndian.AppendUint32([]byte{crossVersion}, h)
		}
		if !bytes.Equal(re, b) {
			t.Fatalf("not canonical: %x -> %x", b, re)
		}
	})
}
