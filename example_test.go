package verso_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/verso-db/verso"
)

// A database in a folder: a table written in a transaction, committed to
// the history, and a branch made from it.
func Example() {
	dir, _ := os.MkdirTemp("", "verso-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := verso.Init(dir, verso.Options{})
	if err != nil {
		panic(err)
	}
	defer db.Close()

	txn, _ := db.Begin(ctx, "main")
	err = txn.CreateTable(ctx, "fruit", &verso.Schema{
		Columns: []verso.Column{
			{Name: "id", Type: "int", Kind: verso.KindInt},
			{Name: "name", Type: "varchar(20)", Kind: verso.KindString, Nullable: true},
		},
		PrimaryKey: []int{0},
	})
	if err != nil {
		panic(err)
	}
	txn.Insert(ctx, "fruit", verso.Int(1), verso.String("apple"))
	txn.Insert(ctx, "fruit", verso.Int(2), verso.String("pear"))
	if err := txn.Commit(ctx); err != nil { // durable in main's working set
		panic(err)
	}

	jane := verso.Signature{Name: "Jane", Email: "jane@example.com"}
	if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: "add fruit", Author: jane, StageAll: true}); err != nil {
		panic(err)
	}
	if err := db.CreateBranch(ctx, "autumn", "main"); err != nil {
		panic(err)
	}

	other, _ := db.Begin(ctx, "autumn")
	row, _, _ := other.Get(ctx, "fruit", verso.Int(2))
	fmt.Println("autumn has", row[1].AsString())

	log, _ := db.Log(ctx, "main", 0)
	for _, c := range log {
		fmt.Println(c.Meta.Author.Name+":", c.Meta.Message)
	}
	branches, _ := db.Branches(ctx)
	for _, b := range branches {
		fmt.Println("branch", b.Name)
	}
	// Output:
	// autumn has pear
	// Jane: add fruit
	// verso: Initialize data repository
	// branch autumn
	// branch main
}

// Two transactions take money from one account, both from a snapshot of
// 100: each reads the row for update, which locks it and reads its latest
// committed version, so the second sees the first's withdrawal and none is
// lost. A third transaction that wants the row while a fourth holds it
// waits, here no longer than its lock timeout.
func ExampleTxn_GetForUpdate() {
	ctx := context.Background()
	db, _ := verso.OpenMemory("bank", verso.Options{})
	setup, _ := db.Begin(ctx, "")
	setup.CreateTable(ctx, "account", &verso.Schema{
		Columns: []verso.Column{
			{Name: "id", Type: "int", Kind: verso.KindInt},
			{Name: "balance", Type: "int", Kind: verso.KindInt},
		},
		PrimaryKey: []int{0},
	})
	setup.Insert(ctx, "account", verso.Int(1), verso.Int(100))
	setup.Commit(ctx)

	withdraw := func(txn *verso.Txn, amount int64) {
		row, _, err := txn.GetForUpdate(ctx, "account", verso.Int(1))
		if err != nil {
			panic(err)
		}
		txn.Put(ctx, "account", verso.Int(1), verso.Int(row[1].AsInt()-amount))
		if err := txn.Commit(ctx); err != nil {
			panic(err)
		}
	}
	a, _ := db.Begin(ctx, "")
	b, _ := db.Begin(ctx, "")
	withdraw(a, 10)
	withdraw(b, 20)

	holder, _ := db.Begin(ctx, "")
	holder.GetForUpdate(ctx, "account", verso.Int(1))
	waiter, _ := db.Begin(ctx, "")
	waiter.LockTimeout = 10 * time.Millisecond
	_, _, err := waiter.GetForUpdate(ctx, "account", verso.Int(1))
	fmt.Println("waiter:", errors.Is(err, verso.ErrLockTimeout))
	holder.Rollback()

	check, _ := db.Begin(ctx, "")
	row, _, _ := check.Get(ctx, "account", verso.Int(1))
	fmt.Println("balance:", row[1].AsInt())
	// Output:
	// waiter: true
	// balance: 70
}
