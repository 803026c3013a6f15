package chunks

import "testing"

// asyncBackends returns a new io_uring ring and a new AIO context. A
// kernel (or a filter of system calls, as container runtimes set) may
// refuse a ring; SyncQueue then uses AIO, which the kernel must give.
func asyncBackends(t *testing.T) map[string]asyncSyncs {
	out := map[string]asyncSyncs{}
	if r := newURingContext(); r != nil {
		out["io_uring"] = r
	} else {
		t.Logf("the kernel refused an io_uring ring: only AIO is tested")
	}
	if c := newAIOContext(); c != nil {
		out["aio"] = c
	} else {
		t.Errorf("on Linux the kernel refused an AIO context")
	}
	chosen := newAsyncSyncs()
	if _, ok := chosen.(*uringContext); !ok && out["io_uring"] != nil {
		t.Errorf("a ring is to be had, but NewSyncQueue's queue does not use it")
	}
	if chosen != nil {
		chosen.close()
	}
	return out
}
