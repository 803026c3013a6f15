package verso_test

import (
	"context"
	"fmt"

	"github.com/verso-db/verso"
)

// Events are appended in a transaction with an expected version, and a
// subscription to a category gets them once the commit is durable, after
// the history it catches up on.
func ExampleDB_Subscribe() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("orders", verso.Options{})
	defer db.Close()

	txn, _ := db.Begin(ctx, "")
	txn.AppendEvents(ctx, "order-1", verso.NoStream, verso.EventData{Type: "OrderPlaced", Data: []byte(`{"total": 12}`)})
	txn.Commit(ctx)

	sub := db.Subscribe(ctx, "", verso.Filter{Category: "order"}, 10)
	defer sub.Close()
	e := <-sub.C() // history
	fmt.Println(e.Stream, e.Number, e.Type)

	txn, _ = db.Begin(ctx, "")
	if _, err := txn.AppendEvents(ctx, "order-1", 0, verso.EventData{Type: "OrderShipped"}); err != nil {
		panic(err)
	}
	txn.AppendEvents(ctx, "invoice-1", verso.AnyVersion, verso.EventData{Type: "InvoiceSent"}) // another category
	txn.Commit(ctx)
	e = <-sub.C() // live, once durable
	fmt.Println(e.Stream, e.Number, e.Type)

	_, err := txn.AppendEvents(ctx, "order-1", 0, verso.EventData{Type: "OrderShipped"})
	fmt.Println("stale expected version:", err != nil)
	// Output:
	// order-1 0 OrderPlaced
	// order-1 1 OrderShipped
	// stale expected version: true
}
