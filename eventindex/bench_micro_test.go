package eventindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// buildLoadLog appends n events of the load workload to a log in memory,
// 10,000 per batch.
func buildLoadLog(b *testing.B, n int) Log {
	l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
	work := loadWorkload(n)
	per := 10_000 / loadBatch
	for i := 0; i < len(work); i += per {
		bt := l.Batch()
		for j := i; j < min(i+per, len(work)); j++ {
			if _, err := bt.Append(ctx, work[j].Stream, Any, loadEvents(&work[j], j*loadBatch)); err != nil {
				b.Fatal(err)
			}
		}
		var err error
		if l, err = bt.Log(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

// BenchmarkAppend measures appends of batches of 50 events to one stream,
// 200 batches (10,000 events) per Log, in memory (no commit, no fsync).
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("history=%d", size), func(b *testing.B) {
			l := buildLoadLog(b, size)
			work := loadWorkload(10_000)
			evs := make([][]EventData, len(work))
			for i := range work {
				evs[i] = loadEvents(&work[i], i*loadBatch)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				bt := l.Batch()
				for i := range work {
					if _, err := bt.Append(ctx, work[i].Stream, Any, evs[i]); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := bt.Log(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(10_000*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkRead reads a category, a type and both, in pages of 2000, from
// logs of several sizes in memory; the baseline is a plain scan of the log
// that filters every event.
func BenchmarkRead(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		l := buildLoadLog(b, size)
		for _, c := range []struct {
			name string
			f    Filter
		}{
			{"category", Filter{Category: "cat3"}},
			{"type", Filter{Type: "T5"}},
			{"category+type", Filter{Category: "cat3", Type: "T5"}},
			{"scan-baseline", Filter{}},
		} {
			b.Run(fmt.Sprintf("%s/events=%d", c.name, size), func(b *testing.B) {
				b.ReportAllocs()
				got := 0
				cpu0 := cpuTime()
				for b.Loop() {
					f := c.f
					for {
						page, next, err := l.Read(ctx, f, 2000)
						if err != nil {
							b.Fatal(err)
						}
						got += len(page)
						if len(page) < 2000 {
							break
						}
						f.From = next
					}
				}
				b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(got)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
			})
		}
	}
}

// BenchmarkReadInterleaved reads a category AND a type from logs whose
// categories interleave event by event (appends of 5 events to a stream
// drawn at random), unlike the load workload's runs of 50: the case where
// the two index ranges share no long runs to skip.
func BenchmarkReadInterleaved(b *testing.B) {
	for _, size := range []int{100_000} {
		l := NewLog(prolly.NewNodeStore(chunks.NewMemoryStore()))
		r := rand.New(rand.NewPCG(1, 2))
		data := []byte(`{"k":"` + strings.Repeat("x", 380) + `"}`)
		for i := 0; i < size; i += 10_000 {
			bt := l.Batch()
			for j := 0; j < 10_000; j += 5 {
				evs := make([]EventData, 5)
				for k := range evs {
					evs[k] = EventData{Type: fmt.Sprintf("T%d", r.IntN(10)), Data: data}
				}
				if _, err := bt.Append(ctx, fmt.Sprintf("cat%d-%d", r.IntN(10), r.IntN(1000)), Any, evs); err != nil {
					b.Fatal(err)
				}
			}
			var err error
			if l, err = bt.Log(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("category+type/events=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			got := 0
			cpu0 := cpuTime()
			for b.Loop() {
				f := Filter{Category: "cat3", Type: "T5"}
				for {
					page, next, err := l.Read(ctx, f, 2000)
					if err != nil {
						b.Fatal(err)
					}
					got += len(page)
					if len(page) < 2000 {
						break
					}
					f.From = next
				}
			}
			b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(got)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
		})
	}
}
