package prolly

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
)

// keyKinds are the kinds a key may hold.
var keyKinds = []Kind{KindNull, KindInt, KindUint, KindFloat32, KindFloat64, KindDecimal,
	KindString, KindBytes, KindDate, KindTime, KindDatetime, KindTimestamp, KindEnum, KindSet}

// randValue returns a random value of kind k, drawn from small domains often
// so that ties and neighbours are common.
func randValue(r *rand.Rand, k Kind) Value {
	small := r.IntN(2) == 0
	switch k {
	case KindNull:
		return Null()
	case KindInt:
		if small {
			return Int(int64(r.IntN(600)) - 300)
		}
		edges := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 32, -257, -256, -255, -1, 0, 1, 255, 256, math.MaxInt64}
		if r.IntN(3) == 0 {
			return Int(edges[r.IntN(len(edges))])
		}
		return Int(int64(r.Uint64()) >> r.IntN(64))
	case KindUint:
		if small {
			return Uint(uint64(r.IntN(600)))
		}
		return Uint(r.Uint64() >> r.IntN(64))
	case KindFloat64:
		specials := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, 1, -1, 0.5}
		if small {
			return Float64(specials[r.IntN(len(specials))])
		}
		if r.IntN(2) == 0 {
			return Float64(math.Float64frombits(r.Uint64()))
		}
		return Float64(r.NormFloat64() * 1000)
	case KindFloat32:
		if small {
			return Float32(float32(r.IntN(20)-10) / 4)
		}
		return Float32(math.Float32frombits(r.Uint32()))
	case KindDecimal:
		n := r.IntN(8)
		digits := make([]byte, n)
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		s := string(digits)
		if s == "" {
			s = "0"
		}
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		d, err := ParseDecimal(s + "e" + string(rune('0'+r.IntN(10))))
		if r.IntN(2) == 0 {
			d, err = ParseDecimal(s + "e-" + string(rune('0'+r.IntN(10))))
		}
		if err != nil {
			panic(err)
		}
		return Dec(d)
	case KindString, KindBytes:
		alphabet := []byte{0, 1, 'a', 'b', 0xFF, 0xFE}
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if k == KindString {
			return String(string(b))
		}
		return Bytes(b)
	case KindDate:
		return Date(r.IntN(10000), r.IntN(13), r.IntN(32))
	case KindTime:
		return Time(time.Duration(r.Int64N(2*839*3600e6)-839*3600e6) * time.Microsecond)
	case KindDatetime:
		return Datetime(time.UnixMicro(r.Int64N(400e15) - 200e15))
	case KindTimestamp:
		return Timestamp(time.UnixMicro(r.Int64N(4e15)))
	case KindEnum:
		return Enum(uint16(r.IntN(70000)))
	case KindSet:
		return Set(r.Uint64() >> r.IntN(64))
	}
	panic("unknown kind")
}

// randSchema returns a random list of key kinds, some descending.
func randSchema(r *rand.Rand) (kinds []Kind, desc []bool) {
	n := 1 + r.IntN(4)
	for i := 0; i < n; i++ {
		kinds = append(kinds, keyKinds[r.IntN(len(keyKinds))])
		desc = append(desc, r.IntN(4) == 0)
	}
	return kinds, desc
}

func randTuple(r *rand.Rand, kinds []Kind, desc []bool) []Value {
	out := make([]Value, len(kinds))
	for i, k := range kinds {
		if r.IntN(10) == 0 {
			k = KindNull
		}
		out[i] = randValue(r, k)
		if desc[i] {
			out[i] = out[i].Desc()
		}
	}
	return out
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// checkKeyPair checks the round trip of a and b and that their encodings
// order like the tuples.
func checkKeyPair(t testing.TB, a, b []Value) {
	t.Helper()
	ea, eb := EncodeKey(nil, a...), EncodeKey(nil, b...)
	for _, c := range []struct {
		enc  []byte
		vals []Value
	}{{ea, a}, {eb, b}} {
		got, err := DecodeKey(c.enc)
		if err != nil {
			t.Fatalf("DecodeKey(%x) of %v: %v", c.enc, c.vals, err)
		}
		if CompareTuples(got, c.vals) != 0 || len(got) != len(c.vals) {
			t.Fatalf("round trip of %v gave %v", c.vals, got)
		}
		for i := range got {
			if !got[i].Equal(c.vals[i]) {
				t.Fatalf("round trip of %v gave %v (field %d)", c.vals, got, i)
			}
		}
	}
	if want, got := sign(CompareTuples(a, b)), sign(bytes.Compare(ea, eb)); want != got {
		t.Fatalf("compare(%v, %v) = %d but bytes.Compare(%x, %x) = %d", a, b, want, ea, eb, got)
	}
	if (CompareTuples(a, b) == 0) != bytes.Equal(ea, eb) {
		t.Fatalf("equal tuples %v, %v with different encodings", a, b)
	}
}

func TestKeyOrderRandom(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d (replay: set seed in TestKeyOrderRandom)", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	for i := 0; i < 20000; i++ {
		kinds, desc := randSchema(r)
		checkKeyPair(t, randTuple(r, kinds, desc), randTuple(r, kinds, desc))
	}
}

