// Package verso is the engine of a versioned database: every change to its
// data is a commit in a content-addressed graph, as in Git, with branches,
// merges, diffs and time travel over tables and an event log. The SQL
// server (package sqlserver) and the command-line program are layers on
// top of this package; a Go program can use it directly, without SQL.
//
// # Opening a database
//
// A database is a folder holding .verso/ (layout.go). Init makes one with
// a first commit on main; Open opens it; OpenMemory keeps one in memory;
// OpenStore puts one over a chunk store of the caller's making:
//
//	db, err := verso.Init("/srv/shop", verso.Options{})
//	...
//	defer db.Close()
//
// # Transactions
//
// Each branch has a working set, as in Dolt: a working root (what
// transactions change) and a staged root (what the next commit takes). A
// Txn (Begin) reads a snapshot of its branch's working root and writes new
// roots from there; Commit merges them into the working root as it is then,
// row by row, and makes the result durable with one store commit shared by
// the commits that arrive together (group commit). Two transactions that
// changed one row conflict: the second's Commit fails with a
// SerializationError (errors.Is(err, ErrSerialization)) and writes nothing.
// A group's rows are edited into each table's trees once for the group,
// and the next group merges while this one's fsync runs. CommitEdits
// commits rows still pending in a tables.Editor (a statement's, under
// autocommit) without writing them into the transaction's root first, so
// that they are edited into a tree once in all. A group whose commits
// changed rows only is made durable by one record of its row changes in
// the database's redo log (.verso/redo-0.log and redo-1.log,
// redolog.go), written past the page cache (chunks.BlockAppender) and
// synced while the trees are edited (on Linux by the kernel's
// asynchronous fdatasync, chunks.SyncQueue), and its working set is
// staged in the store without a sync, its tree nodes kept in the store's
// memory until a nursery collection writes those still reached
// (nursery.go); opening the database replays what the store had not yet
// synced.
//
// Tables are read and written by primary key with Txn.CreateTable, Get,
// GetForUpdate, Insert, Put and Delete, in typed values (Int, String, ...).
// Writes and GetForUpdate lock their rows until the transaction ends, as
// InnoDB does, and read the row's latest committed version, so that `n =
// n + 1` from many transactions counts exactly; a second writer waits (up
// to Txn.LockTimeout, then ErrLockTimeout), and a deadlock fails the
// youngest transaction with ErrDeadlock. The SQL layer's sessions share
// the database's lock manager (Options.Locks), so they and the program's
// transactions wait for each other.
//
// # Events
//
// Every root value holds an event log with its stream, category and type
// indexes, written by the same transactions as the tables:
// Txn.AppendEvents (with an expected version), SetStreamMetadata
// (retention), DeleteStream, and Txn.Events for reads and statistics.
// DB.Subscribe follows a branch: history first, then each commit's events
// once it is durable.
//
// # History
//
// Txn.CommitChanges stages (as CommitOptions say) and commits the staged
// root as the branch's new head. Txn.Stage and StageAll stage tables;
// Txn.Status lists what is staged and what is not, as dolt_status does;
// Txn.Workspace lists a table's changed rows, staged and not, and
// StageWorkspace and RevertWorkspace stage, unstage and undo single rows
// (StageObjects and RevertObjects single views, triggers, events and
// procedures), as dolt_workspace_<t> does;
// Txn.Reset and CheckoutTables move tables back from the head, the staged
// root or another commit. Txn.Merge, CherryPick and Revert merge commits
// into the branch; Txn.Conflicts and ResolveConflicts deal with what they
// leave; DB.PreviewMerge shows what a merge would conflict on without
// making it (in a chunks.Overlay). DB.Log lists a revision's history and DB.Resolve finds the commit
// a revision (main~2, a tag, a hash) names; DB.SetBranch, CopyBranch,
// RenameBranch, DeleteBranch and Branches manage branches, DB.CreateTag,
// DeleteTag and Tags tags; DB.Root and DiffTable compare versions of a
// table. The commit graph itself is DB.Graph (package commitgraph).
//
// A revision that names nothing fails with a *RevisionError; the lower
// layers' errors a caller tests for (ErrBranchNotFound, ErrBadRevision,
// ErrLocked, ...) are named in this package too.
//
// # Checking
//
// DB.Check (fsck.go; the command verso fsck) runs every layer's verifier
// over what the branches, tags and working sets reach: the store's chunks
// against their addresses, the commit graph's heights and closures, and
// each distinct root value's tables and indexes, event log, schema objects
// and conflicts. It collects each problem with its place (a file and
// offset, a commit and the ref that reaches it, a table, a key) and goes
// on; CheckOptions.Quick checks the chunks only. A store too damaged to
// open (its manifest, a table file's index, committed journal records)
// fails Open with an error wrapping ErrCorrupt instead.
//
// # Garbage collection
//
// DB.GC (gc.go; CALL dolt_gc(), verso gc) drops every chunk that no ref,
// working set or open transaction reaches and returns the space, while
// the database serves reads and writes: the store's write barrier keeps
// what commits write meanwhile, and the collection waits for the
// transactions that began before it (GCOptions.Wait, a minute by
// default; the caller's own are kept instead). A kill at any point leaves
// the database as it was or as collected. Options.AutoGC collects in the
// background once the files have doubled (past 64 MiB); it is on by
// default, as Dolt's is. chunks/collect.go has the protocol and the
// argument that nothing reachable is collected.
//
// # For layers built on the engine
//
// The SQL layer batches a statement's writes in its own table editors and
// takes its own row locks; it reaches the engine through lower-level calls
// that a program rarely needs: Txn.Root and SetRoot (the transaction's
// root value), UpdateBranch (a branch operation of its own as one
// compare-and-swap), LockKey, Locks and LockOwner (locks shared across
// databases), AdoptRow and LockUnique (a locked row's latest version, a
// unique value's lock), PendingWorking, and the item helpers of staging
// (ChangedItems, ConflictedTables, FindTable).
//
// # Caveats
//
//   - Rows of tables without a primary key take no locks: two
//     transactions that write one meet at Commit, and the second fails
//     with a SerializationError, to be retried. Unique values are locked
//     like rows. There are no gap locks.
//   - Each typed write (Insert, Put, Delete) loads its table and writes the
//     changed nodes into the transaction's root at once: a load of many
//     rows in one transaction writes many short-lived nodes to the store
//     (the SQL layer batches a statement's rows in one editor instead).
//   - A Txn is not safe for concurrent use; a DB is.
//   - Only one process may open a database folder for writing at a time;
//     others may open it read-only (Options.ReadOnly) meanwhile. A
//     read-only open does not replay the redo log: after a writer's crash
//     (before any open for writing replayed it) or a power loss, it shows
//     the store's last written commit, which may lack the writer's last
//     acknowledged row changes.
//   - A commit that fails after its group's redo record was synced (an
//     I/O error writing its working set) may still appear after a crash:
//     the replay applies the record, as a crash after the record's sync
//     and before the acknowledgement would. Its outcome is unknown, as
//     any commit's that returns an I/O error.
//   - A collection keeps what the refs, working sets and open
//     transactions reach: a commit known only by a hash a user holds (a
//     deleted branch's), or a RootValue read outside a transaction
//     (DB.Root) whose branch moved on, may be collected. A transaction
//     must end (Commit or Rollback): one left open, or dropped without
//     either, makes every later collection wait for it and fail with
//     ErrGCWait, as an idle transaction holds up a vacuum elsewhere.
//   - DB.Check cannot tell a journal cut short inside its last commit from
//     a write that a power loss interrupted: the store opens at the commit
//     before, which checks clean. It keeps one entry per distinct commit,
//     root value and table in memory, and the commit graph's part stops at
//     its first problem.
//   - A MergePreview keeps the nodes its merge wrote in memory (its
//     overlay) for as long as it is held: about what the merge would
//     write, the changed nodes of the tables both sides changed. A merge
//     whose rows break a unique key fails the preview as it fails Merge.
package verso
