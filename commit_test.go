package verso_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/verso-db/verso"
)

// TestAmendAndSkipEmpty: amending the root commit makes a new root commit;
// --skip-empty makes no commit, an amend included, when nothing is staged.
func TestAmendAndSkipEmpty(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	root, err := db.Resolve(ctx, "main", "")
	ok(t, err)
	c, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: true, Message: "first, amended", Author: jane})
	ok(t, err)
	if len(c.Parents) != 0 || c.Addr == root.Addr || c.Meta.Message != "first, amended" || c.Root != root.Root {
		t.Fatalf("amended root commit: %+v, want a new root commit of the same root value", c)
	}
	log, err := db.Log(ctx, "main", 0)
	ok(t, err)
	if len(log) != 1 || log[0].Addr != c.Addr {
		t.Fatalf("log after amending the root commit: %d commits", len(log))
	}
	for _, amend := range []bool{false, true} {
		txn, err = db.Begin(ctx, "main")
		ok(t, err)
		made, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: amend, SkipEmpty: true, Message: "skipped", Author: jane})
		if err != nil || made != nil {
			t.Fatalf("skip-empty (amend %v) with nothing staged: %v, %v; want no commit", amend, made, err)
		}
	}
	if h, err := db.Resolve(ctx, "main", ""); err != nil || h.Addr != c.Addr {
		t.Fatalf("head moved: %v %v", h, err)
	}
}

// TestAmendTwiceAtOnce: amends without a change, one right after another
// (within a millisecond), each make a new commit, as Dolt's do.
func TestAmendTwiceAtOnce(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		c, err := txn.CommitChanges(ctx, verso.CommitOptions{Amend: true, Author: jane})
		ok(t, err)
		if seen[c.Addr.String()] {
			t.Fatalf("amend %d made commit %s again", i, c.Addr)
		}
		seen[c.Addr.String()] = true
	}
}

// TestCleanAndRemove: Clean drops the untracked tables only (all, or
// those named, or none on a dry run); Remove stages the removal of tables
// and refuses those with changes, unless cached for staged ones.
func TestCleanAndRemove(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "base")
	for _, n := range []string{"n1", "n2", "n3"} {
		createKV(t, db, "main", n)
	}
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Stage(ctx, "n3"))
	if got := mustClean(t, db, verso.CleanOptions{DryRun: true}); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Fatalf("dry run: %v", got)
	}
	wantStatus(t, db, "main", "after a dry run", "n3 staged new table", "n1 new table", "n2 new table")
	if got := mustClean(t, db, verso.CleanOptions{Tables: []string{"N1", "t", "n3"}}); !slices.Equal(got, []string{"n1"}) {
		t.Fatalf("clean of n1, t, n3: %v", got)
	}
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	var nt *verso.TableNotFoundError
	if _, err := txn.Clean(ctx, verso.CleanOptions{Tables: []string{"nope"}}); !errors.As(err, &nt) {
		t.Fatalf("clean of no table: %v", err)
	}
	if got := mustClean(t, db, verso.CleanOptions{}); !slices.Equal(got, []string{"n2"}) {
		t.Fatalf("clean: %v", got)
	}
	wantStatus(t, db, "main", "after cleaning", "n3 staged new table")

	// Remove: a table with unstaged or staged changes is refused.
	put(t, db, "main", "t", 1, 1)
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	var re *verso.RemoveError
	if err := txn.Remove(ctx, []string{"t"}, false); !errors.As(err, &re) || re.Staged {
		t.Fatalf("remove of a changed table: %v", err)
	}
	ok(t, txn.Stage(ctx, "t"))
	if err := txn.Remove(ctx, []string{"t"}, false); !errors.As(err, &re) || re.Staged {
		t.Fatalf("remove of a staged change: %v", err)
	}
	if err := txn.Remove(ctx, []string{"n3"}, false); !errors.As(err, &re) || !re.Staged {
		t.Fatalf("remove of a staged new table: %v", err)
	}
	commitAll(t, db, "main", "t and n3")
	txn, err = db.Begin(ctx, "main")
	ok(t, err)
	ok(t, txn.Remove(ctx, []string{"t"}, false))
	ok(t, txn.Remove(ctx, []string{"n3"}, true))
	wantStatus(t, db, "main", "after removing t, and n3 from the index", "n3 staged deleted", "t staged deleted", "n3 new table")
}

// TestIgnore: the untracked tables dolt_ignore's patterns ignore stay out
// of StageAll, Stage by name (unless forced), Status (but not
// StatusWithIgnored) and Clean (unless IncludeIgnored); tracked ones are
// never ignored.
func TestIgnore(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		err := txn.CreateTable(ctx, verso.IgnoreTable, &verso.Schema{
			Columns: []verso.Column{
				{Name: "pattern", Type: "text", Kind: verso.KindString},
				{Name: "ignored", Type: "tinyint(1)", Kind: verso.KindInt},
			},
			PrimaryKey: []int{0},
		})
		if err != nil {
			return err
		}
		for _, r := range []struct {
			p string
			v int64
		}{{"tmp*", 1}, {"tmpkeep", 0}} {
			if err := txn.Put(ctx, verso.IgnoreTable, verso.String(r.p), verso.Int(r.v)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, n := range []string{"tmp1", "tmpkeep", "t"} {
		createKV(t, db, "main", n)
	}
	wantStatus(t, db, "main", "with ignored tables", "dolt_ignore new table", "t new table", "tmpkeep new table")
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	es, err := txn.StatusWithIgnored(ctx)
	ok(t, err)
	if len(es) != 4 || es[2].Table != "tmp1" || !es[2].Ignored {
		t.Fatalf("StatusWithIgnored: %+v", es)
	}
	ok(t, txn.StageAll(ctx))
	ok(t, txn.Stage(ctx, "tmp1"))
	wantStatus(t, db, "main", "after staging all and tmp1", "dolt_ignore staged new table", "t staged new table", "tmpkeep staged new table")
	if got := mustClean(t, db, verso.CleanOptions{}); got != nil {
		t.Fatalf("clean dropped %v", got)
	}
	ok(t, txn.StageForced(ctx, "tmp1"))
	wantStatus(t, db, "main", "after forcing tmp1", "dolt_ignore staged new table", "t staged new table", "tmp1 staged new table", "tmpkeep staged new table")
	createKV(t, db, "main", "tmp2")
	if got := mustClean(t, db, verso.CleanOptions{IncludeIgnored: true}); !slices.Equal(got, []string{"tmp2"}) {
		t.Fatalf("clean -x dropped %v", got)
	}
}

// mustClean runs Clean on main and returns what it dropped.
func mustClean(t *testing.T, db *verso.DB, opts verso.CleanOptions) []string {
	t.Helper()
	txn, err := db.Begin(context.Background(), "main")
	ok(t, err)
	dropped, err := txn.Clean(context.Background(), opts)
	ok(t, err)
	return dropped
}
