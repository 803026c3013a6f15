package chunks

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// SyncQueue makes a file's written data durable (as DataSync) without
// the writer waiting for the disk while it has other work: Start begins
// a sync of everything written to the file so far and returns a ticket,
// and Wait(ticket) returns once that sync, or a later one, is done.
//
// On Linux the sync is asynchronous I/O: an io_uring fsync, which the
// kernel runs at once on a worker thread free to take an idle processor
// (uring_linux.go), or where the kernel refuses a ring, an AIO
// IOCB_CMD_FDSYNC (aio_linux.go), whose worker is bound to the submitting
// processor. The disk works while the writer goes on, with no goroutine to
// schedule. A goroutine would wait for a processor when every one is
// busy, and so start the sync only once the writer blocked, which is what
// it was meant to avoid. Elsewhere, and where the kernel refuses both
// (AIO: too many contexts system-wide, fs.aio-max-nr), Start does nothing
// and the first Wait syncs.
//
// A sync covers every write made before it began, so a ticket is done
// once any sync started at or after it has finished. A failed sync fails
// the queue: every later Wait of a ticket not yet done returns the error,
// since what reached the disk is unknown.
type SyncQueue struct {
	f       *os.File
	aio     asyncSyncs // nil: syncs run in Wait
	noAsync bool       // the kernel refuses asynchronous syncs: Start syncs
	mu      sync.Mutex
	cond    sync.Cond
	started uint64 // the last ticket
	done    uint64 // every ticket up to done is durable
	reaping bool   // a Wait collects completions
	err     error
}

// syncDone is the end of the sync of a ticket.
type syncDone struct {
	ticket uint64
	err    error
}

// asyncSyncs starts syncs and reports their ends.
type asyncSyncs interface {
	// submitDataSync starts an fdatasync of f, reported with ticket.
	submitDataSync(f *os.File, ticket uint64) error
	// wait blocks until at least one sync is done and appends the done
	// ones; callers let one wait run at a time.
	wait(done []syncDone) ([]syncDone, error)
	// close releases the kernel's resources, once no sync is
	// outstanding.
	close()
}

// NewSyncQueue returns a queue of syncs of f. Close it before f.
func NewSyncQueue(f *os.File) *SyncQueue {
	q := &SyncQueue{f: f, aio: newAsyncSyncs()}
	q.cond.L = &q.mu
	return q
}

// Start begins a sync of every write made to the file before it and
// returns its ticket, for Wait.
func (q *SyncQueue) Start() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.started++
	t := q.started
	if q.aio != nil && !q.noAsync && q.err == nil {
		if err := q.aio.submitDataSync(q.f, t); err != nil {
			// Refused: sync here. A kernel older than Linux 4.18 refuses
			// every asynchronous sync (EINVAL): this and later tickets are
			// synced in Start, before the writer goes on.
			q.noAsync = errors.Is(err, errAsyncSyncUnsupported)
			q.finished(t, DataSync(q.f))
		}
	}
	return t
}

// finished records the end of the sync of ticket t. Callers hold mu.
func (q *SyncQueue) finished(t uint64, err error) {
	switch {
	case q.err != nil:
	case err != nil:
		q.err = fmt.Errorf("sync %s: %w", q.f.Name(), err)
	case t > q.done:
		q.done = t
	}
}

// Wait returns once ticket t is durable, or the error of a failed sync.
func (q *SyncQueue) Wait(t uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if t <= q.done {
			return nil
		}
		if q.err != nil {
			return q.err
		}
		if q.reaping {
			q.cond.Wait()
			continue
		}
		q.reaping = true
		last := q.started // a sync now covers every ticket started
		q.mu.Unlock()
		if q.aio == nil {
			err := DataSync(q.f)
			q.mu.Lock()
			q.finished(last, err)
		} else {
			done, err := q.aio.wait(nil)
			q.mu.Lock()
			if err != nil {
				q.finished(0, err)
			}
			for _, d := range done {
				q.finished(d.ticket, d.err)
			}
		}
		q.reaping = false
		q.cond.Broadcast()
	}
}

// Close waits for the syncs started and releases the queue's kernel
// context. It returns the error of a failed sync, if any.
func (q *SyncQueue) Close() error {
	q.mu.Lock()
	last := q.started
	q.mu.Unlock()
	err := q.Wait(last)
	if q.aio != nil {
		q.aio.close()
		q.aio = nil
	}
	return err
}
