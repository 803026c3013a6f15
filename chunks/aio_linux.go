package chunks

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Asynchronous syncs for SyncQueue where the kernel refuses an io_uring
// ring (uring_linux.go): Linux's native AIO (io_setup(2), io_submit(2),
// io_getevents(2)), whose IOCB_CMD_FDSYNC runs fdatasync on a kernel
// worker (Linux 4.18 and later; an older kernel refuses it, and the queue
// syncs in Wait instead).

// aioContext is a kernel AIO context.
type aioContext struct {
	id     uintptr
	events [aioEvents]aioEvent
}

// aioEvents is a context's queue: a writer has a sync or two outstanding
// (the redo log's groups are pipelined two deep), and the system's
// contexts share fs.aio-max-nr events (65536 by default), so a small
// queue leaves room for many open databases. A full queue refuses a
// submission, and SyncQueue syncs in Start instead.
const aioEvents = 16

// aioIOCB is struct iocb of linux/aio_abi.h. Only aio_data, the opcode
// and the descriptor are set: aio_key and aio_rw_flags, whose order
// depends on the byte order, are zero.
type aioIOCB struct {
	data      uint64
	key       uint32
	rwFlags   uint32
	opcode    uint16
	reqprio   int16
	fildes    uint32
	buf       uint64
	nbytes    uint64
	offset    int64
	reserved2 uint64
	flags     uint32
	resfd     uint32
}

// aioEvent is struct io_event.
type aioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

const iocbCmdFDSync = 3

// errAsyncSyncUnsupported is the kernel's answer to IOCB_CMD_FDSYNC
// before Linux 4.18.
var errAsyncSyncUnsupported error = unix.EINVAL

// newAIOContext returns a context, or nil where the kernel refuses one.
func newAIOContext() *aioContext {
	var id uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, aioEvents, uintptr(unsafe.Pointer(&id)), 0); e != 0 {
		return nil
	}
	return &aioContext{id: id}
}

// submitDataSync starts fdatasync of f, reported with ticket.
func (c *aioContext) submitDataSync(f *os.File, ticket uint64) error {
	cb := &aioIOCB{data: ticket, opcode: iocbCmdFDSync, fildes: uint32(f.Fd())}
	r, _, e := unix.Syscall(unix.SYS_IO_SUBMIT, c.id, 1, uintptr(unsafe.Pointer(&cb)))
	switch {
	case e != 0:
		return e
	case r != 1:
		return unix.EAGAIN
	}
	return nil
}

// wait blocks until at least one submitted sync is done, and appends the
// finished ones to done. Callers let one wait run at a time.
func (c *aioContext) wait(done []syncDone) ([]syncDone, error) {
	var n uintptr
	var e unix.Errno
	for {
		n, _, e = unix.Syscall6(unix.SYS_IO_GETEVENTS, c.id, 1, aioEvents, uintptr(unsafe.Pointer(&c.events[0])), 0, 0)
		if e != unix.EINTR {
			break
		}
	}
	if e != 0 {
		return done, e
	}
	for _, ev := range c.events[:n] {
		var err error
		if ev.res < 0 {
			err = unix.Errno(-ev.res)
		}
		done = append(done, syncDone{ticket: ev.data, err: err})
	}
	return done, nil
}

// close destroys the context, once no sync is outstanding.
func (c *aioContext) close() {
	unix.Syscall(unix.SYS_IO_DESTROY, c.id, 0, 0)
}

// newAsyncSyncs returns an io_uring ring (uring_linux.go), an AIO context
// where the kernel refuses a ring, or nil where it refuses both.
func newAsyncSyncs() asyncSyncs {
	if r := newURingContext(); r != nil {
		return r
	}
	if c := newAIOContext(); c != nil {
		return c
	}
	return nil
}
