package eventindex

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// gateStore is a chunk store whose Commit can be held, to see that
// subscribers hear of a commit only after it returns.
type gateStore struct {
	chunks.Store
	hold    atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *gateStore) Commit(ctx context.Context, root, expected chunks.Address) error {
	if g.hold.Load() {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Store.Commit(ctx, root, expected)
}

func newTestStore(t *testing.T, cs chunks.Store) (*Store, *commitgraph.DB) {
	db := commitgraph.New(cs)
	if _, err := db.Init(ctx, "", commitgraph.Meta{}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(ctx, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, db
}

func TestStoreFileStoreReopen(t *testing.T) {
	dir := t.TempDir()
	fs, err := chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestStore(t, fs)
	if _, err := s.Write(ctx, "two streams", func(b *Batch) error {
		if _, err := b.Append(ctx, "a-1", NoStream, []EventData{{Type: "X"}}); err != nil {
			return err
		}
		_, err := b.Append(ctx, "b-1", NoStream, []EventData{{Type: "Y"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A failing write commits nothing, in either stream.
	_, err = s.Write(ctx, "atomic", func(b *Batch) error {
		if _, err := b.Append(ctx, "a-1", Exact(0), []EventData{{Type: "X"}}); err != nil {
			return err
		}
		_, err := b.Append(ctx, "b-1", NoStream, []EventData{{Type: "Y"}})
		return err
	})
	if !errors.Is(err, ErrWrongExpectedVersion) {
		t.Fatal(err)
	}
	s.Close()
	if err := fs.Close(); err != nil {
		t.Fatal(err)
	}
	fs, err = chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	s2, err := OpenStore(ctx, commitgraph.New(fs), "main")
	if err != nil {
		t.Fatal(err)
	}
	l := s2.Log()
	if l.Count() != 2 {
		t.Fatal(l.Count())
	}
	if err := l.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestSubscriptionCatchUpAndLive(t *testing.T) {
	g := &gateStore{Store: chunks.NewMemoryStore(), entered: make(chan struct{}), release: make(chan struct{})}
	s, _ := newTestStore(t, g)
	for i := 0; i < 5; i++ {
		if _, err := s.Append(ctx, fmt.Sprintf("a-%d", i%2), Any, []EventData{{Type: "X"}, {Type: "Y"}}); err != nil {
			t.Fatal(err)
		}
	}
	sub := s.Subscribe(ctx, Filter{Category: "a", Type: "X"}, 2)
	defer sub.Close()
	if cap(sub.c) != 2 {
		t.Fatal("buffer not bounded")
	}
	for i := 0; i < 5; i++ {
		e := <-sub.C()
		if e.Type != "X" || e.Position != Position(2*i+1) {
			t.Fatalf("history %d: %+v", i, e)
		}
	}
	// A live append: nothing arrives while its commit is held.
	g.hold.Store(true)
	done := make(chan error)
	go func() {
		_, err := s.Append(ctx, "a-9", Any, []EventData{{Type: "X"}})
		done <- err
	}()
	<-g.entered
	select {
	case e := <-sub.C():
		t.Fatalf("event %+v delivered before its commit was durable", e)
	case <-time.After(50 * time.Millisecond):
	}
	g.hold.Store(false)
	g.release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.C():
		if e.Stream != "a-9" || e.Position != 11 {
			t.Fatalf("%+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("live event not delivered")
	}
}

func TestSubscriptionSlowReader(t *testing.T) {
	s, _ := newTestStore(t, chunks.NewMemoryStore())
	sub := s.Subscribe(ctx, Filter{}, 4)
	defer sub.Close()
	// The writer never waits for the reader.
	for i := 0; i < 50; i++ {
		if _, err := s.Append(ctx, "s-1", Any, []EventData{{Type: "X"}, {Type: "X"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sub.c); n > 4 {
		t.Fatalf("%d buffered", n)
	}
	for i := 1; i <= 100; i++ {
		if e := <-sub.C(); e.Position != Position(i) {
			t.Fatalf("got %d want %d", e.Position, i)
		}
	}
	s.Close()
	if _, ok := <-sub.C(); ok {
		t.Fatal("subscription not ended by Close")
	}
	if !errors.Is(sub.Err(), ErrClosed) {
		t.Fatal(sub.Err())
	}
}

func TestStats(t *testing.T) {
	l, clk := newTestLog(t)
	l = appendAll(t, l, "a-1", "X", "Y")
	clk.t = clk.t.Add(time.Second)
	l = appendAll(t, l, "b-1", "X")
	l = appendAll(t, l, "a-2", "Z")
	st, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(st.Events, st.NextPosition)
	for _, s := range append(st.Categories, st.Types...) {
		got += fmt.Sprintf(" %s:%d:%d-%d:%d", s.Name, s.Count, s.FirstPosition, s.LastPosition, s.LastCreated.Sub(s.FirstCreated)/time.Second)
	}
	if want := "4 5 a:3:1-4:1 b:1:3-3:0 X:2:1-3:1 Y:1:2-2:0 Z:1:4-4:0"; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestStoreRefreshAndRetry(t *testing.T) {
	s, db := newTestStore(t, chunks.NewMemoryStore())
	other, err := OpenStore(ctx, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sub := s.Subscribe(ctx, Filter{}, 8)
	defer sub.Close()
	if _, err := other.Append(ctx, "x-1", NoStream, []EventData{{Type: "A"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.C():
		if e.Stream != "x-1" {
			t.Fatalf("%+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("refresh did not wake the subscription")
	}
	// other moved the branch again: s retries over the new head, and the
	// expected version is checked against it.
	if _, err := other.Append(ctx, "x-1", Exact(0), []EventData{{Type: "B"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "x-1", Exact(0), []EventData{{Type: "C"}}); !errors.Is(err, ErrWrongExpectedVersion) {
		t.Fatal(err)
	}
	if r, err := s.Append(ctx, "x-1", Exact(1), []EventData{{Type: "C"}}); err != nil || r.Positions[0] != 3 {
		t.Fatal(r, err)
	}
}
