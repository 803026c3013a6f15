package verso_test

import (
	"context"
	"testing"

	"github.com/verso-db/verso"
)

// BenchmarkPointRead is one autocommit point read through the engine: a
// transaction begun, one row read by key, the transaction ended; on a
// table of 10,000 rows in a database on disk (reads from the node cache).
func BenchmarkPointRead(b *testing.B) {
	ctx := context.Background()
	db, err := verso.Init(b.TempDir(), verso.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	txn, _ := db.Begin(ctx, "")
	if err := txn.CreateTable(ctx, "kv", kvSchema()); err != nil {
		b.Fatal(err)
	}
	for k := int64(0); k < 10000; k++ {
		if err := txn.Put(ctx, "kv", verso.Int(k), verso.Int(k)); err != nil {
			b.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		txn, err := db.Begin(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := txn.Get(ctx, "kv", verso.Int(int64(i%10000))); err != nil {
			b.Fatal(err)
		}
		txn.Rollback()
	}
}
