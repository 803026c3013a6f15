// Package chunks is verso's lowest layer: a content-addressed store of
// immutable byte strings ("chunks") with one root address.
//
// Every later layer (prolly trees, commits, tables, the event log) keeps its
// bytes here. A chunk is named by its Address, the first 20 bytes of the
// SHA-256 of its bytes, written as 32 characters of base32 over
// 0123456789abcdefghijklmnopqrstuv. The zero Address means "empty".
//
// # Main types
//
//   - Store, with its Reader and Writer halves: Get, GetMany, Has, HasMany,
//     Root, Put and Commit. Commit(newRoot, expected) is a compare-and-swap
//     of the root that makes every pending Put durable with it: the atomic
//     step of every write in verso.
//   - MemoryStore: a Store in memory, for tests and scratch work.
//   - Overlay: scratch space over another store's chunks: reads fall
//     through to it, puts stay in memory, Commit is refused (a merge
//     previewed and thrown away).
//   - FileStore: the durable Store in a folder.
//
// # The file store
//
// A FileStore folder holds:
//
//	LOCK            an exclusive flock(2): one writer per folder
//	MANIFEST        the names of the files below and the root (manifest.go)
//	NNNNNN.journal  append-only records: chunks, and a commit record ending
//	                each commit, then zeros kept ahead of them (record.go,
//	                reserve.go)
//	NNNNNN.table    immutable sorted tables built from the journal by
//	                compaction or garbage collection, searched by binary
//	                search (table.go)
//
// Put appends a chunk record to an in-memory buffer that reaches the journal
// file in batches of about 1 MiB, unsynced. Commit appends a commit record,
// writes what is buffered and syncs the journal once (fdatasync): one sync
// per commit, never one per chunk. CommitStaged appends a staged commit
// record and writes it without the sync: the root is current at once and
// durable with the next sync, and its log position (LogPosition) tells the
// writer, after a crash, which of the changes it logged elsewhere the
// recovered root holds (record.go, version 3). In nursery mode
// (SetNursery, nursery.go) a staged commit writes nothing: its chunks stay
// in memory until a nursery collection writes those the root still
// reaches, or a synced commit writes them all. The records go into zeros written and
// synced ahead of them (the reserve), so that the sync need not also
// record the file's growth. The journal holds chunks as they are (codec
// raw): most of what it holds is garbage by the time it is compacted or
// collected, and compressing every chunk at its Put would cost a fifth of
// a commit's tree edit. Compaction and young collections store what they
// keep in S2 (in the table file, unless it does not shrink by an eighth;
// Options.DisableCompression keeps everything raw). A journal may also
// hold S2 records: each record names its codec (record.go).
//
// Opening a store replays its journals, up to the zeros. Records after the
// last commit record belong to no acknowledged commit; a damaged or partial
// record followed by no valid commit is a torn tail, cleared so the store
// opens at its last complete commit. A commit record names the records it
// ends (their span and a chain of their checksums), so a crash that wrote
// a commit's last sector but not an earlier one, which the reserve left as
// zeros, is a torn tail too. Damage followed by a valid commit, or by a
// commit record whose records hold no sector of zeros, is different: it
// lies inside committed data, and opening fails with an error naming the
// file and offset rather than silently dropping commits.
//
// Compaction (Compact, or in the background once the journal passes
// Options.CompactAt) freezes the journal, starts a new one that begins with
// a commit record of the current root, writes the frozen journal's chunks into a table file
// (merging all tables into it when there are more than Options.MaxTables),
// names the table in a new manifest and only then deletes what it replaced.
// Readers are not blocked while the table is written. Files that no manifest
// names, left by a crash, are removed on open.
//
// Garbage collection (Collect, collect.go) keeps what the root and the
// caller's pins reach, by a conservative mark (every raw address inside a
// kept chunk is followed, mark.go), and rewrites the store as one or two
// table files and a journal holding only a commit record, while readers and
// writers go on: a write barrier records what they put and commit
// meanwhile, and only the short finish holds up writers. It stores
// chunks in zstd where that is smaller (table format version 2; a young
// collection, which runs often, stores S2, which encodes six times
// faster). The protocol,
// and the argument that no reachable chunk is dropped, are at the top of
// collect.go.
//
// A read-only open (Options.ReadOnly, readonly.go) takes no lock, so it
// works while another process writes the store: it reads the manifest and
// the files it names, the active journal up to its last whole root record,
// and is a snapshot of that commit. It never writes to the folder (no
// torn tail cut, no leftover removed) and refuses Put, Commit and Compact
// with ErrReadOnly. If the writer's compaction removes a file between the
// reads of the manifest and of the file, the open reads the manifest again
// and starts over. ReplayInMemory lets its owner bring the snapshot up to
// date from a log of its own (a database's redo log, whose commits the
// writer keeps in its nursery) before using it: Puts and staged commits go
// to memory while it runs, and are refused again once it returns.
//
// Every chunk read from disk is checked against a checksum that covers its
// address (xxh3 of the record); a mismatch is an error wrapping ErrCorrupt,
// never wrong data. FileStore.Check reads everything and verifies each
// chunk's SHA-256 against its address; CheckEach goes on past each damaged
// chunk, naming its file and offset (verso fsck lists them).
//
// # Caveats
//
//   - Put and Commit may be called from many goroutines at once: they
//     serialize on an internal mutex (see Writer for what is guaranteed),
//     but the compare-and-swap in Commit is the only protection between
//     writers that build on different roots. Readers may run concurrently
//     with writers and with compaction.
//   - Put keeps the slice it is given until it is written out: do not modify
//     it afterwards. Get returns a fresh slice that belongs to the caller.
//   - Puts are readable at once but durable only after the next successful
//     Commit; Close without Commit loses them. A CommitStaged root is
//     durable only after the next sync of the journal (a Commit,
//     SyncStaged, a compaction or a collection): a power loss before it
//     may lose it, and its writer must have logged what it holds (its log
//     position says how much). A kill of the process keeps it: its
//     records are written, not synced. In nursery mode (SetNursery) a
//     kill loses it too, until a nursery collection, SyncStaged or a
//     Commit writes it; the nursery holds up to 128 MiB of chunks in
//     memory (it is written out, unsynced, past that), and its buffer
//     keeps the capacity it grew to.
//   - After a failed write or sync the store refuses further writes
//     (ErrFailed): what reached the disk is unknown. Reopen it; recovery
//     restores the last durable commit.
//   - Platform code sits in sys_*.go: on Linux a commit syncs with
//     fdatasync and big writes start their write-back early
//     (sync_file_range); on macOS with F_FULLFSYNC (fsync leaves data in
//     the drive's cache); on other Unix systems with fsync. Unix locks the
//     folder with flock and maps table files and journals; Windows locks
//     with LockFileEx, syncs with FlushFileBuffers and reads those files
//     into memory instead of mapping them (more memory, slower to open).
//   - A read-only store is a snapshot: commits made after it opened are
//     not seen (reopen it to see them). It may see a commit a moment
//     before the writer's Commit returns (the commit record is written, the
//     sync not done): one that the writer's process then dies without
//     acknowledging, which its next open keeps as well; only a crash of
//     the machine before the sync can drop it. It holds no file open: on
//     Unix its table files and journals stay mapped (so files the writer
//     removes stay readable), on Windows they are read into memory, through
//     handles opened with FILE_SHARE_DELETE so that the writer can replace
//     the manifest and remove files meanwhile. On Windows versions whose
//     DeleteFile keeps a removed file's name until its last handle closes,
//     a writer that opens the store during a reader's open may find such a
//     file among its leftovers and fail to remove it; open the writer
//     again.
//   - Table files are memory-mapped: a table file truncated by another
//     program while the store is open makes reads fault. Leave the folder to
//     the store.
//   - Damage confined to the last commit's bytes that also spares its
//     commit record is reported as an error, unless a whole sector of those
//     bytes reads as zeros: that is how a write torn by a power loss leaves
//     them, and that commit is dropped. Damage to the last commit record
//     itself reads as a torn tail too.
package chunks
