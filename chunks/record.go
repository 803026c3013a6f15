package chunks

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"
)

// Journal file format, version 3 (versions 1 and 2 are read too).
//
// A journal is a header followed by records, appended and never rewritten,
// and, in version 2, zeros after the last record:
//
//	+---------------------------------------------------------------+
//	| magic "VRSJRNL\n" (8) | format version u32 | reserved u32 (0)  |  header, 16 bytes
//	+---------------------------------------------------------------+
//	| record | ... | commit record | record | ... | commit record    |
//	+---------------------------------------------------------------+
//	| 0 0 0 ... (the zero-filled reserve, versions 2 and 3)          |
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
//	kind 1, chunk:  | codec u8 | address [20] | stored bytes |
//	kind 2, root:   | root address [20] |                           version 1
//	kind 3, commit: | root address [20] | span u64 | chain u64 |    version 2
//	kind 4, commit: | root address [20] | span u64 | chain u64 | log u64 |   version 3
//	kind 5, staged: | root address [20] | span u64 | chain u64 | log u64 |   version 3
//
// A chunk record's stored bytes are the chunk's bytes encoded with codec
// (see Codec). A root or commit record ends a commit: the chunk records
// between the previous one and it, and the new root, become durable
// together with one sync. Records after the last commit record belong to no
// commit and are dropped when the journal is opened.
//
// A commit record also names the records it ends, so that it is a commit
// only if all of them reached the disk: span is the bytes from the end of
// the previous commit record (or of the header) to its own start, and
// chain folds the checksums (the last 8 bytes) of the chunk records there,
// in order: chain = 0, then chain = XXH3 of the checksum with chain as the
// seed for each. A version-2 writer keeps zeros written and synced ahead
// of its records (the reserve), so that a commit's sync writes the data
// without also recording the file's growth; a crash can then leave a
// commit's later pages on disk without its earlier ones, and the chain
// tells that torn commit from a complete one. The zeros end the records:
// a length of 0 is not a record.
//
// Version 3 adds the staged commit and the log position. A staged commit
// (kind 5, CommitStaged) is a commit written without a sync: it becomes
// durable with the next sync of the journal, and until then a crash may
// leave it or any part of its records on disk, so recovery never takes
// damage followed only by staged commits for damage to committed data (only
// a kind 4 commit after it proves that). log is the log position of the
// root (Store.LogPosition): the writer's count of the logged changes the
// root holds, which the writer keeps in a log of its own (durable before
// the staged commit that holds them) and replays past the recovered root's
// position after a crash. Every version-3 commit carries the store's
// position at the time, the head record of a new journal too.

const (
	journalMagic      = "VRSJRNL\n"
	journalHeaderSize = 16

	recordKindChunk  = 1
	recordKindRoot   = 2
	recordKindCommit = 3
	recordKindSynced = 4 // a version-3 commit
	recordKindStaged = 5 // a version-3 commit made without a sync

	recordFrameSize     = 4 + 1 + 8                          // length, kind, checksum
	chunkRecordPrefix   = 4 + 1 + 1 + AddressSize            // length, kind, codec, address
	rootRecordSize      = recordFrameSize + AddressSize      // a whole root record
	rootRecordLength    = 1 + AddressSize                    // its length field
	commitRecordSize    = recordFrameSize + AddressSize + 16 // a whole commit record
	commitRecordLength  = 1 + AddressSize + 16               // its length field
	commit3RecordSize   = recordFrameSize + AddressSize + 24 // a whole version-3 commit record
	commit3RecordLength = 1 + AddressSize + 24               // its length field
	maxRecordLength     = 1 + 1 + AddressSize + maxChunkSize + maxChunkSize/6 + 64
)

// chainNext folds a chunk record's checksum (its last 8 bytes) into the
// chain of a commit record.
func chainNext(chain uint64, checksum []byte) uint64 { return xxh3.HashSeed(checksum, chain) }

// record is one decoded journal record. For a chunk record, stored aliases
// the decoded buffer.
type record struct {
	kind   uint8
	codec  Codec
	addr   Address // the chunk's address, or the root
	stored []byte  // chunk records only
	size   int     // bytes of the whole record
	span   uint64  // commit records only
	chain  uint64  // commit records only
	log    uint64  // version-3 commit records only
}

