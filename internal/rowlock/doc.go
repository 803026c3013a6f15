// Package rowlock is the row lock manager of SQL transactions, with the
// semantics of MySQL InnoDB's record locks: Shared and Exclusive locks on
// rows, bounded waits, NOWAIT and SKIP LOCKED, and deadlock detection that
// rolls back the youngest transaction of a cycle.
//
// # Types
//
// A Manager holds every lock of one server. Begin starts a Txn, whose id
// grows with each Begin (larger is younger). Txn.Lock takes a Key, an
// opaque string the caller builds from the database, branch, table and
// primary key, in a Mode:
//
//	m := rowlock.New()
//	t := m.Begin()
//	first, err := t.Lock(ctx, key, rowlock.Exclusive, rowlock.Wait, 50*time.Second)
//	...
//	t.ReleaseAll() // at commit or rollback
//
// Shared is compatible with Shared only: a key has any number of Shared
// holders or one Exclusive holder. A request that cannot be granted at once
// fails with ErrBusy under policies NoWait and SkipLocked, and waits under
// policy Wait, for at most its timeout (then ErrTimeout) or until its
// context is done (then ctx.Err()).
//
// Each key has a FIFO queue of waiting requests. A new request is granted
// at once only if it is compatible with the holders and no request is
// queued for the key, so a waiting Exclusive request is not starved by a
// stream of Shared ones. The exception is an upgrade: a Shared holder that
// asks Exclusive is granted at once if it is the only holder, and otherwise
// waits ahead of every other request. When holders leave (ReleaseAll) or
// a request leaves the queue (timeout, cancellation, deadlock), the queue
// is granted from its front for as long as its requests are compatible
// with the holders. Stats counts waits, deadlocks and timeouts.
//
// # Deadlocks
//
// A waiting request of transaction u for key k waits for every other
// holder of k in a conflicting mode and for every conflicting request
// queued ahead of it for k; these are the edges u -> v of the waits-for
// graph. A deadlock is a cycle in it. When u is about to wait, its Lock
// searches depth first from u (following each transaction's successors in
// increasing id order) for a cycle through u. The victim is the youngest
// transaction of the first cycle found. If it is u, Lock returns
// ErrDeadlock at once, without waiting. Otherwise the victim's pending
// Lock returns ErrDeadlock, its request leaves its queue (which may grant
// others, u among them), and the search runs again until no cycle goes
// through u. A victim keeps its other locks: the caller rolls the
// transaction back and calls ReleaseAll, as MySQL does.
//
// Searching only when a wait begins finds every deadlock, because a cycle
// is always closed by the wait that began last among its transactions.
// Only waiting transactions have edges out, so every transaction on a
// cycle is waiting. An edge u -> v appears at one of three events: u
// begins to wait (all of u's edges); v begins to wait with an upgrade
// queued ahead of u (edges to v from the requests behind it); or v is
// granted a lock, or upgraded, while u waits for it (a waiter granted
// ahead of u already had its edge from u as a queued request; a holder
// upgraded at once gains edges from the Shared requests queued for its
// key). At the third event v is running, not waiting, so v must begin a
// new wait after it before v can be on a cycle. Take a cycle C and x, the
// transaction of C whose current wait began last. Each edge u -> v of C
// is present now, so it has been present since it last appeared, and it
// last appeared when u or v began its current wait, or before v's current
// wait began: in every case no later than the beginning of x's wait. So
// when x's wait began, all of C was there and went through x, and x's
// search ran then: it kept removing victims until no cycle went through x
// or x itself was the victim, and C cannot have survived that. Removing a
// victim only grants requests, whose new edges point to running
// transactions, so the search closes no cycle that it does not see. Hence
// no deadlock outlives the Lock call that closes it.
//
// A search reads the holders and queue of each waiting transaction it
// reaches from the new waiter once: O(V+E) of that part of the graph. It
// reuses its scratch space and does not allocate once warm.
//
// # Caveats
//
//   - Row locks only: there are no gap or next-key locks, so a range read
//     FOR UPDATE does not stop other transactions from inserting into the
//     range (no phantom protection), and no table or intention locks.
//   - A Txn is used by one goroutine at a time (its session's); other
//     transactions run concurrently with it. ReleaseAll must not run while
//     the same Txn is in Lock.
//   - A lock is held until ReleaseAll: there is no release of one key
//     (MySQL releases non-matching rows early under READ COMMITTED; the
//     caller cannot, yet).
//   - An upgrade waits for the other Shared holders, so two Shared holders
//     that both ask Exclusive deadlock, and the younger is the victim.
//   - The context matters only to a wait: a lock that can be granted at
//     once is granted even with a done context, and a wait whose lock is
//     granted as its timeout fires or its context ends returns the grant.
//   - One mutex guards the whole manager. Each Lock of a free or already
//     held key takes it once and, once warm, does not allocate: records of
//     released keys, a Txn's list of locks, its queued request and its
//     wait timer are all reused. The mutex is the limit on many cores; a
//     manager sharded by key hash would lift it, at the price of a
//     deadlock search across shards.
//   - Go maps do not shrink: the map of locked keys is made anew when the
//     last lock goes after it held many keys, not while any key is locked.
package rowlock
