package chunks

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/zeebo/xxh3"
)

// Table file format, version 2 (TableFormatVersion; version 1 is read too).
//
// A table file is immutable: compaction writes it once from sorted chunks
// and never changes it. Integers are big-endian.
//
//	+---------------------------------------------------------------+
//	| magic "VRSTABL\n" (8) | format version u32 | reserved u32 (0)  |  header, 16 bytes
//	+---------------------------------------------------------------+
//	| chunk record 0 | chunk record 1 | ...                           |  data
//	+---------------------------------------------------------------+
//	| index entry 0 | index entry 1 | ... | index entry n-1          |  index, 32 bytes an entry
//	+---------------------------------------------------------------+
//	| footer, 44 bytes                                              |
//	+---------------------------------------------------------------+
//
//	chunk record:  | codec u8 | stored bytes | xxh3 u64 |
//	index entry:   | address [20] | record offset u64 | record length u32 |
//	footer:        | index offset u64 | entry count u64 | index xxh3 u64 |
//	               | format version u32 | magic "VRSTABL\n" (8) | footer xxh3 u64 |
//
// A chunk record's xxh3 covers the chunk's address followed by the codec and
// stored bytes, so a record read through a wrong index entry fails its check.
// Index entries are sorted by address, strictly ascending: a lookup is a
// binary search over the index. The index xxh3 covers the whole index; the
// footer xxh3 covers the 36 footer bytes before it.
//
// Versions: a record of a version-1 file is raw or S2 (codec 0 or 1); one
// of a version-2 file may be zstd too (codec 2, written by garbage
// collection). The layout is the same.

const (
	tableMagic       = "VRSTABL\n"
	tableHeaderSize  = 16
	tableEntrySize   = AddressSize + 8 + 4
	tableFooterSize  = 8 + 8 + 8 + 4 + 8 + 8
	tableRecordExtra = 1 + 8 // codec and checksum around the stored bytes
)

// tableRecordSum is the checksum of one table chunk record.
func tableRecordSum(addr Address, codec Codec, stored []byte) uint64 {
	h := xxh3.New()
	_, _ = h.Write(addr[:])
	_, _ = h.Write([]byte{byte(codec)})
	_, _ = h.Write(stored)
	return h.Sum64()
}

// tableSource yields chunks in strictly ascending address order for
// writeTable; ok is false after the last one.
type tableSource func() (addr Address, codec Codec, stored []byte, ok bool, err error)

// writeTable writes a table file at path from src and syncs it. It returns
// the number of chunks written. The caller syncs the folder.
func writeTable(path string, src tableSource) (n int, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := newTableWriter(bw)
	if err != nil {
		return 0, err
	}
	for {
		addr, codec, stored, ok, err := src()
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		if err := w.add(addr, codec, stored); err != nil {
			return 0, err
		}
	}
	if err := w.finish(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return w.n, f.Sync()
}

// tableWriter writes a table file's bytes to w: the header at once, a
// record for each add (in strictly ascending address order), and the
// index and footer at finish.
type tableWriter struct {
	w      io.Writer
	offset uint64
	index  []byte
	prev   Address
	n      int
}

func newTableWriter(w io.Writer) (*tableWriter, error) {
	if _, err := w.Write(appendTableHeader(nil)); err != nil {
		return nil, err
	}
	return &tableWriter{w: w, offset: tableHeaderSize}, nil
}

func (t *tableWriter) add(addr Address, codec Codec, stored []byte) error {
	if t.n > 0 && addr.Compare(t.prev) <= 0 {
		panic(fmt.Sprintf("chunks: table source out of order: %s after %s", addr, t.prev))
	}
	t.prev = addr
	size := tableRecordExtra + len(stored)
	if _, err := t.w.Write([]byte{byte(codec)}); err != nil {
		return err
	}
	if _, err := t.w.Write(stored); err != nil {
		return err
	}
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], tableRecordSum(addr, codec, stored))
	if _, err := t.w.Write(sum[:]); err != nil {
		return err
	}
	t.index = append(t.index, addr[:]...)
	t.index = binary.BigEndian.AppendUint64(t.index, t.offset)
	t.index = binary.BigEndian.AppendUint32(t.index, uint32(size))
	t.offset += uint64(size)
	t.n++
	return nil
}

