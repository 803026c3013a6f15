package eventindex

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

var ctx = context.Background()

// testClock is a settable clock for tests.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func newTestLog(t testing.TB) (Log, *testClock) {
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return NewLog(prolly.NewNodeStore(chunks.NewMemoryStore())).WithClock(clk.now), clk
}

func ev(typ string, id byte) EventData {
	var e EventData
	e.Type = typ
	e.Data = []byte(fmt.Sprintf(`{"n":%d}`, id))
	if id != 0 {
		e.ID[15] = id
		e.ID[0] = 0xee
	}
	return e
}

func mustLog(t testing.TB, b *Batch) Log {
	t.Helper()
	l, err := b.Log(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestAppendAndRead(t *testing.T) {
	l, _ := newTestLog(t)
	b := l.Batch()
	r, err := b.Append(ctx, "order-1", NoStream, []EventData{ev("Placed", 1), ev("Paid", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Positions) != "[1 2]" || r.NextExpected != 1 {
		t.Fatalf("result %+v", r)
	}
	if _, err := b.Append(ctx, "user-7", Any, []EventData{ev("Created", 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "order-2", NoStream, []EventData{ev("Placed", 4)}); err != nil {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	if l.Count() != 4 || l.NextPosition() != 5 {
		t.Fatalf("count %d next %d", l.Count(), l.NextPosition())
	}
	evs, err := l.ReadStream(ctx, "order-1", 0, 10, false)
	if err != nil || len(evs) != 2 || evs[0].Type != "Placed" || evs[1].Number != 1 {
		t.Fatalf("%v %+v", err, evs)
	}
	evs, err = l.ReadStream(ctx, "order-1", 100, 10, true)
	if err != nil || len(evs) != 2 || evs[0].Type != "Paid" {
		t.Fatalf("%v %+v", err, evs)
	}
	if _, err := l.ReadStream(ctx, "nope", 0, 10, false); !errors.Is(err, ErrStreamNotFound) {
		t.Fatal(err)
	}
	read := func(name string, f Filter) string {
		t.Helper()
		if name != "" {
			var err error
			if f, err = ParseFilter(name); err != nil {
				t.Fatal(err)
			}
		}
		evs, _, err := l.Read(ctx, f, 100)
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, e := range evs {
			s += fmt.Sprintf("%d:%s/%d:%s ", e.Position, e.Stream, e.Number, e.Type)
		}
		return s
	}
	for _, c := range []struct {
		name string
		f    Filter
		want string
	}{
		{"$all", Filter{}, "1:order-1/0:Placed 2:order-1/1:Paid 3:user-7/0:Created 4:order-2/0:Placed "},
		{"$idx-ce-order", Filter{}, "1:order-1/0:Placed 2:order-1/1:Paid 4:order-2/0:Placed "},
		{"$idx-et-Placed", Filter{}, "1:order-1/0:Placed 4:order-2/0:Placed "},
		{"user-7", Filter{}, "3:user-7/0:Created "},
		{"", Filter{Category: "order", Type: "Placed", From: 2}, "4:order-2/0:Placed "},
		{"", Filter{StreamPrefix: "ord"}, "1:order-1/0:Placed 2:order-1/1:Paid 4:order-2/0:Placed "},
		{"", Filter{StreamPrefix: "order-2"}, "4:order-2/0:Placed "},
		{"", Filter{StreamPrefix: "u", To: 3}, ""},
		{"", Filter{Type: "Placed", Stream: "order-1"}, "1:order-1/0:Placed "},
	} {
		if got := read(c.name, c.f); got != c.want {
			t.Errorf("%s %+v: got %q want %q", c.name, c.f, got, c.want)
		}
	}
}

func TestExpectedVersions(t *testing.T) {
	l, _ := newTestLog(t)
	b := l.Batch()
	_, err := b.Append(ctx, "s-1", StreamExists, []EventData{ev("A", 0)})
	var wev *WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Stream != "s-1" || wev.Actual != -1 || wev.Expected != StreamExists {
		t.Fatalf("%v", err)
	}
	if _, err := b.Append(ctx, "s-1", Exact(0), []EventData{ev("A", 0)}); !errors.Is(err, ErrWrongExpectedVersion) {
		t.Fatal(err)
	}
	r, err := b.Append(ctx, "s-1", NoStream, []EventData{ev("A", 1), ev("B", 2)})
	if err != nil {
		t.Fatal(err)
	}
	// Idempotent repeat at the same place.
	r2, err := b.Append(ctx, "s-1", NoStream, []EventData{ev("A", 1), ev("B", 2)})
	if err != nil || fmt.Sprint(r2.Positions) != fmt.Sprint(r.Positions) || r2.NextExpected != 1 {
		t.Fatalf("%v %+v", err, r2)
	}
	// The same id in another stream is another event: idempotency is per
	// stream.
	if _, err := b.Append(ctx, "s-2", Any, []EventData{ev("A", 1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-1", Exact(1), []EventData{ev("A", 1)}); !errors.Is(err, ErrDuplicateEventID) {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-1", Exact(1), []EventData{ev("C", 3), ev("C", 3)}); !errors.Is(err, ErrDuplicateEventID) {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-1", Exact(1), []EventData{ev("C", 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "$s", Any, []EventData{ev("C", 0)}); !errors.Is(err, ErrReserved) {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-3", Any, []EventData{ev("$C", 0)}); !errors.Is(err, ErrReserved) {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-3", Any, []EventData{{Type: "x", Data: []byte("{")}}); !errors.Is(err, ErrBadJSON) {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	if l.Count() != 4 {
		t.Fatal(l.Count())
	}
	// Across batches, idempotency still holds.
	b = l.Batch()
	if _, err := b.Append(ctx, "s-1", Exact(1), []EventData{ev("C", 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s-1", StreamExists, []EventData{ev("D", 0)}); err != nil {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	if l.Count() != 5 {
		t.Fatal(l.Count())
	}
}
