package verso_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// TestReplicateModel: random histories on a primary (commits on several
// branches, branches created, deleted and rewound with a forced push),
// pushed to a file remote after each step; after each step a replica of
// every branch has exactly the primary's branches and heads, and a
// replica of the pattern "f*" has exactly the primary's branches that
// match it (and its own default branch). A pull that finds nothing new
// writes nothing.
func TestReplicateModel(t *testing.T) {
	ctx := context.Background()
	base, url, p := primaryWithRemote(t)
	me := verso.Signature{Name: "t", Email: "t@x"}
	n := 0
	commit := func(branch string) {
		t.Helper()
		n++
		txn, err := p.Begin(ctx, branch)
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
		if err := txn.Put(ctx, "t", verso.Int(int64(n)), verso.String(branch)); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprint(n), Author: me, StageAll: true}); err != nil {
			t.Fatal(err)
		}
	}
	commit("main")
	if err := p.AddRemote(ctx, "origin", url, nil); err != nil {
		t.Fatal(err)
	}
	heads := func(db *verso.DB, match func(string) bool) map[string]chunks.Address {
		t.Helper()
		bs, err := db.Branches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]chunks.Address{}
		for _, b := range bs {
			if match(b.Name) {
				out[b.Name] = b.Head
			}
		}
		return out
	}
	// Push every branch, force, and delete on the remote what the
	// primary deleted.
	pushAll := func() {
		t.Helper()
		rh, err := p.RemoteHeads(ctx, "origin")
		if err != nil {
			t.Fatal(err)
		}
		ph := heads(p, func(string) bool { return true })
		for b := range ph {
			if _, err := p.Push(ctx, "origin", b, b, verso.PushOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
		}
		for b := range rh {
			if _, ok := ph[b]; !ok {
				if _, err := p.Push(ctx, "origin", "", b, verso.PushOptions{Force: true}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	pushAll()
	all, err := verso.Clone(ctx, url, filepath.Join(base, "all"), verso.CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	some, err := verso.Clone(ctx, url, filepath.Join(base, "some"), verso.CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer some.Close()
	isF := func(b string) bool { return strings.HasPrefix(b, "f") }
	everything := func(string) bool { return true }

	rng := rand.New(rand.NewPCG(7, 17))
	names := []string{"main", "f1", "f2", "fx", "g1"}
	for step := 0; step < 60; step++ {
		ph := heads(p, everything)
		b := names[rng.IntN(len(names))]
		_, exists := ph[b]
		var what string
		switch op := rng.IntN(10); {
		case !exists:
			what = "create " + b
			if err := p.CreateBranch(ctx, b, "main"); err != nil {
				t.Fatal(err)
			}
			commit(b)
		case op < 6:
			what = "commit on " + b
			commit(b)
		case op < 8 && b != "main":
			what = "delete " + b
			if err := p.DeleteBranch(ctx, b, verso.BranchOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
		default:
			what = "rewind " + b
			c, err := p.Resolve(ctx, b, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Parents) == 0 {
				continue
			}
			if b == "main" {
				txn, err := p.Begin(ctx, "main")
				if err != nil {
					t.Fatal(err)
				}
				if err := txn.Reset(ctx, verso.ResetOptions{Rev: "main~1", Hard: true}); err != nil {
					t.Fatal(err)
				}
			} else if err := p.SetBranch(ctx, b, b+"~1", verso.BranchOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
		}
		pushAll()
		if _, err := all.Replicate(ctx, "origin", verso.ReplicateOptions{}); err != nil {
			t.Fatalf("step %d (%s): replicate all: %v", step, what, err)
		}
		if got, want := heads(all, everything), heads(p, everything); !mapsEqual(got, want) {
			t.Fatalf("step %d (%s): the replica of every branch has %v, the primary %v", step, what, got, want)
		}
		if _, err := some.Replicate(ctx, "origin", verso.ReplicateOptions{Heads: []string{"f*"}}); err != nil {
			t.Fatalf("step %d (%s): replicate f*: %v", step, what, err)
		}
		if got, want := heads(some, isF), heads(p, isF); !mapsEqual(got, want) {
			// Branches deleted on the primary stay on a replica of
			// some heads: only "every branch" deletes.
			for b := range got {
				if _, ok := want[b]; !ok {
					delete(got, b)
				}
			}
			if !mapsEqual(got, want) {
				t.Fatalf("step %d (%s): the replica of f* has %v, the primary %v", step, what, got, want)
			}
		}
		// Nothing new: no write.
		before, err := all.Store().Root(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := all.Replicate(ctx, "origin", verso.ReplicateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		after, _ := all.Store().Root(ctx)
		if before != after || len(res.Moved)+len(res.Created)+len(res.Deleted) != 0 || res.Copied.Chunks != 0 {
			t.Fatalf("step %d: a second pull changed something: %+v, root %s -> %s", step, res, before, after)
		}
	}
	// The replica's rows are the primary's.
	if got, want := logOf(t, all, "main"), logOf(t, p, "main"); got != want {
		t.Fatalf("the replica's main log:\n%s\nthe primary's:\n%s", got, want)
	}
}

func mapsEqual(a, b map[string]chunks.Address) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestReplicateFastForwardOnly: with FastForwardOnly, a branch rewound on
// the remote is refused (ErrDiverged) and the replica keeps its head;
// without, it is reset to the remote's.
func TestReplicateFastForwardOnly(t *testing.T) {
	ctx := context.Background()
	base, url, p := primaryWithRemote(t)
	me := verso.Signature{Name: "t", Email: "t@x"}
	for i := 0; i < 3; i++ {
		txn, err := p.Begin(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprint(i), Author: me, AllowEmpty: true}); err != nil {
			t.Fatal(err)
		}
	}
	r := pushAndClone(t, p, url, filepath.Join(base, "r"))
	old, _ := r.Resolve(ctx, "main", "")
	if _, err := p.Push(ctx, "origin", "main~2", "main", verso.PushOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Replicate(ctx, "origin", verso.ReplicateOptions{Heads: []string{"main"}, FastForwardOnly: true}); !errors.Is(err, verso.ErrDiverged) {
		t.Fatalf("a rewound remote branch with FastForwardOnly: %v, want ErrDiverged", err)
	}
	if c, _ := r.Resolve(ctx, "main", ""); c.Addr != old.Addr {
		t.Fatal("the refused pull moved main")
	}
	res, err := r.Replicate(ctx, "origin", verso.ReplicateOptions{Heads: []string{"main"}})
	if err != nil || !slices.Equal(res.Moved, []string{"main"}) {
		t.Fatalf("forced: %+v %v", res, err)
	}
	want, _ := p.Resolve(ctx, "main~2", "")
	if c, _ := r.Resolve(ctx, "main", ""); c.Addr != want.Addr {
		t.Fatal("the forced pull did not reset main to the remote's")
	}
	if _, err := r.Replicate(ctx, "origin", verso.ReplicateOptions{Heads: []string{"[bad"}}); err == nil {
		t.Fatal("a bad pattern: no error")
	}
}

// TestUsageOfAClone: a clone's refs hold a remote's configuration and an
// upstream besides commits; Usage counts them as "remotes" and finds no
// garbage.
func TestUsageOfAClone(t *testing.T) {
	ctx := context.Background()
	base, url, p := primaryWithRemote(t)
	c := pushAndClone(t, p, url, filepath.Join(base, "c"))
	for _, db := range []*verso.DB{p, c} {
		u, err := db.Usage(ctx)
		if err != nil {
			t.Fatalf("%s: %v", db.Name(), err)
		}
		n := 0
		for _, k := range u.Kinds {
			if k.Name == "remotes" {
				n = k.Chunks
			}
		}
		if want := map[*verso.DB]int{p: 1, c: 2}[db]; n != want || u.Commits != 1 {
			t.Errorf("%s: %d remotes chunks (want %d), %d commits: %+v", db.Name(), n, want, u.Commits, u)
		}
	}
}

// TestRenameKeepsUpstream: a renamed branch keeps its upstream; a forced
// rename over another branch takes that branch's place and drops its
// upstream.
func TestRenameKeepsUpstream(t *testing.T) {
	ctx := context.Background()
	db, err := verso.Init(filepath.Join(t.TempDir(), "db"), verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, b := range []string{"a", "b"} {
		if err := db.CreateBranch(ctx, b, "main"); err != nil {
			t.Fatal(err)
		}
		if err := db.SetUpstream(ctx, b, verso.Upstream{Remote: "origin", Branch: "up-" + b}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RenameBranch(ctx, "a", "c", verso.BranchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := db.RenameBranch(ctx, "c", "b", verso.BranchOptions{}); !errors.Is(err, verso.ErrBranchExists) {
		t.Fatalf("a rename onto a branch without force: %v", err)
	}
	if err := db.RenameBranch(ctx, "c", "b", verso.BranchOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	ups, err := db.Upstreams(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 1 || ups["b"] != (verso.Upstream{Remote: "origin", Branch: "up-a"}) {
		t.Fatalf("upstreams after a rename and a forced one: %v", ups)
	}
	bs, _ := db.Branches(ctx)
	if len(bs) != 2 || bs[0].Name != "b" || bs[1].Name != "main" {
		t.Fatalf("branches %v", bs)
	}
}

// BenchmarkReplicatePull: a replica's pull of one new commit, from a
// remote that N earlier pushes left with N table files; the push is not
// timed.
func BenchmarkReplicatePull(b *testing.B) {
	for _, n := range []int{10, 100, 300} {
		b.Run(fmt.Sprint("tables=", n), func(b *testing.B) {
			ctx := context.Background()
			base := b.TempDir()
			if err := os.Mkdir(filepath.Join(base, "remote"), 0o755); err != nil {
				b.Fatal(err)
			}
			url := "file://" + filepath.ToSlash(filepath.Join(base, "remote"))
			p, err := verso.Init(filepath.Join(base, "p"), verso.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			if err := p.AddRemote(ctx, "origin", url, nil); err != nil {
				b.Fatal(err)
			}
			me := verso.Signature{Name: "t", Email: "t@x"}
			commit := func(i int) {
				txn, err := p.Begin(ctx, "main")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprint(i), Author: me, AllowEmpty: true}); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Push(ctx, "origin", "main", "main", verso.PushOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < n; i++ {
				commit(i)
			}
			r, err := verso.Clone(ctx, url, filepath.Join(base, "r"), verso.CloneOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				commit(n + i)
				b.StartTimer()
				res, err := r.Replicate(ctx, "origin", verso.ReplicateOptions{})
				if err != nil || len(res.Moved) != 1 {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

// primaryWithRemote returns a test folder, the URL of an empty folder
// remote in it, and a new database p in it (closed when the test ends).
func primaryWithRemote(tb testing.TB) (base, url string, p *verso.DB) {
	tb.Helper()
	base = tb.TempDir()
	if err := os.Mkdir(filepath.Join(base, "remote"), 0o755); err != nil {
		tb.Fatal(err)
	}
	url = "file://" + filepath.ToSlash(filepath.Join(base, "remote"))
	p, err := verso.Init(filepath.Join(base, "p"), verso.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return base, url, p
}

// pushAndClone adds the remote url to p as origin, pushes main there and
// returns a clone of it in dir (closed when the test ends).
func pushAndClone(tb testing.TB, p *verso.DB, url, dir string) *verso.DB {
	tb.Helper()
	ctx := context.Background()
	if err := p.AddRemote(ctx, "origin", url, nil); err != nil {
		tb.Fatal(err)
	}
	if _, err := p.Push(ctx, "origin", "main", "main", verso.PushOptions{}); err != nil {
		tb.Fatal(err)
	}
	c, err := verso.Clone(ctx, url, dir, verso.CloneOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkPushOne: a push of one new commit to a remote that N earlier
// pushes left with N table files, as a primary with
// @@dolt_replicate_to_remote pushes each commit; the commit is not timed.
func BenchmarkPushOne(b *testing.B) {
	for _, n := range []int{10, 100, 300} {
		b.Run(fmt.Sprint("tables=", n), func(b *testing.B) {
			ctx := context.Background()
			_, _, p := primaryWithRemote(b)
			me := verso.Signature{Name: "t", Email: "t@x"}
			if err := p.AddRemote(ctx, "origin", "file://"+filepath.ToSlash(filepath.Join(filepath.Dir(p.Dir()), "remote")), nil); err != nil {
				b.Fatal(err)
			}
			commit := func(i int) {
				txn, err := p.Begin(ctx, "main")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: fmt.Sprint(i), Author: me, AllowEmpty: true}); err != nil {
					b.Fatal(err)
				}
			}
			push := func() {
				if _, err := p.Push(ctx, "origin", "main", "main", verso.PushOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < n; i++ {
				commit(i)
				push()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				commit(n + i)
				b.StartTimer()
				push()
			}
		})
	}
}
