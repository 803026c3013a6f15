package closure_test

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
	"github.com/verso-db/verso/prolly"
)

func Example() {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	a := closure.Entry{Height: 1, Addr: chunks.Of([]byte("a"))}
	b := closure.Entry{Height: 2, Addr: chunks.Of([]byte("b"))}
	c := closure.Entry{Height: 2, Addr: chunks.Of([]byte("c"))}

	// b and c are children of the root commit a; d merges them.
	ca := closure.Empty(ns)
	cb, _ := closure.Build(ctx, ns, []closure.Parent{{Entry: a, Closure: ca}})
	cc, _ := closure.Build(ctx, ns, []closure.Parent{{Entry: a, Closure: ca}})
	cd, _ := closure.Build(ctx, ns, []closure.Parent{{Entry: b, Closure: cb}, {Entry: c, Closure: cc}})

	has, _ := cd.Contains(ctx, a)
	n, _ := cd.Count(ctx)
	fmt.Println("ancestors of d:", n, "a among them:", has)
	n = 0
	for it := cd.AtHeight(ctx, 2); it.Next(ctx); {
		n++
	}
	fmt.Println("at height 2:", n)
	// Output:
	// ancestors of d: 3 a among them: true
	// at height 2: 2
}
