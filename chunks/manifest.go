package chunks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zeebo/xxh3"
)

// Manifest format, version 1.
//
// The file MANIFEST names the store's files. It is replaced atomically:
// written to MANIFEST.tmp, synced, renamed over MANIFEST, and the folder
// synced. Integers are big-endian.
//
//	+----------------------------------------------------------------+
//	| magic "VRSMANI\n" (8) | format version u32 | reserved u32 (0)   |
//	| root address [20]                                              |
//	| next file number u64                                           |
//	| journal count u32 | journal file number u64 ...                |  oldest first
//	| table count u32   | table file number u64 ...                  |
//	| xxh3 u64 of every byte before it                               |
//	+----------------------------------------------------------------+
//
// File number n names the journal "n.journal" or the table "n.table", with
// n in decimal, zero-padded to six digits. The root in the manifest is the
// root when it was written; root records in the journals, replayed in order,
// take precedence. Files in the folder that the manifest does not name are
// leftovers of an interrupted compaction and are removed on open.

const (
	manifestMagic   = "VRSMANI\n"
	manifestName    = "MANIFEST"
	manifestTmpName = "MANIFEST.tmp"
	maxManifestList = 1 << 16
)

type manifest struct {
	root     Address
	nextFile uint64
	journals []uint64
	tables   []uint64
}

func (m *manifest) encode() []byte {
	buf := make([]byte, 0, 64+8*(len(m.journals)+len(m.tables)))
	buf = append(buf, manifestMagic...)
	buf = binary.BigEndian.AppendUint32(buf, FormatVersion)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	buf = append(buf, m.root[:]...)
	buf = binary.BigEndian.AppendUint64(buf, m.nextFile)
	for _, list := range [][]uint64{m.journals, m.tables} {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(list)))
		for _, n := range list {
			buf = binary.BigEndian.AppendUint64(buf, n)
		}
	}
	return binary.BigEndian.AppendUint64(buf, xxh3.Hash(buf))
}

// decodeManifest parses a manifest's bytes. It never panics; every failure
// wraps ErrCorrupt (or ErrVersion).
func decodeManifest(b []byte) (manifest, error) {
	var m manifest
	if len(b) < 16+AddressSize+8+4+4+8 {
		return m, fmt.Errorf("%w: manifest of %d bytes is too short", ErrCorrupt, len(b))
	}
	if string(b[:8]) != manifestMagic {
		return m, fmt.Errorf("%w: not a verso manifest (bad magic %q)", ErrCorrupt, b[:8])
	}
	if xxh3.Hash(b[:len(b)-8]) != binary.BigEndian.Uint64(b[len(b)-8:]) {
		return m, fmt.Errorf("%w: manifest checksum mismatch", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != FormatVersion {
		return m, fmt.Errorf("%w: manifest format version %d; this build reads version %d", ErrVersion, v, FormatVersion)
	}
	if binary.BigEndian.Uint32(b[12:]) != 0 {
		return m, fmt.Errorf("%w: manifest's reserved field is not zero", ErrCorrupt)
	}
	p := b[16 : len(b)-8]
	copy(m.root[:], p)
	p = p[AddressSize:]
	m.nextFile = binary.BigEndian.Uint64(p)
	p = p[8:]
	seen := map[uint64]bool{}
	for _, list := range []*[]uint64{&m.journals, &m.tables} {
		if len(p) < 4 {
			return manifest{}, fmt.Errorf("%w: manifest ends inside a file list", ErrCorrupt)
		}
		n := binary.BigEndian.Uint32(p)
		p = p[4:]
		if n > maxManifestList || uint64(len(p)) < uint64(n)*8 {
			return manifest{}, fmt.Errorf("%w: manifest lists %d files but holds %d bytes", ErrCorrupt, n, len(p))
		}
		for i := uint32(0); i < n; i++ {
			num := binary.BigEndian.Uint64(p)
			p = p[8:]
			if num == 0 || num >= m.nextFile || seen[num] {
				return manifest{}, fmt.Errorf("%w: manifest names file number %d twice or out of range (next %d)", ErrCorrupt, num, m.nextFile)
			}
			seen[num] = true
			*list = append(*list, num)
		}
	}
	if len(p) != 0 {
		return manifest{}, fmt.Errorf("%w: manifest has %d trailing bytes", ErrCorrupt, len(p))
	}
	if len(m.journals) == 0 {
		return manifest{}, fmt.Errorf("%w: manifest names no journal", ErrCorrupt)
	}
	return m, nil
}

func journalFileName(n uint64) string { return fmt.Sprintf("%06d.journal", n) }
func tableFileName(n uint64) string   { return fmt.Sprintf("%06d.table", n) }

// readManifest reads dir's manifest; it returns an error wrapping
// os.ErrNotExist when there is none.
func readManifest(dir string) (manifest, error) {
	_, m, err := readManifestShared(dir)
	return m, err
}

// readManifestShared reads dir's manifest and returns its bytes too. It
// opens the file so that a writer may rename another over it meanwhile
// (openShared).
func readManifestShared(dir string) ([]byte, manifest, error) {
	path := filepath.Join(dir, manifestName)
	f, err := openShared(path)
	if err != nil {
		return nil, manifest{}, err
	}
	b, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, manifest{}, err
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	return b, m, nil
}

// writeManifest replaces dir's manifest atomically and durably.
func writeManifest(dir string, m *manifest) error {
	tmp := filepath.Join(dir, manifestTmpName)
	if err := writeFileSync(tmp, m.encode()); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		return err
	}
	return syncDir(dir)
}

// writeFileSync creates path with data and syncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// syncDir syncs a folder, making the creation, renaming and removal of its
// files durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
