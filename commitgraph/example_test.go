package commitgraph_test

import (
	"context"
	"fmt"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

func Example() {
	ctx := context.Background()
	db := commitgraph.New(chunks.NewMemoryStore())
	who := commitgraph.Signature{Name: "Ada", Email: "ada@example.com"}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	first, _ := db.Init(ctx, "main", commitgraph.Meta{Author: who, Time: at, Message: "Initialize data repository"})
	head := first.Addr
	for i := 1; i <= 3; i++ {
		c, err := db.CommitRoot(ctx, commitgraph.CommitOptions{
			Branch: "main", ExpectedHead: head,
			Meta: commitgraph.Meta{Author: who, Time: at.Add(time.Duration(i) * time.Minute), Message: fmt.Sprint("change ", i)},
		})
		if err != nil {
			panic(err)
		}
		head = c.Addr
	}
	two, _ := db.Resolve(ctx, "main~2", "main")
	ok, _ := db.IsAncestor(ctx, two.Addr, head)
	fmt.Println(two.Meta.Message, "is an ancestor of main:", ok)

	it := db.Log(ctx, head)
	for it.Next(ctx) {
		fmt.Println(it.Commit().Height, it.Commit().Meta.Message)
	}
	// Output:
	// change 1 is an ancestor of main: true
	// 4 change 3
	// 3 change 2
	// 2 change 1
	// 1 Initialize data repository
}
