package verso

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/verso-db/verso/internal/testseed"
)

// TestTxnModel runs random interleavings of transactions on one table
// through the typed API, in one goroutine, against a model: the committed
// table, and per open transaction its snapshot, the rows it locked (read
// at their latest committed value then) and its writes. A write or
// GetForUpdate of a row another open transaction holds must time out
// (ErrLockTimeout); every read must return what the model says; every
// commit must succeed and leave the committed table as the model's.
func TestTxnModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 14))
	ctx := context.Background()
	db, err := OpenMemory("m", Options{})
	if err != nil {
		t.Fatal(err)
	}
	setup, _ := db.Begin(ctx, "")
	must(t, setup.CreateTable(ctx, "t", &Schema{
		Columns:    []Column{{Name: "k", Type: "int", Kind: KindInt}, {Name: "v", Type: "int", Kind: KindInt}},
		PrimaryKey: []int{0},
	}))
	must(t, setup.Commit(ctx))

	type open struct {
		txn      *Txn
		snapshot map[int64]int64
		locked   map[int64]bool
		view     map[int64]*int64 // the transaction's rows where they differ from its snapshot (nil: deleted)
	}
	committed := map[int64]int64{}
	copyMap := func(m map[int64]int64) map[int64]int64 {
		c := make(map[int64]int64, len(m))
		for k, v := range m {
			c[k] = v
		}
		return c
	}
	var txns []*open
	holder := func(k int64, except *open) bool {
		for _, o := range txns {
			if o != except && o.locked[k] {
				return true
			}
		}
		return false
	}
	read := func(o *open, k int64) (int64, bool) {
		if v, ok := o.view[k]; ok {
			if v == nil {
				return 0, false
			}
			return *v, true
		}
		v, ok := o.snapshot[k]
		return v, ok
	}
	// lock models the first lock of k by o: it adopts the committed row.
	lock := func(o *open, k int64) {
		if o.locked[k] {
			return
		}
		o.locked[k] = true
		if v, ok := committed[k]; ok {
			o.view[k] = &v
		} else {
			o.view[k] = nil
		}
		if sv, ok := o.snapshot[k]; ok {
			if cv, cok := committed[k]; cok && cv == sv {
				delete(o.view, k) // the snapshot's version still
			}
		} else if _, cok := committed[k]; !cok {
			delete(o.view, k)
		}
	}
	const keys = 6
	for step := range 3000 {
		if len(txns) == 0 || (len(txns) < 4 && rng.IntN(6) == 0) {
			txn, err := db.Begin(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			txn.LockTimeout = time.Millisecond
			txns = append(txns, &open{txn: txn, snapshot: copyMap(committed), locked: map[int64]bool{}, view: map[int64]*int64{}})
			continue
		}
		i := rng.IntN(len(txns))
		o := txns[i]
		k := int64(rng.IntN(keys))
		what := fmt.Sprintf("step %d, transaction %d", step, i)
		switch op := rng.IntN(10); {
		case op < 3: // Get: the snapshot with the transaction's own writes
			row, ok, err := o.txn.Get(ctx, "t", Int(k))
			want, wok := read(o, k)
			if err != nil || ok != wok || (ok && row[1].AsInt() != want) {
				t.Fatalf("%s: Get(%d) = %v %v %v, want %d %v", what, k, row, ok, err, want, wok)
			}
		case op < 5: // GetForUpdate
			row, ok, err := o.txn.GetForUpdate(ctx, "t", Int(k))
			if holder(k, o) {
				if !errors.Is(err, ErrLockTimeout) {
					t.Fatalf("%s: GetForUpdate(%d) of a row another holds: %v", what, k, err)
				}
				continue
			}
			lock(o, k)
			want, wok := read(o, k)
			if err != nil || ok != wok || (ok && row[1].AsInt() != want) {
				t.Fatalf("%s: GetForUpdate(%d) = %v %v %v, want %d %v", what, k, row, ok, err, want, wok)
			}
		case op < 7: // Put
			v := rng.Int64N(1000)
			err := o.txn.Put(ctx, "t", Int(k), Int(v))
			if holder(k, o) {
				if !errors.Is(err, ErrLockTimeout) {
					t.Fatalf("%s: Put(%d) of a row another holds: %v", what, k, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: Put(%d): %v", what, k, err)
			}
			lock(o, k)
			o.view[k] = &v
		case op < 8: // Delete
			found, err := o.txn.Delete(ctx, "t", Int(k))
			if holder(k, o) {
				if !errors.Is(err, ErrLockTimeout) {
					t.Fatalf("%s: Delete(%d) of a row another holds: %v", what, k, err)
				}
				continue
			}
			lock(o, k)
			_, want := read(o, k)
			if err != nil || found != want {
				t.Fatalf("%s: Delete(%d) = %v %v, want %v", what, k, found, err, want)
			}
			o.view[k] = nil
		case op < 9: // Commit: the rows it locked, as it left them
			if err := o.txn.Commit(ctx); err != nil {
				t.Fatalf("%s: commit: %v", what, err)
			}
			for k := range o.locked {
				if v, ok := read(o, k); ok {
					committed[k] = v
				} else {
					delete(committed, k)
				}
			}
			txns = append(txns[:i], txns[i+1:]...)
		default:
			o.txn.Rollback()
			txns = append(txns[:i], txns[i+1:]...)
		}
		if step%100 == 0 {
			checkCommitted(t, db, committed, keys)
		}
	}
	for _, o := range txns {
		o.txn.Rollback()
	}
	checkCommitted(t, db, committed, keys)
}

// checkCommitted fails unless the table t of a new transaction holds the
// rows of want.
func checkCommitted(t *testing.T, db *DB, want map[int64]int64, keys int) {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for k := range int64(keys) {
		row, ok, err := txn.Get(ctx, "t", Int(k))
		v, wok := want[k]
		if err != nil || ok != wok || (ok && row[1].AsInt() != v) {
			t.Fatalf("committed row %d = %v %v %v, want %d %v", k, row, ok, err, v, wok)
		}
	}
}
