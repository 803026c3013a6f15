package eventindex_test

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
)

// The SQL layer's way: load the log from a root value, write a Batch, and
// store the new Log in the root it commits.
func Example() {
	ctx := context.Background()
	db := commitgraph.New(chunks.NewMemoryStore())
	c, _ := db.Init(ctx, "", commitgraph.Meta{})
	root, _ := db.OpenRoot(ctx, c.Root)

	log, _ := eventindex.LoadLog(ctx, db.NodeStore(), root)
	b := log.Batch()
	res, err := b.Append(ctx, "order-1", eventindex.NoStream, []eventindex.EventData{
		{Type: "Placed", Data: []byte(`{"total":12}`)},
		{Type: "Paid", Data: []byte(`{"total":12}`)},
	})
	fmt.Println(res.Positions, res.NextExpected, err)
	_, err = b.Append(ctx, "order-1", eventindex.NoStream, []eventindex.EventData{{Type: "Placed"}})
	fmt.Println(err)
	b.Append(ctx, "user-7", eventindex.Any, []eventindex.EventData{{Type: "Registered"}})
	log, _ = b.Log(ctx)
	root, _ = log.Store(ctx, root)
	db.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", Root: root.Address(), ExpectedHead: c.Addr})

	f, _ := eventindex.ParseFilter("$idx-ce-order")
	evs, next, _ := log.Read(ctx, f, 2000)
	for _, e := range evs {
		fmt.Println(e.Position, e.Stream, e.Number, e.Type)
	}
	fmt.Println("next page from", next)
	// Output:
	// [1 2] 1 <nil>
	// eventindex: wrong expected version for stream "order-1": expected no stream, actual 1
	// 1 order-1 0 Placed
	// 2 order-1 1 Paid
	// next page from 3
}

// A Store commits each write to a branch; a subscription delivers the
// history, then each new commit's events once it is durable.
func ExampleStore_Subscribe() {
	ctx := context.Background()
	db := commitgraph.New(chunks.NewMemoryStore())
	db.Init(ctx, "", commitgraph.Meta{})
	s, _ := eventindex.OpenStore(ctx, db, "main")
	defer s.Close()

	s.Append(ctx, "order-1", eventindex.NoStream, []eventindex.EventData{{Type: "Placed"}})
	sub := s.Subscribe(ctx, eventindex.Filter{Type: "Placed"}, 16)
	defer sub.Close()
	s.Write(ctx, "two orders", func(b *eventindex.Batch) error {
		b.Append(ctx, "order-2", eventindex.NoStream, []eventindex.EventData{{Type: "Placed"}, {Type: "Paid"}})
		_, err := b.Append(ctx, "order-3", eventindex.NoStream, []eventindex.EventData{{Type: "Placed"}})
		return err
	})
	for range 3 {
		e := <-sub.C()
		fmt.Println(e.Position, e.Stream, e.Type)
	}
	// Output:
	// 1 order-1 Placed
	// 2 order-2 Placed
	// 4 order-3 Placed
}
