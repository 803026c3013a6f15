package chunks

import (
	"bytes"
	"errors"
	"testing"
)

// Fuzz targets for every decoder of stored bytes. Each must return an error
// on bad input and never panic; inputs that decode must round-trip.

func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendChunkRecord(nil, Of([]byte("x")), CodecRaw, []byte("x")))
	f.Add(appendChunkRecord(nil, Of([]byte("y")), CodecS2, []byte{1, 0, 'y'}))
	f.Add(appendRootRecord(nil, Of([]byte("root"))))
	f.Add(appendCommitRecord(nil, Of([]byte("root")), 40, 7))
	f.Add(appendCommit3Record(nil, recordKindSynced, Of([]byte("root")), 40, 7, 12))
	f.Add(appendCommit3Record(nil, recordKindStaged, Of([]byte("root")), 40, 7, 13))
	f.Add([]byte{0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			if !IsCorrupt(err) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		var again []byte
		switch r.kind {
		case recordKindChunk:
			again = appendChunkRecord(nil, r.addr, r.codec, r.stored)
			if data, err := decodeChunk(r.codec, r.stored, nil); err == nil && r.codec == CodecRaw && !bytes.Equal(data, r.stored) {
				t.Fatal("raw chunk changed in decoding")
			}
		case recordKindRoot:
			again = appendRootRecord(nil, r.addr)
		case recordKindCommit:
			again = appendCommitRecord(nil, r.addr, r.span, r.chain)
		case recordKindSynced, recordKindStaged:
			again = appendCommit3Record(nil, r.kind, r.addr, r.span, r.chain, r.log)
		}
		if !bytes.Equal(again, b[:r.size]) {
			t.Fatal("record does not round-trip")
		}
		_ = isRootRecordAt(b)
	})
}

