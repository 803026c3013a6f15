// Package closure holds the commit closure: for a commit C, the set of
// (height, address) of every strict ancestor of C, stored as a prolly set
// ordered by height, then by address.
//
// The closure makes the two questions a commit graph is asked most cheap:
// "is A an ancestor of B" is one O(log n) lookup of (height(A), A) in B's
// closure, and "which ancestors sit at height h" is one range scan.
//
// # Main types
//
//   - Height: a commit's height, 1 for a root commit and 1 + the greatest
//     parent height otherwise.
//   - Entry: one (Height, chunks.Address) member of a closure.
//   - Closure: an immutable set of entries over a prolly.Map. Empty, Open,
//     and Build (the closure of a new commit from its parents') make one;
//     Contains, AtHeight, Descending, Ascending and Count read it.
//   - Iter: an iterator over entries in either direction.
//
// # Format
//
// A closure is a prolly map (see package prolly) whose keys are 28 bytes and
// whose values are empty (keys.go):
//
//	+----------------------+-------------------------+
//	| height u64 big-endian | commit address [20]    |
//	+----------------------+-------------------------+
//
// Big-endian heights make bytes.Compare order the (height, address) order,
// so the tree is sorted by height, then address. The closure's address is
// the map's root address; the empty closure (of a root commit) has the zero
// address.
//
// # Building
//
// For one parent P, Build returns closure(P) plus (h(P), P): one insertion
// that shares every other node with the parent's tree, so a commit adds
// O(log n) new nodes. For several parents P1..Pk it starts from closure(P1),
// adds every parent, and adds the entries each diff closure(P1) -> closure(Pi)
// reports as Added. The diff skips the subtrees both closures share, so the
// cost follows how far the parents diverged, not the length of the history.
//
// # Caveats
//
//   - A Closure does not check that its entries are real commits or that
//     their heights are right: the commit graph (package commitgraph) builds
//     closures only from commits it has decoded.
//   - A Closure and its methods are safe for concurrent use; an Iter is not.
//   - Build writes nodes to the chunk store; they become durable only when
//     the caller commits a root that reaches them.
//   - Keys of another length than 28 bytes read from a store are reported as
//     errors wrapping ErrBadKey (chunks.IsCorrupt), never as a panic.
package closure
