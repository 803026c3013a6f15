package commitgraph

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/verso-db/verso/chunks"
)

// Shared pieces of the chunk formats of this package (commit.go, tag.go,
// workingset.go). Every chunk starts with a 4-byte magic that names its
// kind and a format version byte (formatVersion for tags and working
// sets; commits have their own, see commit.go); integers are big-endian; a
// string is a length (u16 for names and emails, u32 for messages) followed
// by its bytes. A decoder reads exactly the chunk's bytes: trailing bytes are an
// error.

const (
	formatVersion = 1
	maxShort      = 1<<16 - 1 // names and emails
	maxMessage    = 1 << 20   // messages, well below a chunk's limit
)

// writer appends fields to a chunk.
type writer struct {
	buf []byte
	err error
}

func (w *writer) bytes(b []byte)          { w.buf = append(w.buf, b...) }
func (w *writer) u8(v uint8)              { w.buf = append(w.buf, v) }
func (w *writer) u16(v uint16)            { w.buf = binary.BigEndian.AppendUint16(w.buf, v) }
func (w *writer) u64(v uint64)            { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }
func (w *writer) addr(a chunks.Address)   { w.buf = append(w.buf, a[:]...) }
func (w *writer) millis(t time.Time)      { w.u64(uint64(t.UnixMilli())) }
func (w *writer) header(magic string)     { w.bytes([]byte(magic)); w.u8(formatVersion) }
func (w *writer) short(field, s string)   { w.str(field, s, maxShort, 2) }
func (w *writer) message(field, s string) { w.str(field, s, maxMessage, 4) }
func (w *writer) fail(err error)          { w.err = err }
func (w *writer) result() ([]byte, error) { return w.buf, w.err }
func (w *writer) u32(v uint32)            { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }
func (w *writer) str(field, s string, limit, width int) {
	if len(s) > limit {
		w.fail(fmt.Errorf("%w: %s is %d bytes, at most %d", ErrTooLarge, field, len(s), limit))
		return
	}
	if width == 2 {
		w.u16(uint16(len(s)))
	} else {
		w.u32(uint32(len(s)))
	}
	w.buf = append(w.buf, s...)
}

// versionedHeader writes magic and the version v (commits have their own).
func (w *writer) versionedHeader(magic string, v uint8) {
	w.bytes([]byte(magic))
	w.u8(v)
}

// reader reads fields of a chunk, remembering the first error.
type reader struct {
	b    []byte
	off  int
	kind string
	err  error
}

func (r *reader) need(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = badChunk("%s: %s needs %d bytes at offset %d, %d left", r.kind, what, n, r.off, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8(what string) uint8 {
	if s := r.need(1, what); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16(what string) uint16 {
	if s := r.need(2, what); s != nil {
		return binary.BigEndian.Uint16(s)
	}
	return 0
}

func (r *reader) u32(what string) uint32 {
	if s := r.need(4, what); s != nil {
		return binary.BigEndian.Uint32(s)
	}
	return 0
}

func (r *reader) u64(what string) uint64 {
	if s := r.need(8, what); s != nil {
		return binary.BigEndian.Uint64(s)
	}
	return 0
}

func (r *reader) addr(what string) chunks.Address {
	var a chunks.Address
	if s := r.need(chunks.AddressSize, what); s != nil {
		copy(a[:], s)
	}
	return a
}

func (r *reader) millis(what string) time.Time {
	return time.UnixMilli(int64(r.u64(what))).UTC()
}

func (r *reader) short(what string) string { return string(r.need(int(r.u16(what)), what)) }

func (r *reader) message(what string) string {
	n := r.u32(what)
	if r.err == nil && n > maxMessage {
		r.err = badChunk("%s: %s of %d bytes, at most %d", r.kind, what, n, maxMessage)
		return ""
	}
	return string(r.need(int(n), what))
}

// header checks the magic and that the version is formatVersion.
func (r *reader) header(magic string) { r.versionedHeader(magic, formatVersion, formatVersion) }

// versionedHeader checks the magic and that the version is between lo and
// hi, and returns it.
func (r *reader) versionedHeader(magic string, lo, hi uint8) uint8 {
	m := r.need(len(magic), "magic")
	if r.err == nil && string(m) != magic {
		r.err = badChunk("not a %s: magic %q, want %q", r.kind, m, magic)
		return 0
	}
	v := r.u8("version")
	if r.err == nil && (v < lo || v > hi) {
		r.err = badChunk("%s: format version %d, this build reads %d to %d", r.kind, v, lo, hi)
	}
	return v
}

// done checks that every byte was read.
func (r *reader) done() error {
	if r.err == nil && r.off != len(r.b) {
		r.err = badChunk("%s: %d trailing bytes", r.kind, len(r.b)-r.off)
	}
	return r.err
}
