package eventindex

import (
	"context"
	"sync"
)

// Subscription is a catch-up subscription: it delivers the events that
// pass its filter from a position on, history first, then each new
// commit's events once the commit is durable.
//
// Memory is bounded: the subscription reads the committed log a page at a
// time (at most its buffer size) into a channel of that size, and reads
// the next page only when the reader has taken events from the channel. A
// slow reader slows its own subscription and nothing else; it never makes
// the writer wait or queue. Events that retention removes before a slow
// reader reaches them are not delivered.
type Subscription struct {
	c      chan Event
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

// C returns the channel of events, in ascending position. It is closed
// when the subscription ends (Close, the context's end, the Store's
// Close, or an error: see Err).
func (sub *Subscription) C() <-chan Event { return sub.c }

// Err returns the error that ended the subscription, if any.
func (sub *Subscription) Err() error {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.err
}

// Close ends the subscription and waits for its goroutine.
func (sub *Subscription) Close() {
	sub.cancel()
	<-sub.done
}

// MaxPage is the largest page a subscription reads at once.
const MaxPage = 2000

// Source is what a subscription follows: a log that moves on with each
// durable commit. Current returns the log now and a channel that is
// closed once a newer log is durable (or the source closes, when Current
// then fails with ErrClosed). It must get the channel before the log, so
// that no commit falls between them unseen.
type Source interface {
	Current(ctx context.Context) (Log, <-chan struct{}, error)
}

// Subscribe starts a catch-up subscription to the events that pass f, from
// position f.From (f.To is ignored), with a channel of buffer events
// (at least 1, at most MaxPage).
func (s *Store) Subscribe(ctx context.Context, f Filter, buffer int) *Subscription {
	return Subscribe(ctx, storeSource{s}, f, buffer)
}

// storeSource is a Store as a subscription's Source.
type storeSource struct{ s *Store }

func (src storeSource) Current(context.Context) (Log, <-chan struct{}, error) {
	l, notify, closed := src.s.current()
	if closed {
		return Log{}, nil, ErrClosed
	}
	return l, notify, nil
}

// Subscribe starts a catch-up subscription to the events of src that pass
// f, from position f.From (f.To is ignored), with a channel of buffer
// events (at least 1, at most MaxPage).
func Subscribe(ctx context.Context, src Source, f Filter, buffer int) *Subscription {
	buffer = min(max(buffer, 1), MaxPage)
	ctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{c: make(chan Event, buffer), cancel: cancel, done: make(chan struct{})}
	f.To = 0
	go func() {
		defer close(sub.done)
		defer close(sub.c)
		err := run(ctx, src, f, buffer, sub.c)
		sub.mu.Lock()
		sub.err = err
		sub.mu.Unlock()
	}()
	return sub
}

func run(ctx context.Context, src Source, f Filter, page int, c chan<- Event) error {
	for {
		l, notify, err := src.Current(ctx)
		if err != nil {
			return err
		}
		evs, next, err := l.Read(ctx, f, page)
		if err != nil {
			return err
		}
		for _, e := range evs {
			select {
			case c <- e:
			case <-ctx.Done():
				return nil
			}
		}
		f.From = next
		if len(evs) == page {
			continue
		}
		select {
		case <-notify:
		case <-ctx.Done():
			return nil
		}
	}
}
