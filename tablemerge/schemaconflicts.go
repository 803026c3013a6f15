package tablemerge

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Schema conflicts of a merge.
//
// A branch merge whose sides changed a table's schema in ways that do not
// combine keeps our table as it is and records the conflict, as Dolt
// does, in the root value under "schemaconflicts/<table>"
// (SchemaConflictsPrefix). The entry names a schema-conflict chunk,
// format version 1:
//
//	+------------------------------------------------------------+
//	| magic "VSCHCNF\n" (8) | format version u32 big-endian (1)    |
//	| base table [20]    the table's chunk at the merge base; zero  |
//	|                    where the base has no such table           |
//	| ours table [20]    our table's chunk; zero if dropped         |
//	| theirs table [20]  their table's chunk; zero if dropped       |
//	| description length uvarint | description: UTF-8 text, what   |
//	|                    clashed, in Dolt's words where it has them |
//	+------------------------------------------------------------+
//
// A schema conflict cannot be resolved by choosing a side (Dolt's
// dolt_conflicts_resolve refuses it too): the merge is aborted, the
// schemas made to agree, and the merge run again.

const (
	// SchemaConflictsPrefix begins the root value name of a table's schema
	// conflict.
	SchemaConflictsPrefix = commitgraph.SchemaConflictsPrefix

	schemaConflictMagic   = "VSCHCNF\n"
	schemaConflictVersion = 1
	maxDescription        = 1 << 16
)

// StoredSchemaConflict is one table's schema conflict as stored: the
// table's chunks on each side (zero where absent) and what clashed.
type StoredSchemaConflict struct {
	Base, Ours, Theirs chunks.Address
	Description        string
}

// EncodeSchemaConflict returns the schema-conflict chunk of c.
func EncodeSchemaConflict(c StoredSchemaConflict) []byte {
	d := c.Description
	if len(d) > maxDescription {
		d = strings.ToValidUTF8(d[:maxDescription], "")
	}
	b := make([]byte, 0, 12+3*chunks.AddressSize+binary.MaxVarintLen64+len(d))
	b = append(b, schemaConflictMagic...)
	b = binary.BigEndian.AppendUint32(b, schemaConflictVersion)
	b = append(b, c.Base[:]...)
	b = append(b, c.Ours[:]...)
	b = append(b, c.Theirs[:]...)
	b = binary.AppendUvarint(b, uint64(len(d)))
	return append(b, d...)
}

// DecodeSchemaConflict decodes a schema-conflict chunk. It returns an
// error wrapping ErrCorrupt for bytes that are not a canonical one; it
// never panics.
func DecodeSchemaConflict(b []byte) (StoredSchemaConflict, error) {
	var c StoredSchemaConflict
	head := 12 + 3*chunks.AddressSize
	if len(b) < head+1 || string(b[:8]) != schemaConflictMagic {
		return c, corrupt("not a schema-conflict chunk (%d bytes)", len(b))
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != schemaConflictVersion {
		return c, corrupt("schema-conflict format version %d; this build reads version %d", v, schemaConflictVersion)
	}
	p := b[12:]
	copy(c.Base[:], p)
	copy(c.Ours[:], p[chunks.AddressSize:])
	copy(c.Theirs[:], p[2*chunks.AddressSize:])
	p = p[3*chunks.AddressSize:]
	n, w := binary.Uvarint(p)
	if w <= 0 || w != len(binary.AppendUvarint(nil, n)) || n > maxDescription || n != uint64(len(p)-w) {
		return StoredSchemaConflict{}, corrupt("schema-conflict description: bad length")
	}
	d := p[w:]
	if !utf8.Valid(d) {
		return StoredSchemaConflict{}, corrupt("schema-conflict description is not UTF-8")
	}
	c.Description = string(d)
	if c.Ours.IsEmpty() && c.Theirs.IsEmpty() {
		return StoredSchemaConflict{}, corrupt("schema conflict of a table neither side has")
	}
	return c, nil
}

// TableSchemaConflict is a table's schema conflict in a root value.
type TableSchemaConflict struct {
	Table string
	StoredSchemaConflict
}

// ListSchemaConflicts returns the schema conflicts of root, by table name.
func ListSchemaConflicts(ctx context.Context, store chunks.Store, root commitgraph.RootValue) ([]TableSchemaConflict, error) {
	ents, err := root.Entries(ctx, SchemaConflictsPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]TableSchemaConflict, 0, len(ents))
	for _, e := range ents {
		b, err := store.Get(ctx, e.Addr)
		if err != nil {
			return nil, fmt.Errorf("tablemerge: schema conflict of %s: %w", e.Name, err)
		}
		c, err := DecodeSchemaConflict(b)
		if err != nil {
			return nil, fmt.Errorf("tablemerge: schema conflict of %s: %w", e.Name, err)
		}
		out = append(out, TableSchemaConflict{Table: strings.TrimPrefix(e.Name, SchemaConflictsPrefix), StoredSchemaConflict: c})
	}
	return out, nil
}

// SchemaConflictError is a table whose schemas conflict: Description says
// what clashed, in Dolt's words where Dolt has them. It unwraps to
// ErrSchemaConflict.
type SchemaConflictError struct {
	Table       string
	Description string
	msg         string
}

func (e *SchemaConflictError) Error() string { return e.msg }

// Unwrap returns ErrSchemaConflict.
func (e *SchemaConflictError) Unwrap() error { return ErrSchemaConflict }

// describe returns the description of a schema conflict err.
func describe(err error) string {
	if sc, ok := err.(*SchemaConflictError); ok && sc.Description != "" {
		return sc.Description
	}
	if dc, ok := err.(*DropConflictError); ok {
		return dc.description()
	}
	return strings.TrimPrefix(err.Error(), ErrSchemaConflict.Error()+": ")
}
