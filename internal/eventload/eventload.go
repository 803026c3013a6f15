// Package eventload generates the event workload of the event-log
// benchmarks (KurrentDB's load test scaled to one machine): 10 categories,
// up to 1,000 streams per category, 10 event types (T0..T9, shared names,
// so a type spans every category), appends in batches of 50 events to one
// stream, about 400 bytes of JSON data per event. The workload is the same
// on every call (fixed seed), so benchmarks in different packages read the
// same log. It does not import eventindex, so eventindex's own tests can
// use it.
package eventload

import (
	"fmt"
	"math/rand/v2"
)

// Shape of the workload.
const (
	Categories = 10
	Streams    = 1000 // per category
	Types      = 10
	BatchSize  = 50
)

// Metadata is every event's metadata.
var Metadata = []byte(`{"source":"load"}`)

// Batch is one append: BatchSize events of the given types to Stream.
type Batch struct {
	Stream string
	Types  [BatchSize]string
}

// Batches returns the workload's first n/BatchSize batches.
func Batches(n int) []Batch {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Batch, 0, n/BatchSize)
	for i := 0; i < n/BatchSize; i++ {
		var s Batch
		s.Stream = fmt.Sprintf("cat%d-%d", rng.IntN(Categories), rng.IntN(Streams))
		for j := range s.Types {
			s.Types[j] = fmt.Sprintf("T%d", rng.IntN(Types))
		}
		out = append(out, s)
	}
	return out
}

// Payload returns the ~400 bytes of JSON data of the i-th event.
func Payload(i int) []byte {
	return []byte(fmt.Sprintf(`{"orderId":"%08d","customer":{"id":%d,"name":"Customer %d","email":"customer%d@example.com","tier":"gold"},`+
		`"lines":[{"sku":"SKU-%05d","qty":%d,"price":%d.99},{"sku":"SKU-%05d","qty":%d,"price":%d.49}],`+
		`"shipping":{"street":"%d Long Street","city":"Springfield","zip":"%05d","country":"US"},"note":"lorem ipsum dolor sit amet consectetur"}`,
		i, i%9973, i%9973, i%9973, i%99991, 1+i%7, 10+i%90, (i*7)%99991, 1+i%3, 5+i%50, i%500, i%99999))
}
