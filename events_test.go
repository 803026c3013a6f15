package verso

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestSubscribeSeesEveryCommit: writers commit events from several
// goroutines (merged at commit, in group commits) while a subscription
// follows the branch; it gets every acknowledged event exactly once, in
// position order, and nothing before its commit was durable.
func TestSubscribeSeesEveryCommit(t *testing.T) {
	ctx := context.Background()
	db, err := OpenMemory("ev", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub := db.Subscribe(ctx, "", Filter{}, 7)
	defer sub.Close()
	const writers, each = 4, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				for {
					txn, err := db.Begin(ctx, "")
					if err != nil {
						t.Error(err)
						return
					}
					stream := fmt.Sprintf("w%d-%d", w, i%3)
					if _, err := txn.AppendEvents(ctx, stream, AnyVersion, EventData{Type: "tick"}); err != nil {
						t.Error(err)
						return
					}
					err = txn.Commit(ctx)
					if err == nil {
						mu.Lock()
						acked++
						mu.Unlock()
						break
					}
					if !isSerialization(err) {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	got := 0
	var last Event
	timeout := time.After(30 * time.Second)
	for got < writers*each {
		select {
		case e, ok := <-sub.C():
			if !ok {
				t.Fatalf("subscription ended: %v", sub.Err())
			}
			if got > 0 && e.Position <= last.Position {
				t.Fatalf("position %d after %d", e.Position, last.Position)
			}
			last = e
			got++
		case <-timeout:
			t.Fatalf("got %d events of %d", got, writers*each)
		}
	}
	wg.Wait()
	if acked != writers*each {
		t.Fatalf("acknowledged %d, want %d", acked, writers*each)
	}
	select {
	case e := <-sub.C():
		t.Fatalf("an event more than were committed: %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestSubscribeEndsWithClose: closing the database ends its subscriptions.
func TestSubscribeEndsWithClose(t *testing.T) {
	db, err := OpenMemory("ev", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sub := db.Subscribe(context.Background(), "", Filter{}, 1)
	db.Close()
	for range sub.C() {
	}
	if sub.Err() == nil {
		t.Fatal("the subscription ended without saying why")
	}
}

func isSerialization(err error) bool { return errors.Is(err, ErrSerialization) }
