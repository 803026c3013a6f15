package tables

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/verso-db/verso/prolly"
)

// Schema chunk format, version 1.
//
// A schema is stored as its own chunk, so that commits whose table schema
// did not change share it. Counts, positions and lengths are uvarints;
// strings are a uvarint length and UTF-8 bytes.
//
//	+--------------------------------------------------------------+
//	| magic "VRSSCHM\n" (8) | format version u32 big-endian          |
//	| column count | column ...                                     |
//	| primary-key count | column position ...                       |
//	| index count | index ...                                       |
//	| check count | check ...                                       |
//	+--------------------------------------------------------------+
//	column: | name | type | kind u8 | flags u8 | default | generated |
//	        | on-update | collation | comment |
//	        flags: 0x01 nullable, 0x02 auto-increment, 0x04 virtual,
//	               0x08 hidden
//	index:  | name | flags u8 | column count | column position ... |
//	        | prefix length ... (only with flag 0x02; one per column) |
//	        | comment |
//	        flags: 0x01 unique, 0x02 prefix lengths follow (set exactly
//	               when some column has a non-zero prefix length)
//	check:  | name | expression | flags u8 |  flags: 0x01 enforced
//
// The encoding is canonical (decoding re-encodes and compares), and a
// decoded schema must pass Validate.

const (
	schemaMagic   = "VRSSCHM\n"
	schemaVersion = 1

	colNullable = 0x01
	colAutoInc  = 0x02
	colVirtual  = 0x04
	colHidden   = 0x08
	colFlags    = colNullable | colAutoInc | colVirtual | colHidden
	idxUnique   = 0x01
	idxPrefix   = 0x02
	idxFlags    = idxUnique | idxPrefix
	chkEnforced = 0x01
)

// EncodeSchema returns the stored form of s.
func EncodeSchema(s *Schema) []byte {
	b := append([]byte(schemaMagic), 0, 0, 0, schemaVersion)
	str := func(x string) {
		b = binary.AppendUvarint(b, uint64(len(x)))
		b = append(b, x...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Columns)))
	for _, c := range s.Columns {
		str(c.Name)
		str(c.Type)
		var flags byte
		if c.Nullable {
			flags |= colNullable
		}
		if c.AutoIncrement {
			flags |= colAutoInc
		}
		if c.Virtual {
			flags |= colVirtual
		}
		if c.Hidden {
			flags |= colHidden
		}
		b = append(b, byte(c.Kind), flags)
		str(c.Default)
		str(c.Generated)
		str(c.OnUpdate)
		str(c.Collation)
		str(c.Comment)
	}
	b = binary.AppendUvarint(b, uint64(len(s.PrimaryKey)))
	for _, p := range s.PrimaryKey {
		b = binary.AppendUvarint(b, uint64(p))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Indexes)))
	for _, ix := range s.Indexes {
		str(ix.Name)
		var flags byte
		if ix.Unique {
			flags |= idxUnique
		}
		if ix.hasPrefix() {
			flags |= idxPrefix
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(len(ix.Columns)))
		for _, p := range ix.Columns {
			b = binary.AppendUvarint(b, uint64(p))
		}
		if ix.hasPrefix() {
			for j := range ix.Columns {
				b = binary.AppendUvarint(b, uint64(ix.PrefixOf(j)))
			}
		}
		str(ix.Comment)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Checks)))
	for _, c := range s.Checks {
		str(c.Name)
		str(c.Expr)
		var flags byte
		if c.Enforced {
			flags |= chkEnforced
		}
		b = append(b, flags)
	}
	return b
}

// schemaReader reads the fields of a stored schema, remembering the first
// error.
type schemaReader struct {
	b   []byte
	err error
}

func (r *schemaReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: schema: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (r *schemaReader) uvarint(max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	if v > max {
		r.fail("count %d over the limit %d", v, max)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *schemaReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.fail("ends early")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *schemaReader) str() string {
	n := r.uvarint(1 << 30)
	if r.err == nil && n > uint64(len(r.b)) {
		r.fail("a string of %d bytes runs past the end", n)
	}
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// DecodeSchema parses a stored schema. It never panics; errors wrap
// ErrCorrupt.
func DecodeSchema(b []byte) (*Schema, error) {
	if len(b) < len(schemaMagic)+4 || string(b[:len(schemaMagic)]) != schemaMagic {
		return nil, fmt.Errorf("%w: not a schema chunk", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[len(schemaMagic):]); v != schemaVersion {
		return nil, fmt.Errorf("%w: schema format version %d; this build reads version %d", ErrCorrupt, v, schemaVersion)
	}
	r := &schemaReader{b: b[len(schemaMagic)+4:]}
	s := &Schema{}
	ncols := r.uvarint(maxColumns)
	for i := uint64(0); i < ncols && r.err == nil; i++ {
		c := Column{Name: r.str(), Type: r.str()}
		c.Kind = prolly.Kind(r.byte())
		flags := r.byte()
		if flags&^colFlags != 0 {
			r.fail("column %d has unknown flags %#x", i, flags)
		}
		c.Nullable, c.AutoIncrement = flags&colNullable != 0, flags&colAutoInc != 0
		c.Virtual, c.Hidden = flags&colVirtual != 0, flags&colHidden != 0
		c.Default, c.Generated, c.OnUpdate = r.str(), r.str(), r.str()
		c.Collation, c.Comment = r.str(), r.str()
		s.Columns = append(s.Columns, c)
	}
	npk := r.uvarint(maxColumns)
	for i := uint64(0); i < npk && r.err == nil; i++ {
		s.PrimaryKey = append(s.PrimaryKey, int(r.uvarint(maxColumns)))
	}
	nidx := r.uvarint(maxColumns)
	for i := uint64(0); i < nidx && r.err == nil; i++ {
		ix := Index{Name: r.str()}
		flags := r.byte()
		if flags&^idxFlags != 0 {
			r.fail("index %d has unknown flags %#x", i, flags)
		}
		ix.Unique = flags&idxUnique != 0
		n := r.uvarint(maxColumns)
		for j := uint64(0); j < n && r.err == nil; j++ {
			ix.Columns = append(ix.Columns, int(r.uvarint(maxColumns)))
		}
		if flags&idxPrefix != 0 {
			for j := uint64(0); j < n && r.err == nil; j++ {
				ix.Prefix = append(ix.Prefix, int(r.uvarint(MaxPrefix)))
			}
		}
		ix.Comment = r.str()
		s.Indexes = append(s.Indexes, ix)
	}
	nchk := r.uvarint(maxColumns)
	for i := uint64(0); i < nchk && r.err == nil; i++ {
		c := Check{Name: r.str(), Expr: r.str()}
		flags := r.byte()
		if flags&^chkEnforced != 0 {
			r.fail("check %d has unknown flags %#x", i, flags)
		}
		c.Enforced = flags&chkEnforced != 0
		s.Checks = append(s.Checks, c)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: schema has %d trailing bytes", ErrCorrupt, len(r.b))
	}
	if !bytes.Equal(EncodeSchema(s), b) {
		return nil, fmt.Errorf("%w: schema is not in canonical form", ErrCorrupt)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: stored schema: %v", ErrCorrupt, err)
	}
	return s, nil
}
