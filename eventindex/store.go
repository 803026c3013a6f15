package eventindex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Store is the event log of one branch of a commitgraph.DB: each Write
// is one commit of one Batch (one CommitRoot, so one fsync on a file
// store), and subscribers hear of it only after that commit returned,
// that is once it is durable.
//
// A Store serializes its own writes. A write that finds the branch moved
// by another writer reloads the log and runs its function again (up to a
// few times), so its expected versions are checked against the new head.
type Store struct {
	db     *commitgraph.DB
	branch string
	clock  func() time.Time

	wmu sync.Mutex // serializes writes

	mu     sync.Mutex // guards below
	head   chunks.Address
	log    Log
	notify chan struct{} // closed and replaced after each commit
	closed bool
}

// OpenStore opens the event log of branch, which must exist.
func OpenStore(ctx context.Context, db *commitgraph.DB, branch string) (*Store, error) {
	s := &Store{db: db, branch: branch, clock: time.Now, notify: make(chan struct{})}
	if err := s.reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// SetClock sets the clock that dates appended events and filters max
// ages (for tests).
func (s *Store) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
	s.log = s.log.WithClock(now)
}

func (s *Store) reload(ctx context.Context) error {
	c, err := s.db.HeadCommit(ctx, s.branch)
	if err != nil {
		return err
	}
	root, err := s.db.OpenRoot(ctx, c.Root)
	if err != nil {
		return err
	}
	l, err := LoadLog(ctx, s.db.NodeStore(), root)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.head, s.log = c.Addr, l.WithClock(s.clock)
	s.mu.Unlock()
	return nil
}

// Log returns the log as of the last commit this Store saw.
func (s *Store) Log() Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log
}

// Head returns the commit the Store's log comes from.
func (s *Store) Head() chunks.Address {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

// ErrDirtyWorkingSet is returned by Store writes to a branch whose
// working set holds uncommitted changes: committing past them would hide
// the events from them, or them from the events.
var ErrDirtyWorkingSet = errors.New("eventindex: the branch's working set has uncommitted changes")

const writeRetries = 4

// Write runs fn on a Batch of the branch's log and commits the result
// with message: all of fn's appends, deletes and metadata in one commit.
// If fn returns an error nothing is committed. It returns the new Log.
func (s *Store) Write(ctx context.Context, message string, fn func(*Batch) error) (Log, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		closed, head, log := s.closed, s.head, s.log
		s.mu.Unlock()
		if closed {
			return Log{}, ErrClosed
		}
		l, err := s.write(ctx, head, log, message, fn)
		if errors.Is(err, commitgraph.ErrBranchMoved) && attempt < writeRetries {
			if err := s.reload(ctx); err != nil {
				return Log{}, err
			}
			continue
		}
		return l, err
	}
}

func (s *Store) write(ctx context.Context, head chunks.Address, log Log, message string, fn func(*Batch) error) (Log, error) {
	if cur, err := s.db.Head(ctx, s.branch); err != nil {
		return Log{}, err
	} else if cur != head {
		return Log{}, fmt.Errorf("eventindex: %s: %w", s.branch, commitgraph.ErrBranchMoved)
	}
	c, err := s.db.ReadCommit(ctx, head)
	if err != nil {
		return Log{}, err
	}
	ws, err := s.db.WorkingSet(ctx, s.branch)
	if err != nil {
		return Log{}, err
	}
	if ws.Working != c.Root || ws.Staged != c.Root || ws.Merge != nil {
		return Log{}, fmt.Errorf("%w: %s", ErrDirtyWorkingSet, s.branch)
	}
	b := log.Batch()
	if err := fn(b); err != nil {
		return Log{}, err
	}
	nl, err := b.Log(ctx)
	if err != nil {
		return Log{}, err
	}
	root, err := s.db.OpenRoot(ctx, c.Root)
	if err != nil {
		return Log{}, err
	}
	if root, err = nl.Store(ctx, root); err != nil {
		return Log{}, err
	}
	nc, err := s.db.CommitRoot(ctx, commitgraph.CommitOptions{
		Branch: s.branch, Root: root.Address(), ExpectedHead: head,
		Meta:       commitgraph.Meta{Message: message},
		WorkingSet: &commitgraph.WorkingSet{Working: root.Address(), Staged: root.Address()},
	})
	if err != nil {
		return Log{}, err
	}
	// Durable now: publish, then wake the subscribers.
	s.mu.Lock()
	s.head, s.log = nc.Addr, nl
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	return nl, nil
}

// Append appends events to stream in a commit of its own.
func (s *Store) Append(ctx context.Context, stream string, expected ExpectedVersion, events []EventData) (AppendResult, error) {
	var res AppendResult
	_, err := s.Write(ctx, "append to "+stream, func(b *Batch) error {
		var err error
		res, err = b.Append(ctx, stream, expected, events)
		return err
	})
	return res, err
}

// SetStreamMetadata sets a stream's retention rules in a commit of its
// own; the events they remove go in the same commit.
func (s *Store) SetStreamMetadata(ctx context.Context, stream string, md StreamMetadata) error {
	_, err := s.Write(ctx, "metadata of "+stream, func(b *Batch) error { return b.SetStreamMetadata(ctx, stream, md) })
	return err
}

// DeleteStream soft or hard deletes a stream in a commit of its own.
func (s *Store) DeleteStream(ctx context.Context, stream string, expected ExpectedVersion, hard bool) error {
	_, err := s.Write(ctx, "delete "+stream, func(b *Batch) error { return b.DeleteStream(ctx, stream, expected, hard) })
	return err
}

// Sweep removes every expired event in a commit.
func (s *Store) Sweep(ctx context.Context) error {
	_, err := s.Write(ctx, "sweep expired events", func(b *Batch) error { return b.Sweep(ctx) })
	return err
}

// Close ends the Store's subscriptions; later writes fail with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.notify)
	}
	return nil
}

// current returns the log and the channel that closes at the next commit.
func (s *Store) current() (Log, chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log, s.notify, s.closed
}

// Refresh reloads the log from the branch's head, for commits made by
// other writers (a SQL transaction that appended events, say), and wakes
// the subscriptions if it moved. Call it after such a commit returned:
// subscribers then read only what is durable.
func (s *Store) Refresh(ctx context.Context) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	old := s.Head()
	if err := s.reload(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head != old && !s.closed {
		close(s.notify)
		s.notify = make(chan struct{})
	}
	return nil
}
