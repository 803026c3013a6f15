package chunks

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// TestAddressGolden pins the address and text form of fixed inputs: a change
// here changes every address verso has ever written. The expected text was
// computed independently: the base32hex of the first 20 bytes of SHA-256.
func TestAddressGolden(t *testing.T) {
	for _, c := range []struct{ data, text string }{
		{"", "seoc8gkovge196nruj49irtp4gjqsgf4"},
		{"verso", "to8jefi8ac400jtio410on1lk60ek1mm"},
	} {
		if got := Of([]byte(c.data)).String(); got != c.text {
			t.Errorf("Of(%q) = %s, want %s", c.data, got, c.text)
		}
	}
}

func TestAddressText(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 1000; i++ {
		var a Address
		r.Read(a[:])
		s := a.String()
		if len(s) != 32 || strings.Trim(s, alphabet) != "" {
			t.Fatalf("bad text form %q", s)
		}
		b, err := ParseAddress(s)
		if err != nil || b != a {
			t.Fatalf("round trip of %s: %s, %v", s, b, err)
		}
		if u, err := ParseAddress(strings.ToUpper(s)); err != nil || u != a {
			t.Fatalf("upper-case %s: %v", s, err)
		}
		// The text forms sort like the bytes.
		var c Address
		r.Read(c[:])
		if (a.Compare(c) < 0) != (s < c.String()) {
			t.Fatalf("text order differs from byte order for %s, %s", a, c)
		}
	}
	if (Address{}).String() != "00000000000000000000000000000000" || !(Address{}).IsEmpty() {
		t.Fatal("zero address")
	}
}

func TestParseAddressErrors(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{"", "0 characters"},
		{"abc", "3 characters"},
		{"gugi61g7enk0d3j483l125o667kg07s3x", "33 characters"},
		{"gugi61g7enk0d3j483l125o667kg07sw", `'w' at position 31`},
		{"gugi61g7enk0d3j483l125o6-7kg07s3", `'-' at position 24`},
	} {
		_, err := ParseAddress(c.in)
		if !errors.Is(err, ErrBadAddress) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseAddress(%q) = %v, want an error saying %s", c.in, err, c.says)
		}
	}
}
