package chunks

import (
	"bytes"
	"crypto/sha256"
	"fmt"
)

// AddressSize is the length in bytes of an Address.
const AddressSize = 20

// addressTextSize is the length of an Address's text form: 160 bits in
// base32, five bits per character.
const addressTextSize = 32

// alphabet is the base32 alphabet of an Address's text form. It is ordered
// like the digits and letters it holds, so the text forms of two addresses
// sort like their bytes.
const alphabet = "0123456789abcdefghijklmnopqrstuv"

// decodeTable maps a byte of text to its 5-bit value, or 0xFF.
var decodeTable = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// Address names a chunk: the first 20 bytes of the SHA-256 of its bytes.
// The zero Address means "empty" and names no chunk.
type Address [AddressSize]byte

// Of returns the address of the chunk whose bytes are data.
func Of(data []byte) Address {
	sum := sha256.Sum256(data)
	var a Address
	copy(a[:], sum[:AddressSize])
	return a
}

// IsEmpty reports whether a is the zero address.
func (a Address) IsEmpty() bool { return a == Address{} }

// Compare orders addresses by their bytes: -1, 0 or +1.
func (a Address) Compare(b Address) int { return bytes.Compare(a[:], b[:]) }

// String returns the 32-character base32 text form of a.
func (a Address) String() string {
	var out [addressTextSize]byte
	// 160 bits are 32 groups of 5 bits, read most significant first.
	var acc uint64
	bits := 0
	n := 0
	for _, b := range a {
		acc = acc<<8 | uint64(b)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out[n] = alphabet[(acc>>uint(bits))&31]
			n++
		}
	}
	return string(out[:])
}

// Format implements fmt.Formatter so that %v and %s print the text form.
func (a Address) Format(f fmt.State, verb rune) {
	switch verb {
	case 'x':
		fmt.Fprintf(f, "%x", a[:])
	default:
		_, _ = f.Write([]byte(a.String()))
	}
}

// ParseAddress parses the text form of an address (as printed by String).
// It accepts upper-case letters too.
func ParseAddress(s string) (Address, error) {
	var a Address
	if len(s) != addressTextSize {
		return a, fmt.Errorf("%w: %q has %d characters, an address has %d", ErrBadAddress, s, len(s), addressTextSize)
	}
	var acc uint64
	bits := 0
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		v := decodeTable[c]
		if v == 0xFF {
			return Address{}, fmt.Errorf("%w: %q has %q at position %d; an address uses only 0-9 and a-v", ErrBadAddress, s, s[i], i)
		}
		acc = acc<<5 | uint64(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			a[n] = byte(acc >> uint(bits))
			n++
		}
	}
	return a, nil
}

// MustParseAddress is ParseAddress for constants in tests and examples; it
// panics on bad input.
func MustParseAddress(s string) Address {
	a, err := ParseAddress(s)
	if err != nil {
		panic(fmt.Sprintf("chunks.MustParseAddress: %v", err))
	}
	return a
}

// AddressSet is a set of addresses.
type AddressSet map[Address]struct{}

// Has reports whether the set holds a.
func (s AddressSet) Has(a Address) bool { _, ok := s[a]; return ok }

// Add inserts a into the set.
func (s AddressSet) Add(a Address) { s[a] = struct{}{} }
