package rowlock

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// benchKeys returns n distinct keys shaped like the caller's (a table
// prefix and a primary key).
func benchKeys(n int) []Key {
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key(fmt.Sprintf("db/main/orders/\x00\x00\x00\x00%08d", i))
	}
	return keys
}

// BenchmarkLockUncontended: one transaction. free: each op locks a key
// no one holds, with a ReleaseAll every 64 locks (its cost is in the op);
// held: each op locks a key the transaction already holds; baseline: the
// same keys put in and deleted from a plain map under a mutex, the floor
// of the free case.
func BenchmarkLockUncontended(b *testing.B) {
	ctx := context.Background()
	keys := benchKeys(64)
	b.Run("free", func(b *testing.B) {
		tx := New().Begin()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := tx.Lock(ctx, keys[i%64], Exclusive, Wait, time.Second); err != nil {
				b.Fatal(err)
			}
			if i%64 == 63 {
				tx.ReleaseAll()
			}
		}
	})
	b.Run("held", func(b *testing.B) {
		tx := New().Begin()
		for _, k := range keys {
			tx.Lock(ctx, k, Exclusive, Wait, time.Second)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := tx.Lock(ctx, keys[i%64], Shared, Wait, time.Second); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		var mu sync.Mutex
		m := make(map[Key]*Txn)
		tx := new(Txn)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			mu.Lock()
			if m[keys[i%64]] == nil {
				m[keys[i%64]] = tx
			}
			mu.Unlock()
			if i%64 == 63 {
				mu.Lock()
				for _, k := range keys {
					delete(m, k)
				}
				mu.Unlock()
			}
		}
	})
}

// BenchmarkLockContended: 4 goroutines, a transaction each; an op is one
// Lock and a ReleaseAll. exclusive: of one of 4 keys, so about one lock
// in four waits; shared: of one key all share.
func BenchmarkLockContended(b *testing.B) {
	const goroutines = 4
	ctx := context.Background()
	keys := benchKeys(4)
	for _, bc := range []struct {
		name string
		mode Mode
		keys []Key
	}{
		{"exclusive", Exclusive, keys},
		{"shared", Shared, keys[:1]},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := New()
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for g := range goroutines {
				n := b.N / goroutines
				if g < b.N%goroutines {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					tx := m.Begin()
					for i := range n {
						if _, err := tx.Lock(ctx, bc.keys[(i+g)%len(bc.keys)], bc.mode, Wait, time.Minute); err != nil {
							b.Error(err)
							return
						}
						tx.ReleaseAll()
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			st := m.Stats()
			b.ReportMetric(float64(st.Waits)/float64(b.N), "waits/op")
		})
	}
}
