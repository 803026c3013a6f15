package server

import (
	"encoding/binary"
	"fmt"
)

// The engine decodes its user database (a flatbuffer) without bounds
// checks beyond Go's own: a corrupt length makes it panic or, worse, loop
// for billions of iterations. verifyUsersPayload checks every offset,
// length and nested table of the payload against the schema
// (go-mysql-server's sql/mysql_db/fbs/mysql_db.fbs) first, so that the
// engine only ever sees well-formed input.

// fbKind is the kind of a flatbuffer field.
type fbKind uint8

const (
	fbScalar  fbKind = iota // inline, size bytes
	fbString                // offset to a length-prefixed string
	fbVector                // offset to a vector of size-byte scalars
	fbStrings               // offset to a vector of offsets to strings
	fbTable                 // offset to a table
	fbTables                // offset to a vector of offsets to tables
)

// fbField is one field (by slot, in declaration order) of a table.
type fbField struct {
	kind  fbKind
	size  int       // scalar or element size, for fbScalar and fbVector
	table *fbSchema // for fbTable and fbTables
}

// fbSchema is a table's schema: its fields by slot.
type fbSchema struct{ fields []fbField }

var (
	fbStr   = fbField{kind: fbString}
	fbInts  = fbField{kind: fbVector, size: 4}
	fbBools = fbField{kind: fbVector, size: 1}
	fbBool  = fbField{kind: fbScalar, size: 1}

	fbPrivColumn   = &fbSchema{[]fbField{fbStr, fbInts}}
	fbPrivTable    = &fbSchema{[]fbField{fbStr, fbInts, {kind: fbTables, table: fbPrivColumn}}}
	fbPrivRoutine  = &fbSchema{[]fbField{fbStr, fbInts, fbBool}}
	fbPrivDatabase = &fbSchema{[]fbField{fbStr, fbInts, {kind: fbTables, table: fbPrivTable}, {kind: fbTables, table: fbPrivRoutine}}}
	fbPrivSet      = &fbSchema{[]fbField{fbInts, {kind: fbStrings}, {kind: fbTables, table: fbPrivDatabase}, fbBools}}
	fbUser         = &fbSchema{[]fbField{
		fbStr, fbStr, {kind: fbTable, table: fbPrivSet}, fbStr, fbStr,
		{kind: fbScalar, size: 8}, fbBool, fbStr, fbStr, fbStr, fbStr, fbStr, fbStr,
	}}
	fbRoleEdge    = &fbSchema{[]fbField{fbStr, fbStr, fbStr, fbStr, fbBool}}
	fbReplicaInfo = &fbSchema{[]fbField{fbStr, fbStr, fbStr, {kind: fbScalar, size: 2}, fbStr, {kind: fbScalar, size: 4}, {kind: fbScalar, size: 8}}}
	fbMySQLDb     = &fbSchema{[]fbField{
		{kind: fbTables, table: fbUser}, {kind: fbTables, table: fbRoleEdge},
		{kind: fbTables, table: fbReplicaInfo}, {kind: fbTables, table: fbUser},
	}}
)

// fbVerifier walks a buffer; budget bounds the objects it visits, so that
// offsets shared by many vector elements cannot make it slow.
type fbVerifier struct {
	b      []byte
	budget int
}

// verifyUsersPayload checks that b is a well-formed MySQLDb flatbuffer.
func verifyUsersPayload(b []byte) error {
	v := fbVerifier{b: b, budget: len(b) + 16}
	root, err := v.uoffset(0)
	if err != nil {
		return err
	}
	return v.table(root, fbMySQLDb)
}

func (v *fbVerifier) need(pos, n int) error {
	if pos < 0 || n < 0 || pos > len(v.b) || n > len(v.b)-pos {
		return fmt.Errorf("%d bytes at offset %d are outside the %d-byte payload", n, pos, len(v.b))
	}
	return nil
}

func (v *fbVerifier) u32(pos int) (int, error) {
	if err := v.need(pos, 4); err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(v.b[pos:])), nil
}

// uoffset follows the unsigned offset stored at pos.
func (v *fbVerifier) uoffset(pos int) (int, error) {
	o, err := v.u32(pos)
	if err != nil {
		return 0, err
	}
	if v.budget--; v.budget < 0 {
		return 0, fmt.Errorf("more references than the payload can hold")
	}
	if err := v.need(pos+o, 0); err != nil {
		return 0, err
	}
	return pos + o, nil
}

func (v *fbVerifier) table(pos int, t *fbSchema) error {
	if err := v.need(pos, 4); err != nil {
		return err
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(v.b[pos:])))
	if err := v.need(vt, 4); err != nil {
		return fmt.Errorf("vtable: %w", err)
	}
	vtSize := int(binary.LittleEndian.Uint16(v.b[vt:]))
	tSize := int(binary.LittleEndian.Uint16(v.b[vt+2:]))
	if vtSize < 4 || vtSize%2 != 0 {
		return fmt.Errorf("vtable of %d bytes at offset %d", vtSize, vt)
	}
	if err := v.need(vt, vtSize); err != nil {
		return fmt.Errorf("vtable: %w", err)
	}
	if err := v.need(pos, tSize); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	for slot, f := range t.fields {
		if 4+2*slot >= vtSize {
			break
		}
		off := int(binary.LittleEndian.Uint16(v.b[vt+4+2*slot:]))
		if off == 0 {
			continue
		}
		size := 4
		if f.kind == fbScalar {
			size = f.size
		}
		if off < 4 || off+size > tSize {
			return fmt.Errorf("field %d at %d is outside its table of %d bytes", slot, off, tSize)
		}
		if err := v.field(pos+off, f); err != nil {
			return fmt.Errorf("field %d: %w", slot, err)
		}
	}
	return nil
}

func (v *fbVerifier) field(pos int, f fbField) error {
	if f.kind == fbScalar {
		return nil
	}
	target, err := v.uoffset(pos)
	if err != nil {
		return err
	}
	switch f.kind {
	case fbTable:
		return v.table(target, f.table)
	case fbString:
		return v.vector(target, 1)
	}
	elem := f.size
	if f.kind != fbVector {
		elem = 4
	}
	if err := v.vector(target, elem); err != nil {
		return err
	}
	n, _ := v.u32(target)
	for i := 0; i < n; i++ {
		at := target + 4 + 4*i
		switch f.kind {
		case fbStrings:
			s, err := v.uoffset(at)
			if err == nil {
				err = v.vector(s, 1)
			}
			if err != nil {
				return err
			}
		case fbTables:
			t, err := v.uoffset(at)
			if err == nil {
				err = v.table(t, f.table)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// vector checks the length-prefixed vector (or string) at pos.
func (v *fbVerifier) vector(pos, elem int) error {
	n, err := v.u32(pos)
	if err != nil {
		return err
	}
	if n > (len(v.b)-pos-4)/elem {
		return fmt.Errorf("vector of %d elements at offset %d overruns the payload", n, pos)
	}
	return nil
}
