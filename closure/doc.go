// Package closure holds the commit closure: for a commit C, the set of
// (height, address) of every strict ancestor of C, stored as a prolly set
// ordered by height, then by address.
//
// The closure makes the questions a commit graph is asked most cheap: "is A
// an ancestor of B" is one O(log n) lookup of (height(A), A) in B's
// closure, "which ancestors sit at height h" is one range scan, and "which
// ancestors are children of X" is two (thanks to the merge-child aliases).
//
// # Main types
//
//   - Height: a commit's height, 1 for a root commit and 1 + the greatest
//     parent height otherwise, at most MaxHeight (2^63 - 1).
//   - Entry: one (Height, chunks.Address) member of a closure.
//   - Alias: a merge-child alias (Height, merge address), see below.
//   - Closure: an immutable set of entries, and of aliases, over a
//     prolly.Map. Empty, Open, and Build (the closure of a new commit from
//     its parents') make one; Contains, AtHeight, Descending, Ascending,
//     CountRange and Count read its entries only; ChildCandidates reads
//     entries and aliases.
//   - Iter: an iterator over entries in either direction.
//
// # Format
//
// A closure is a prolly map (see package prolly) whose keys are 28 bytes and
// whose values are empty (keys.go). Two kinds of keys, in two ranges:
//
//	entry:  +------------------------------+------------------------+
//	        | height u64 big-endian        | commit address [20]    |
//	        | (1 .. 2^63-1)                |                        |
//	        +------------------------------+------------------------+
//	alias:  +------------------------------+------------------------+
//	        | 2^63 + height u64 big-endian | merge address [20]     |
//	        | (height 2 .. 2^63-1)         |                        |
//	        +------------------------------+------------------------+
//
// A closure is a base, the prolly map above, and a tail: entries above
// every entry of the base, one at each height from the top down, none of
// them a merge (so none has aliases). The tail is not stored here: the
// commit chunk holds it (package commitgraph, format 3), as the commit's
// first-parent chain. BuildTail gives a commit of a linear history its
// parent's base and its parent's tail with the parent in front, writing
// no node, until the tail would pass MaxTail (16); that commit, a merge,
// and a child of a merge get a base holding everything, with no tail.
// Each query reads the tail first, then the base: a lookup is still one
// O(log n) search. The cost per commit of a linear history falls from a
// rewritten leaf and path of the closure's tree (about 3 KB: its keys are
// random addresses, which do not compress) to an address in the commit
// chunk and a seventeenth of that path.
//
// Big-endian heights make bytes.Compare order the (height, address) order,
// so the entries are sorted by height, then address, and every alias sorts
// after every entry (the top bit of the first byte). The closure's address
// is the map's root address; the empty closure (of a root commit) has the
// zero address.
//
// An entry (h, A) says: A, at height h, is an ancestor. An alias (h, M)
// says: M is an ancestor, a merge one of whose parents sits at height h-1
// while M sits higher than h (its other parent is higher). For every merge
// M among a closure's entries and every parent P of M with h(P)+1 < h(M),
// the closure holds the alias (h(P)+1, M). So the children of a commit X
// among the closure's commits are among the entries at h(X)+1 and the
// aliases at h(X)+1: ChildCandidates, two range scans, never a walk of the
// history. The count of entries is the ordinal of the first alias key,
// O(log n).
//
// The aliases came with format 2 of commitgraph's commit chunk: a closure
// of a format-1 commit holds no aliases (or some, inherited from a
// format-2 parent, but not all), and commitgraph falls back to a scan for
// it. A closure has no version of its own.
//
// # Building
//
// For one parent P, Build returns closure(P) plus (h(P), P), and P's
// aliases if P is a merge: a few insertions that share every other node
// with the parent's tree, so a commit adds O(log n) new nodes. For several
// parents P1..Pk it starts from closure(P1), adds every parent and its
// aliases, and adds the keys each diff closure(P1) -> closure(Pi) reports
// as Added (entries and aliases). The diff skips the subtrees both
// closures share, so the cost follows how far the parents diverged, not
// the length of the history. P's aliases need the heights of P's own
// parents: Parent.Parents.
//
// # Caveats
//
//   - A Closure does not check that its entries are real commits, that
//     their heights are right or that an alias's merge has a parent at that
//     height: the commit graph (package commitgraph) builds closures only
//     from commits it has decoded, and its Check rebuilds them.
//   - A Closure and its methods are safe for concurrent use; an Iter is not.
//   - Build writes nodes to the chunk store; they become durable only when
//     the caller commits a root that reaches them.
//   - Keys of another length than 28 bytes, with height 0 or with an alias
//     height below 2, read from a store, are reported as errors wrapping
//     ErrBadKey (chunks.IsCorrupt), never as a panic.
package closure
