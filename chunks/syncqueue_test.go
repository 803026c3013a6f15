package chunks

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// syncQueues returns the kinds of queue over f: the kernel's asynchronous
// syncs through each of its interfaces (on Linux: io_uring, and AIO for
// kernels that refuse a ring) and syncs in Wait.
func syncQueues(t *testing.T, f *os.File) map[string]*SyncQueue {
	t.Helper()
	out := map[string]*SyncQueue{}
	for name, a := range asyncBackends(t) {
		q := &SyncQueue{f: f, aio: a}
		q.cond.L = &q.mu
		out[name] = q
	}
	inWait := &SyncQueue{f: f}
	inWait.cond.L = &inWait.mu
	out["in Wait"] = inWait
	return out
}

// TestSyncQueue runs writers that each write, start a sync and wait for
// it, concurrently, and checks that every ticket is done once its Wait
// returns and that tickets are done in order.
func TestSyncQueue(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, q := range syncQueues(t, f) {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			off := int64(0)
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 50; i++ {
						mu.Lock()
						if _, err := f.WriteAt([]byte("0123456789"), off); err != nil {
							t.Error(err)
						}
						off += 10
						tk := q.Start()
						mu.Unlock()
						if err := q.Wait(tk); err != nil {
							t.Error(err)
							return
						}
						q.mu.Lock()
						done := q.done
						q.mu.Unlock()
						if done < tk {
							t.Errorf("ticket %d waited for, but only %d are done", tk, done)
						}
					}
				}()
			}
			wg.Wait()
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			if q.done != q.started || q.started != 400 {
				t.Fatalf("%d tickets started, %d done; want 400 and 400", q.started, q.done)
			}
		})
	}
}

// TestSyncQueueFails checks that a failed sync fails the tickets not yet
// done, and every later one: after a failed sync, what reached the disk
// is unknown.
func TestSyncQueueFails(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for name, q := range syncQueues(t, f) {
		names[name] = true
		q.Close()
	}
	f.Close()
	for name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(dir, "f"))
			if err != nil {
				t.Fatal(err)
			}
			q := syncQueues(t, f)[name]
			ok := q.Start()
			if err := q.Wait(ok); err != nil {
				t.Fatal(err)
			}
			f.Close() // the syncs of a closed file fail (EBADF)
			bad := q.Start()
			if err := q.Wait(bad); err == nil {
				t.Fatalf("the sync of a closed file succeeded")
			}
			if err := q.Wait(ok); err != nil {
				t.Fatalf("a ticket done before the failure now fails: %v", err)
			}
			if err := q.Wait(q.Start()); err == nil {
				t.Fatalf("a ticket after a failed sync succeeded")
			}
			if err := q.Close(); err == nil {
				t.Fatalf("Close after a failed sync returned no error")
			}
		})
	}
}
