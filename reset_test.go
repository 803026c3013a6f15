package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// wantStatus fails the test unless the branch's status is want.
func wantStatus(t *testing.T, db *verso.DB, branch, when string, want ...string) {
	t.Helper()
	if got := status(t, db, branch); !slices.Equal(got, want) {
		t.Fatalf("status %s: %q, want %q", when, got, want)
	}
}

// TestStageAndStatus follows dolt_status through staging: new, modified
// and deleted tables, staged and not, and the transaction's own writes.
func TestStageAndStatus(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	wantStatus(t, db, "main", "of a new database")
	createKV(t, db, "main", "a")
	createKV(t, db, "main", "b")
	wantStatus(t, db, "main", "with two new tables", "a new table", "b new table")

	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Stage(ctx, "A")) // names match without case
	wantStatus(t, db, "main", "after staging a", "a staged new table", "b new table")
	var nt *verso.TableNotFoundError
	if err := txn.Stage(ctx, "b", "nope"); !errors.As(err, &nt) || nt.Table != "nope" || !errors.Is(err, verso.ErrTableNotFound) {
		t.Fatalf("staging no table: %v", err)
	}
	wantStatus(t, db, "main", "after a failed stage", "a staged new table", "b new table")
	ok(t, txn.StageAll(ctx))
	wantStatus(t, db, "main", "after staging all", "a staged new table", "b staged new table")
	commitAll(t, db, "main", "a and b")
	wantStatus(t, db, "main", "after the commit")

	// The transaction's writes show before it commits.
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Put(ctx, "a", verso.Int(1), verso.Int(1)))
	es, err := txn.Status(ctx)
	ok(t, err)
	if len(es) != 1 || es[0] != (verso.StatusEntry{Table: "a", Status: verso.StatusModified}) {
		t.Fatalf("status with the transaction's write: %+v", es)
	}
	ok(t, txn.Commit(ctx))
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		ok(t, txn.Stage(ctx, "a"))
		return txn.Put(ctx, "a", verso.Int(2), verso.Int(2))
	})
	wantStatus(t, db, "main", "with a staged and changed again", "a staged modified", "a modified")

	// A dropped table, staged as deleted.
	commitAll(t, db, "main", "rows of a")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "b", Delete: true})
		txn.SetRoot(root)
		return err
	})
	wantStatus(t, db, "main", "with b dropped", "b deleted")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.Stage(ctx, "b") })
	wantStatus(t, db, "main", "with b's drop staged", "b staged deleted")

	// A commit has no working set.
	log, err := db.Log(ctx, "", 1)
	ok(t, err)
	at, err := db.BeginAt(ctx, log[0])
	ok(t, err)
	if es, err := at.Status(ctx); err != nil || len(es) != 0 {
		t.Fatalf("status at a commit: %v, %v", es, err)
	}
}

// TestStatusConflict: a merge that stops on a conflict shows the table in
// conflict.
func TestStatusConflict(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "t")
	ok(t, db.CreateBranch(ctx, "other", "main"))
	put(t, db, "other", "t", 1, 2)
	commitAll(t, db, "other", "v = 2")
	put(t, db, "main", "t", 1, 3)
	commitAll(t, db, "main", "v = 3")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	res, err := txn.Merge(ctx, "other", verso.MergeOptions{Author: jane})
	ok(t, err)
	if len(res.Conflicts) != 1 {
		t.Fatalf("merge: %+v, want a conflict", res)
	}
	// The conflicted row keeps ours, so t is as HEAD has it.
	wantStatus(t, db, "main", "with a conflict", "t conflict")
	// Staging keeps the merge in progress.
	ok(t, txn.ResolveConflicts(ctx, "t", verso.Ours))
	ok(t, txn.StageAll(ctx))
	c, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: "merged", Author: jane})
	ok(t, err)
	if len(c.Parents) != 2 {
		t.Fatalf("the commit after staging has %d parents, want a merge's 2", len(c.Parents))
	}
}

// TestReset covers dolt_reset's forms: mixed (unstage), of tables, soft
// with and without a revision, and hard, which keeps untracked tables.
func TestReset(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	first := commitAll(t, db, "main", "t")
	put(t, db, "main", "t", 1, 2)
	createKV(t, db, "main", "u")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.StageAll(ctx) })
	wantStatus(t, db, "main", "with t and u staged", "t staged modified", "u staged new table")

	reset := func(opts verso.ResetOptions) error {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		return txn.Reset(ctx, opts)
	}
	ok(t, reset(verso.ResetOptions{Tables: []string{"u"}}))
	wantStatus(t, db, "main", "after a reset of u", "t staged modified", "u new table")
	var nt *verso.TableNotFoundError
	if err := reset(verso.ResetOptions{Tables: []string{"nope"}}); !errors.As(err, &nt) {
		t.Fatalf("a reset of no table: %v", err)
	}
	ok(t, reset(verso.ResetOptions{}))
	wantStatus(t, db, "main", "after a mixed reset", "t modified", "u new table")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.Stage(ctx, "t") })
	ok(t, reset(verso.ResetOptions{Soft: true}))
	wantStatus(t, db, "main", "after --soft without a revision (nothing changes)", "t staged modified", "u new table")

	// Soft to a revision moves only the head.
	second := commitAll(t, db, "main", "v = 2 and u")
	ok(t, reset(verso.ResetOptions{Rev: "HEAD~1", Soft: true}))
	if c, _ := db.Resolve(ctx, "main", ""); c.Addr != first.Addr {
		t.Fatalf("after --soft HEAD~1 main is at %s, want %s", c.Addr, first.Addr)
	}
	wantStatus(t, db, "main", "after --soft HEAD~1", "t staged modified", "u staged new table")

	// Hard to a revision: the head, staged and working roots are its, the
	// untracked table stays.
	ok(t, db.SetBranch(ctx, "keep", second.Addr.String(), verso.BranchOptions{}))
	ok(t, reset(verso.ResetOptions{Rev: "keep"}))
	createKV(t, db, "main", "scratch")
	put(t, db, "main", "t", 1, 9)
	ok(t, reset(verso.ResetOptions{Hard: true, Rev: first.Addr.String()}))
	wantStatus(t, db, "main", "after --hard to the first commit", "scratch new table")
	if v := value(t, db, "main", "t", 1); v != 1 {
		t.Fatalf("after --hard t has v = %d, want 1", v)
	}
	var rev *verso.RevisionError
	if err := reset(verso.ResetOptions{Hard: true, Rev: "nope"}); !errors.As(err, &rev) {
		t.Fatalf("a reset to no revision: %v", err)
	}
	if err := reset(verso.ResetOptions{Hard: true, Soft: true}); err == nil {
		t.Fatal("a reset both hard and soft worked")
	}
	if err := reset(verso.ResetOptions{Hard: true, Tables: []string{"t"}}); err == nil {
		t.Fatal("a hard reset of tables worked")
	}
}

