package systables_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// Example reads dolt_log of a small history without the SQL engine: the
// table is an ordinary go-mysql-server table.
func Example() {
	ctx := context.Background()
	g := commitgraph.New(chunks.NewMemoryStore())
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	meta := func(msg string) commitgraph.Meta {
		at = at.Add(time.Minute)
		return commitgraph.Meta{Author: commitgraph.Signature{Name: "ann", Email: "ann@example.com"}, Time: at, Message: msg}
	}
	c, _ := g.Init(ctx, "main", meta("init"))
	for _, msg := range []string{"add users", "add orders"} {
		c, _ = g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", Root: c.Root, ExpectedHead: c.Addr, Meta: meta(msg)})
	}

	v, _ := systables.NewView(ctx, "db", g, "main", nil)
	sctx := sql.NewContext(ctx)
	t, _, _ := systables.Open(sctx, "dolt_log", v)
	rows, _ := t.PartitionRows(sctx, nil)
	for {
		r, err := rows.Next(sctx)
		if err == io.EOF {
			break
		}
		fmt.Println(r[5], r[4], r[3].(time.Time).Format(time.DateTime))
	}
	// Output:
	// 3 add orders 2026-01-01 00:03:00
	// 2 add users 2026-01-01 00:02:00
	// 1 init 2026-01-01 00:01:00
}
