package chunks

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Table files away from a FileStore. A remote (package remotes) keeps its
// chunks in table files of the format above, written whole in memory by a
// TableBuilder and read in pieces: a reader fetches a file's index with
// one ranged read of its last TableTailSize bytes (ParseTableTail), then
// only the records it wants (TableIndex.Decode). What a remote reads is
// not trusted: Decode checks each record's checksum and that the decoded
// bytes hash to the address the index gives them.

// TableBuilder collects chunks for one table file.
type TableBuilder struct {
	recs []builtRecord
	size int
	seen AddressSet
}

type builtRecord struct {
	addr   Address
	codec  Codec
	stored []byte
}

// Add adds the chunk data, whose address is addr, S2-compressed unless
// that does not shrink it by an eighth. A chunk added twice is kept once.
// The builder keeps data until Finish.
func (b *TableBuilder) Add(addr Address, data []byte) {
	if b.seen == nil {
		b.seen = AddressSet{}
	}
	if b.seen.Has(addr) {
		return
	}
	b.seen.Add(addr)
	codec, stored := encodeChunk(CodecS2, data)
	b.recs = append(b.recs, builtRecord{addr, codec, stored})
	b.size += tableRecordExtra + len(stored) + tableEntrySize
}

// Len returns the number of chunks added.
func (b *TableBuilder) Len() int { return len(b.recs) }

// Size returns about how many bytes the table file will take.
func (b *TableBuilder) Size() int { return tableHeaderSize + b.size + tableFooterSize }

// Finish returns the table file's bytes (format version TableFormatVersion)
// and empties the builder.
func (b *TableBuilder) Finish() []byte {
	slices.SortFunc(b.recs, func(x, y builtRecord) int { return x.addr.Compare(y.addr) })
	var buf bytes.Buffer
	buf.Grow(b.Size())
	w, _ := newTableWriter(&buf) // a bytes.Buffer does not fail
	for _, r := range b.recs {
		_ = w.add(r.addr, r.codec, r.stored)
	}
	_ = w.finish()
	*b = TableBuilder{}
	return buf.Bytes()
}

// TableTailSize returns how many bytes end a table file of count chunks:
// its index and its footer.
func TableTailSize(count int) int64 { return int64(count)*tableEntrySize + tableFooterSize }

// TableHeaderSize is the size of a table file's header.
const TableHeaderSize = tableHeaderSize

// CheckTableHeader checks the first TableHeaderSize bytes of a table file
// and returns its format version.
func CheckTableHeader(h []byte) (uint32, error) {
	if len(h) < tableHeaderSize || string(h[:8]) != tableMagic {
		return 0, fmt.Errorf("%w: not a verso table file", ErrCorrupt)
	}
	v := binary.BigEndian.Uint32(h[8:])
	if v < 1 || v > TableFormatVersion {
		return 0, fmt.Errorf("%w: table format version %d; this build reads versions 1 to %d", ErrVersion, v, TableFormatVersion)
	}
	if binary.BigEndian.Uint32(h[12:]) != 0 {
		return 0, fmt.Errorf("%w: table header's reserved field is not zero", ErrCorrupt)
	}
	return v, nil
}

// TableIndex is the validated index of a table file read in pieces.
type TableIndex struct {
	tableIndex
	z zstdCodec
}

// ParseTableTail validates tail, the last TableTailSize(count) bytes (or
// more) of a table file of fileSize bytes whose header gave version (see
// CheckTableHeader), and returns its index. It never panics; every failure
// wraps ErrCorrupt or ErrVersion.
func ParseTableTail(tail []byte, fileSize int64, version uint32) (*TableIndex, error) {
	if fileSize < tableHeaderSize+tableFooterSize {
		return nil, fmt.Errorf("%w: table file of %d bytes is too short", ErrCorrupt, fileSize)
	}
	if version < 1 || version > TableFormatVersion {
		return nil, fmt.Errorf("%w: table format version %d; this build reads versions 1 to %d", ErrVersion, version, TableFormatVersion)
	}
	ti, err := parseTableTail(tail, uint64(fileSize), version)
	if err != nil {
		return nil, err
	}
	return &TableIndex{tableIndex: ti}, nil
}

// Len returns the number of chunks in the table.
func (t *TableIndex) Len() int { return t.count }

// Find returns the entry number of addr, or -1.
func (t *TableIndex) Find(addr Address) int { return t.search(addr) }

// Entry returns the address of entry i and where its record lies in the
// file.
func (t *TableIndex) Entry(i int) (addr Address, off int64, size int) { return t.entry(i) }

// Decode returns the chunk of entry i from rec, the record's bytes as read
// from the file. It checks the record's checksum and that the chunk's
// SHA-256 is its address: an error wrapping ErrCorrupt otherwise.
func (t *TableIndex) Decode(i int, rec []byte) ([]byte, error) {
	addr, off, size := t.entry(i)
	if len(rec) != size {
		return nil, fmt.Errorf("%w: chunk %s: record of %d bytes, the index says %d", ErrCorrupt, addr, len(rec), size)
	}
	codec, stored, err := t.checkTableRecord(addr, off, rec)
	if err != nil {
		return nil, err
	}
	data, err := decodeChunk(codec, stored, &t.z)
	if err != nil {
		return nil, fmt.Errorf("chunk %s: %w", addr, err)
	}
	if Of(data) != addr {
		return nil, fmt.Errorf("%w: chunk %s: its bytes hash to %s", ErrCorrupt, addr, Of(data))
	}
	return data, nil
}
