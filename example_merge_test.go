package verso_test

import (
	"context"
	"fmt"

	"github.com/verso-db/verso"
)

// Two branches change one row: merging them leaves a conflict in the
// working set, resolved with theirs and committed as a merge of two
// parents; DiffTable shows what the merge changed on main.
func ExampleTxn_Merge() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("shop", verso.Options{})
	me := verso.Signature{Name: "Jane", Email: "jane@example.com"}
	commit := func(branch, msg string, write func(*verso.Txn)) {
		txn, _ := db.Begin(ctx, branch)
		write(txn)
		if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: msg, Author: me, StageAll: true}); err != nil {
			panic(err)
		}
	}
	commit("main", "price list", func(txn *verso.Txn) {
		txn.CreateTable(ctx, "price", &verso.Schema{
			Columns: []verso.Column{
				{Name: "item", Type: "varchar(20)", Kind: verso.KindString},
				{Name: "cents", Type: "int", Kind: verso.KindInt},
			},
			PrimaryKey: []int{0},
		})
		txn.Insert(ctx, "price", verso.String("tea"), verso.Int(300))
	})
	db.CreateBranch(ctx, "sale", "main")
	commit("sale", "tea on sale", func(txn *verso.Txn) { txn.Put(ctx, "price", verso.String("tea"), verso.Int(250)) })
	commit("main", "tea dearer", func(txn *verso.Txn) { txn.Put(ctx, "price", verso.String("tea"), verso.Int(350)) })
	before, _ := db.Root(ctx, "main")

	txn, _ := db.Begin(ctx, "main")
	res, err := txn.Merge(ctx, "sale", verso.MergeOptions{Author: me})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Conflicts {
		fmt.Printf("conflicts: %d in %s\n", c.Count, c.Table)
	}
	if err := txn.ResolveConflicts(ctx, "price", verso.Theirs); err != nil {
		panic(err)
	}
	merged, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: "merge the sale", Author: me, StageAll: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("merge commit parents:", len(merged.Parents))

	after, _ := db.Root(ctx, "main")
	db.DiffTable(ctx, before, after, "price", func(c verso.RowChange) error {
		fmt.Printf("%s: %d -> %d\n", c.To[0].AsString(), c.From[1].AsInt(), c.To[1].AsInt())
		return nil
	})
	// Output:
	// conflicts: 1 in price
	// merge commit parents: 2
	// tea: 350 -> 250
}
