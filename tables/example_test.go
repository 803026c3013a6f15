package tables_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// A table with a primary key and a unique index: inserts, a duplicate
// refused, a scan in key order and a lookup through the index.
func Example() {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	t, err := tables.New(ns, &tables.Schema{
		Columns: []tables.Column{
			{Name: "id", Type: "bigint", Kind: prolly.KindInt, AutoIncrement: true},
			{Name: "email", Type: "varchar(100)", Kind: prolly.KindString},
		},
		PrimaryKey: []int{0},
		Indexes:    []tables.Index{{Name: "by_email", Columns: []int{1}, Unique: true}},
	})
	if err != nil {
		panic(err)
	}
	ed := t.Edit()
	for _, email := range []string{"bo@example.com", "al@example.com"} {
		// A NULL id takes the next auto-increment value.
		if _, err := ed.Insert(ctx, []tables.Value{prolly.Null(), prolly.String(email)}); err != nil {
			panic(err)
		}
	}
	_, err = ed.Insert(ctx, []tables.Value{prolly.Int(9), prolly.String("al@example.com")})
	var dup *tables.DuplicateKeyError
	fmt.Println(errors.As(err, &dup), err)

	t, _ = ed.Table(ctx)
	it := t.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		fmt.Println(it.Row()[0].AsInt(), it.Row()[1].AsString())
	}
	prefix := t.IndexPrefix(0, []tables.Value{prolly.String("al@example.com")})
	it = t.ScanIndex(ctx, 0, prefix, tables.PrefixEnd(prefix), false)
	for it.Next(ctx) {
		fmt.Println("by email:", it.Row()[0].AsInt())
	}
	// Output:
	// true tables: duplicate entry 'al@example.com' for key 'by_email'
	// 1 bo@example.com
	// 2 al@example.com
	// by email: 2
}
