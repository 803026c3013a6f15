package verso_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verso-db/verso"
)

// TestRemoteRoundTrip: a database pushed to a file remote, cloned, changed
// on both sides, pushed (a second push from the stale side refused until
// it fetches and merges), fetched and merged through origin/main.
func TestRemoteRoundTrip(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	remote := "file://" + filepath.ToSlash(filepath.Join(base, "remote"))
	if err := os.Mkdir(filepath.Join(base, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := verso.Init(filepath.Join(base, "a"), verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	me := verso.Signature{Name: "t", Email: "t@x"}
	write := func(db *verso.DB, id int64, v string, msg string) {
		t.Helper()
		txn, err := db.Begin(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		if names, _ := txn.TableNames(ctx); len(names) == 0 {
			if err := txn.CreateTable(ctx, "t", &verso.Schema{Columns: []verso.Column{
				{Name: "id", Type: "int", Kind: verso.KindInt}, {Name: "v", Type: "varchar(20)", Kind: verso.KindString, Nullable: true}},
				PrimaryKey: []int{0}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Put(ctx, "t", verso.Int(id), verso.String(v)); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: msg, Author: me, StageAll: true}); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 50; i++ {
		write(a, i, "a", "a")
	}
	if err := a.AddRemote(ctx, "origin", remote, nil); err != nil {
		t.Fatal(err)
	}
	res, err := a.Push(ctx, "origin", "main", "main", verso.PushOptions{})
	if err != nil || !res.Old.IsEmpty() {
		t.Fatalf("first push: %+v %v", res, err)
	}
	b, err := verso.Clone(ctx, remote, filepath.Join(base, "b"), verso.CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, want := logOf(t, b, "main"), logOf(t, a, "main"); got != want || strings.Count(want, "\n") != 51 {
		t.Fatalf("the clone's log:\n%s\nthe original's:\n%s", got, want)
	}
	if got, want := logOf(t, b, "origin/main"), logOf(t, a, "main"); got != want {
		t.Fatal("origin/main is not the remote's main")
	}
	write(b, 100, "b", "b side")
	if _, err := b.Push(ctx, "origin", "main", "main", verso.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	write(a, 200, "a", "a side")
	if _, err := a.Push(ctx, "origin", "main", "main", verso.PushOptions{}); !errors.Is(err, verso.ErrRemoteMoved) {
		t.Fatalf("a stale push: %v", err)
	}
	if _, err := a.Fetch(ctx, "origin", verso.FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	txn, _ := a.Begin(ctx, "main")
	if _, err := txn.Merge(ctx, "origin/main", verso.MergeOptions{Author: me}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "main", "main", verso.PushOptions{}); err != nil {
		t.Fatalf("a push after the merge: %v", err)
	}
	if _, err := b.Fetch(ctx, "origin", verso.FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	txn, _ = b.Begin(ctx, "main")
	if r, err := txn.Merge(ctx, "origin/main", verso.MergeOptions{Author: me}); err != nil || !r.FastForward {
		t.Fatalf("b's merge of origin/main: %+v %v", r, err)
	}
	if logOf(t, a, "main") != logOf(t, b, "main") {
		t.Fatal("a and b differ after the round trip")
	}
	for _, db := range []*verso.DB{a, b} {
		txn, _ := db.Begin(ctx, "main")
		for _, id := range []int64{1, 100, 200} {
			if _, ok, err := txn.Get(ctx, "t", verso.Int(id)); err != nil || !ok {
				t.Fatalf("row %d missing: %v", id, err)
			}
		}
		if rep, err := db.Check(ctx, verso.CheckOptions{}); err != nil || !rep.OK() {
			t.Fatalf("check: %+v %v", rep, err)
		}
	}
	// A force push rewinds the remote; delete a branch.
	if _, err := a.Push(ctx, "origin", "main~3", "main", verso.PushOptions{}); !errors.Is(err, verso.ErrRemoteMoved) {
		t.Fatalf("a rewinding push: %v", err)
	}
	if _, err := a.Push(ctx, "origin", "main~3", "main", verso.PushOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "main", "other", verso.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "", "other", verso.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, "origin", "", "other", verso.PushOptions{}); !errors.Is(err, verso.ErrNoRemoteRef) {
		t.Fatalf("deleting a missing branch: %v", err)
	}
	f, err := b.Fetch(ctx, "origin", verso.FetchOptions{Prune: true})
	if err != nil || len(f.Heads) != 1 {
		t.Fatalf("%+v %v", f, err)
	}
	rbs, _ := b.RemoteBranches(ctx)
	if len(rbs) != 1 || rbs[0].Name != "origin/main" {
		t.Fatalf("remote branches after a pruning fetch: %+v", rbs)
	}
	if err := b.RemoveRemote(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Fetch(ctx, "origin", verso.FetchOptions{}); !errors.Is(err, verso.ErrRemoteNotFound) {
		t.Fatalf("fetch of a removed remote: %v", err)
	}
}

// logOf returns rev's log as text.
func logOf(t *testing.T, db *verso.DB, rev string) string {
	t.Helper()
	log, err := db.Log(context.Background(), rev, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range log {
		fmt.Fprintln(&b, c.Addr, c.Meta.Message)
	}
	return b.String()
}
