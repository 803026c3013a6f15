package chunks

import (
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Asynchronous syncs for SyncQueue through io_uring(7): an IORING_OP_FSYNC
// with IORING_FSYNC_DATASYNC, handed to the ring's worker threads at once
// (IOSQE_ASYNC).
//
// Why not AIO alone: AIO's IOCB_CMD_FDSYNC runs on a kernel worker bound
// to the processor that submitted it, and the scheduler did not preempt
// the submitting thread for it: a sched trace of the server at one
// connection put the worker's start 104 µs after the submission (median),
// when the writer blocked waiting for the sync, so the sync did not
// overlap the tree edit it was started before. io_uring's workers are
// threads of the process, free to run on any processor: the sync starts
// on an idle one while the writer goes on.
//
// The rings, as mapped (io_uring_setup(2); the offsets of the heads,
// tails, masks, index array and completion entries come from the kernel):
//
//	submission ring: head u32 (the kernel's), tail u32 (ours), mask u32,
//	                 array of u32 indexes into the entries
//	completion ring: head u32 (ours), tail u32 (the kernel's), mask u32,
//	                 entries of 16 bytes: user_data u64, res i32, flags u32
//	entries:         64 bytes each; set here: opcode u8 at 0, flags u8 at
//	                 1, fd i32 at 4, fsync_flags u32 at 28, user_data u64
//	                 at 32 (native byte order)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        uringRingOffsets
	cqOff        uringRingOffsets
}

// uringRingOffsets is struct io_sqring_offsets and io_cqring_offsets:
// for the submission ring the seventh field is the index array; for the
// completion ring the fifth is the overflow count and the sixth the
// entries.
type uringRingOffsets struct {
	head, tail, ringMask, ringEntries, f4, f5, f6, resv1 uint32
	userAddr                                             uint64
}

const (
	uringOffSQRing     = 0
	uringOffCQRing     = 0x8000000
	uringOffSQEs       = 0x10000000
	uringFeatSingle    = 1 << 0 // IORING_FEAT_SINGLE_MMAP
	uringOpFsync       = 3      // IORING_OP_FSYNC
	uringFsyncDataSync = 1      // IORING_FSYNC_DATASYNC
	uringSQEAsync      = 1 << 4 // IOSQE_ASYNC
	uringEnterGetEvts  = 1      // IORING_ENTER_GETEVENTS
	uringSQESize       = 64
	uringCQESize       = 16
)

// uringContext is one SyncQueue's ring. Submissions are made under the
// queue's mu; completions are read by one Wait at a time.
type uringContext struct {
	fd      int
	maps    [][]byte // what close unmaps
	sqes    []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqSize  uint32
	sqArray unsafe.Pointer
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    unsafe.Pointer
}

// newURingContext returns a ring, or nil where the kernel refuses one
// (before Linux 5.1, io_uring disabled, or a filter of system calls).
func newURingContext() *uringContext {
	var p uringParams
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, aioEvents, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil
	}
	c := &uringContext{fd: int(fd)}
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	mmap := func(off int64, size int) []byte {
		b, err := unix.Mmap(c.fd, off, size, prot, flags)
		if err != nil {
			return nil
		}
		c.maps = append(c.maps, b)
		return b
	}
	sqSize := int(p.sqOff.f6) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.f5) + int(p.cqEntries)*uringCQESize
	var sq, cq []byte
	if p.features&uringFeatSingle != 0 {
		sq = mmap(uringOffSQRing, max(sqSize, cqSize))
		cq = sq
	} else {
		sq, cq = mmap(uringOffSQRing, sqSize), mmap(uringOffCQRing, cqSize)
	}
	c.sqes = mmap(uringOffSQEs, int(p.sqEntries)*uringSQESize)
	if sq == nil || cq == nil || c.sqes == nil {
		c.close()
		return nil
	}
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	c.sqHead, c.sqTail = u32(sq, p.sqOff.head), u32(sq, p.sqOff.tail)
	c.sqMask, c.sqSize = *u32(sq, p.sqOff.ringMask), p.sqEntries
	c.sqArray = unsafe.Pointer(&sq[p.sqOff.f6])
	c.cqHead, c.cqTail = u32(cq, p.cqOff.head), u32(cq, p.cqOff.tail)
	c.cqMask = *u32(cq, p.cqOff.ringMask)
	c.cqes = unsafe.Pointer(&cq[p.cqOff.f5])
	return c
}

// submitDataSync starts fdatasync of f on the ring's workers, reported
// with ticket. A full ring refuses it (EAGAIN).
func (c *uringContext) submitDataSync(f *os.File, ticket uint64) error {
	tail := atomic.LoadUint32(c.sqTail)
	if tail-atomic.LoadUint32(c.sqHead) >= c.sqSize {
		return unix.EAGAIN
	}
	i := tail & c.sqMask
	sqe := c.sqes[i*uringSQESize : (i+1)*uringSQESize]
	clear(sqe)
	sqe[0] = uringOpFsync
	sqe[1] = uringSQEAsync
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(f.Fd())
	*(*uint32)(unsafe.Pointer(&sqe[28])) = uringFsyncDataSync
	*(*uint64)(unsafe.Pointer(&sqe[32])) = ticket
	*(*uint32)(unsafe.Add(c.sqArray, 4*uintptr(i))) = i
	atomic.StoreUint32(c.sqTail, tail+1)
	for {
		n, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(c.fd), 1, 0, 0, 0, 0)
		if e == 0 && n == 1 || int32(atomic.LoadUint32(c.sqHead)-tail) > 0 {
			return nil // taken (an interrupted call may have taken it too)
		}
		if e == unix.EINTR {
			continue
		}
		atomic.StoreUint32(c.sqTail, tail) // not taken: take it back
		if e == 0 {
			e = unix.EAGAIN
		}
		return e
	}
}

// wait blocks until at least one submitted sync is done, and appends the
// finished ones to done. Callers let one wait run at a time.
func (c *uringContext) wait(done []syncDone) ([]syncDone, error) {
	for {
		head, tail := atomic.LoadUint32(c.cqHead), atomic.LoadUint32(c.cqTail)
		if head != tail {
			for ; head != tail; head++ {
				cqe := unsafe.Add(c.cqes, uintptr(head&c.cqMask)*uringCQESize)
				var err error
				if res := *(*int32)(unsafe.Add(cqe, 8)); res < 0 {
					err = unix.Errno(-res)
				}
				done = append(done, syncDone{ticket: *(*uint64)(cqe), err: err})
			}
			atomic.StoreUint32(c.cqHead, head)
			return done, nil
		}
		_, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(c.fd), 0, 1, uringEnterGetEvts, 0, 0)
		if e != 0 && e != unix.EINTR {
			return done, e
		}
	}
}

// close unmaps the rings and closes the ring, once no sync is
// outstanding.
func (c *uringContext) close() {
	for _, b := range c.maps {
		unix.Munmap(b)
	}
	c.maps = nil
	unix.Close(c.fd)
}
