package prolly

import (
	"encoding/binary"
	"math"
)

// The key encoding turns a tuple of Values into bytes whose bytes.Compare
// order is the tuple's order (CompareTuples), field by field. Every value
// has exactly one encoding: the addresses of the tree's chunks depend on it.
//
// A key is the concatenation of its fields. A field is a tag byte (the
// Kind's number, 0x01..0x1C) followed by a payload whose length is known
// from its own bytes, so no field's encoding is a prefix of another's:
//
//	NULL            01
//	int             10  ordered int (below)
//	uint            11  ordered uint
//	float32         12  4 bytes big-endian, float transform
//	float64         13  8 bytes big-endian, float transform
//	decimal         14  class byte, then (see below)
//	string          15  escaped bytes, 00 01
//	bytes           16  escaped bytes, 00 01
//	date            17  ordered int of year*512 + month*32 + day
//	time            18  ordered int of microseconds
//	datetime        19  ordered int of wall-clock microseconds since 1970
//	timestamp       1A  ordered int of microseconds since 1970 UTC
//	enum            1B  ordered uint of the member number
//	set             1C  ordered uint of the member bitmap
//
// A descending field is the ascending field with every byte complemented
// (x ^ 0xFF), tag included; its tag is then 0x80 or more, which is how a
// decoder knows it is descending.
//
// Ordered uint: one byte L = number of significant bytes (0..8, so 0 is
// the single byte 00), then those L bytes big-endian with no leading zero.
//
// Ordered int: v >= 0 is 0x80+L then the L significant bytes of v; v < 0 is
// 0x7F-L then the L significant bytes of ^v, each complemented. So -1 is
// 7F, 0 is 80, 1 is 81 01, -2 is 7E FE, 256 is 82 01 00.
//
// Float transform: the IEEE bits, with the sign bit flipped for a positive
// number and all bits flipped for a negative one. -0 is stored as 0 and
// every NaN as one NaN, which sorts after +Inf.
//
// Decimal: class 01 for negative, 02 for zero (nothing follows), 03 for
// positive. A positive decimal 0.d1d2...dn * 10^e is the ordered int of e,
// then its digits two per byte (1 + 11*d1 + (d2+1), or 1 + 11*d1 for a
// lone last digit), then 00. A negative decimal is the same bytes for its
// absolute value, complemented.
//
// Escaped bytes: each 00 byte is written 00 FF, and the string ends with
// 00 01, so a shorter string sorts before any longer one it prefixes.

// Key tags and markers.
const (
	descBit       = 0x80
	decimalNeg    = 0x01
	decimalZero   = 0x02
	decimalPos    = 0x03
	escapeByte    = 0x00
	escapedZero   = 0xFF
	terminator    = 0x01
	maxKeyFields  = 1 << 12
	maxOrderedLen = 8
)

// EncodeKey appends the key encoding of the tuple vals to dst. It panics for
// a value kind that cannot be part of a key (JSON, Ref): a schema allows
// no such key column.
func EncodeKey(dst []byte, vals ...Value) []byte {
	for _, v := range vals {
		dst = AppendKeyField(dst, v)
	}
	return dst
}

// AppendKeyField appends the key encoding of one field.
func AppendKeyField(dst []byte, v Value) []byte {
	start := len(dst)
	dst = append(dst, byte(v.kind))
	switch v.kind {
	case KindNull:
	case KindInt, KindDate, KindTime, KindDatetime, KindTimestamp:
		dst = appendOrderedInt(dst, v.i)
	case KindUint, KindEnum, KindSet:
		dst = appendOrderedUint(dst, v.u)
	case KindFloat32:
		dst = binary.BigEndian.AppendUint32(dst, uint32(floatTransform(v.u, 32)))
	case KindFloat64:
		dst = binary.BigEndian.AppendUint64(dst, floatTransform(v.u, 64))
	case KindDecimal:
		dst = appendDecimal(dst, v.AsDecimal())
	case KindString, KindBytes:
		dst = appendEscaped(dst, v.s)
	default:
		panic("prolly.AppendKeyField: kind " + v.kind.String() + " cannot be a key field (invariant: keys hold only orderable kinds)")
	}
	if v.desc {
		for i := start; i < len(dst); i++ {
			dst[i] ^= 0xFF
		}
	}
	return dst
}

func significantBytes(u uint64) int {
	n := 0
	for u != 0 {
		n++
		u >>= 8
	}
	return n
}

func appendBE(dst []byte, u uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*uint(i))))
	}
	return dst
}

