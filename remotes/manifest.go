package remotes

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/verso-db/verso/chunks"
)

// The remote store format, version 1.
//
// A remote is a handful of objects under one root (a folder, or a bucket
// and a key prefix):
//
//	manifest                 the root address and the table files, below
//	tables/<name>.table      immutable table files, chunks' table format
//	                         (chunks/table.go): header, S2 or raw chunk
//	                         records, an index sorted by address, footer
//
// A table file's name is the base32 text (as an address is written) of the
// first 20 bytes of the SHA-256 of its bytes: a file is never overwritten
// with other bytes, and two pushers of the same chunks write the same
// name. The manifest is the only object ever replaced, and only by a
// conditional write (Blobstore.CheckAndPut) against the version its writer
// read, so of two writers that read one version exactly one wins.
//
// The manifest, integers big-endian:
//
//	+----------------------------------------------------------------+
//	| magic "VRSREMO\n" (8) | format version u32 | reserved u32 (0)   |  16 bytes
//	| root address [20]                                              |  the remote's refs map
//	| table count u32                                                |
//	| table: name [20] | file size u64 | chunk count u32  ...        |  32 bytes each, oldest first
//	| xxh3 u64 of every byte before it                               |
//	+----------------------------------------------------------------+
//
// The root is the address of a refs map as commitgraph writes it
// (refs/heads/<branch>, refs/tags/<tag>), the same structure as a local
// store's root. A reader fetches a table's index with one ranged read of
// its last chunks.TableTailSize(count) bytes, which the manifest's size
// and count locate, and then only the records it needs.
//
// The invariant a writer keeps: the chunks of the tables a manifest names
// hold everything their chunks refer to (a push uploads the whole of what
// the remote lacks before it writes the manifest), so a chunk the remote
// has is a chunk whose history the remote has, and a transfer stops there.
// Tables uploaded by a push that lost the race, or was cut short, are
// named by no manifest and never read.

const (
	manifestMagic     = "VRSREMO\n"
	manifestVersion   = 1
	manifestName      = "manifest"
	manifestEntrySize = chunks.AddressSize + 8 + 4
	maxManifestTables = 1 << 20
)

// tableRef is one table file of a manifest.
type tableRef struct {
	name  chunks.Address
	size  int64
	count int
}

func (t tableRef) object() string { return "tables/" + t.name.String() + ".table" }

type manifest struct {
	root   chunks.Address
	tables []tableRef
}

func (m *manifest) encode() []byte {
	buf := make([]byte, 0, 16+20+4+manifestEntrySize*len(m.tables)+8)
	buf = append(buf, manifestMagic...)
	buf = binary.BigEndian.AppendUint32(buf, manifestVersion)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	buf = append(buf, m.root[:]...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(m.tables)))
	for _, t := range m.tables {
		buf = append(buf, t.name[:]...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(t.size))
		buf = binary.BigEndian.AppendUint32(buf, uint32(t.count))
	}
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf))
}

// decodeManifest parses a manifest's bytes. It never panics; a failure
// wraps chunks.ErrCorrupt or chunks.ErrVersion.
func decodeManifest(b []byte) (manifest, error) {
	const fixed = 16 + chunks.AddressSize + 4 + 8
	if len(b) < fixed {
		return manifest{}, fmt.Errorf("%w: remote manifest of %d bytes is too short", chunks.ErrCorrupt, len(b))
	}
	if string(b[:8]) != manifestMagic {
		return manifest{}, fmt.Errorf("%w: not a verso remote manifest (bad magic %q)", chunks.ErrCorrupt, b[:8])
	}
	if xxh3.Hash(b[:len(b)-8]) != binary.BigEndian.Uint64(b[len(b)-8:]) {
		return manifest{}, fmt.Errorf("%w: remote manifest checksum mismatch", chunks.ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != manifestVersion {
		return manifest{}, fmt.Errorf("%w: remote manifest version %d; this build reads version %d", chunks.ErrVersion, v, manifestVersion)
	}
	if binary.BigEndian.Uint32(b[12:]) != 0 {
		return manifest{}, fmt.Errorf("%w: remote manifest's reserved field is not zero", chunks.ErrCorrupt)
	}
	var m manifest
	copy(m.root[:], b[16:])
	n := binary.BigEndian.Uint32(b[36:])
	body := b[40 : len(b)-8]
	if n > maxManifestTables || uint64(len(body)) != uint64(n)*manifestEntrySize {
		return manifest{}, fmt.Errorf("%w: remote manifest lists %d tables in %d bytes", chunks.ErrCorrupt, n, len(body))
	}
	m.tables = make([]tableRef, n)
	seen := chunks.AddressSet{}
	for i := range m.tables {
		e := body[i*manifestEntrySize:]
		t := &m.tables[i]
		copy(t.name[:], e)
		size := binary.BigEndian.Uint64(e[20:])
		t.count = int(binary.BigEndian.Uint32(e[28:]))
		minSize := uint64(chunks.TableHeaderSize + chunks.TableTailSize(t.count))
		if size < minSize || size > 1<<40 {
			return manifest{}, fmt.Errorf("%w: remote manifest's table %s of %d bytes cannot hold %d chunks", chunks.ErrCorrupt, t.name, size, t.count)
		}
		t.size = int64(size)
		if seen.Has(t.name) {
			return manifest{}, fmt.Errorf("%w: remote manifest names table %s twice", chunks.ErrCorrupt, t.name)
		}
		seen.Add(t.name)
	}
	return m, nil
}
