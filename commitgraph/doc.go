// Package commitgraph is verso's versioning core: commits, root values,
// refs (branches, tags, working sets) and the queries over the commit
// graph, over a chunks.Store. It sits on packages closure and prolly.
//
// # Main types
//
//   - DB: a database's commit graph over a chunk store (New). Init makes a
//     first commit on main; CommitRoot commits a root value to a branch
//     given the expected head; CreateBranch, DeleteBranch, RenameBranch,
//     SetHead, Branches, Head; CreateTag, DeleteTag, Tag, Tags; WorkingSet
//     and UpdateWorkingSet; BranchState and UpdateBranch (a branch's head
//     and working set read and changed together, for the staging
//     operations); SetBranch (create, copy or force-move a branch); UpdateRefs
//     for any atomic change of refs.
//   - Commit: a decoded commit chunk (ReadCommit: one chunk read).
//   - RootValue: the map from names (tables, schemas, the event log and
//     its indexes) to addresses that a commit records; MergeRoots and
//     DB.Merge merge three of them with a caller-supplied RootResolver.
//   - Queries: Resolve (revision specs such as main~3^2, HEAD, a hash or a
//     tag), Log (LogIter), Ancestors, IsAncestor, MergeBase, Children,
//     CanFastForward.
//
// # Formats
//
// Commit, tag and working-set chunks have their own small binary formats,
// documented beside their code (commit.go, tag.go, workingset.go; shared
// rules in codec.go). Commits are at format version 2: their closures hold
// merge-child aliases; version-1 commits (closures without them) are still
// read, and commits written on them stay version 1 (see commit.go). Root values and the refs map are prolly maps from
// names to 20-byte addresses (rootvalue.go, refs.go). The refs map's
// address is the chunk store's root.
//
// # Commits and closures
//
// Each commit records its height (1 + the greatest parent height) and the
// address of its closure, the set of (height, address) of every strict
// ancestor, with merge-child aliases (package closure). Looking a commit
// up by hash is one chunk read; is-ancestor is one more read and an O(log n) lookup; the merge base
// walks the two closures from the top down in step, seeking past what only
// one side holds. See graph.go for the cost of each query.
//
// Log order: descending height, then descending time, then ascending
// address. The merge base of two commits with several best common
// ancestors (criss-cross merges) is the one of greatest height, then
// greatest address.
//
// # Refs and concurrency
//
// Every change to refs is one compare-and-swap of the store root (see
// refs.go): when another writer moved an unrelated ref first, the change
// is recomputed against the new refs and tried again; when the ref it
// depends on moved (a branch whose head is not the expected one), it fails
// with ErrBranchMoved and changes nothing. Nothing is lost or silently
// overwritten.
//
// # Caveats
//
//   - A DB is safe for concurrent use: the chunk store takes concurrent
//     Puts and Commits (the chunks.Writer contract), and every ref update
//     is a compare-and-swap. Two DBs (or other writers) on one store are
//     correct for the same reason. Write prolly maps through
//     db.NodeStore(), to share its cache of decoded nodes.
//   - Commits are durable once the ref update that names them returns: the
//     store's Commit syncs them with the new root. WriteCommit alone writes
//     a commit that nothing names yet and that is not synced.
//   - Times are kept to the millisecond, in UTC.
//   - Children costs two range scans of the head's closure and one chunk
//     read per commit found at the commit's height + 1 (entries and
//     merge-child aliases). For a head of commit format 1 (a history
//     written before the aliases, see commit.go) it falls back to one chunk
//     read per ancestor of the head above the commit's height.
//   - Decoders of stored bytes never panic; they return errors wrapping
//     ErrBadChunk (chunks.IsCorrupt).
package commitgraph
