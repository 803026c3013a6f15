package chunks

import (
	"bytes"
	"fmt"
	"testing"
)

// TestTableBuilder checks that a table built in memory is a table file as
// compaction writes them (parseTable reads it), that reading it in pieces
// gives every chunk back, and that a damaged record is refused.
func TestTableBuilder(t *testing.T) {
	var b TableBuilder
	want := map[Address][]byte{}
	for i := 0; i < 500; i++ {
		data := bytes.Repeat([]byte(fmt.Sprint(i)), i%50+1)
		want[Of(data)] = data
		b.Add(Of(data), data)
		b.Add(Of(data), data) // a second add is dropped
	}
	file := b.Finish()
	if b.Len() != 0 {
		t.Fatal("Finish leaves the builder full")
	}
	if _, err := parseTable(file); err != nil {
		t.Fatalf("a built table is no table file: %v", err)
	}
	v, err := CheckTableHeader(file)
	if err != nil {
		t.Fatal(err)
	}
	tail := file[int64(len(file))-TableTailSize(len(want)):]
	ti, err := ParseTableTail(tail, int64(len(file)), v)
	if err != nil || ti.Len() != len(want) {
		t.Fatalf("%v, %d entries", err, ti.Len())
	}
	for a, data := range want {
		i := ti.Find(a)
		if i < 0 {
			t.Fatalf("%s not found", a)
		}
		_, off, size := ti.Entry(i)
		got, err := ti.Decode(i, file[off:off+int64(size)])
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("chunk %s: %v", a, err)
		}
		rec := bytes.Clone(file[off : off+int64(size)])
		rec[1] ^= 1
		if _, err := ti.Decode(i, rec); !IsCorrupt(err) {
			t.Fatalf("a damaged record: %v", err)
		}
	}
	if ti.Find(Of([]byte("absent"))) >= 0 {
		t.Fatal("found an absent chunk")
	}
}
