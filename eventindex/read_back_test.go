package eventindex

import (
	"fmt"
	"slices"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// TestReadBackwards pages backwards through logs with gaps (retention)
// and compares every page with a forward read reversed.
func TestReadBackwards(t *testing.T) {
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
	b := l.Batch()
	for i := 0; i < 40; i++ {
		var evs []EventData
		for j := 0; j < 25; j++ {
			evs = append(evs, EventData{Type: fmt.Sprintf("T%d", (i+j)%3)})
		}
		if _, err := b.Append(ctx, fmt.Sprintf("c%d-%d", i%2, i%5), Any, evs); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.SetStreamMetadata(ctx, "c1-3", StreamMetadata{MaxCount: 10}); err != nil {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	for _, f := range []Filter{{}, {From: 100, To: 700}, {Type: "T1"}, {Category: "c1", From: 3}, {To: 1}, {From: 2000}} {
		want, _, err := l.Read(ctx, f, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(want)
		for _, page := range []int{1, 7, 100, 5000} {
			var got []Event
			g := f
			for {
				evs, next, err := l.ReadBackwards(ctx, g, page)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, evs...)
				if next == 0 {
					break
				}
				if len(evs) != page {
					t.Fatalf("%+v page %d: a short page (%d) with more to read", f, page, len(evs))
				}
				g.To = next
			}
			if len(got) != len(want) {
				t.Fatalf("%+v page %d: %d events, want %d", f, page, len(got), len(want))
			}
			for i := range got {
				if got[i].Position != want[i].Position {
					t.Fatalf("%+v page %d: event %d at %d, want %d", f, page, i, got[i].Position, want[i].Position)
				}
			}
		}
	}
}