// isCommitKind reports whether kind ends a commit in a journal of version v.
func isCommitKind(kind uint8, v uint32) bool {
	switch {
	case v < 2:
		return kind == recordKindRoot
	case v == 2:
		return kind == recordKindCommit
	default:
		return kind == recordKindSynced || kind == recordKindStaged
	}
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

// appendCommitRecord appends a commit record to buf: the commit of root,
// ending span bytes of chunk records whose chain is chain.
func appendCommitRecord(buf []byte, root Address, span, chain uint64) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, commitRecordLength)
	buf = append(buf, recordKindCommit)
	buf = append(buf, root[:]...)
	buf = binary.BigEndian.AppendUint64(buf, span)
	buf = binary.BigEndian.AppendUint64(buf, chain)
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf[start:]))
}

// appendCommit3Record appends a version-3 commit record of the given kind
// (recordKindSynced or recordKindStaged) to buf: the commit of root at log
// position log, ending span bytes of chunk records whose chain is chain.
func appendCommit3Record(buf []byte, kind uint8, root Address, span, chain, log uint64) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, commit3RecordLength)
	buf = append(buf, kind)
	buf = append(buf, root[:]...)
	buf = binary.BigEndian.AppendUint64(buf, span)
	buf = binary.BigEndian.AppendUint64(buf, chain)
	buf = binary.BigEndian.AppendUint64(buf, log)
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf[start:]))
}

// appendHeadRecord appends the record that begins a new journal of version
// version after its header: a commit (or root) of root, at log position
// log, ending nothing.
func appendHeadRecord(buf []byte, version uint32, root Address, log uint64) []byte {
	switch {
	case version < 2:
		return appendRootRecord(buf, root)
	case version == 2:
		return appendCommitRecord(buf, root, 0, 0)
	default:
		return appendCommit3Record(buf, recordKindSynced, root, 0, 0, log)
	}
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
	case recordKindCommit:
		if len(body) != AddressSize+16 {
			return record{}, fmt.Errorf("%w: commit record body of %d bytes, want %d", ErrCorrupt, len(body), AddressSize+16)
		}
		copy(r.addr[:], body)
		r.span = binary.BigEndian.Uint64(body[AddressSize:])
		r.chain = binary.BigEndian.Uint64(body[AddressSize+8:])
	case recordKindSynced, recordKindStaged:
		if len(body) != AddressSize+24 {
			return record{}, fmt.Errorf("%w: commit record body of %d bytes, want %d", ErrCorrupt, len(body), AddressSize+24)
		}
		copy(r.addr[:], body)
		r.span = binary.BigEndian.Uint64(body[AddressSize:])
		r.chain = binary.BigEndian.Uint64(body[AddressSize+8:])
		r.log = binary.BigEndian.Uint64(body[AddressSize+16:])
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

// appendJournalHeader appends the 16-byte header of a journal of the given
// format version to buf.
func appendJournalHeader(buf []byte, version uint32) []byte {
	buf = append(buf, journalMagic...)
	buf = binary.BigEndian.AppendUint32(buf, version)
	return binary.BigEndian.AppendUint32(buf, 0)
}

// checkJournalHeader validates a journal's first bytes and returns its
// format version.
func checkJournalHeader(b []byte) (uint32, error) {
	if len(b) < journalHeaderSize {
		return 0, fmt.Errorf("%w: journal header is %d bytes, want %d", ErrCorrupt, len(b), journalHeaderSize)
	}
	if string(b[:8]) != journalMagic {
		return 0, fmt.Errorf("%w: not a verso journal (bad magic %q)", ErrCorrupt, b[:8])
	}
	v := binary.BigEndian.Uint32(b[8:])
	if v < 1 || v > JournalFormatVersion {
		return 0, fmt.Errorf("%w: journal format version %d; this build reads versions 1 to %d", ErrVersion, v, JournalFormatVersion)
	}
	if binary.BigEndian.Uint32(b[12:]) != 0 {
		return 0, fmt.Errorf("%w: journal header's reserved field is not zero", ErrCorrupt)
	}
	return v, nil
}
