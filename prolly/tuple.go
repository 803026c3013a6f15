package prolly

import (
	"encoding/binary"
	"math"
)

// The value encoding holds a row's payload: a tuple that is never compared,
// only read. It is compact, holds NULLs in no bytes, and reads field i
// without decoding the others. All integers are little-endian.
//
//	offset     size   field
//	0          1      format: 01 = 2-byte offsets, 02 = 4-byte offsets
//	1          2      n, the number of fields (uint16)
//	3          w*n    end[0..n-1]: end of field i, from the start of data
//	3+w*n      ...    data: field i is data[end[i-1]:end[i]] (end[-1] = 0)
//
// The 2-byte form is used whenever the data is at most 65535 bytes long,
// the 4-byte form only otherwise: one tuple has one encoding. A field of length 0 is NULL; any other field is a
// kind byte (the Kind number) and a payload:
//
//	int, date, time, datetime, timestamp   zig-zag varint
//	uint, enum, set                        uvarint
//	float32, float64                       4 or 8 bytes, IEEE bits
//	decimal                                as in a key, without the tag
//	string, bytes, json                    the bytes
//	ref                                    kind byte, 20-byte address, uvarint length
//
// Varints must be minimal. A ref names a large value stored out of line as
// its own chunk tree (see PutLarge).
const (
	tupleFormat16 = 0x01
	tupleFormat32 = 0x02
	tupleHeader   = 3
	maxTupleLen   = math.MaxUint16
)

// Tuple is an encoded value tuple. Its methods read it in place.
type Tuple []byte

// EncodeTuple appends the value encoding of vals to dst. It panics for more
// than 65535 fields.
func EncodeTuple(dst []byte, vals ...Value) []byte {
	if len(vals) > maxTupleLen {
		panic("prolly.EncodeTuple: more than 65535 fields (invariant: a row has at most 65535 columns)")
	}
	var data []byte
	ends := make([]int, len(vals))
	for i, v := range vals {
		data = appendTupleField(data, v)
		ends[i] = len(data)
	}
	format, w := byte(tupleFormat16), 2
	if len(data) > math.MaxUint16 {
		format, w = tupleFormat32, 4
	}
	dst = append(dst, format)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(vals)))
	for _, e := range ends {
		if w == 2 {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(e))
		} else {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(e))
		}
	}
	return append(dst, data...)
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func appendTupleField(dst []byte, v Value) []byte {
	if v.kind == KindNull {
		return dst
	}
	dst = append(dst, byte(v.kind))
	switch v.kind {
	case KindInt, KindDate, KindTime, KindDatetime, KindTimestamp:
		dst = binary.AppendUvarint(dst, zigzag(v.i))
	case KindUint, KindEnum, KindSet:
		dst = binary.AppendUvarint(dst, v.u)
	case KindFloat32:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v.u))
	case KindFloat64:
		dst = binary.LittleEndian.AppendUint64(dst, v.u)
	case KindDecimal:
		dst = appendDecimal(dst, v.AsDecimal())
	case KindString, KindBytes, KindJSON:
		dst = append(dst, v.s...)
	case KindRef:
		dst = append(dst, byte(v.u))
		dst = append(dst, v.s...)
		dst = binary.AppendUvarint(dst, uint64(v.i))
	default:
		panic("prolly.EncodeTuple: unknown kind " + v.kind.String() + " (invariant: values come from the constructors)")
	}
	return dst
}

// layout checks the header and offsets and returns the field count, the
// offset width and the start of the data.
func (t Tuple) layout() (n, w, data int, err error) {
	if len(t) < tupleHeader {
		return 0, 0, 0, badTuple("value tuple of %d bytes is shorter than its header", len(t))
	}
	switch t[0] {
	case tupleFormat16:
		w = 2
	case tupleFormat32:
		w = 4
	default:
		return 0, 0, 0, badTuple("value tuple format %#x", t[0])
	}
	n = int(binary.LittleEndian.Uint16(t[1:]))
	data = tupleHeader + w*n
	if data > len(t) {
		return 0, 0, 0, badTuple("value tuple offsets past its end")
	}
	return n, w, data, nil
}

func (t Tuple) end(i, w int) int {
	p := tupleHeader + w*i
	if w == 2 {
		return int(binary.LittleEndian.Uint16(t[p:]))
	}
	return int(binary.LittleEndian.Uint32(t[p:]))
}

// Len returns the number of fields.
func (t Tuple) Len() (int, error) {
	n, _, _, err := t.layout()
	return n, err
}

