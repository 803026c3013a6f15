package chunks

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"
)

// Journal file format, version 1.
//
// A journal is a header followed by records, appended and never rewritten:
//
//	+---------------------------------------------------------------+
//	| magic "VRSJRNL\n" (8) | format version u32 | reserved u32 (0)  |  header, 16 bytes
//	+---------------------------------------------------------------+
//	| record | record | ... | root record | record | ... | root record
//	+---------------------------------------------------------------+
//
// Every record has the same frame; integers are big-endian:
//
//	+------------+----------+--------------------------+-----------+
//	| length u32 | kind u8  | body (length - 1 bytes)  | xxh3 u64  |
//	+------------+----------+--------------------------+-----------+
//
// length counts the kind byte and the body. xxh3 is the 64-bit XXH3 hash of
// every byte before it in the record (length, kind and body).
//
// Kinds and their bodies:
//
//	kind 1, chunk: | codec u8 | address [20] | stored bytes |
//	kind 2, root:  | root address [20] |
//
// A chunk record's stored bytes are the chunk's bytes encoded with codec
// (see Codec). A root record ends a commit: the chunk records between the
// previous root record and it, and the new root, become durable together
// with one sync. Records after the last root record belong to no commit and
// are dropped when the journal is opened.

const (
	journalMagic      = "VRSJRNL\n"
	journalHeaderSize = 16

	recordKindChunk = 1
	recordKindRoot  = 2

	recordFrameSize   = 4 + 1 + 8                     // length, kind, checksum
	chunkRecordPrefix = 4 + 1 + 1 + AddressSize       // length, kind, codec, address
	rootRecordSize    = recordFrameSize + AddressSize // a whole root record
	rootRecordLength  = 1 + AddressSize               // its length field
	maxRecordLength   = 1 + 1 + AddressSize + maxChunkSize + maxChunkSize/6 + 64
)

// record is one decoded journal record. For a chunk record, stored aliases
// the decoded buffer.
type record struct {
	kind   uint8
	codec  Codec
	addr   Address // the chunk's address, or the root
	stored []byte  // chunk records only
	size   int     // bytes of the whole record
}

// appendChunkRecord appends a chunk record to buf.
func appendChunkRecord(buf []byte, addr Address, codec Codec, stored []byte) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, uint32(1+1+AddressSize+len(stored)))
	buf = append(buf, recordKindChunk, byte(codec))
	buf = append(buf, addr[:]...)
	buf = append(buf, stored...)
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf[start:]))
}

// appendRootRecord appends a root record to buf.
func appendRootRecord(buf []byte, root Address) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, rootRecordLength)
	buf = append(buf, recordKindRoot)
	buf = append(buf, root[:]...)
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf[start:]))
}

// errTruncated says that b ends before the record does.
var errTruncated = fmt.Errorf("%w: record runs past the end of the journal", ErrCorrupt)

// decodeRecord decodes the record at the start of b. It returns
// errTruncated when b is too short to hold the record its length announces,
// and another error wrapping ErrCorrupt when the record is malformed or its
// checksum does not match. It never panics.
func decodeRecord(b []byte) (record, error) {
	if len(b) < recordFrameSize {
		return record{}, errTruncated
	}
	length := binary.BigEndian.Uint32(b)
	if length < 1 || length > maxRecordLength {
		return record{}, fmt.Errorf("%w: record length %d out of range", ErrCorrupt, length)
	}
	size := int(length) + recordFrameSize - 1
	if len(b) < size {
		return record{}, errTruncated
	}
	sum := binary.BigEndian.Uint64(b[size-8:])
	if xxh3.Hash(b[:size-8]) != sum {
		return record{}, fmt.Errorf("%w: record checksum mismatch", ErrCorrupt)
	}
	r := record{kind: b[4], size: size}
	body := b[5 : size-8]
	switch r.kind {
	case recordKindChunk:
		if len(body) < 1+AddressSize {
			return record{}, fmt.Errorf("%w: chunk record of %d bytes is too short", ErrCorrupt, len(body))
		}
		r.codec = Codec(body[0])
		copy(r.addr[:], body[1:1+AddressSize])
		r.stored = body[1+AddressSize:]
	case recordKindRoot:
		if len(body) != AddressSize {
			return record{}, fmt.Errorf("%w: root record body of %d bytes, want %d", ErrCorrupt, len(body), AddressSize)
		}
		copy(r.addr[:], body)
	default:
		return record{}, fmt.Errorf("%w: unknown record kind %d", ErrCorrupt, r.kind)
	}
	return r, nil
}

// isRootRecordAt reports whether a whole, valid root record starts at b[0].
// Recovery uses it to look for commits past a damaged record; it checks the
// fixed frame first so that a scan over many offsets stays cheap.
func isRootRecordAt(b []byte) bool {
	if len(b) < rootRecordSize || binary.BigEndian.Uint32(b) != rootRecordLength || b[4] != recordKindRoot {
		return false
	}
	return xxh3.Hash(b[:rootRecordSize-8]) == binary.BigEndian.Uint64(b[rootRecordSize-8:])
}

// appendJournalHeader appends the 16-byte journal header to buf.
func appendJournalHeader(buf []byte) []byte {
	buf = append(buf, journalMagic...)
	buf = binary.BigEndian.AppendUint32(buf, FormatVersion)
	return binary.BigEndian.AppendUint32(buf, 0)
}

// checkJournalHeader validates a journal's first bytes.
func checkJournalHeader(b []byte) error {
	if len(b) < journalHeaderSize {
		return fmt.Errorf("%w: journal header is %d bytes, want %d", ErrCorrupt, len(b), journalHeaderSize)
	}
	if string(b[:8]) != journalMagic {
		return fmt.Errorf("%w: not a verso journal (bad magic %q)", ErrCorrupt, b[:8])
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != FormatVersion {
		return fmt.Errorf("%w: journal format version %d; this build reads version %d", ErrVersion, v, FormatVersion)
	}
	if binary.BigEndian.Uint32(b[12:]) != 0 {
		return fmt.Errorf("%w: journal header's reserved field is not zero", ErrCorrupt)
	}
	return nil
}