func appendOrderedUint(dst []byte, u uint64) []byte {
	n := significantBytes(u)
	dst = append(dst, byte(n))
	return appendBE(dst, u, n)
}

func appendOrderedInt(dst []byte, v int64) []byte {
	if v >= 0 {
		n := significantBytes(uint64(v))
		dst = append(dst, byte(0x80+n))
		return appendBE(dst, uint64(v), n)
	}
	u := ^uint64(v)
	n := significantBytes(u)
	dst = append(dst, byte(0x7F-n))
	return appendBE(dst, ^u, n)
}

// floatTransform maps IEEE bits of the given width to bits whose unsigned
// order is the numeric order.
func floatTransform(bits uint64, width uint) uint64 {
	sign := uint64(1) << (width - 1)
	mask := uint64(math.MaxUint64) >> (64 - width)
	if bits&sign != 0 {
		return ^bits & mask
	}
	return bits | sign
}

func floatUntransform(bits uint64, width uint) uint64 {
	sign := uint64(1) << (width - 1)
	mask := uint64(math.MaxUint64) >> (64 - width)
	if bits&sign != 0 {
		return bits &^ sign
	}
	return ^bits & mask
}

func appendDecimal(dst []byte, d Decimal) []byte {
	if d.IsZero() {
		return append(dst, decimalZero)
	}
	if d.neg {
		dst = append(dst, decimalNeg)
	} else {
		dst = append(dst, decimalPos)
	}
	start := len(dst)
	dst = appendDecimalMagnitude(dst, d)
	if d.neg {
		for i := start; i < len(dst); i++ {
			dst[i] ^= 0xFF
		}
	}
	return dst
}

// appendDecimalMagnitude appends the exponent, the packed digits and the
// terminating 00 of a non-zero decimal.
func appendDecimalMagnitude(dst []byte, d Decimal) []byte {
	dst = appendOrderedInt(dst, int64(d.exp))
	ds := d.digits
	for i := 0; i < len(ds); i += 2 {
		b := 1 + 11*(ds[i]-'0')
		if i+1 < len(ds) {
			b += ds[i+1] - '0' + 1
		}
		dst = append(dst, b)
	}
	return append(dst, 0)
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == escapeByte {
			dst = append(dst, escapeByte, escapedZero)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, escapeByte, terminator)
}

// keyReader reads a key field by field; mask is 0xFF inside a descending
// field, else 0.
type keyReader struct {
	b    []byte
	pos  int
	mask byte
}

func (r *keyReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, badTuple("key truncated at byte %d", r.pos)
	}
	c := r.b[r.pos] ^ r.mask
	r.pos++
	return c, nil
}

func (r *keyReader) orderedUint() (uint64, error) {
	n, err := r.byte()
	if err != nil {
		return 0, err
	}
	if n > maxOrderedLen {
		return 0, badTuple("ordered uint length %d at byte %d", n, r.pos-1)
	}
	return r.beBytes(int(n), false)
}

// beBytes reads n big-endian bytes, complementing each if neg, and rejects
// a leading zero (of the complemented value) as non-canonical.
func (r *keyReader) beBytes(n int, neg bool) (uint64, error) {
	var u uint64
	for i := 0; i < n; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if neg {
			c = ^c
		}
		if i == 0 && c == 0 {
			return 0, badTuple("non-canonical integer at byte %d", r.pos-1)
		}
		u = u<<8 | uint64(c)
	}
	return u, nil
}

func (r *keyReader) orderedInt() (int64, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch {
	case c >= 0x80 && c <= 0x80+maxOrderedLen:
		u, err := r.beBytes(int(c-0x80), false)
		if err != nil {
			return 0, err
		}
		if u > math.MaxInt64 {
			return 0, badTuple("int out of range at byte %d", r.pos)
		}
		return int64(u), nil
	case c <= 0x7F && c >= 0x7F-maxOrderedLen:
		u, err := r.beBytes(int(0x7F-c), true)
		if err != nil {
			return 0, err
		}
		if u > math.MaxInt64 {
			return 0, badTuple("int out of range at byte %d", r.pos)
		}
		return int64(^u), nil
	}
	return 0, badTuple("ordered int header %#x at byte %d", c, r.pos-1)
}

func (r *keyReader) fixed(n int) (uint64, error) {
	var u uint64
	for i := 0; i < n; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		u = u<<8 | uint64(c)
	}
	return u, nil
}