func FuzzReplayJournal(f *testing.F) {
	j := appendJournalHeader(nil, 1)
	j = appendChunkRecord(j, Of([]byte("a")), CodecRaw, []byte("a"))
	j = appendRootRecord(j, Of([]byte("a")))
	f.Add(j)
	f.Add(append(j, 0, 0, 0, 30, 1))
	// Version 2: a commit record naming its chunk record, then the
	// zeros of the reserve.
	j2 := appendJournalHeader(nil, 2)
	j2 = appendChunkRecord(j2, Of([]byte("a")), CodecRaw, []byte("a"))
	j2 = appendCommitRecord(j2, Of([]byte("a")), uint64(len(j2)-journalHeaderSize), chainNext(0, j2[len(j2)-8:]))
	f.Add(j2)
	f.Add(append(j2, make([]byte, 64)...))
	f.Add(append(append(j2, 0, 0, 0, 30, 1), make([]byte, 64)...))
	// Version 3: a synced head, a staged commit, a synced commit.
	j3 := appendHeadRecord(appendJournalHeader(nil, 3), 3, Of([]byte("h")), 4)
	end := len(j3)
	j3 = appendChunkRecord(j3, Of([]byte("a")), CodecRaw, []byte("a"))
	j3 = appendCommit3Record(j3, recordKindStaged, Of([]byte("a")), uint64(len(j3)-end), chainNext(0, j3[len(j3)-8:]), 5)
	end = len(j3)
	j3 = appendChunkRecord(j3, Of([]byte("b")), CodecRaw, []byte("b"))
	j3 = appendCommit3Record(j3, recordKindSynced, Of([]byte("b")), uint64(len(j3)-end), chainNext(0, j3[len(j3)-8:]), 5)
	f.Add(j3)
	f.Add(append(j3, make([]byte, 64)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := replayJournal("fuzz", b)
		if err != nil {
			if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if res.committed > int64(len(b)) || res.committed < journalHeaderSize {
			t.Fatalf("committed end %d outside the journal of %d bytes", res.committed, len(b))
		}
		for a, loc := range res.index {
			if _, err := decodeJournalChunk("fuzz", a, loc, b[loc.off:loc.off+int64(loc.size)]); err != nil && !IsCorrupt(err) {
				t.Fatalf("indexed chunk %s: %v", a, err)
			}
		}
	})
}

func FuzzParseTable(f *testing.F) {
	f.Add(tableBytes(f, map[Address][]byte{}))
	f.Add(tableBytes(f, map[Address][]byte{Of([]byte("a")): []byte("a"), Of([]byte("bb")): []byte("bb")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ti, err := parseTable(b)
		if err != nil {
			if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		for i := 0; i < ti.count; i++ {
			addr, codec, stored, err := ti.record(i)
			if err != nil {
				continue
			}
			if ti.search(addr) != i {
				t.Fatalf("entry %d is not found by its address", i)
			}
			_, _ = decodeChunk(codec, stored, &zstdCodec{})
		}
	})
}

func FuzzDecodeManifest(f *testing.F) {
	m := manifest{root: Of([]byte("r")), nextFile: 9, journals: []uint64{7, 8}, tables: []uint64{3, 5}}
	f.Add(m.encode())
	f.Add((&manifest{nextFile: 2, journals: []uint64{1}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if !bytes.Equal(m.encode(), b) {
			t.Fatal("manifest does not round-trip")
		}
	})
}

func FuzzDecodeChunk(f *testing.F) {
	f.Add(uint8(1), []byte{5, 16, 'h', 'e', 'l', 'l', 'o'})
	f.Add(uint8(0), []byte("raw"))
	z := &zstdCodec{}
	frame, err := z.encode(bytes.Repeat([]byte("a zstd chunk "), 40))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(CodecZstd), frame)
	f.Fuzz(func(t *testing.T, codec uint8, b []byte) {
		data, err := decodeChunk(Codec(codec), b, z)
		if err != nil && !IsCorrupt(err) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		if err == nil && len(data) > maxChunkSize {
			t.Fatalf("a chunk of %d bytes decoded", len(data))
		}
	})
}

func FuzzParseAddress(f *testing.F) {
	f.Add("gugi61g7enk0d3j483l125o667kg07s3")
	f.Add("00000000000000000000000000000000")
	f.Add("vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress(s)
		if err != nil {
			if !errors.Is(err, ErrBadAddress) {
				t.Fatalf("error %v does not wrap ErrBadAddress", err)
			}
			return
		}
		if !equalFoldASCII(a.String(), s) {
			t.Fatalf("%q parsed to %s", s, a)
		}
	})
}

func equalFoldASCII(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

// tableBytes returns the bytes of a table file holding chunks.
func tableBytes(tb testing.TB, chunks map[Address][]byte) []byte {
	tb.Helper()
	var addrs []Address
	for a := range chunks {
		addrs = append(addrs, a)
	}
	sortAddresses(addrs)
	path := tb.TempDir() + "/t.table"
	i := 0
	_, err := writeTable(path, func() (Address, Codec, []byte, bool, error) {
		if i == len(addrs) {
			return Address{}, 0, nil, false, nil
		}
		a := addrs[i]
		i++
		c, stored := encodeChunk(CodecS2, chunks[a])
		return a, c, stored, true, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := readFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzTableTail feeds ParseTableTail and Decode arbitrary bytes: they
// return errors, never panic, and a chunk Decode returns hashes to its
// address.
func FuzzTableTail(f *testing.F) {
	var b TableBuilder
	b.Add(Of([]byte("one")), []byte("one"))
	b.Add(Of(bytes.Repeat([]byte("two"), 100)), bytes.Repeat([]byte("two"), 100))
	f.Add(b.Finish())
	f.Add([]byte("VRSTABL\n"))
	f.Fuzz(func(t *testing.T, file []byte) {
		v, err := CheckTableHeader(file)
		if err != nil {
			return
		}
		ti, err := ParseTableTail(file, int64(len(file)), v)
		if err != nil {
			if !IsCorrupt(err) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		for i := 0; i < ti.Len(); i++ {
			addr, off, size := ti.Entry(i)
			data, err := ti.Decode(i, file[off:off+int64(size)])
			if err == nil && Of(data) != addr {
				t.Fatalf("entry %d decodes to bytes of another address", i)
			}
		}
	})
}