func (t *tableWriter) finish() error {
	if _, err := t.w.Write(t.index); err != nil {
		return err
	}
	_, err := t.w.Write(appendTableFooter(nil, t.offset, uint64(t.n), xxh3.Hash(t.index)))
	return err
}

func appendTableHeader(buf []byte) []byte {
	buf = append(buf, tableMagic...)
	buf = binary.BigEndian.AppendUint32(buf, TableFormatVersion)
	return binary.BigEndian.AppendUint32(buf, 0)
}

func appendTableFooter(buf []byte, indexOffset, count, indexSum uint64) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint64(buf, indexOffset)
	buf = binary.BigEndian.AppendUint64(buf, count)
	buf = binary.BigEndian.AppendUint64(buf, indexSum)
	buf = binary.BigEndian.AppendUint32(buf, TableFormatVersion)
	buf = append(buf, tableMagic...)
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf[start:]))
}

// tableIndex is a validated view of a table file's bytes.
type tableIndex struct {
	data  []byte // the whole file
	index []byte // the index section, a sub-slice of data
	count int
	// heads holds the first 8 bytes of each entry's address (big-endian),
	// in memory: a lookup binary-searches these integers, 8 to a cache
	// line, instead of 32-byte entries spread over the mapped index (a
	// page fault or a cache miss a step), and compares one full address.
	heads []uint64
	// dir narrows a lookup before the search: the entries whose
	// addresses begin with the dirBits-bit prefix k are
	// heads[dir[k]:dir[k+1]]. Addresses are hashes, spread evenly, so a
	// bucket holds one or two entries (a few in tables of more than
	// 2^dirMaxBits), and a lookup of an address the table lacks (every
	// Put of a new chunk looks in each table) costs one or two cache
	// misses instead of a miss at each of the search's 17-20 steps.
	dir     []uint32
	dirBits uint
	version uint32 // the file's format version
}

// dirMaxBits bounds a table's directory at 2^18 + 1 entries (1 MiB).
const dirMaxBits = 18

// buildDir makes t's directory over its heads.
func (t *tableIndex) buildDir() {
	if uint64(t.count) > math.MaxUint32 {
		return // no directory: every lookup searches the whole index
	}
	bits := uint(0)
	for bits < dirMaxBits && 1<<(bits+1) <= t.count {
		bits++
	}
	t.dirBits = bits
	t.dir = make([]uint32, 1<<bits+1)
	i := 0
	for k := range t.dir {
		for i < t.count && t.prefix(t.heads[i]) < uint64(k) {
			i++
		}
		t.dir[k] = uint32(i)
	}
}

// prefix returns the directory bucket of an address whose first 8 bytes
// are h (0 in a one-bucket directory: Go shifts a uint64 by 64 to 0).
func (t *tableIndex) prefix(h uint64) uint64 { return h >> (64 - t.dirBits) }

// parseTable validates a table file's bytes: header, footer, index checksum,
// the order of the addresses and the bounds of every record. It never
// panics; every failure wraps ErrCorrupt (or ErrVersion).
func parseTable(b []byte) (tableIndex, error) {
	if len(b) < tableHeaderSize+tableFooterSize {
		return tableIndex{}, fmt.Errorf("%w: table file of %d bytes is too short", ErrCorrupt, len(b))
	}
	if string(b[:8]) != tableMagic {
		return tableIndex{}, fmt.Errorf("%w: not a verso table file (bad magic %q)", ErrCorrupt, b[:8])
	}
	v := binary.BigEndian.Uint32(b[8:])
	if v < 1 || v > TableFormatVersion {
		return tableIndex{}, fmt.Errorf("%w: table format version %d; this build reads versions 1 to %d", ErrVersion, v, TableFormatVersion)
	}
	if binary.BigEndian.Uint32(b[12:]) != 0 {
		return tableIndex{}, fmt.Errorf("%w: table header's reserved field is not zero", ErrCorrupt)
	}
	ti, err := parseTableTail(b[tableHeaderSize:], uint64(len(b)), v)
	if err != nil {
		return tableIndex{}, err
	}
	ti.data = b
	return ti, nil
}

