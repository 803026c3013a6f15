package verso

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// TestGroupMergeModel checks a commit group's merges (groupMerge) against
// the root-merge driver applied one transaction after another
// (mergeRoots), the reference: for each seed, twelve transactions begin on
// one snapshot and make random writes (inserts of keys and unique values
// that others take too, updates, deletes, rows of a keyless table, and
// now and then a new table or a schema change), then commit as one group;
// a third of them write t through a pending edit instead (TableEdit, as an
// autocommitted statement's writes are committed).
// The same transactions, made again in a second database, are merged by
// mergeRoots in the same order. Each transaction must succeed or fail with
// a serialization failure alike in both, and the two working roots must
// have the same address.
func TestGroupMergeModel(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			group, edits, ws := groupModelDB(t, seed)
			reqs := make([]*commitReq, len(group))
			for i, tx := range group {
				tx.edits = edits[i]
				reqs[i] = &commitReq{ctx: ctx, t: tx, wake: make(chan struct{})}
			}
			group[0].db.commitGroup(ctx, reqs, nil)
			gotWS, err := group[0].db.graph.WorkingSet(ctx, "main")
			must(t, err)

			serial, edits, _ := groupModelDB(t, seed)
			db := serial[0].db
			cur, err := db.graph.OpenRoot(ctx, ws.Working)
			must(t, err)
			for i, tx := range serial {
				tx.edits = edits[i]
				must(t, tx.applyEdits(ctx))
				var want error
				if tx.Unchanged() {
					// nothing to merge
				} else if next, err := mergeRoots(ctx, db, tx.base, cur, tx.root, tx.adopted); err != nil {
					want = err
				} else {
					cur = next
				}
				got := reqs[i].err
				if (got == nil) != (want == nil) || (got != nil && !errors.Is(got, ErrSerialization)) {
					t.Fatalf("transaction %d: group merge %v, one at a time %v", i, got, want)
				}
			}
			ok := 0
			for _, r := range reqs {
				if r.err == nil {
					ok++
				}
			}
			t.Logf("%d of %d committed", ok, len(reqs))
			if gotWS.Working != cur.Address() {
				t.Fatalf("group merge made root %s, one at a time %s", gotWS.Working, cur.Address())
			}
		})
	}
}

// groupModelDB makes a database with tables t (primary key, a unique and
// a plain index) and bag (no primary key), and twelve transactions on one
// snapshot of it with the random writes of seed, uncommitted; it returns
// them, their pending edits of t and the snapshot's working set.
func groupModelDB(t *testing.T, seed uint64) ([]*Txn, [][]TableEdit, commitgraph.WorkingSet) {
	ctx := context.Background()
	db, err := OpenStore("db", chunks.NewMemoryStore(), Options{})
	must(t, err)
	setup, _ := db.Begin(ctx, "")
	must(t, setup.CreateTable(ctx, "t", &tables.Schema{
		Columns:    []tables.Column{{Name: "pk", Type: "int", Kind: prolly.KindInt}, intCol("v"), intCol("u")},
		PrimaryKey: []int{0},
		Indexes: []tables.Index{
			{Name: "u", Columns: []int{2}, Unique: true},
			{Name: "v", Columns: []int{1}},
		},
	}))
	must(t, setup.CreateTable(ctx, "bag", &tables.Schema{Columns: []tables.Column{intCol("a")}}))
	for k := range 400 {
		must(t, setup.Insert(ctx, "t", prolly.Int(int64(k)), prolly.Int(int64(k%7)), prolly.Int(int64(k))))
	}
	for k := range 20 {
		must(t, setup.Insert(ctx, "bag", prolly.Int(int64(k%5))))
	}
	must(t, setup.Commit(ctx))

	rng := rand.New(rand.NewPCG(seed, seed*31))
	txns := make([]*Txn, 12)
	edits := make([][]TableEdit, len(txns))
	var ws commitgraph.WorkingSet
	for i := range txns {
		tx, err := db.Begin(ctx, "")
		must(t, err)
		tx.LockTimeout = time.Millisecond // a row another holds: skip the write
		ws = tx.Start()
		txns[i] = tx
		var ed *tables.Editor // t's pending edit, for a third of them
		if i%3 == 1 {
			tb, err := tx.Table(ctx, "t")
			must(t, err)
			ed = tb.Edit()
			edits[i] = []TableEdit{{Name: "t", Editor: ed}}
		}
		for range 1 + rng.IntN(6) {
			var err error
			op := rng.IntN(20)
			if ed != nil && op < 14 {
				err = editOp(ctx, ed, rng, op)
				op = -1
			}
			switch {
			case op < 0:
			case op < 6: // a new key, often one another takes too
				k := 400 + rng.Int64N(40)
				err = tx.Insert(ctx, "t", prolly.Int(k), prolly.Int(rng.Int64N(7)), prolly.Int(1000+rng.Int64N(60)))
			case op < 11:
				k := rng.Int64N(400)
				err = tx.Put(ctx, "t", prolly.Int(k), prolly.Int(rng.Int64N(7)), prolly.Int(2000+k))
			case op < 14:
				_, err = tx.Delete(ctx, "t", prolly.Int(rng.Int64N(440)))
			case op < 17:
				err = tx.Insert(ctx, "bag", prolly.Int(rng.Int64N(5)))
			case op < 18:
				_, err = tx.Delete(ctx, "bag", prolly.Int(rng.Int64N(5)))
			case op < 19: // a new table: the root-merge driver's path
				name := fmt.Sprintf("n%d", rng.IntN(4))
				if _, _, ok, _ := FindTable(ctx, tx.Root(), name); !ok {
					err = tx.CreateTable(ctx, name, &tables.Schema{
						Columns: []tables.Column{{Name: "pk", Type: "int", Kind: prolly.KindInt}}, PrimaryKey: []int{0}})
				}
			case ed != nil: // no schema change under a pending edit
			default: // a schema change of t
				var tb *tables.Table
				if tb, err = tx.Table(ctx, "t"); err == nil {
					s := *tb.Schema()
					s.Indexes = s.Indexes[:1]
					var nt *tables.Table
					if nt, err = tables.New(db.graph.NodeStore(), &s, db.Collations()); err == nil {
						err = tx.putTable(ctx, "t", nt)
					}
				}
			}
			var dup *tables.DuplicateKeyError
			if err != nil && !errors.Is(err, ErrLockTimeout) && !errors.As(err, &dup) {
				t.Fatalf("transaction %d: %v", i, err)
			}
		}
	}
	return txns, edits, ws
}

