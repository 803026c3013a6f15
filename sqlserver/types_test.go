package sqlserver

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/prolly"
)

// keyBytes is the key encoding of one engine value, with the collation sort
// key for strings, as table storage builds it.
func keyBytes(ctx context.Context, t sql.Type, v any) ([]byte, error) {
	pv, err := toValue(ctx, t, v)
	if err != nil {
		return nil, err
	}
	if st, ok := t.(sql.StringType); ok && pv.Kind() == prolly.KindString {
		if f := collationKeyFor(st.Collation()); f != nil {
			pv = prolly.Bytes(f(pv.AsString()))
		}
	}
	return prolly.EncodeKey(nil, pv), nil
}

func mustType(t sql.Type, err error) sql.Type {
	if err != nil {
		panic(err)
	}
	return t
}

type typeCase struct {
	t   sql.Type
	gen func(r *rand.Rand) any // a value the type's Convert accepts
}

func randString(r *rand.Rand, alphabet []string, max int) string {
	var s string
	for i, n := 0, r.Intn(max+1); i < n; i++ {
		s += alphabet[r.Intn(len(alphabet))]
	}
	return s
}

var letters = []string{"a", "A", "á", "Á", "b", "B", "z", "é", "E", " ", "ß", "0", "_"}

func typeCases() []typeCase {
	intGen := func(lo, hi int64) func(*rand.Rand) any {
		return func(r *rand.Rand) any {
			if r.Intn(8) == 0 {
				return []int64{lo, hi, 0, -1, 1}[r.Intn(5)]
			}
			span := uint64(hi-lo) + 1
			if span == 0 {
				return int64(r.Uint64())
			}
			return lo + int64(r.Uint64()%span)
		}
	}
	uintGen := func(hi uint64) func(*rand.Rand) any {
		return func(r *rand.Rand) any {
			if r.Intn(8) == 0 {
				return []uint64{0, 1, hi}[r.Intn(3)]
			}
			if hi == math.MaxUint64 {
				return r.Uint64()
			}
			return r.Uint64() % (hi + 1)
		}
	}
	dateGen := func(r *rand.Rand) any {
		return time.Date(1000+r.Intn(8000), time.Month(1+r.Intn(12)), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60), r.Intn(1e6)*1000, time.UTC)
	}
	return []typeCase{
		{types.Int8, intGen(math.MinInt8, math.MaxInt8)},
		{types.Int16, intGen(math.MinInt16, math.MaxInt16)},
		{types.Int24, intGen(-1<<23, 1<<23-1)},
		{types.Int32, intGen(math.MinInt32, math.MaxInt32)},
		{types.Int64, intGen(math.MinInt64, math.MaxInt64)},
		{types.Uint8, uintGen(math.MaxUint8)},
		{types.Uint16, uintGen(math.MaxUint16)},
		{types.Uint24, uintGen(1<<24 - 1)},
		{types.Uint32, uintGen(math.MaxUint32)},
		{types.Uint64, uintGen(math.MaxUint64)},
		{types.Year, func(r *rand.Rand) any { return int16(1901 + r.Intn(254)) }},
		{mustType(types.CreateBitType(8)), uintGen(255)},
		{types.Float32, func(r *rand.Rand) any { return float32(r.NormFloat64() * math.Pow(10, float64(r.Intn(20)-10))) }},
		{types.Float64, func(r *rand.Rand) any { return r.NormFloat64() * math.Pow(10, float64(r.Intn(200)-100)) }},
		{mustType(types.CreateDecimalType(10, 2)), func(r *rand.Rand) any {
			return fmt.Sprintf("%d.%02d", r.Int63n(2e7)-1e7, r.Intn(100))
		}},
		{mustType(types.CreateDecimalType(65, 30)), func(r *rand.Rand) any {
			return fmt.Sprintf("%d.%0*d", r.Int63()-r.Int63(), 1+r.Intn(29), r.Int63n(1e15))
		}},
		{types.Date, dateGen},
		{types.DatetimeMaxPrecision, dateGen},
		{types.TimestampMaxPrecision, func(r *rand.Rand) any {
			return time.Unix(r.Int63n(2e9), int64(r.Intn(1e6))*1000).UTC()
		}},
		{types.Time, func(r *rand.Rand) any {
			return fmt.Sprintf("%d:%02d:%02d.%06d", r.Intn(1600)-800, r.Intn(60), r.Intn(60), r.Intn(1e6))
		}},
		{mustType(types.CreateEnumType([]string{"red", "green", "blue"}, sql.Collation_Default)), func(r *rand.Rand) any {
			return []string{"red", "green", "blue"}[r.Intn(3)]
		}},
		{mustType(types.CreateSetType([]string{"x", "y", "z"}, sql.Collation_Default)), func(r *rand.Rand) any {
			return []string{"", "x", "y", "z", "x,y", "y,z", "x,y,z"}[r.Intn(7)]
		}},
		{mustType(types.CreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_bin)), func(r *rand.Rand) any { return randString(r, letters, 8) }},
		{mustType(types.CreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_ai_ci)), func(r *rand.Rand) any { return randString(r, letters, 8) }},
		{mustType(types.CreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_general_ci)), func(r *rand.Rand) any { return randString(r, letters, 8) }},
		{mustType(types.CreateString(sqltypes.Char, 10, sql.Collation_utf8mb4_general_ci)), func(r *rand.Rand) any { return randString(r, letters, 8) }},
		{types.Text, func(r *rand.Rand) any { return randString(r, letters, 30) }},
		{mustType(types.CreateBinary(sqltypes.VarBinary, 20)), func(r *rand.Rand) any {
			b := make([]byte, r.Intn(10))
			r.Read(b)
			return b
		}},
		{types.Blob, func(r *rand.Rand) any { return []byte(randString(r, letters, 30)) }},
	}
}

