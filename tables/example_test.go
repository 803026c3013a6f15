package tables_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	}, nil) // no collations but the binary ones
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

// A column in a collation the caller supplies: keys are its sort keys, so
// a unique index refuses a value that differs from another in case only,
// and rows read back as written.
func ExampleCollationMap() {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	ci := tables.CollationMap{"ascii_ci": func(s string) []byte { return []byte(strings.ToLower(s)) }}
	t, err := tables.New(ns, &tables.Schema{
		Columns:    []tables.Column{{Name: "name", Type: "varchar(20)", Kind: prolly.KindString, Collation: "ascii_ci"}},
		PrimaryKey: []int{0},
	}, ci)
	if err != nil {
		panic(err)
	}
	ed := t.Edit()
	_, err = ed.Insert(ctx, []tables.Value{prolly.String("Ada")})
	fmt.Println(err)
	_, err = ed.Insert(ctx, []tables.Value{prolly.String("ADA")})
	fmt.Println(errors.Is(err, tables.ErrDuplicateKey))
	row, ok, err := ed.Get(ctx, []tables.Value{prolly.String("ada")})
	fmt.Println(row[0].AsString(), ok, err)
	// Output:
	// <nil>
	// true
	// Ada true <nil>
}
