package verso_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/verso-db/verso"
)

// Branches and tags: a branch made at an older commit, a tag, a branch
// deleted once merged, and an unmerged one that needs Force.
func ExampleDB_SetBranch() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("notes", verso.Options{})
	defer db.Close()
	me := verso.Signature{Name: "Jane", Email: "jane@example.com"}
	for _, msg := range []string{"first", "second"} {
		txn, _ := db.Begin(ctx, "main")
		txn.CommitChanges(ctx, verso.CommitOptions{Message: msg, Author: me, AllowEmpty: true})
	}

	db.SetBranch(ctx, "old", "HEAD~1", verso.BranchOptions{})
	db.CopyBranch(ctx, "main", "copy", verso.BranchOptions{})
	db.CreateTag(ctx, "v1", "old", verso.TagOptions{Tagger: me, Message: "the first release"})
	for _, b := range []string{"old", "copy"} {
		log, _ := db.Log(ctx, b, 1)
		fmt.Printf("%s: %s\n", b, log[0].Meta.Message)
	}
	tags, _ := db.Tags(ctx)
	fmt.Printf("tag %s: %s\n", tags[0].Name, tags[0].Message)

	// copy and old are merged into main; a branch with its own commit is
	// not.
	fmt.Println("delete copy:", db.DeleteBranch(ctx, "copy", verso.BranchOptions{}))
	txn, _ := db.Begin(ctx, "old")
	txn.CommitChanges(ctx, verso.CommitOptions{Message: "on old", Author: me, AllowEmpty: true})
	err := db.DeleteBranch(ctx, "old", verso.BranchOptions{})
	fmt.Println("delete old:", errors.Is(err, verso.ErrNotMerged))
	fmt.Println("delete old, forced:", db.DeleteBranch(ctx, "old", verso.BranchOptions{Force: true}))
	// Output:
	// old: first
	// copy: second
	// tag v1: the first release
	// delete copy: <nil>
	// delete old: true
	// delete old, forced: <nil>
}

// Staging and resets: a change staged shows in Status as staged, a mixed
// reset unstages it, and a hard reset discards it.
func ExampleTxn_Reset() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("shop", verso.Options{})
	defer db.Close()
	txn, _ := db.Begin(ctx, "main")
	txn.CreateTable(ctx, "stock", &verso.Schema{
		Columns: []verso.Column{
			{Name: "item", Type: "varchar(20)", Kind: verso.KindString},
			{Name: "count", Type: "int", Kind: verso.KindInt},
		},
		PrimaryKey: []int{0},
	})
	txn.Insert(ctx, "stock", verso.String("tea"), verso.Int(3))
	txn.CommitChanges(ctx, verso.CommitOptions{Message: "stock", Author: verso.Signature{Name: "Jane", Email: "jane@example.com"}, StageAll: true})

	show := func(when string) {
		es, _ := txn.Status(ctx)
		var lines []string
		for _, e := range es {
			lines = append(lines, fmt.Sprintf("%s (staged: %v) %s", e.Name(), e.Staged, e.Status))
		}
		fmt.Printf("%s: %v\n", when, lines)
	}
	txn.Put(ctx, "stock", verso.String("tea"), verso.Int(2))
	txn.Stage(ctx, "stock")
	show("staged")
	txn.Reset(ctx, verso.ResetOptions{})
	show("after a reset")
	txn.Reset(ctx, verso.ResetOptions{Hard: true})
	show("after a hard reset")
	row, _, _ := txn.Get(ctx, "stock", verso.String("tea"))
	fmt.Println("tea:", row[1].AsInt())
	// Output:
	// staged: [stock (staged: true) modified]
	// after a reset: [stock (staged: false) modified]
	// after a hard reset: []
	// tea: 3
}
