package chunks

import "context"

// Reader is the read side of a chunk store. Its methods are safe to call
// from many goroutines at once, also while a writer puts and commits.
type Reader interface {
	// Get returns the chunk at addr, or an error wrapping ErrNotFound. The
	// returned slice belongs to the caller.
	Get(ctx context.Context, addr Address) ([]byte, error)
	// GetMany calls found once for each address of addrs that the store
	// holds, in no particular order, possibly from several goroutines at
	// once. Absent addresses are skipped; use HasMany to learn which they
	// are. The slice passed to found belongs to the callee.
	GetMany(ctx context.Context, addrs []Address, found func(Address, []byte)) error
	// Has reports whether the store holds addr.
	Has(ctx context.Context, addr Address) (bool, error)
	// HasMany returns the addresses of addrs that the store does not hold.
	HasMany(ctx context.Context, addrs []Address) (absent AddressSet, err error)
	// Root returns the last committed root address (zero for a new store).
	Root(ctx context.Context) (Address, error)
}

// Writer is the write side of a chunk store.
//
// Put and Commit are safe to call from many goroutines at once, and
// readers may run concurrently with them: FileStore serializes Puts and
// Commits on an internal writer mutex (a Commit's sync holds it, so Puts
// wait for the sync), MemoryStore on its one mutex. Under concurrency both
// guarantee:
//
//   - a chunk is readable by every goroutine once its Put has returned;
//   - a Commit makes durable every Put that returned before the Commit was
//     called, whichever goroutine made it; a Put that runs while a Commit
//     does becomes durable with that Commit or with the next one;
//   - Commits are atomic and take effect one at a time: each compares
//     against the root the previous one left.
//
// The compare-and-swap is the only protection between writers that build
// on different roots: a writer that lost the race gets ErrRootMoved and
// must rebuild on the new root. Other implementations must give the same
// guarantees.
type Writer interface {
	// Put stores data as a chunk and returns its address. The chunk is
	// readable at once but durable only after the next successful Commit.
	// The store may keep data: the caller must not modify it afterwards.
	Put(ctx context.Context, data []byte) (Address, error)
	// Commit makes every pending put and the root newRoot durable together,
	// if the current root is expected; otherwise it returns an error
	// wrapping ErrRootMoved and changes nothing. A non-zero newRoot must
	// name a chunk the store holds.
	Commit(ctx context.Context, newRoot, expected Address) error
}

// Store is a content-addressed chunk store with one root address.
type Store interface {
	Reader
	Writer
	// Close releases the store. Pending puts that were not committed are
	// lost. Every later call returns ErrClosed.
	Close() error
}

// getEach implements GetMany with one Get per address, skipping absent ones
// and stopping at the first other error or when ctx is done.
func getEach(ctx context.Context, r Reader, addrs []Address, found func(Address, []byte)) error {
	for _, a := range addrs {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := r.Get(ctx, a)
		switch {
		case err == nil:
			found(a, data)
		case IsNotFound(err):
		default:
			return err
		}
	}
	return nil
}