// parseTableTail validates the end of a table file of fileSize bytes whose
// header gave version v: tail holds at least the index and the footer
// (it may start earlier in the file). It checks the footer, the index's
// checksum, the order of the addresses and the bounds of every record,
// and returns the index without the file's data.
func parseTableTail(tail []byte, fileSize uint64, v uint32) (tableIndex, error) {
	if len(tail) < tableFooterSize || uint64(len(tail)) > fileSize {
		return tableIndex{}, fmt.Errorf("%w: table tail of %d bytes for a file of %d", ErrCorrupt, len(tail), fileSize)
	}
	foot := tail[len(tail)-tableFooterSize:]
	if xxh3.Hash(foot[:tableFooterSize-8]) != binary.BigEndian.Uint64(foot[tableFooterSize-8:]) {
		return tableIndex{}, fmt.Errorf("%w: table footer checksum mismatch", ErrCorrupt)
	}
	if string(foot[28:36]) != tableMagic || binary.BigEndian.Uint32(foot[24:]) != v {
		return tableIndex{}, fmt.Errorf("%w: table footer has a bad magic or version", ErrCorrupt)
	}
	indexOffset := binary.BigEndian.Uint64(foot)
	count := binary.BigEndian.Uint64(foot[8:])
	indexEnd := fileSize - tableFooterSize
	tailStart := fileSize - uint64(len(tail))
	if indexOffset < tableHeaderSize || indexOffset < tailStart || indexOffset > indexEnd || count != (indexEnd-indexOffset)/tableEntrySize || (indexEnd-indexOffset)%tableEntrySize != 0 {
		return tableIndex{}, fmt.Errorf("%w: table index at %d with %d entries does not fit a file of %d bytes", ErrCorrupt, indexOffset, count, fileSize)
	}
	index := tail[indexOffset-tailStart : indexEnd-tailStart]
	if xxh3.Hash(index) != binary.BigEndian.Uint64(foot[16:]) {
		return tableIndex{}, fmt.Errorf("%w: table index checksum mismatch", ErrCorrupt)
	}
	heads := make([]uint64, count)
	for i := 0; i < int(count); i++ {
		e := index[i*tableEntrySize:]
		heads[i] = binary.BigEndian.Uint64(e)
		if i > 0 && bytes.Compare(e[:AddressSize], index[(i-1)*tableEntrySize:][:AddressSize]) <= 0 {
			return tableIndex{}, fmt.Errorf("%w: table index entry %d is out of order", ErrCorrupt, i)
		}
		off := binary.BigEndian.Uint64(e[AddressSize:])
		size := uint64(binary.BigEndian.Uint32(e[AddressSize+8:]))
		if off < tableHeaderSize || size < tableRecordExtra || off > indexOffset || size > indexOffset-off {
			return tableIndex{}, fmt.Errorf("%w: table index entry %d points outside the data (offset %d, length %d)", ErrCorrupt, i, off, size)
		}
	}
	t := tableIndex{index: index, count: int(count), heads: heads, version: v}
	t.buildDir()
	return t, nil
}

// entryAddr returns the address of index entry i.
func (t *tableIndex) entryAddr(i int) []byte {
	return t.index[i*tableEntrySize : i*tableEntrySize+AddressSize]
}

