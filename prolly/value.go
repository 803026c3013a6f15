package prolly

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/verso-db/verso/chunks"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of values. Their numbers are the tags of the key encoding (see
// key.go) and of the value encoding (see tuple.go); a shipped number never
// changes meaning. In a key, kinds sort by these numbers, so NULL sorts
// before every other value.
const (
	KindNull      Kind = 0x01
	KindInt       Kind = 0x10 // every signed SQL integer width, as int64
	KindUint      Kind = 0x11 // every unsigned SQL integer width, as uint64
	KindFloat32   Kind = 0x12
	KindFloat64   Kind = 0x13
	KindDecimal   Kind = 0x14
	KindString    Kind = 0x15 // UTF-8 text, ordered by its bytes
	KindBytes     Kind = 0x16
	KindDate      Kind = 0x17
	KindTime      Kind = 0x18 // SQL TIME: a signed duration in microseconds
	KindDatetime  Kind = 0x19 // wall-clock date and time, microseconds
	KindTimestamp Kind = 0x1A // an instant, microseconds since the Unix epoch
	KindEnum      Kind = 0x1B // the 1-based number of an enum member
	KindSet       Kind = 0x1C // the bitmap of a set's members
	KindJSON      Kind = 0x1D // value encoding only
	KindRef       Kind = 0x1E // value encoding only: a large value stored out of line
)

var kindNames = map[Kind]string{
	KindNull: "null", KindInt: "int", KindUint: "uint", KindFloat32: "float32",
	KindFloat64: "float64", KindDecimal: "decimal", KindString: "string",
	KindBytes: "bytes", KindDate: "date", KindTime: "time", KindDatetime: "datetime",
	KindTimestamp: "timestamp", KindEnum: "enum", KindSet: "set", KindJSON: "json",
	KindRef: "ref",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%#x)", uint8(k))
}

// canonicalNaN64 and canonicalNaN32 are the one NaN of each width: every
// NaN is stored as it. NaN sorts after +Inf.
const (
	canonicalNaN64 = 0x7FF8000000000000
	canonicalNaN32 = 0x7FC00000
)

// Value is one typed field of a tuple. Build values with the constructors
// (Null, Int, String, ...); the zero Value is not valid. A Value made by a
// constructor is canonical: -0 becomes 0, every NaN the same NaN, decimals
// lose leading and trailing zeros, times are truncated to microseconds.
type Value struct {
	kind Kind
	desc bool   // descending: the key encoding complements the field
	i    int64  // Int, Date (packed), Time, Datetime, Timestamp, Decimal exponent, Ref length
	u    uint64 // Uint, Enum, Set, float bits, Decimal sign (1 = negative), Ref's kind
	s    string // String, Bytes, JSON, Decimal digits, Ref address
}

// Null returns SQL NULL.
func Null() Value { return Value{kind: KindNull} }

// Int returns a signed integer of any width.
func Int(v int64) Value { return Value{kind: KindInt, i: v} }

// Uint returns an unsigned integer of any width.
func Uint(v uint64) Value { return Value{kind: KindUint, u: v} }

// Float64 returns a double; -0 becomes 0 and every NaN the canonical NaN.
func Float64(f float64) Value {
	switch {
	case f == 0:
		f = 0
	case math.IsNaN(f):
		return Value{kind: KindFloat64, u: canonicalNaN64}
	}
	return Value{kind: KindFloat64, u: math.Float64bits(f)}
}

// Float32 returns a float; -0 becomes 0 and every NaN the canonical NaN.
func Float32(f float32) Value {
	switch {
	case f == 0:
		f = 0
	case f != f:
		return Value{kind: KindFloat32, u: canonicalNaN32}
	}
	return Value{kind: KindFloat32, u: uint64(math.Float32bits(f))}
}

// Dec returns a decimal.
func Dec(d Decimal) Value {
	v := Value{kind: KindDecimal, i: int64(d.exp), s: d.digits}
	if d.neg {
		v.u = 1
	}
	return v
}

// String returns a text value. It is ordered by its UTF-8 bytes (a binary
// collation).
func String(s string) Value { return Value{kind: KindString, s: s} }

// Bytes returns a byte-string value.
func Bytes(b []byte) Value { return Value{kind: KindBytes, s: string(b)} }

// JSON returns a JSON document held as its text. It is allowed in value
// tuples only.
func JSON(doc []byte) Value { return Value{kind: KindJSON, s: string(doc)} }

// Date returns a SQL DATE. Month 0 and day 0 are allowed, as MySQL allows
// them ("zero dates"); month must be at most 12 and day at most 31.
func Date(year, month, day int) Value {
	if month < 0 || month > 12 || day < 0 || day > 31 {
		panic(fmt.Sprintf("prolly.Date: month %d or day %d out of range (invariant: 0 <= month <= 12, 0 <= day <= 31)", month, day))
	}
	return Value{kind: KindDate, i: int64(year)*512 + int64(month)*32 + int64(day)}
}

// Time returns a SQL TIME, a signed duration truncated to microseconds.
func Time(d time.Duration) Value { return Value{kind: KindTime, i: d.Microseconds()} }

// Datetime returns a SQL DATETIME: the wall-clock reading of t (its time
// zone is dropped), truncated to microseconds.
func Datetime(t time.Time) Value {
	w := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return Value{kind: KindDatetime, i: w.UnixMicro()}
}

