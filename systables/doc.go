// Package systables holds verso's commit-indexed system tables for
// go-mysql-server, with Dolt's names, columns and types:
//
//	dolt_log               the commits reachable from HEAD (the session
//	                       branch's head), in Dolt's log order
//	  commit_hash  text     PRIMARY KEY
//	  committer    text     the committer's name (the author's if none)
//	  email        text     the committer's email
//	  date         datetime the commit's time, UTC, to the millisecond
//	  message      text
//	  commit_order bigint unsigned  the commit's height (1 for a root
//	                       commit, 1 + the greatest parent's otherwise)
//	  parents      text     the parents' hashes, mainline first, ", "
//	                       between them ("" for a root commit)
//	  refs         text     the refs naming the commit, as git log
//	                       --decorate prints them: "HEAD -> main, b1,
//	                       tag: v1" ("" if none)
//	  signature    text     NULL: verso does not sign commits
//	  author, author_email text; author_date datetime (a commit has one
//	                       time, so author_date is date)
//
//	dolt_commits           every commit reachable from a branch or a tag
//	  commit_hash, committer, email, date, message   as in dolt_log
//
//	dolt_commit_ancestors  a row per (commit, parent) of dolt_commits
//	  commit_hash  text     PRIMARY KEY (commit_hash, parent_index)
//	  parent_hash  text     NULL for a root commit (one row, index 0)
//	  parent_index int      0 for the first (mainline) parent
//
//	dolt_diff              the tables each commit of HEAD's history changed
//	                       against its first parent, and those the working
//	                       root changed against HEAD (commit_hash WORKING,
//	                       committer, email, date and message NULL)
//	  commit_hash, table_name text, committer, email text, date datetime,
//	  message text, data_change, schema_change boolean
//	                       A table's rows changed: data_change; its schema
//	                       or options changed, or it was created or
//	                       dropped: schema_change. A change to any events/
//	                       entry of the root value (the event log and its
//	                       indexes) is the table dolt_events, data_change.
//
//	dolt_diff_<t>          the rows of t that differ between each commit
//	                       of HEAD's history and each of its parents (a
//	                       root commit: against no table), and between
//	                       HEAD and the working root (to_commit WORKING)
//	  to_<c>...            the row after, in t's current columns
//	  to_commit text, to_commit_date datetime
//	  from_<c>...          the row before
//	  from_commit text, from_commit_date datetime
//	  diff_type text       added, modified or removed
//
//	dolt_diff_dolt_events  the events added and removed between each
//	                       commit of HEAD's history and each of its
//	                       parents (a root commit: against no log), and
//	                       between HEAD and the working root
//	  to_<c>..., to_commit, to_commit_date, from_<c>..., from_commit,
//	  from_commit_date, diff_type   as dolt_diff_<t>, <c> being
//	                       dolt_events' columns (View.Events: position,
//	                       stream_id, ..., metadata); diff_type added,
//	                       removed (by retention too: max count,
//	                       truncate-before, deletes), or modified where one
//	                       position holds different events on the two
//	                       sides (a merge renumbered theirs)
//
//	dolt_history_<t>       t's rows at every commit of HEAD's history
//	  <c>...               t's current columns
//	  commit_hash text, committer text, commit_date datetime
//
// t's current columns are those of the session's working root; rows of
// older commits are matched to them by column name (a column they lack is
// NULL; a value whose type changed since is converted to the current
// type). Values are converted exactly as the ordinary table read does: the
// View's TableReader is package sqlserver's.
//
// Table functions (registered by package sqlserver; the logic is here):
// dolt_log('rev', ...) takes revisions, ^rev, --not rev..., a..b, a...b,
// --parents and --decorate (which add the parents and refs columns to the
// first six), --merges, --min-parents=N and -n N; dolt_diff('from', 'to',
// 't') and dolt_diff('from..to', 't') or ('from...to', 't') take any two
// revisions, WORKING and STAGED included, and cost what the change costs
// (prolly.DiffMaps skips the subtrees both row maps share). dolt_diff(...,
// 'dolt_events') diffs the event log instead, with dolt_diff_dolt_events'
// columns (eventindex.Diff, whose cost also follows the change).
//
// # Main types
//
//   - View: what the tables of one database read: the commit graph, the
//     refs of the transaction's snapshot (commitgraph.Snapshot), the
//     session's branch, its working root and a TableReader.
//   - Table: one system table, opened by Open; sqlserver's Database
//     returns it from GetTableInsensitive.
//   - commitIndex: an index on a commit-hash column (commit_hash,
//     to_commit, from_commit). There is no index structure: the chunk
//     store's own address index is the index, and the closure answers "is
//     it in this table's history".
//   - LogQuery, TableDiff: dolt_log() and dolt_diff().
//   - EventDiff, EventFormat: the rows of a diff of the event log, in the
//     columns package sqlserver gives dolt_events.
//   - RootChanges: the tables that differ between two root values.
//
// # How queries run
//
//   - Full scans stream: dolt_log, dolt_diff, dolt_diff_<t> and
//     dolt_history_<t> follow commitgraph's Log iterator (HEAD's closure
//     read downwards, a height at a time); dolt_commits and
//     dolt_commit_ancestors merge the closures of every branch head and
//     tagged commit from the top down, reading each commit once.
//     LIMIT n reads about n commits.
//   - commit_hash = 'x' and commit_hash IN ('x', ...) are index lookups
//     (Table implements sql.IndexSearchableTable and picks the lookup
//     itself; EXPLAIN PLAN shows IndexedTableAccess). Each hash is parsed
//     (a malformed one gives no rows, as does an upper-case one: the column
//     compares binary), its commit is read with one chunk read (an unknown
//     address or a chunk that is not a commit gives no rows), and the commit
//     is checked to be in the table's histories: HEAD itself, or one lookup
//     of (height, address) in HEAD's closure (per head for dolt_commits).
//   - to_commit = 'x' on dolt_diff_<t> (and dolt_diff_dolt_events) diffs
//     x against its parents; from_commit = 'x' finds x's children among
//     HEAD's history through HEAD's closure: the commits at height h(x)+1
//     and the merges with a merge-child alias at h(x)+1 (a merge of x whose
//     other parent is higher): two range scans, and a read of each commit
//     found there, however many share that height; plus HEAD itself;
//     x = HEAD gives the WORKING rows. A HEAD of commit format 1 (a history
//     written before the aliases) falls back to reading every commit of
//     HEAD's history above x: correct, slower.
//   - A join such as dolt_diff_t JOIN dolt_log ON commit_hash = to_commit
//     is a lookup join: dolt_diff_<t> reports one row per commit as its
//     estimate, so the coster does not pick a hash join, which would read
//     the whole history before the first row.
//   - RowCount of dolt_log is exact from HEAD's closure count + 1 (O(log
//     n): the ordinal of the closure's first alias), so the engine answers
//     COUNT(*) without a scan.
//   - Decoded commits and what one refs snapshot gives (the refs column,
//     the heads of dolt_commits) are cached (cache.go): immutable, bounded.
//
// # Consistency
//
// A View reads the refs of the transaction's snapshot: package sqlserver
// takes a commitgraph.Snapshot with the working set when the transaction
// first touches the database. A transaction that began before another
// session committed sees neither the commit nor the moved branch, in any
// system table, until it ends. When the transaction's own working set
// moves (its own commit), the refs are read again: it sees its own commit,
// and with it those of others made meanwhile. The WORKING rows are the
// transaction's working root, its uncommitted writes included.
//
// # Caveats
//
//   - dolt_diff compares a merge with its first parent only (what the merge
//     brought to its branch); dolt_diff_<t> compares it with every parent.
//   - Revisions other than HEAD, WORKING and STAGED in the table functions
//     (branches, tags, hashes with steps) resolve against the refs as they
//     are now, not the snapshot.
//   - dolt_diff_<t> and dolt_history_<t> exist for the tables of the
//     working root; the history of a dropped table is not reachable by
//     name.
//   - Lookups of hashes that are not string literals (a join's keys, a
//     prepared-statement parameter) go through the engine's costing of the
//     index; a NULL key matches no row.
//   - The event diffs compare the logs as stored: an event past its
//     stream's max age but not yet swept is hidden from dolt_events yet
//     not removed in a diff until the Batch or sweep that removes it.
//   - dolt_diff_dolt_events needs View.Events (package sqlserver sets it);
//     without it, opening the table fails.
//   - Decoded commits and what is derived from a refs snapshot are kept in
//     a Cache, bounded, that the caller owns: View.Cache, one per provider
//     in package sqlserver (a view given none keeps its own). Nothing is
//     cached at package level.
//   - Tables are read-only; every method is safe for concurrent use.
package systables