// search returns the index of addr's entry, or -1.
func (t *tableIndex) search(addr Address) int {
	h := binary.BigEndian.Uint64(addr[:])
	lo, hi := 0, t.count
	if t.dir != nil {
		k := t.prefix(h)
		lo, hi = int(t.dir[k]), int(t.dir[k+1])
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.heads[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	// Addresses sharing their first 8 bytes are adjacent (sorted).
	for ; lo < t.count && t.heads[lo] == h; lo++ {
		if bytes.Equal(t.entryAddr(lo), addr[:]) {
			return lo
		}
	}
	return -1
}

// entry returns the address, record offset and record length of entry i.
func (t *tableIndex) entry(i int) (addr Address, off int64, size int) {
	e := t.index[i*tableEntrySize:]
	copy(addr[:], e[:AddressSize])
	return addr, int64(binary.BigEndian.Uint64(e[AddressSize:])), int(binary.BigEndian.Uint32(e[AddressSize+8:]))
}

// record returns the codec and stored bytes of entry i, checked against
// their checksum. stored aliases the table's bytes.
func (t *tableIndex) record(i int) (Address, Codec, []byte, error) {
	addr, off, size := t.entry(i)
	codec, stored, err := t.checkTableRecord(addr, off, t.data[off:off+int64(size)])
	return addr, codec, stored, err
}

// checkTableRecord splits the table record rec, read from offset off, into
// codec and stored bytes, checked against the record's checksum.
func (t *tableIndex) checkTableRecord(addr Address, off int64, rec []byte) (Codec, []byte, error) {
	codec := Codec(rec[0])
	if codec == CodecZstd && t.version < 2 {
		return 0, nil, fmt.Errorf("%w: zstd chunk %s at table offset %d of a version-%d table", ErrCorrupt, addr, off, t.version)
	}
	stored := rec[1 : len(rec)-8]
	if tableRecordSum(addr, codec, stored) != binary.BigEndian.Uint64(rec[len(rec)-8:]) {
		return 0, nil, fmt.Errorf("%w: chunk %s at table offset %d fails its checksum", ErrCorrupt, addr, off)
	}
	return codec, stored, nil
}

// table is an open table file. The whole file is memory-mapped: lookups
// search the index in the mapping, and sequential scans (compaction, Check)
// read records from it. Point reads use pread instead: a random read through
// the mapping takes a page fault per page first touched, which costs more
// than the read.
type table struct {
	num  uint64
	path string
	f    *os.File   // nil in a read-only store
	z    *zstdCodec // the store's, for zstd records
	tableIndex
}

// openTable maps and validates the table file at path.
func openTable(path string, num uint64, z *zstdCodec) (*table, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && st.Size() < tableHeaderSize+tableFooterSize {
		err = fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, st.Size())
	}
	var data []byte
	if err == nil {
		data, err = mapFileData(f, st.Size())
	}
	var ti tableIndex
	if err == nil {
		if ti, err = parseTable(data); err != nil {
			_ = unmapFile(data)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("table file %s: %w", path, err)
	}
	return &table{num: num, path: path, f: f, z: z, tableIndex: ti}, nil
}

// read returns the chunk of entry i, read with pread (from the mapping in
// a read-only store, which keeps no file open) and checked.
func (t *table) read(i int) ([]byte, error) {
	addr, off, size := t.entry(i)
	rec := make([]byte, size)
	if t.f == nil {
		copy(rec, t.data[off:])
	} else if _, err := t.f.ReadAt(rec, off); err != nil {
		return nil, fmt.Errorf("table file %s: read at offset %d: %w", t.path, off, err)
	}
	codec, stored, err := t.checkTableRecord(addr, off, rec)
	if err == nil {
		var data []byte
		if data, err = decodeOwned(codec, stored, t.z); err == nil {
			return data, nil
		}
	}
	return nil, fmt.Errorf("table file %s: chunk %s: %w", t.path, addr, err)
}

func (t *table) close() error {
	if t.data == nil {
		return nil
	}
	err := unmapFile(t.data)
	if t.f != nil {
		err = errors.Join(err, t.f.Close())
	}
	t.data, t.index = nil, nil
	return err
}
