package eventindex

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// modelPairs counts the events of each (category, type) pair by reading
// every event: the reference PairStats is checked against.
func modelPairs(t *testing.T, l Log) map[[2]string]PairStats {
	t.Helper()
	out := map[[2]string]PairStats{}
	it := l.log.IterAll(ctx)
	for it.Next(ctx) {
		p, err := decodeLogKey(it.Key())
		if err != nil {
			t.Fatal(err)
		}
		e, err := decodeEvent(p, it.Value())
		if err != nil {
			t.Fatal(err)
		}
		k := [2]string{Category(e.Stream), e.Type}
		s, ok := out[k]
		if !ok {
			s = PairStats{Category: k[0], Type: k[1]}
			s.FirstPosition, s.FirstCreated = e.Position, e.Created
		}
		s.Count++
		s.LastPosition, s.LastCreated = e.Position, e.Created
		out[k] = s
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPairStats: after random appends, retention removals and deletions,
// PairStats through the pair index equals the model, and so does the
// scan a log written before the pair index gets; writes keep such a log's
// pair index empty, and Rebuild builds the very index writes keep.
func TestPairStats(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	l, clk := newTestLog(t)
	id := 0
	for round := 0; round < 30; round++ {
		b := l.Batch()
		for i := 0; i < 1+r.Intn(8); i++ {
			stream := fmt.Sprintf("c%d-%d", r.Intn(4), r.Intn(5))
			var es []EventData
			for j := 0; j < 1+r.Intn(3); j++ {
				id++
				e := ev(fmt.Sprintf("T%d", r.Intn(3)), 0)
				e.ID[0], e.ID[1], e.ID[2] = byte(id>>16), byte(id>>8), byte(id)
				es = append(es, e)
			}
			if _, err := b.Append(ctx, stream, Any, es); err != nil {
				t.Fatal(err)
			}
		}
		if r.Intn(4) == 0 {
			stream := fmt.Sprintf("c%d-%d", r.Intn(4), r.Intn(5))
			if err := b.SetStreamMetadata(ctx, stream, StreamMetadata{MaxCount: uint64(1 + r.Intn(2))}); err != nil {
				t.Fatal(err)
			}
		}
		l = mustLog(t, b)
		clk.t = clk.t.Add(time.Second)
		got, err := l.PairStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := modelPairs(t, l)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d pairs, want %d", round, len(got), len(want))
		}
		var total uint64
		for i, s := range got {
			if i > 0 && (got[i-1].Category > s.Category || got[i-1].Category == s.Category && got[i-1].Type >= s.Type) {
				t.Fatalf("round %d: pairs out of order at %d", round, i)
			}
			w := want[[2]string{s.Category, s.Type}]
			if !reflect.DeepEqual(s, w) {
				t.Fatalf("round %d: %+v, want %+v", round, s, w)
			}
			total += s.Count
		}
		if total != l.Count() {
			t.Fatalf("round %d: pairs count %d events, the log holds %d", round, total, l.Count())
		}
	}
	if l.byPair.Count() == 0 || l.Count() == uint64(l.NextPosition()-1) {
		t.Fatalf("the test made %d events and removed none, or has no pair index", l.Count())
	}

	// A log as written before the pair index: none while it holds events.
	old := l
	old.byPair = prolly.NewMap(l.ns)
	if old.pairsIndexed() {
		t.Fatal("a log without its pair index reads as indexed")
	}
	want, err := l.PairStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := old.PairStats(ctx)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("scan of a log without the pair index: %v, %v; want %v", got, err, want)
	}
	b := old.Batch()
	if _, err := b.Append(ctx, "c9-1", Any, []EventData{ev("T9", 0)}); err != nil {
		t.Fatal(err)
	}
	old = mustLog(t, b)
	if old.byPair.Count() != 0 {
		t.Fatalf("a write indexed part of an unindexed log: %d entries", old.byPair.Count())
	}
	rebuilt, err := Rebuild(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.byPair.Address() != l.byPair.Address() {
		t.Fatal("Rebuild's pair index differs from the one writes kept")
	}
	if rebuilt, err = Rebuild(ctx, old); err != nil || !rebuilt.pairsIndexed() {
		t.Fatalf("Rebuild of an unindexed log: indexed %v, %v", rebuilt.pairsIndexed(), err)
	}
	if err := rebuilt.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkIndexSize reports what each map of the log costs in stored
// bytes an event (metric <map>-B/event), for 100,000 events over 10
// categories and 20 types: the pair index's cost beside the others'. Run
// with -benchtime 1x.
func BenchmarkIndexSize(b *testing.B) {
	const n = 100_000
	for range b.N {
		l, _ := newTestLog(b)
		bt := l.Batch()
		for i := 0; i < n; i++ {
			e := ev(fmt.Sprintf("OrderEvent%d", i%20), 0)
			if _, err := bt.Append(ctx, fmt.Sprintf("category%d-%d", i%10, i%1000), Any, []EventData{e}); err != nil {
				b.Fatal(err)
			}
		}
		l, err := bt.Log(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for i, m := range l.maps() {
			var size int
			err := m.WalkNodes(ctx, func(addr chunks.Address, _ int) (bool, error) {
				data, err := l.ns.Store().Get(ctx, addr)
				size += len(data)
				return true, err
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(size)/n, strings.TrimPrefix(Names[i], "events/")+"-B/event")
		}
	}
}