func TestKeyExamples(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{Null(), "01"},
		{Int(0), "1080"},
		{Int(-1), "107f"},
		{Int(1), "108101"},
		{Int(-2), "107efe"},
		{Int(256), "10820100"},
		{Uint(0), "1100"},
		{String("a\x00b"), "156100ff620001"},
		{String(""), "150001"},
		{Int(1).Desc(), "ef7efe"},
		{Dec(MustParseDecimal("0")), "1402"},
		{Dec(MustParseDecimal("1.5")), "140381011200"},
		{Float64(math.Copysign(0, -1)), "138000000000000000"},
	}
	for _, c := range cases {
		if got := EncodeKey(nil, c.v); hexs(got) != c.want {
			t.Errorf("EncodeKey(%v) = %s, want %s", c.v, hexs(got), c.want)
		}
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestKeyOrderedSequences(t *testing.T) {
	// Values listed in ascending order must encode ascending.
	ordered := [][]Value{
		{Null(), Int(math.MinInt64), Int(-65536), Int(-257), Int(-256), Int(-1), Int(0), Int(1), Int(255), Int(256), Int(math.MaxInt64)},
		{Float64(math.Inf(-1)), Float64(-1), Float64(math.Copysign(0, -1)), Float64(math.SmallestNonzeroFloat64), Float64(1), Float64(math.Inf(1)), Float64(math.NaN())},
		{String(""), String("\x00"), String("\x00\x00"), String("\x00\x01"), String("a"), String("a\x00"), String("ab"), String("b")},
		{Dec(MustParseDecimal("-100")), Dec(MustParseDecimal("-99.5")), Dec(MustParseDecimal("-0.001")), Dec(MustParseDecimal("0")), Dec(MustParseDecimal("0.1")), Dec(MustParseDecimal("0.12")), Dec(MustParseDecimal("0.2")), Dec(MustParseDecimal("1")), Dec(MustParseDecimal("10")), Dec(MustParseDecimal("11"))},
		{Date(1999, 12, 31), Date(2000, 0, 0), Date(2000, 1, 1)},
	}
	for _, seq := range ordered {
		for i := 1; i < len(seq); i++ {
			a, b := seq[i-1], seq[i]
			if bytes.Compare(EncodeKey(nil, a), EncodeKey(nil, b)) >= 0 && CompareValues(a, b) != 0 {
				t.Errorf("%v should encode before %v", a, b)
			}
			checkKeyPair(t, []Value{a}, []Value{b})
			checkKeyPair(t, []Value{a.Desc()}, []Value{b.Desc()})
		}
	}
}

func TestDecimalParse(t *testing.T) {
	for in, want := range map[string]string{
		"1.50": "1.5", "-0.0150": "-0.015", "+3.5e-3": "0.0035", "0.000": "0", "-0": "0",
		"1200": "1200", "12e2": "1200", "007": "7", ".5": "0.5", "5.": "5",
	} {
		d, err := ParseDecimal(in)
		if err != nil || d.String() != want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "-", ".", "1.2.3", "abc", "1e", "1e99999999999"} {
		if _, err := ParseDecimal(in); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", in)
		}
	}
}

func TestDecodeKeyErrors(t *testing.T) {
	for _, h := range []string{"10", "1081", "108100", "1101", "110100", "15", "1561", "150002", "14", "1404", "13000000", "1403800c", "14038000", "1403810200", "1403810c00", "00", "7f"} {
		b := unhex(t, h)
		if _, err := DecodeKey(b); err == nil {
			t.Errorf("DecodeKey(%s) succeeded", h)
		}
	}
}

func unhex(t testing.TB, s string) []byte {
	out := make([]byte, len(s)/2)
	for i := range out {
		var c byte
		for _, d := range s[2*i : 2*i+2] {
			c <<= 4
			switch {
			case d >= '0' && d <= '9':
				c |= byte(d - '0')
			case d >= 'a' && d <= 'f':
				c |= byte(d - 'a' + 10)
			default:
				t.Fatalf("bad hex %q", s)
			}
		}
		out[i] = c
	}
	return out
}

func TestTupleRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	kinds := append(append([]Kind{}, keyKinds...), KindJSON)
	for i := 0; i < 5000; i++ {
		n := r.IntN(10)
		vals := make([]Value, n)
		for j := range vals {
			k := kinds[r.IntN(len(kinds))]
			if k == KindJSON {
				vals[j] = JSON([]byte(`{"a":1}`))
			} else {
				vals[j] = randValue(r, k)
			}
		}
		if r.IntN(20) == 0 && n > 0 {
			vals[0] = Bytes(make([]byte, 70000))
		}
		enc := EncodeTuple(nil, vals...)
		got, err := DecodeTuple(enc)
		if err != nil {
			t.Fatalf("DecodeTuple(%v): %v", vals, err)
		}
		if len(got) != n {
			t.Fatalf("DecodeTuple(%v) gave %d fields", vals, len(got))
		}
		for j := range got {
			if !got[j].Equal(vals[j]) {
				t.Fatalf("field %d: got %v want %v", j, got[j], vals[j])
			}
			f, err := Tuple(enc).Field(j)
			if err != nil || !f.Equal(vals[j]) {
				t.Fatalf("Field(%d) = %v, %v; want %v", j, f, err, vals[j])
			}
		}
	}
}

func TestTupleRef(t *testing.T) {
	var a [20]byte
	a[3] = 7
	v := Ref(KindJSON, a, 123456)
	got, err := DecodeTuple(EncodeTuple(nil, Int(1), v, Null()))
	if err != nil || !got[1].Equal(v) || !got[2].IsNull() {
		t.Fatalf("got %v, %v", got, err)
	}
	k, addr, n := got[1].AsRef()
	if k != KindJSON || addr != a || n != 123456 {
		t.Fatalf("AsRef = %v %v %v", k, addr, n)
	}
}

// FuzzKeyOrder checks the round trip and the order of two random tuples of
// one random schema: sign(bytes.Compare(enc(a), enc(b))) == sign(compare(a, b)).
func FuzzKeyOrder(f *testing.F) {
	for i := uint64(0); i < 8; i++ {
		f.Add(i, i*7+1, i*13+2)
	}
	f.Fuzz(func(t *testing.T, schemaSeed, seedA, seedB uint64) {
		kinds, desc := randSchema(rand.New(rand.NewPCG(schemaSeed, 0)))
		a := randTuple(rand.New(rand.NewPCG(seedA, 0)), kinds, desc)
		b := randTuple(rand.New(rand.NewPCG(seedB, 0)), kinds, desc)
		checkKeyPair(t, a, b)
	})
}

// FuzzDecodeKey feeds arbitrary bytes to DecodeKey: it must not panic, and
// whatever it accepts must re-encode to the same bytes (one encoding per
// value).
func FuzzDecodeKey(f *testing.F) {
	f.Add([]byte{0x10, 0x81, 0x01})
	f.Add(EncodeKey(nil, String("a\x00"), Dec(MustParseDecimal("-12.5")).Desc(), Float32(1.5), Date(2024, 2, 29)))
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := DecodeKey(b)
		if err != nil {
			return
		}
		if re := EncodeKey(nil, vals...); !bytes.Equal(re, b) {
			t.Fatalf("DecodeKey(%x) = %v, which encodes to %x", b, vals, re)
		}
	})
}

// FuzzDecodeTuple does the same for the value encoding.
func FuzzDecodeTuple(f *testing.F) {
	f.Add(EncodeTuple(nil, Int(-5), Null(), String("x"), Dec(MustParseDecimal("3.25")), Float64(2)))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := DecodeTuple(b)
		for i := 0; i < 4; i++ {
			_, _ = Tuple(b).Field(i)
		}
		if err != nil {
			return
		}
		if re := EncodeTuple(nil, vals...); !bytes.Equal(re, b) {
			t.Fatalf("DecodeTuple(%x) = %v, which encodes to %x", b, vals, re)
		}
	})
}

func TestLargeValues(t *testing.T) {
	ctx := context.Background()
	ns := NewNodeStore(chunks.NewMemoryStore())
	r := rand.New(rand.NewPCG(testSeed(t), 9))
	for _, n := range []int{0, 100, LargeInlineLimit, LargeInlineLimit + 1, 4096, 100000, 1 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		v, err := PutLarge(ctx, ns, KindBytes, data)
		if err != nil {
			t.Fatal(err)
		}
		if (v.Kind() == KindRef) != (n > LargeInlineLimit) {
			t.Fatalf("%d bytes stored as %s", n, v.Kind())
		}
		row, err := DecodeTuple(EncodeTuple(nil, Int(1), v))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadLarge(ctx, ns, row[1])
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
	}
}
