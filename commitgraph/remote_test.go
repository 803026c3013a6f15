package commitgraph

import (
	"context"
	"errors"
	"testing"

	"github.com/verso-db/verso/chunks"
)

func TestRemotes(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c, err := db.Init(ctx, "main", Meta{Message: "init"})
	if err != nil {
		t.Fatal(err)
	}
	r := Remote{Name: "origin", URL: "file:///tmp/x", FetchSpecs: []string{"refs/heads/*:refs/remotes/origin/*"}, Params: map[string]string{"b": "2", "a": "1"}}
	if err := db.AddRemote(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := db.AddRemote(ctx, r); !errors.Is(err, ErrRemoteExists) {
		t.Fatalf("a second add: %v", err)
	}
	if err := db.AddRemote(ctx, Remote{Name: "a/b"}); !errors.Is(err, ErrBadName) {
		t.Fatalf("a remote name with a slash: %v", err)
	}
	got, err := db.GetRemote(ctx, "origin")
	if err != nil || got.URL != r.URL || len(got.FetchSpecs) != 1 || got.Params["a"] != "1" || got.Params["b"] != "2" {
		t.Fatalf("%+v %v", got, err)
	}
	if err := db.SetRemoteBranches(ctx, "origin", map[string]chunks.Address{"main": c.Addr, "feature/x": c.Addr}, false); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"origin/main", "remotes/origin/main", "refs/remotes/origin/main", "origin/feature/x", "origin/main~0"} {
		got, err := db.Resolve(ctx, spec, "main")
		if err != nil || got.Addr != c.Addr {
			t.Errorf("resolve %s: %v", spec, err)
		}
	}
	if _, err := db.Resolve(ctx, "origin/nope", "main"); !errors.Is(err, ErrBadRevision) {
		t.Errorf("resolve origin/nope: %v", err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	rbs, _ := db.RemoteBranches(ctx)
	if len(rbs) != 2 || rbs[0].Name != "origin/feature/x" || rbs[0].Branch != "feature/x" {
		t.Fatalf("%+v", rbs)
	}
	if err := db.SetRemoteBranches(ctx, "origin", map[string]chunks.Address{"main": c.Addr}, true); err != nil {
		t.Fatal(err)
	}
	if rbs, _ := db.RemoteBranches(ctx); len(rbs) != 1 {
		t.Fatalf("prune left %+v", rbs)
	}
	if err := db.RemoveRemote(ctx, "origin"); err != nil {
		t.Fatal(err)
	}
	if rbs, _ := db.RemoteBranches(ctx); len(rbs) != 0 {
		t.Fatalf("remove left %+v", rbs)
	}
	if err := db.RemoveRemote(ctx, "origin"); !errors.Is(err, ErrRemoteNotFound) {
		t.Fatalf("%v", err)
	}
}

func FuzzDecodeRemote(f *testing.F) {
	b, _ := EncodeRemote(Remote{URL: "file:///x", FetchSpecs: []string{"a"}, Params: map[string]string{"k": "v"}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRemote("n", b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("not marked corrupt: %v", err)
			}
			return
		}
		again, err := EncodeRemote(r)
		if err != nil || string(again) != string(b) {
			t.Fatalf("a remote that decodes does not encode to its bytes")
		}
	})
}

func TestUpstream(t *testing.T) {
	ctx := context.Background()
	db := New(chunks.NewMemoryStore())
	c, _ := db.Init(ctx, "main", Meta{Message: "init"})
	if err := db.SetUpstream(ctx, "nope", Upstream{"origin", "x"}); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("%v", err)
	}
	if err := db.CreateBranch(ctx, "b", c.Addr); err != nil {
		t.Fatal(err)
	}
	if err := db.SetUpstream(ctx, "b", Upstream{"origin", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := db.RenameBranch(ctx, "b", "c", false); err != nil {
		t.Fatal(err)
	}
	ups, _ := db.Upstreams(ctx)
	if len(ups) != 1 || ups["c"] != (Upstream{"origin", "b"}) {
		t.Fatalf("%v", ups)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteBranch(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if ups, _ := db.Upstreams(ctx); len(ups) != 0 {
		t.Fatalf("a deleted branch kept its upstream: %v", ups)
	}
}

func FuzzDecodeUpstream(f *testing.F) {
	b, _ := EncodeUpstream(Upstream{"origin", "main"})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := DecodeUpstream(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("not marked corrupt: %v", err)
			}
			return
		}
		if again, _ := EncodeUpstream(u); string(again) != string(b) {
			t.Fatal("does not encode back")
		}
	})
}
