package verso

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// countingStore counts the store commits made through it.
type countingStore struct {
	chunks.Store
	commits atomic.Int64
}

func (s *countingStore) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	s.commits.Add(1)
	return s.Store.Commit(ctx, newRoot, expected)
}

func intCol(name string) tables.Column {
	return tables.Column{Name: name, Type: "int", Kind: prolly.KindInt, Nullable: true}
}

// TestGroupCommit holds the database's commit lock while six transactions
// commit: the first becomes the leader and waits; the other five queue
// behind it and then go as one group, one store commit for them. The last
// of the group deletes the row of a table without a primary key that an
// earlier one of the group deleted and fails alone with a serialization
// failure.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	db, err := OpenStore("db", cs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	setup, _ := db.Begin(ctx, "")
	must(t, setup.CreateTable(ctx, "t", &tables.Schema{
		Columns:    []tables.Column{{Name: "pk", Type: "int", Kind: prolly.KindInt}, intCol("v"), intCol("u")},
		PrimaryKey: []int{0},
		Indexes:    []tables.Index{{Name: "u", Columns: []int{2}, Unique: true}},
	}))
	must(t, setup.Insert(ctx, "t", prolly.Int(100), prolly.Int(0), prolly.Int(100)))
	must(t, setup.CreateTable(ctx, "bag", &tables.Schema{Columns: []tables.Column{intCol("a")}}))
	must(t, setup.Insert(ctx, "bag", prolly.Int(1)))
	must(t, setup.Commit(ctx))

	txns := make([]*Txn, 6)
	for i := range txns {
		txns[i], err = db.Begin(ctx, "")
		must(t, err)
		if i < 5 {
			must(t, txns[i].Insert(ctx, "t", prolly.Int(int64(i)), prolly.Int(int64(i)), prolly.Int(int64(i))))
		}
		if i >= 4 {
			if ok, err := txns[i].Delete(ctx, "bag", prolly.Int(1)); err != nil || !ok {
				t.Fatalf("delete from bag: %v %v", ok, err)
			}
		}
	}
	before := cs.commits.Load()
	done := make([]chan error, len(txns))
	db.commitMu.Lock()
	commit := func(i int) {
		done[i] = make(chan error, 1)
		go func() { done[i] <- txns[i].Commit(ctx) }()
	}
	queue := func() (bool, int) {
		db.commits.mu.Lock()
		defer db.commits.mu.Unlock()
		return db.commits.leading, len(db.commits.waiting)
	}
	commit(0)
	waitFor(t, func() bool { l, n := queue(); return l && n == 0 })
	for i := 1; i < len(txns); i++ {
		commit(i)
		waitFor(t, func() bool { _, n := queue(); return n == i })
	}
	db.commitMu.Unlock()
	for i := range txns {
		err := <-done[i]
		if i == 5 {
			if !errors.Is(err, ErrSerialization) {
				t.Fatalf("the clashing transaction committed: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if n := cs.commits.Load() - before; n != 2 {
		t.Fatalf("six commits (one failing) made %d store commits, want 2 (the leader's, then the group of four)", n)
	}
	check, _ := db.Begin(ctx, "")
	tb, err := check.Table(ctx, "t")
	must(t, err)
	var got string
	it := tb.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		row := it.Row()
		got += fmt.Sprintf("[%d %d] ", row[0].AsInt(), row[1].AsInt())
	}
	must(t, it.Err())
	if want := "[0 0] [1 1] [2 2] [3 3] [4 4] [100 0] "; got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
