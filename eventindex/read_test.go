package eventindex

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/internal/testseed"
	"github.com/verso-db/verso/prolly"
)

// TestReadLargePages reads logs big enough for concurrent page fetches
// and compares every filter with a filtered scan of the whole log.
func TestReadLargePages(t *testing.T) {
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
	b := l.Batch()
	for i := 0; i < 120; i++ {
		var evs []EventData
		for j := 0; j < 50; j++ {
			evs = append(evs, EventData{Type: fmt.Sprintf("T%d", (i*7+j)%5), Data: []byte(`{}`)})
		}
		if _, err := b.Append(ctx, fmt.Sprintf("c%d-%d", i%3, i%11), Any, evs); err != nil {
			t.Fatal(err)
		}
	}
	l = mustLog(t, b)
	all, _, err := l.Read(ctx, Filter{}, 1<<20)
	if err != nil || len(all) != 6000 {
		t.Fatal(len(all), err)
	}
	for _, f := range []Filter{
		{Category: "c1"}, {Type: "T2"}, {Category: "c2", Type: "T3"}, {StreamPrefix: "c"},
		{Stream: "c1-4"}, {Type: "T1", From: 1000, To: 4000}, {Category: "c0", StreamPrefix: "c0-1"},
		{Category: "c1", Type: "T4", From: 700, To: 5000}, {Category: "c0", Type: "T0", From: 2500},
	} {
		var want []Event
		for _, e := range all {
			if f.Match(&e) {
				want = append(want, e)
			}
		}
		for _, limit := range []int{300, 2000} {
			got := readPaged(t, l, f, limit)
			if a, b := fmtEvents(got), fmtEvents(want); a != b {
				t.Fatalf("%+v limit %d: got %d events, want %d", f, limit, len(got), len(want))
			}
		}
	}
}

