package verso

import (
	"errors"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// TestObjectGolden pins the bytes and the address of a fixed view object:
// every database holding views, triggers, procedures, foreign keys or
// table options stores this format.
func TestObjectGolden(t *testing.T) {
	b := EncodeObject("view", String("SELECT 1"), String("CREATE VIEW v AS SELECT 1"), String(""))
	if got, want := chunks.Of(b).String(), objectGoldenAddr; got != want {
		t.Fatalf("the object chunk's address changed: %s, want %s (bytes % x)", got, want, b)
	}
	o, err := DecodeObject("v", "view", []Kind{KindString, KindString, KindString}, b)
	if err != nil || o.Fields[1].AsString() != "CREATE VIEW v AS SELECT 1" {
		t.Fatalf("decode: %+v %v", o, err)
	}
	for _, bad := range [][]byte{nil, []byte("VRSOOBJ"), append([]byte("VRSOOBJ"), 2), b[:len(b)-1], append([]byte("XRSOOBJ"), b[7:]...)} {
		if _, err := DecodeObject("v", "view", []Kind{KindString, KindString, KindString}, bad); !errors.Is(err, ErrBadObject) || !chunks.IsCorrupt(err) {
			t.Errorf("% x decoded: %v", bad, err)
		}
	}
	if _, err := DecodeObject("v", "trigger", []Kind{KindString, KindString, KindString}, b); !errors.Is(err, ErrBadObject) {
		t.Errorf("a view decoded as a trigger: %v", err)
	}
}

const objectGoldenAddr = "mhtq3qgqbod0svuj8ionfvf75c7p8hv0"

// FuzzDecodeObject: any bytes decode to an object or an ErrBadObject,
// never a panic; what decodes encodes back to the same bytes.
func FuzzDecodeObject(f *testing.F) {
	f.Add(EncodeObject("view", String("a"), String("b"), String("c")))
	f.Add(EncodeObject("tableopts", String(""), String("utf8mb4_0900_bin")))
	f.Add([]byte("VRSOOBJ\x01"))
	kinds := []Kind{KindString, KindString, KindString}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeObject("x", "view", kinds, b)
		if err != nil {
			if !errors.Is(err, ErrBadObject) {
				t.Fatalf("error not marked: %v", err)
			}
			return
		}
		if got := EncodeObject(o.Kind, o.Fields...); string(got) != string(b) {
			vals, _ := prolly.DecodeTuple(b[8:])
			t.Fatalf("re-encoding changed the bytes: % x -> % x (%v)", b, got, vals)
		}
	})
}