// editOp makes the write op (as groupModelDB draws it) to t through ed.
func editOp(ctx context.Context, ed *tables.Editor, rng *rand.Rand, op int) error {
	switch {
	case op < 6:
		k := 400 + rng.Int64N(40)
		_, err := ed.Insert(ctx, []tables.Value{prolly.Int(k), prolly.Int(rng.Int64N(7)), prolly.Int(1000 + rng.Int64N(60))})
		return err
	case op < 11:
		k := rng.Int64N(400)
		old, ok, err := ed.Get(ctx, []tables.Value{prolly.Int(k)})
		if err != nil || !ok {
			return err
		}
		return ed.Update(ctx, old, []tables.Value{prolly.Int(k), prolly.Int(rng.Int64N(7)), prolly.Int(2000 + k)})
	default:
		old, ok, err := ed.Get(ctx, []tables.Value{prolly.Int(rng.Int64N(440))})
		if err != nil || !ok {
			return err
		}
		return ed.Delete(ctx, old)
	}
}

// hookStore runs before, once per store commit made outside it, before
// the commit.
type hookStore struct {
	chunks.Store
	before  func()
	inside  atomic.Bool
	commits atomic.Int64
}

func (s *hookStore) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	if s.before != nil && s.inside.CompareAndSwap(false, true) {
		if s.commits.Add(1)%7 == 0 {
			s.before()
		}
		s.inside.Store(false)
	}
	return s.Store.Commit(ctx, newRoot, expected)
}

// TestPipelinedCommitsRetry: eight writers commit 40 inserts each through
// the commit queue (half of them as pending edits, CommitEdits), whose groups merge while the previous group's working
// set is written, while a second database over the same store (another
// writer, outside the queue) commits to the branch just before every
// seventh store commit. The queue's write then finds the working set moved,
// and so does any group that merged into it: each must merge again from the
// branch as stored. Every acknowledged insert must be in the table, and
// every row of the other writer too.
func TestPipelinedCommitsRetry(t *testing.T) {
	ctx := context.Background()
	hs := &hookStore{Store: chunks.NewMemoryStore()}
	db, err := OpenStore("db", hs, Options{})
	must(t, err)
	setup, _ := db.Begin(ctx, "")
	must(t, setup.CreateTable(ctx, "t", &tables.Schema{
		Columns: []tables.Column{{Name: "pk", Type: "int", Kind: prolly.KindInt}, intCol("v")}, PrimaryKey: []int{0}}))
	must(t, setup.CreateTable(ctx, "side", &tables.Schema{
		Columns: []tables.Column{{Name: "pk", Type: "int", Kind: prolly.KindInt}}, PrimaryKey: []int{0}}))
	must(t, setup.Commit(ctx))
	other, err := OpenStore("db", hs.Store, Options{})
	must(t, err)
	var sides atomic.Int64
	hs.before = func() {
		tx, err := other.Begin(ctx, "")
		if err != nil {
			t.Error(err)
			return
		}
		n := sides.Load()
		if err := tx.Insert(ctx, "side", prolly.Int(n)); err != nil {
			t.Error(err)
			return
		}
		if err := tx.Commit(ctx); err != nil {
			t.Error(err)
			return
		}
		sides.Add(1)
	}
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tx, err := db.Begin(ctx, "")
				row := []tables.Value{prolly.Int(int64(w*each + i)), prolly.Int(int64(w))}
				if err == nil && w%2 == 1 {
					// Through a pending edit, as an autocommitted
					// statement commits.
					var tb *tables.Table
					if tb, err = tx.Table(ctx, "t"); err == nil {
						ed := tb.Edit()
						if _, err = ed.Insert(ctx, row); err == nil {
							err = tx.CommitEdits(ctx, []TableEdit{{Name: "t", Editor: ed}})
						}
					}
				} else {
					if err == nil {
						err = tx.Insert(ctx, "t", row...)
					}
					if err == nil {
						err = tx.Commit(ctx)
					}
				}
				if err != nil {
					t.Errorf("writer %d, insert %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	hs.before = nil
	check, _ := db.Begin(ctx, "")
	for name, want := range map[string]int64{"t": writers * each, "side": sides.Load()} {
		tb, err := check.Table(ctx, name)
		must(t, err)
		if n := tb.Count(); int64(n) != want {
			t.Fatalf("table %s holds %d rows, want %d", name, n, want)
		}
	}
	if sides.Load() == 0 {
		t.Fatal("the other writer never committed")
	}
	t.Logf("%d store commits, %d by the other writer", hs.commits.Load(), sides.Load())
}