// FieldBytes returns the encoded bytes of field i (empty for NULL) without
// decoding any field.
func (t Tuple) FieldBytes(i int) ([]byte, error) {
	n, w, data, err := t.layout()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= n {
		return nil, badTuple("field %d of a %d-field tuple", i, n)
	}
	start := 0
	if i > 0 {
		start = t.end(i-1, w)
	}
	end := t.end(i, w)
	if start > end || data+end > len(t) {
		return nil, badTuple("field %d spans [%d, %d) in %d data bytes", i, start, end, len(t)-data)
	}
	return t[data+start : data+end], nil
}

// Field decodes field i.
func (t Tuple) Field(i int) (Value, error) {
	b, err := t.FieldBytes(i)
	if err != nil {
		return Value{}, err
	}
	return decodeTupleField(b)
}

func uvarint(b []byte) (uint64, int, error) {
	u, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, badTuple("bad varint")
	}
	if n != len(binary.AppendUvarint(nil, u)) {
		return 0, 0, badTuple("non-minimal varint")
	}
	return u, n, nil
}

func decodeTupleField(b []byte) (Value, error) {
	if len(b) == 0 {
		return Null(), nil
	}
	k, p := Kind(b[0]), b[1:]
	exact := func(u uint64, n int, err error) (uint64, error) {
		if err == nil && n != len(p) {
			err = badTuple("%d trailing bytes after a %s field", len(p)-n, k)
		}
		return u, err
	}
	v := Value{kind: k}
	var err error
	switch k {
	case KindInt, KindDate, KindTime, KindDatetime, KindTimestamp:
		var u uint64
		u, err = exact(uvarint(p))
		v.i = unzigzag(u)
		if err == nil && k == KindDate && (v.i>>5)&15 > 12 {
			err = badTuple("date month out of range")
		}
	case KindUint, KindEnum, KindSet:
		v.u, err = exact(uvarint(p))
		if err == nil && k == KindEnum && v.u > math.MaxUint16 {
			err = badTuple("enum number out of range")
		}
	case KindFloat32:
		if len(p) != 4 {
			return Value{}, badTuple("float32 field of %d bytes", len(p))
		}
		u := binary.LittleEndian.Uint32(p)
		v = Float32(math.Float32frombits(u))
		if v.u != uint64(u) {
			err = badTuple("non-canonical float32")
		}
	case KindFloat64:
		if len(p) != 8 {
			return Value{}, badTuple("float64 field of %d bytes", len(p))
		}
		u := binary.LittleEndian.Uint64(p)
		v = Float64(math.Float64frombits(u))
		if v.u != u {
			err = badTuple("non-canonical float64")
		}
	case KindDecimal:
		r := keyReader{b: p}
		var d Decimal
		d, err = r.decimal()
		if err == nil && r.pos != len(p) {
			err = badTuple("trailing bytes after a decimal field")
		}
		v = Dec(d)
	case KindString, KindBytes, KindJSON:
		v.s = string(p)
	case KindRef:
		if len(p) < 2+20 {
			return Value{}, badTuple("ref field of %d bytes", len(p))
		}
		v.u = uint64(p[0])
		if _, ok := kindNames[Kind(p[0])]; !ok || Kind(p[0]) == KindRef || Kind(p[0]) == KindNull {
			return Value{}, badTuple("ref to kind %#x", p[0])
		}
		v.s = string(p[1:21])
		var n int
		var u uint64
		u, n, err = uvarint(p[21:])
		if err == nil && 21+n != len(p) {
			err = badTuple("trailing bytes after a ref field")
		}
		if u > math.MaxInt64 {
			err = badTuple("ref length out of range")
		}
		v.i = int64(u)
	default:
		return Value{}, badTuple("value field kind %#x", b[0])
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// DecodeTuple decodes every field of an encoded value tuple, checking that
// the bytes are the one canonical encoding of the result.
func DecodeTuple(b []byte) ([]Value, error) {
	t := Tuple(b)
	n, w, data, err := t.layout()
	if err != nil {
		return nil, err
	}
	out := make([]Value, n)
	prev := 0
	for i := 0; i < n; i++ {
		e := t.end(i, w)
		if e < prev || data+e > len(t) {
			return nil, badTuple("field %d ends at %d, after %d, in %d data bytes", i, e, prev, len(t)-data)
		}
		if out[i], err = decodeTupleField(t[data+prev : data+e]); err != nil {
			return nil, err
		}
		prev = e
	}
	if data+prev != len(t) {
		return nil, badTuple("%d bytes after the last field", len(t)-data-prev)
	}
	if (t[0] == tupleFormat32) != (prev > math.MaxUint16) {
		return nil, badTuple("non-canonical offset width")
	}
	return out, nil
}
