package verso_test

import (
	"context"
	"fmt"

	"github.com/verso-db/verso"
)

// Check verifies everything the refs and working sets reach, and lists
// each problem with its place.
func ExampleDB_Check() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("shop", verso.Options{})
	defer db.Close()
	txn, _ := db.Begin(ctx, "")
	txn.CreateTable(ctx, "items", &verso.Schema{
		Columns:    []verso.Column{{Name: "id", Type: "int", Kind: verso.KindInt}, {Name: "n", Type: "int", Kind: verso.KindInt}},
		PrimaryKey: []int{0},
		Indexes:    []verso.Index{{Name: "by_n", Columns: []int{1}}},
	})
	txn.Insert(ctx, "items", verso.Int(1), verso.Int(10))
	txn.CommitChanges(ctx, verso.CommitOptions{Message: "items", Author: verso.Signature{Name: "Ann", Email: "ann@example.com"}, StageAll: true})

	rep, err := db.Check(ctx, verso.CheckOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range rep.Problems {
		fmt.Println(p)
	}
	fmt.Printf("checked %d commits, %d tables: %d problems\n", rep.Commits, rep.Tables, rep.Count())
	// Output:
	// checked 2 commits, 1 tables: 0 problems
}