// TestResetHardUndoesRename: a table renamed in the working root (its
// table value moved to another name) is tracked, so a hard reset puts it
// back under its old name; a new table of its own is kept.
func TestResetHardUndoesRename(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "t")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		root := txn.Root()
		a, found, err := root.Get(ctx, commitgraph.TablePrefix+"t")
		if err != nil || !found {
			t.Fatalf("no table t: %v", err)
		}
		root, err = root.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "t", Delete: true},
			commitgraph.RootEdit{Name: commitgraph.TablePrefix + "t2", Addr: a})
		txn.SetRoot(root)
		return err
	})
	createKV(t, db, "main", "scratch")
	wantStatus(t, db, "main", "after the rename", "scratch new table", "t deleted", "t2 new table")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Reset(ctx, verso.ResetOptions{Hard: true}))
	wantStatus(t, db, "main", "after --hard", "scratch new table")
	if v := value(t, db, "main", "t", 1); v != 1 {
		t.Fatalf("after --hard t has v = %d, want 1", v)
	}
}

// TestCheckoutTables: tables' working changes are discarded (from the
// staged root), or tables are taken from a revision into both roots.
func TestCheckoutTables(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "v = 1")
	put(t, db, "main", "t", 1, 2)
	commitAll(t, db, "main", "v = 2")
	put(t, db, "main", "t", 1, 3)
	checkout := func(rev string, names ...string) error {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		return txn.CheckoutTables(ctx, rev, names)
	}
	ok(t, checkout("", "T"))
	if v := value(t, db, "main", "t", 1); v != 2 {
		t.Fatalf("after discarding the working change v = %d, want 2", v)
	}
	wantStatus(t, db, "main", "after discarding")
	var nt *verso.TableNotFoundError
	if err := checkout("", "t", "nope"); !errors.As(err, &nt) || nt.Table != "nope" {
		t.Fatalf("a checkout of no table: %v", err)
	}
	ok(t, checkout("HEAD~1", "t"))
	if v := value(t, db, "main", "t", 1); v != 1 {
		t.Fatalf("after a checkout from HEAD~1 v = %d, want 1", v)
	}
	wantStatus(t, db, "main", "after a checkout from HEAD~1", "t staged modified")
	// A table the revision lacks is not dropped.
	createKV(t, db, "main", "u")
	if err := checkout("HEAD", "t", "u"); !errors.As(err, &nt) || nt.Table != "u" {
		t.Fatalf("a checkout from HEAD of a table it lacks: %v", err)
	}
	wantStatus(t, db, "main", "after a checkout of a table HEAD lacks", "t staged modified", "u new table")
	var rev *verso.RevisionError
	if err := checkout("HEAD~5", "t"); !errors.As(err, &rev) || rev.Rev != "HEAD~5" {
		t.Fatalf("a checkout from HEAD~5: %v", err)
	}
}

// TestCheckoutAll: every table's working changes are discarded; staged
// changes stay, an untracked table (only in the working root) stays and
// one dropped from the working root comes back.
func TestCheckoutAll(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	createKV(t, db, "main", "u")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "t and u")
	put(t, db, "main", "t", 1, 2)
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.Stage(ctx, "t") })
	put(t, db, "main", "t", 1, 3)
	put(t, db, "main", "u", 1, 1)
	createKV(t, db, "main", "scratch")
	wantStatus(t, db, "main", "before", "t staged modified", "scratch new table", "t modified", "u modified")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Put(ctx, "u", verso.Int(2), verso.Int(2))) // the transaction's own write goes too
	ok(t, txn.CheckoutAll(ctx))
	ok(t, txn.Commit(ctx))
	wantStatus(t, db, "main", "after", "t staged modified", "scratch new table")
	if v := value(t, db, "main", "t", 1); v != 2 {
		t.Fatalf("t has v = %d, want the staged 2", v)
	}
	if v := value(t, db, "main", "u", 2); v != -1 {
		t.Fatalf("u kept the transaction's row 2")
	}
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		root, err := txn.Root().Edit(ctx, commitgraph.RootEdit{Name: commitgraph.TablePrefix + "u", Delete: true})
		txn.SetRoot(root)
		return err
	})
	wantStatus(t, db, "main", "with u dropped", "t staged modified", "scratch new table", "u deleted")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.CheckoutAll(ctx) })
	if v := value(t, db, "main", "u", 1); v != -1 {
		t.Fatalf("u came back with a row 1 (v = %d), which it never had staged", v)
	}
	wantStatus(t, db, "main", "after the drop is discarded", "t staged modified", "scratch new table")
}