// Timestamp returns a SQL TIMESTAMP: the instant t, truncated to
// microseconds.
func Timestamp(t time.Time) Value { return Value{kind: KindTimestamp, i: t.UnixMicro()} }

// Enum returns the member number of an enum.
func Enum(n uint16) Value { return Value{kind: KindEnum, u: uint64(n)} }

// Set returns the member bitmap of a set.
func Set(bits uint64) Value { return Value{kind: KindSet, u: bits} }

// Ref returns a reference to a large value of kind k and length n stored out
// of line at addr (see PutLarge). It is allowed in value tuples only.
func Ref(k Kind, addr chunks.Address, n uint64) Value {
	return Value{kind: KindRef, u: uint64(k), i: int64(n), s: string(addr[:])}
}

// Desc returns v marked descending: in a key, it sorts in reverse order
// (NULL then sorts last).
func (v Value) Desc() Value { v.desc = true; return v }

// IsDesc reports whether v is marked descending.
func (v Value) IsDesc() bool { return v.desc }

// Kind returns v's kind.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsInt returns an Int, Time (microseconds), Datetime or Timestamp
// (microseconds since the epoch) value.
func (v Value) AsInt() int64 { return v.i }

// AsUint returns a Uint, Enum or Set value.
func (v Value) AsUint() uint64 { return v.u }

// AsFloat64 returns a Float64 or Float32 value.
func (v Value) AsFloat64() float64 {
	if v.kind == KindFloat32 {
		return float64(math.Float32frombits(uint32(v.u)))
	}
	return math.Float64frombits(v.u)
}

// AsString returns a String, Bytes or JSON value as a string.
func (v Value) AsString() string { return v.s }

// AsBytes returns a String, Bytes or JSON value as a new byte slice.
func (v Value) AsBytes() []byte { return []byte(v.s) }

// AsDecimal returns a Decimal value.
func (v Value) AsDecimal() Decimal {
	return Decimal{neg: v.u == 1, digits: v.s, exp: int32(v.i)}
}

// AsDate returns a Date value's year, month and day.
func (v Value) AsDate() (year, month, day int) {
	return int(v.i >> 9), int(v.i>>5) & 15, int(v.i & 31)
}

// AsTime returns a Datetime (in UTC) or Timestamp value as a time.Time.
func (v Value) AsTime() time.Time { return time.UnixMicro(v.i).UTC() }

// AsRef returns a Ref value's kind, address and length.
func (v Value) AsRef() (Kind, chunks.Address, uint64) {
	var a chunks.Address
	copy(a[:], v.s)
	return Kind(v.u), a, uint64(v.i)
}

// Equal reports whether a and b are the same value (with the same direction).
func (a Value) Equal(b Value) bool { return a == b }

// CompareValues orders two values the way their key encodings order:
// by kind number first, then by value, reversed for descending values.
// It is the reference the key encoding is tested against.
func CompareValues(a, b Value) int {
	if a.desc != b.desc {
		if a.desc {
			return 1
		}
		return -1
	}
	c := compareAsc(a, b)
	if a.desc {
		return -c
	}
	return c
}

func compareAsc(a, b Value) int {
	if a.kind != b.kind {
		return cmp.Compare(a.kind, b.kind)
	}
	switch a.kind {
	case KindNull:
		return 0
	case KindInt, KindDate, KindTime, KindDatetime, KindTimestamp:
		return cmp.Compare(a.i, b.i)
	case KindUint, KindEnum, KindSet:
		return cmp.Compare(a.u, b.u)
	case KindFloat64, KindFloat32:
		fa, fb := a.AsFloat64(), b.AsFloat64()
		na, nb := math.IsNaN(fa), math.IsNaN(fb)
		switch {
		case na && nb:
			return 0
		case na:
			return 1
		case nb:
			return -1
		}
		return cmp.Compare(fa, fb)
	case KindDecimal:
		return a.AsDecimal().Compare(b.AsDecimal())
	case KindString, KindBytes, KindJSON:
		return cmp.Compare(a.s, b.s)
	case KindRef:
		if c := cmp.Compare(a.u, b.u); c != 0 {
			return c
		}
		if c := cmp.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	}
	return 0
}

// CompareTuples compares two slices of values field by field; a shorter
// tuple that is a prefix of the other sorts first.
func CompareTuples(a, b []Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := CompareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func (v Value) String() string {
	var s string
	switch v.kind {
	case KindNull:
		s = "NULL"
	case KindInt, KindTime:
		s = fmt.Sprint(v.i)
	case KindUint, KindEnum, KindSet:
		s = fmt.Sprint(v.u)
	case KindFloat32, KindFloat64:
		s = fmt.Sprint(v.AsFloat64())
	case KindDecimal:
		s = v.AsDecimal().String()
	case KindString, KindJSON:
		s = fmt.Sprintf("%q", v.s)
	case KindBytes:
		s = fmt.Sprintf("%x", v.s)
	case KindDate:
		y, m, d := v.AsDate()
		s = fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	case KindDatetime, KindTimestamp:
		s = v.AsTime().Format("2006-01-02T15:04:05.999999")
	case KindRef:
		k, a, n := v.AsRef()
		s = fmt.Sprintf("%s@%s/%d", k, a, n)
	}
	if v.desc {
		return v.kind.String() + ":" + s + " desc"
	}
	return v.kind.String() + ":" + s
}
