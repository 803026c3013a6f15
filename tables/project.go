package tables

import (
	"fmt"

	"github.com/verso-db/verso/prolly"
)

// Projected reads decode only some columns of each stored row.
//
// A row's value tuple has an offset table (prolly.Tuple), so one field is
// found without decoding the fields before it: a projected read decodes
// the projected fields of the value tuple, and the row key only when a
// projected column is read from it. Large values stored out of line are
// loaded only for projected columns. Fields that are not projected are not
// decoded, so they are not checked either: a corrupt field surfaces only
// in a read that projects it (or in a full read).

// Projection is a list of column positions (indexes into Schema.Columns) a
// scan yields, in the order given; a column may repeat. Build one with
// Table.Project.
type Projection struct {
	cols []int
	// src[i] is where column cols[i] is stored: field src[i] of the value
	// tuple when src[i] >= 0, key field -src[i]-1 otherwise.
	src     []int
	needKey bool
	keyless bool
	nFields int // fields in the value tuple
	nKeys   int // fields in the row key
}

// Columns returns the projected column positions. The slice belongs to the
// projection.
func (p *Projection) Columns() []int { return p.cols }

// Project returns the projection of cols, which must be column positions
// of the table's schema.
func (t *Table) Project(cols []int) (*Projection, error) {
	return t.c.project(cols)
}

func (c *rowCodec) project(cols []int) (*Projection, error) {
	p := &Projection{cols: append([]int(nil), cols...), src: make([]int, len(cols)), keyless: c.s.Keyless()}
	if p.keyless {
		p.nFields = len(c.s.Columns) + 1
	} else {
		p.nFields, p.nKeys = len(c.valCols), len(c.s.PrimaryKey)
	}
	// Where each column is stored; a lossy key column is read from the
	// value tuple, which holds the original.
	where := make([]int, len(c.s.Columns))
	if p.keyless {
		for i := range where {
			where[i] = i + 1
		}
	} else {
		for i, col := range c.s.PrimaryKey {
			where[col] = -i - 1
		}
		for i, col := range c.valCols {
			where[col] = i
		}
	}
	for i, col := range cols {
		if col < 0 || col >= len(c.s.Columns) {
			return nil, fmt.Errorf("%w: projected column %d of a %d-column table", ErrRowShape, col, len(c.s.Columns))
		}
		p.src[i] = where[col]
		p.needKey = p.needKey || where[col] < 0
	}
	return p, nil
}

// decodeProjected returns the projected values of a stored row (large
// values still as Refs) and, for a keyless table, its count. The values
// go into into's array when it is large enough (nil: a new one).
func (c *rowCodec) decodeProjected(p *Projection, key, val []byte, into []Value) (row []Value, count uint64, err error) {
	t := prolly.Tuple(val)
	n, err := t.Len()
	if err != nil {
		return nil, 0, err
	}
	if n != p.nFields {
		return nil, 0, fmt.Errorf("%w: row value of %d fields, want %d", ErrCorrupt, n, p.nFields)
	}
	count = 1
	if p.keyless {
		cv, err := t.Field(0)
		if err != nil {
			return nil, 0, err
		}
		if cv.Kind() != prolly.KindUint || cv.AsUint() == 0 {
			return nil, 0, fmt.Errorf("%w: keyless row count field of kind %s", ErrCorrupt, cv.Kind())
		}
		count = cv.AsUint()
	}
	var keys []Value
	var keyBuf [4]Value // most keys have few fields: no allocation
	if p.needKey {
		if keys, err = prolly.AppendDecodeKey(keyBuf[:0], key); err != nil {
			return nil, 0, err
		}
		if len(keys) != p.nKeys {
			return nil, 0, fmt.Errorf("%w: row key of %d fields, want %d", ErrCorrupt, len(keys), p.nKeys)
		}
	}
	if cap(into) >= len(p.src) {
		row = into[:len(p.src)]
	} else {
		row = make([]Value, len(p.src))
	}
	for i, s := range p.src {
		if s < 0 {
			row[i] = keys[-s-1]
			continue
		}
		if row[i], err = t.Field(s); err != nil {
			return nil, 0, err
		}
	}
	return row, count, nil
}
