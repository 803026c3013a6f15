package eventindex

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

func appendAll(t *testing.T, l Log, stream string, types ...string) Log {
	t.Helper()
	b := l.Batch()
	var evs []EventData
	for _, ty := range types {
		evs = append(evs, EventData{ID: NewEventID(), Type: ty})
	}
	if _, err := b.Append(ctx, stream, Any, evs); err != nil {
		t.Fatal(err)
	}
	return mustLog(t, b)
}

func TestMergeLogs(t *testing.T) {
	base, _ := newTestLog(t)
	base = appendAll(t, base, "a-1", "X", "Y")
	base = appendAll(t, base, "b-1", "X")
	base = appendAll(t, base, "c-1", "X", "X", "X")
	ours := appendAll(t, base, "a-1", "Z")
	ours = appendAll(t, ours, "d-1", "Z")
	theirs := appendAll(t, base, "b-1", "Q", "R")
	b := theirs.Batch()
	if err := b.SetStreamMetadata(ctx, "c-1", StreamMetadata{MaxCount: 1}); err != nil {
		t.Fatal(err)
	}
	theirs = mustLog(t, b)
	m, err := Merge(ctx, base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	all, _, err := m.Read(ctx, Filter{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, e := range all {
		got += fmt.Sprintf("%d:%s/%d:%s ", e.Position, e.Stream, e.Number, e.Type)
	}
	want := "1:a-1/0:X 2:a-1/1:Y 3:b-1/0:X 6:c-1/2:X 7:a-1/2:Z 8:d-1/0:Z 9:b-1/1:Q 10:b-1/2:R "
	if got != want {
		t.Fatalf("merged\n got %s\nwant %s", got, want)
	}
	var changes []string
	if err := Diff(ctx, ours, m, func(c EventChange) error {
		changes = append(changes, fmt.Sprintf("%v:%d", c.Added, c.Event.Position))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(changes) != "[false:4 false:5 true:9 true:10]" {
		t.Fatal(changes)
	}
	// Appends to one stream on both sides conflict.
	theirs2 := appendAll(t, base, "a-1", "W")
	if _, err := Merge(ctx, base, ours, theirs2); !errors.Is(err, ErrMergeConflict) {
		t.Fatal(err)
	}
}

func TestMergeThroughCommitGraph(t *testing.T) {
	db := commitgraph.New(chunks.NewMemoryStore())
	c0, err := db.Init(ctx, "", commitgraph.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateBranch(ctx, "feature", c0.Addr); err != nil {
		t.Fatal(err)
	}
	main, err := OpenStore(ctx, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	feat, err := OpenStore(ctx, db, "feature")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := main.Append(ctx, "a-1", NoStream, []EventData{{Type: "X"}, {Type: "Y"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := feat.Append(ctx, "b-1", NoStream, []EventData{{Type: "Z"}}); err != nil {
		t.Fatal(err)
	}
	mh, _ := db.Head(ctx, "main")
	fh, _ := db.Head(ctx, "feature")
	res, err := db.Merge(ctx, mh, fh, func(ctx context.Context, c commitgraph.RootConflict) (chunks.Address, bool, error) {
		return chunks.Address{}, false, commitgraph.ErrMergeConflict
	})
	_ = res
	if err == nil {
		// Both logs changed: the plain resolver must have been asked.
		t.Fatal("expected the event maps to conflict in a plain root merge")
	}
	base, err := db.MergeBase(ctx, mh, fh)
	if err != nil {
		t.Fatal(err)
	}
	roots := make([]commitgraph.RootValue, 3)
	for i, a := range []chunks.Address{base.Addr, mh, fh} {
		c, err := db.ReadCommit(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if roots[i], err = db.OpenRoot(ctx, c.Root); err != nil {
			t.Fatal(err)
		}
	}
	// The root-merge driver (tablemerge.Merge) gives the event log's
	// entries to Merge and stores its log over the merged root: here the
	// two sides changed nothing else.
	var logs [3]Log
	for i, r := range roots {
		if logs[i], err = LoadLog(ctx, db.NodeStore(), r); err != nil {
			t.Fatal(err)
		}
	}
	ml, err := Merge(ctx, logs[0], logs[1], logs[2])
	if err != nil {
		t.Fatal(err)
	}
	merged, err := ml.Store(ctx, roots[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", Root: merged.Address(), ExpectedHead: mh, MergeParents: []chunks.Address{fh}, Meta: commitgraph.Meta{Time: time.Unix(1, 0)}}); err != nil {
		t.Fatal(err)
	}
	l, err := LoadLog(ctx, db.NodeStore(), merged)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	evs, _, _ := l.Read(ctx, Filter{}, 10)
	if len(evs) != 3 || evs[2].Stream != "b-1" || evs[2].Position != 3 {
		t.Fatalf("%+v", evs)
	}
	// AS OF: the feature branch's commit still reads its own log.
	fc, _ := db.ReadCommit(ctx, fh)
	fr, _ := db.OpenRoot(ctx, fc.Root)
	fl, _ := LoadLog(ctx, db.NodeStore(), fr)
	if evs, _, _ := fl.Read(ctx, Filter{}, 10); len(evs) != 1 || evs[0].Position != 1 {
		t.Fatalf("%+v", evs)
	}
}

func TestRebuildSameAddresses(t *testing.T) {
	l, _ := newTestLog(t)
	for i := 0; i < 30; i++ {
		l = appendAll(t, l, fmt.Sprintf("c%d-%d", i%3, i%5), "X", "Y", fmt.Sprintf("T%d", i%4))
	}
	b := l.Batch()
	if err := b.SetStreamMetadata(ctx, "c1-1", StreamMetadata{MaxCount: 2}); err != nil {
		t.Fatal(err)
	}
	l = mustLog(t, b)
	r, err := Rebuild(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equal(l) {
		t.Fatalf("rebuilt %v\n want %v", r.Addresses(), l.Addresses())
	}
}