// TestCheckFindsDamage removes one entry of each index behind the log's
// back: Check must notice every one.
func TestCheckFindsDamage(t *testing.T) {
	l, _ := newTestLog(t)
	l = appendAll(t, l, "a-1", "X", "Y")
	l = appendAll(t, l, "b-1", "X")
	e, ok, err := l.event(ctx, 2)
	if err != nil || !ok {
		t.Fatal(err)
	}
	for i, k := range [][]byte{logKey(2), streamKey("a-1", 1), namePosKey("a", 2), namePosKey("Y", 2), idKey("a-1", e.ID)} {
		bad := l
		m := bad.maps()[i]
		nm, err := m.Delete(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		*m = nm
		if err := bad.Check(ctx, false); !errors.Is(err, ErrCheck) {
			t.Fatalf("%s without one entry: %v", Names[i], err)
		}
	}
	// A dangling entry: the category index points to a missing position.
	bad := l
	if bad.byCat, err = bad.byCat.Put(ctx, namePosKey("a", 9), nil); err != nil {
		t.Fatal(err)
	}
	if err := bad.Check(ctx, false); !errors.Is(err, ErrCheck) {
		t.Fatal(err)
	}
	// Cross values that do not hash the event's other name, or are not
	// cross values at all; the empty value (before cross values) passes.
	for _, c := range []struct {
		v    []byte
		good bool
	}{{encodeCross("X"), false}, {encodeCross("Y"), true}, {nil, true}, {[]byte{1, 2}, false}} {
		bad := l
		if bad.byCat, err = bad.byCat.Put(ctx, namePosKey("a", 2), c.v); err != nil {
			t.Fatal(err)
		}
		if err := bad.Check(ctx, false); (err == nil) != c.good {
			t.Fatalf("category value %x: %v", c.v, err)
		}
		bad = l
		if bad.byType, err = bad.byType.Put(ctx, namePosKey("Y", 2), encodeCross("b")); err != nil {
			t.Fatal(err)
		}
		if err := bad.Check(ctx, false); !errors.Is(err, ErrCheck) {
			t.Fatalf("type value of another category: %v", err)
		}
	}
}

// TestReadOldIndexValues reads a log whose category and type entries have
// empty values, as logs written before cross values do: every filter
// reads what it reads from a log written now, and Check passes.
func TestReadOldIndexValues(t *testing.T) {
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
	b := l.Batch()
	for i := 0; i < 200; i++ {
		var evs []EventData
		for j := 0; j < 20; j++ {
			evs = append(evs, EventData{Type: fmt.Sprintf("T%d", (i*3+j)%7), Data: []byte(`{}`)})
		}
		if _, err := b.Append(ctx, fmt.Sprintf("c%d-%d", i%5, i%13), Any, evs); err != nil {
			t.Fatal(err)
		}
	}
	l = mustLog(t, b)
	old := l
	for _, m := range []*prolly.Map{&old.byCat, &old.byType} {
		var edits []prolly.Edit
		it := m.IterAll(ctx)
		for it.Next(ctx) {
			edits = append(edits, prolly.Edit{Key: slices.Clone(it.Key()), Value: nil})
		}
		var err error
		if *m, err = m.Apply(ctx, edits); err != nil {
			t.Fatal(err)
		}
	}
	if old.byCat.Address() == l.byCat.Address() || old.byType.Address() == l.byType.Address() {
		t.Fatal("values not emptied")
	}
	if err := old.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Filter{{Category: "c1"}, {Type: "T2"}, {Category: "c2", Type: "T3"}, {Category: "c4", Type: "T0", From: 900, To: 3000}} {
		for _, limit := range []int{7, 300, 2000} {
			want, wantNext, err := l.Read(ctx, f, limit)
			if err != nil {
				t.Fatal(err)
			}
			got, gotNext, err := old.Read(ctx, f, limit)
			if err != nil {
				t.Fatal(err)
			}
			if fmtEvents(got) != fmtEvents(want) || len(want) == 0 {
				t.Fatalf("%+v limit %d: old values read %d events, new %d", f, limit, len(got), len(want))
			}
			_, _ = gotNext, wantNext
		}
	}
	r, err := Rebuild(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equal(l) {
		t.Fatal("an old log does not rebuild to the current format")
	}
}

func TestStoreRetention(t *testing.T) {
	s, _ := newTestStore(t, chunks.NewMemoryStore())
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.SetClock(clk.now)
	for i := 0; i < 3; i++ {
		if _, err := s.Append(ctx, "a-1", Any, []EventData{{Type: "X"}, {Type: "Y"}}); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(time.Minute)
	}
	if err := s.SetStreamMetadata(ctx, "a-1", StreamMetadata{MaxCount: 5}); err != nil {
		t.Fatal(err)
	}
	if n := s.Log().Count(); n != 5 {
		t.Fatal(n)
	}
	if err := s.SetStreamMetadata(ctx, "a-1", StreamMetadata{MaxAge: 90 * time.Second}); err != nil {
		t.Fatal(err)
	}
	// Now 3 minutes after the first append: the events of minutes 0 and 1
	// are too old. The metadata commit touched the stream, so they are gone.
	if n := s.Log().Count(); n != 2 {
		t.Fatal(n)
	}
	clk.t = clk.t.Add(time.Hour)
	evs, _, _ := s.Log().Read(ctx, Filter{Category: "a"}, 10)
	if len(evs) != 0 || s.Log().Count() != 2 {
		t.Fatalf("expired events visible: %d", len(evs))
	}
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.Log().Count(); n != 0 {
		t.Fatal(n)
	}
	if err := s.DeleteStream(ctx, "a-1", Exact(5), true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a-1", Any, []EventData{{Type: "X"}}); !errors.Is(err, ErrStreamDeleted) {
		t.Fatal(err)
	}
	if err := s.Log().Check(ctx, true); err != nil {
		t.Fatal(err)
	}
}

// TestAgeCacheFollowsStreams reads with a max age through two Logs that
// share one cache of max ages (as a Log and one made from it by hand
// would): each read sees its own Log's stream records, never the other's.
func TestAgeCacheFollowsStreams(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore())).WithClock(clk.now)
	b := l.Batch()
	for i := 0; i < 3; i++ {
		if _, err := b.Append(ctx, fmt.Sprintf("a-%d", i), Any, []EventData{{Type: "X"}}); err != nil {
			t.Fatal(err)
		}
	}
	// Other events, so that reads go by the category and type indexes.
	if _, err := b.Append(ctx, "b-0", Any, slices.Repeat([]EventData{{Type: "Y"}}, 10)); err != nil {
		t.Fatal(err)
	}
	old := mustLog(t, b)
	b = old.Batch()
	if err := b.SetStreamMetadata(ctx, "a-1", StreamMetadata{MaxAge: time.Minute}); err != nil {
		t.Fatal(err)
	}
	aged := mustLog(t, b)
	aged.ages = old.ages
	clk.t = clk.t.Add(time.Hour) // a-1's event is now hidden in aged, still stored
	for round := 0; round < 2; round++ {
		for _, c := range []struct {
			l    Log
			want int
		}{{aged, 2}, {old, 3}, {aged, 2}} {
			for _, f := range []Filter{{Type: "X"}, {Category: "a"}} {
				evs, _, err := c.l.Read(ctx, f, 10)
				if err != nil || len(evs) != c.want {
					t.Fatalf("round %d %+v: %d events, want %d (%v)", round, f, len(evs), c.want, err)
				}
			}
		}
	}
}

