// Package prolly holds verso's ordered data: order-preserving key tuples,
// compact value tuples, and the prolly tree, a content-addressed ordered map
// stored as chunks in a chunks.Store. Every table, index, commit closure and
// event index is a prolly tree.
//
// # Tuples
//
// Value is one typed field (Null, Int, Uint, Float32, Float64, Dec, String,
// Bytes, Date, Time, Datetime, Timestamp, Enum, Set; JSON and Ref in value
// tuples only). EncodeKey writes a key whose bytes.Compare order is the
// tuples' order (CompareTuples), with NULL first and Desc fields reversed;
// DecodeKey reads it back. EncodeTuple writes a row payload, and Tuple reads
// field i of it without decoding the others. Both formats are documented
// beside their code, in key.go and tuple.go.
//
// Large String, Bytes and JSON values go out of line with PutLarge, which
// returns a Ref value for the row; ReadLarge reads them back.
//
// # Maps
//
// Map is an immutable ordered map from byte keys to byte values, stored as
// a prolly tree of nodes (format in node.go) in a chunks.Store through a
// NodeStore. Node boundaries come from a hash of each key and the node's
// size so far (chunker.go), so a map's root address depends only on its
// entries, whatever the order of the edits that made it.
//
//	ns := prolly.NewNodeStore(store)
//	b := prolly.NewBuilder(ns)      // streams sorted entries into a tree
//	b.Add(ctx, key, value)
//	m, err := b.Map(ctx)
//	m.Address()                     // the root address; OpenMap reopens it
//	m, err = m.Put(ctx, key, value) // or Delete, Apply, Edit
//
// Reads: Get and Has; Iter over a Range (ascending or descending, between
// optional bounds, each inclusive or exclusive; PrefixRange for a key
// prefix) and its shorthands IterRange and IterAll; Iter.Seek moves an
// ascending iterator forward to a later key (a search in the leaf it
// holds, or a partial descent), for readers of scattered ascending keys;
// a Lookup gets the values of runs of such keys, routing a run to its
// leaves before it reads them so that their cache misses overlap;
// Count in O(1);
// GetOrdinal, Ordinal, CountRange, CountIn and IterFrom in O(log n), from
// the subtree counts in internal nodes. Check verifies every invariant of
// a tree. WalkNodes visits every node address (for copying, pushing or
// marking reachable chunks), skipping subtrees the caller already has.
//
// Writes: Put and Delete change one key. Apply takes a sorted batch of
// Edits (puts and deletes) and returns the new map in one pass that
// rewrites only the nodes around the edits, O(log n) nodes per edited key.
// Editor collects changes in any order and applies them with Apply.
//
// Diff and merge: NewDiffer (or DiffMaps) streams the Added, Removed and
// Modified entries between two maps in key order, skipping every pair of
// subtrees with equal addresses, so its cost follows the size of the
// change. Merge (base, ours, theirs) walks the two diffs from base
// together, applies the changes of theirs to ours, and hands each key both
// sides changed differently to a Resolver (ResolveOurs, ResolveTheirs,
// FailOnConflict, or the caller's own).
//
// A NodeStore keeps a cache of decoded nodes bounded in bytes
// (DefaultCacheBytes, or NewNodeStoreCache), sharded by address and
// evicting by CLOCK (second chance: an approximation of least recently
// used whose hits touch no other entry); its Stats count node loads,
// store reads and writes.
//
// Built with -tags invariants, the package checks every map a Builder or
// Apply writes with Check; run the tests with it too.
//
// # Caveats
//
//   - Strings are ordered by their UTF-8 bytes (a binary collation). A
//     case-insensitive or locale collation must be applied by the caller
//     (for example by storing a collation key).
//   - Integers of every width encode as int64 or uint64; the width is a
//     matter of the schema, not of the encoding.
//   - -0 is stored as 0 and every NaN as one NaN, which sorts after +Inf.
//   - Decimals keep their value, not their scale: 1.50 and 1.5 are one key.
//   - The empty map has no node: its address is the zero chunks.Address.
//   - A Map and a NodeStore are safe for concurrent use; an Iter, a Lookup,
//     a Differ, a Builder and an Editor are not.
//   - Slices returned by Get, Iter, Lookup and Differ point into immutable
//     nodes: they stay valid, but must not be modified.
//   - Writing a map puts chunks to the store; they become durable only when
//     the caller commits a root that reaches them (chunks.Store.Commit).
//     Builders and edits may leave a few unreachable chunks behind, for a
//     future garbage collector.
//   - Apply holds its batch of edits, and the list of nodes it writes at
//     one level, in memory; Merge applies its edits in batches of 4096 to
//     the NodeStore of ours. A Builder and a Differ hold one node per level.
//   - Large values are cut into fixed 4 KiB pieces: inserting bytes in the
//     middle of one rewrites every later piece.
//   - Keys are at most MaxKeySize bytes and values MaxValueSize bytes.
//   - Decoders return an error wrapping ErrBadTuple or ErrBadNode (both
//     chunks.IsCorrupt) for bytes that are not a canonical encoding; they
//     never panic. A child that does not match its parent's entry (level,
//     last key, count) is reported as ErrBadNode too. Encoders panic on
//     values no constructor makes.
package prolly