// TestTypesRoundTripAndOrder converts random values of every storable type
// to storage values and back (they compare equal), and checks that their
// keys sort as the engine compares the values.
func TestTypesRoundTripAndOrder(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(1))
	for _, tc := range typeCases() {
		t.Run(tc.t.String(), func(t *testing.T) {
			vals := make([]any, 200)
			for i := range vals {
				v, _, err := tc.t.Convert(ctx, tc.gen(r))
				if err != nil {
					t.Fatalf("convert: %v", err)
				}
				vals[i] = v
				pv, err := toValue(ctx, tc.t, v)
				if err != nil {
					t.Fatalf("toValue(%v): %v", v, err)
				}
				back, err := fromValue(tc.t, pv)
				if err != nil {
					t.Fatalf("fromValue(%v): %v", pv, err)
				}
				if c, err := tc.t.Compare(ctx, v, back); err != nil || c != 0 {
					t.Fatalf("%v (%T) came back as %v (%T)", v, v, back, back)
				}
				if fmt.Sprintf("%T", back) != fmt.Sprintf("%T", v) {
					t.Fatalf("%v is a %T, came back a %T", v, v, back)
				}
			}
			for i := 0; i < 2000; i++ {
				a, b := vals[r.Intn(len(vals))], vals[r.Intn(len(vals))]
				want, err := tc.t.Compare(ctx, a, b)
				if err != nil {
					t.Fatal(err)
				}
				ka, err := keyBytes(ctx, tc.t, a)
				if err != nil {
					t.Fatal(err)
				}
				kb, _ := keyBytes(ctx, tc.t, b)
				if got := bytes.Compare(ka, kb); got != want {
					t.Fatalf("Compare(%q, %q) = %d, key order %d", fmt.Sprint(a), fmt.Sprint(b), want, got)
				}
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	ctx := sql.NewEmptyContext()
	for _, doc := range []string{`{"a": 1, "b": [true, null, "x"]}`, `[]`, `"text"`, `3.5`} {
		v, _, err := types.JSON.Convert(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		pv, err := toValue(ctx, types.JSON, v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := fromValue(types.JSON, pv)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := types.JSON.Compare(ctx, v, back); err != nil || c != 0 {
			t.Fatalf("%s came back as %v (%v)", doc, back, err)
		}
	}
}

func TestUnsupportedType(t *testing.T) {
	if _, err := kindOf(types.PointType{}); err == nil {
		t.Fatal("POINT columns are not stored yet and must be refused")
	}
}
