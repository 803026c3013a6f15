// Package eventindex is verso's event log: streams of events, as in an
// event store, whose secondary indexes (by stream, category, event type
// and event id) are prolly maps stored in each commit's root value beside
// the events themselves. An index is written in the same commit as its
// events, so it never lags; it is read with range scans; it travels with
// branches and AS OF; and retention removes index entries with their
// events, so no entry ever points to a missing event.
//
// # Model
//
// An event has a global Position (dense and ascending within a branch's
// history, from 1), a stream id, an EventNumber in its stream (from 0),
// an EventID (a UUID, for idempotent appends), a type, JSON data and
// metadata, and a created time (UTC, microseconds). Its category is the
// stream id before the first '-' (Category). Streams and types beginning
// with '$' are reserved.
//
// # Main types
//
//   - Log: an immutable value, the seven prolly maps of one commit
//     (NameLog, NameByStream, NameByCategory, NameByType, NameByID,
//     NameStreams, NameByPair; formats in codec.go). LoadLog reads it from a
//     commitgraph.RootValue, Log.Store writes it back. Reads: ReadStream
//     (forwards, backwards), Read with a Filter (all, category, type,
//     stream, stream prefix, position range, and conjunctions; ParseFilter
//     understands $all, $idx-ce-<category> and $idx-et-<type>), Stats,
//     PairStats, Diff, Check.
//   - Batch (Log.Batch): appends with an ExpectedVersion (Any, NoStream,
//     StreamExists, Exact), stream metadata (max count, max age,
//     truncate-before), soft and hard deletes, sweeps; Batch.Log returns
//     the new Log with retention applied. A Batch is one transaction: the
//     SQL layer puts its Log into the transaction's working root.
//   - Rebuild: the five indexes built afresh from the log; a sound log
//     rebuilds to the same addresses (prolly trees are history
//     independent), except a log written before cross values, whose
//     category and type indexes rebuild with them.
//   - Merge: three-way merge of logs; theirs' new events go after ours'
//     with new positions, and a stream changed on both sides is a conflict
//     (ErrMergeConflict). Root values merge in tablemerge.Merge, which
//     gives the log's entries to a PrefixMerger that calls Merge (the
//     engine's event merger in its merge.go).
//   - Store: a Log on a branch of a commitgraph.DB (the engine's DB has
//     its own subscriptions over a branch's working set, verso.Subscribe); Append and Write
//     commit one batch each (one CommitRoot, one fsync), and Subscribe
//     starts catch-up subscriptions that deliver history and then new
//     events, notified only after the commit is durable.
//
// # Expected versions and deletes
//
// A stream's version is the number of its last event, -1 when it has
// none. NoStream accepts a stream never written or soft deleted;
// StreamExists one with a version; Exact(n) one whose last event is n
// (also right after a soft delete, whose numbering continues). A hard
// delete leaves a tombstone: every later write fails with
// ErrStreamDeleted. An append whose event ids are already in the stream
// at exactly the numbers it would give them (for Any and StreamExists:
// consecutively, wherever the first one is) is an idempotent no-op that
// returns their positions; an id anywhere else fails with
// ErrDuplicateEventID. Idempotency is per stream, like the event-id index
// ((stream, id) -> position): one id may be appended to two streams.
//
// # Reads
//
// Read drives its scan from the most selective range it can (category
// index, type index, stream index, the categories a stream prefix covers,
// or the log), choosing by the subtree counts of each candidate range in
// O(log n), and filters the other conditions event by event.
// A category and a type together scan the smaller of their two index
// ranges and read only the events whose cross value (a hash of the other
// name, in each category and type entry) matches, checking the names in
// the event; or, when the cost model prefers it or the range holds no
// hashes (written before cross values), join the two ranges on position
// (keys only) before any event is read. A read of one category or type
// splits each page of its index range between goroutines by ordinal
// (for pages of 256 or more), each scanning its share of the index and
// reading the events with a prolly.Lookup of the log: a run of
// positions is routed to its leaves first, then the leaves and the
// records are touched in loops of independent loads (their cache misses
// overlap), then each event is decoded in place (its Data and Metadata
// point into the node; stream and type strings are shared across the
// page). Max ages of the streams read are looked up once per Log (a
// cache tied to its stream records). Reads are paged: each returns the
// position to continue from.
//
// # Caveats
//
//   - Events past their stream's max age are hidden from reads at once
//     (by the Log's clock, see WithClock) and removed physically by the
//     next Batch that touches the stream or by Batch.Sweep. Until then they
//     count in Count and Stats.
//   - Max age removes events from the front of a stream while they are
//     old; it assumes created times ascend within a stream (one clock).
//   - An event id leaves the event-id index when its event is removed by
//     retention: appending that id again appends a new event.
//   - Events hold at most prolly.MaxValueSize bytes (stream, type, data
//     and metadata together, plus about 30 bytes).
//   - A Log is safe for concurrent use; a Batch is not. Slices in the
//     events a Log returns point into immutable nodes: do not modify them.
//   - A Batch holds its changes in memory until Batch.Log.
//   - Store writes commit straight to the branch and refuse a branch whose
//     working set holds uncommitted changes (ErrDirtyWorkingSet); inside a
//     SQL transaction use a Batch on the working root instead.
//   - A Subscription skips events that retention removed before it read
//     them, and sees the branch only through its Store: commits made by
//     other writers wake it when Store.Refresh is called after them.
//
// # Benchmarks
//
//	go test -run '^$' -bench BenchmarkEventLoad -benchtime 1x ./eventindex/
//
// runs the KurrentDB-shaped load test (1,000,000 events; set
// EVENTINDEX_BENCH_EVENTS to scale it) against a linkTo-style baseline;
// BenchmarkAppend and BenchmarkRead measure the parts at several sizes.
// Figures are in docs/BENCHMARKS.md.
//   - Decoders of stored bytes never panic; they return errors wrapping
//     ErrCorrupt (chunks.IsCorrupt).
package eventindex