// TestReadCategoryAndType pages through category AND type reads of a log
// big enough for parallel scans, with many page sizes, and compares them
// with a filtered scan of the whole log; some index values are emptied
// (as written before cross values), so old and new entries mix.
func TestReadCategoryAndType(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 8))
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
	for round := 0; round < 2; round++ {
		b := l.Batch()
		for i := 0; i < 150; i++ {
			var evs []EventData
			for j := 0; j < 1+r.IntN(60); j++ {
				evs = append(evs, EventData{Type: fmt.Sprintf("T%d", r.IntN(6)), Data: []byte(`{}`)})
			}
			if _, err := b.Append(ctx, fmt.Sprintf("c%d-%d", r.IntN(4), r.IntN(9)), Any, evs); err != nil {
				t.Fatal(err)
			}
		}
		l = mustLog(t, b)
		if round == 1 {
			// The first round's entries keep their hashes: the read by
			// cross values needs one at the start of its range.
			for _, m := range []*prolly.Map{&l.byCat, &l.byType} {
				var edits []prolly.Edit
				it := m.IterAll(ctx)
				for it.Next(ctx) {
					if r.IntN(2) == 0 {
						edits = append(edits, prolly.Edit{Key: slices.Clone(it.Key()), Value: nil})
					}
				}
				var err error
				if *m, err = m.Apply(ctx, edits); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := l.Check(ctx, false); err != nil {
		t.Fatal(err)
	}
	all, _, err := l.Read(ctx, Filter{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 200; trial++ {
		f := Filter{Category: fmt.Sprintf("c%d", r.IntN(5)), Type: fmt.Sprintf("T%d", r.IntN(7))}
		if r.IntN(3) == 0 {
			f.From = Position(r.IntN(len(all)))
		}
		if r.IntN(3) == 0 {
			f.To = f.From + Position(r.IntN(len(all)))
		}
		var want []Event
		for _, e := range all {
			if f.Match(&e) {
				want = append(want, e)
			}
		}
		limit := 1 + r.IntN(700)
		got := readPaged(t, l, f, limit)
		if a, b := fmtEvents(got), fmtEvents(want); a != b {
			t.Fatalf("%+v limit %d: got %d events, want %d", f, limit, len(got), len(want))
		}
	}
}

// readPaged reads the events f selects in pages of limit, each page from
// where the last ended, as a client does.
func readPaged(t *testing.T, l Log, f Filter, limit int) []Event {
	t.Helper()
	var got []Event
	for {
		page, next, err := l.Read(t.Context(), f, limit)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if len(page) < limit {
			return got
		}
		f.From = next
	}
}