func (r *keyReader) escaped() (string, error) {
	out := make([]byte, 0, 16)
	for {
		c, err := r.byte()
		if err != nil {
			return "", err
		}
		if c != escapeByte {
			out = append(out, c)
			continue
		}
		c, err = r.byte()
		if err != nil {
			return "", err
		}
		switch c {
		case terminator:
			return string(out), nil
		case escapedZero:
			out = append(out, 0)
		default:
			return "", badTuple("bad escape 00 %02x at byte %d", c, r.pos-1)
		}
	}
}

func (r *keyReader) decimal() (Decimal, error) {
	class, err := r.byte()
	if err != nil {
		return Decimal{}, err
	}
	var d Decimal
	switch class {
	case decimalZero:
		return d, nil
	case decimalPos:
	case decimalNeg:
		d.neg = true
		r.mask ^= 0xFF
		defer func() { r.mask ^= 0xFF }()
	default:
		return d, badTuple("decimal class %#x at byte %d", class, r.pos-1)
	}
	e, err := r.orderedInt()
	if err != nil {
		return d, err
	}
	if e > math.MaxInt32 || e < math.MinInt32 {
		return d, badTuple("decimal exponent %d out of range", e)
	}
	d.exp = int32(e)
	digits := make([]byte, 0, 16)
	for {
		b, err := r.byte()
		if err != nil {
			return d, err
		}
		if b == 0 {
			break
		}
		if b > 110 {
			return d, badTuple("decimal digit byte %#x at byte %d", b, r.pos-1)
		}
		d1, rest := (b-1)/11, (b-1)%11
		if len(digits) == 0 && d1 == 0 {
			return d, badTuple("decimal with a leading zero digit")
		}
		digits = append(digits, '0'+d1)
		if rest == 0 {
			// A lone digit ends the digits.
			if nb, err := r.byte(); err != nil {
				return d, err
			} else if nb != 0 {
				return d, badTuple("decimal lone digit not last at byte %d", r.pos-1)
			}
			break
		}
		digits = append(digits, '0'+rest-1)
	}
	if len(digits) == 0 || digits[len(digits)-1] == '0' {
		return d, badTuple("decimal without digits or with a trailing zero")
	}
	d.digits = string(digits)
	return d, nil
}

func (r *keyReader) field() (Value, error) {
	tag := r.b[r.pos]
	r.mask = 0
	desc := tag&descBit != 0
	if desc {
		r.mask = 0xFF
	}
	t, _ := r.byte()
	var v Value
	var err error
	switch Kind(t) {
	case KindNull:
		v = Null()
	case KindInt, KindDate, KindTime, KindDatetime, KindTimestamp:
		v.kind = Kind(t)
		v.i, err = r.orderedInt()
		if err == nil && v.kind == KindDate && (v.i>>5)&15 > 12 {
			err = badTuple("date month %d out of range", (v.i>>5)&15)
		}
	case KindUint, KindEnum, KindSet:
		v.kind = Kind(t)
		v.u, err = r.orderedUint()
		if err == nil && v.kind == KindEnum && v.u > math.MaxUint16 {
			err = badTuple("enum number %d out of range", v.u)
		}
	case KindFloat32:
		var u uint64
		if u, err = r.fixed(4); err == nil {
			v = Float32(math.Float32frombits(uint32(floatUntransform(u, 32))))
			if v.u != floatUntransform(u, 32) {
				err = badTuple("non-canonical float32")
			}
		}
	case KindFloat64:
		var u uint64
		if u, err = r.fixed(8); err == nil {
			v = Float64(math.Float64frombits(floatUntransform(u, 64)))
			if v.u != floatUntransform(u, 64) {
				err = badTuple("non-canonical float64")
			}
		}
	case KindDecimal:
		var d Decimal
		d, err = r.decimal()
		v = Dec(d)
	case KindString, KindBytes:
		v.kind = Kind(t)
		v.s, err = r.escaped()
	default:
		return Value{}, badTuple("key field tag %#x at byte %d", tag, r.pos-1)
	}
	if err != nil {
		return Value{}, err
	}
	v.desc = desc
	return v, nil
}

// DecodeKey decodes a key made by EncodeKey. It returns an error wrapping
// ErrBadTuple for bytes that no tuple encodes to.
func DecodeKey(b []byte) ([]Value, error) {
	return AppendDecodeKey(nil, b)
}

// AppendDecodeKey is DecodeKey appending the fields to dst: with a dst of
// enough capacity (a caller's array), decoding allocates no slice.
func AppendDecodeKey(dst []Value, b []byte) ([]Value, error) {
	r := keyReader{b: b}
	out := dst
	for r.pos < len(b) {
		if len(out)-len(dst) >= maxKeyFields {
			return nil, badTuple("more than %d key fields", maxKeyFields)
		}
		v, err := r.field()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
