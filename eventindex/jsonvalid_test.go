package eventindex

import (
	"encoding/json"
	"strings"
	"testing"
)

var jsonCases = []string{
	``, ` `, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-0.0e0`, `.5`, `+1`,
	`"`, `""`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"\t\"", "\"\xff\xfe\"", `"\/\b\f\n\r\t\\"`,
	`true`, `tru`, `truee`, `false`, `null`, `nul`, `NULL`,
	`[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`, `[`, `]`,
	`{}`, `{ }`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":{"b":[1,{"c":null}]}}`,
	` {"a" : [ 1 , 2 ] } `, "\n\r\t[1]\n", `1 2`, `{} {}`, `[1]x`, "\x00", `{"a":"b"`,
}

func TestValidJSONMatchesEncodingJSON(t *testing.T) {
	cases := append([]string(nil), jsonCases...)
	cases = append(cases, string(loadPayload(7)),
		strings.Repeat("[", maxJSONDepth)+strings.Repeat("]", maxJSONDepth),
		strings.Repeat("[", maxJSONDepth+1)+strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat(`{"a":`, maxJSONDepth)+"1"+strings.Repeat("}", maxJSONDepth),
		strings.Repeat(`{"a":`, maxJSONDepth+1)+"1"+strings.Repeat("}", maxJSONDepth+1))
	for _, c := range cases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.60q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Add(loadPayload(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	p := loadPayload(12345)
	b.Run("validJSON", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			validJSON(p)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			json.Valid(p)
		}
	})
}
