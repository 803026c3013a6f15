package prolly

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number of any precision, in canonical form:
// value = (-1 if neg) * 0.digits * 10^exp, where digits has no leading or
// trailing zero. Zero has no digits and is never negative. The zero Decimal
// is 0.
type Decimal struct {
	neg    bool
	digits string
	exp    int32
}

// ParseDecimal parses text such as "12", "-0.0150", "+3.5e-7". Scale (the
// number of written fraction digits) is not kept: "1.50" and "1.5" are the
// same Decimal.
func ParseDecimal(s string) (Decimal, error) {
	orig := s
	bad := func() (Decimal, error) { return Decimal{}, fmt.Errorf("%w: %q", ErrBadDecimal, orig) }
	var d Decimal
	if s != "" && (s[0] == '-' || s[0] == '+') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	var e int64
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		x, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil {
			return bad()
		}
		e = x
		s = s[:i]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	if intPart == "" && frac == "" {
		return bad()
	}
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return bad()
		}
	}
	all := intPart + frac
	e += int64(len(intPart))
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	all = all[lead:]
	e -= int64(lead)
	all = strings.TrimRight(all, "0")
	if all == "" {
		return Decimal{}, nil
	}
	if e > 1<<30 || e < -(1<<30) {
		return bad()
	}
	d.digits, d.exp = all, int32(e)
	return d, nil
}

// MustParseDecimal is ParseDecimal for constants; it panics on bad text.
func MustParseDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(fmt.Sprintf("prolly.MustParseDecimal: %v", err))
	}
	return d
}

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.digits == "" }

// Compare orders two decimals by value: -1, 0 or +1.
func (d Decimal) Compare(e Decimal) int {
	sd, se := d.sign(), e.sign()
	if sd != se {
		return cmp.Compare(sd, se)
	}
	if sd == 0 {
		return 0
	}
	c := cmp.Compare(d.exp, e.exp)
	if c == 0 {
		c = cmp.Compare(d.digits, e.digits)
	}
	return c * sd
}

func (d Decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// String returns d in plain notation ("-0.015", "1200").
func (d Decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	n := int64(len(d.digits))
	e := int64(d.exp)
	switch {
	case e > 64 || e < -64:
		fmt.Fprintf(&b, "0.%se%d", d.digits, e)
	case e <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-e)))
		b.WriteString(d.digits)
	case e >= n:
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", int(e-n)))
	default:
		b.WriteString(d.digits[:e])
		b.WriteByte('.')
		b.WriteString(d.digits[e:])
	}
	return b.String()
}
