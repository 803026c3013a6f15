// Package sqlserver is verso's storage backend for go-mysql-server (GMS):
// databases, tables, indexes, sessions and transactions over the commit
// graph and the table storage below it, Dolt's procedures, functions and
// system tables, and the engine over them that the MySQL-protocol server
// (package server) and in-process programs (package driver) share.
//
// # Main types
//
//   - Provider: the engine's sql.DatabaseProvider and
//     sql.MutableDatabaseProvider. NewProvider opens the database folders of
//     a data dir (each holds .verso/chunks, a chunks.FileStore, and
//     .verso/HEAD, the branch sessions use); CREATE DATABASE makes a folder,
//     DROP DATABASE removes it. Names beginning with '.' are the data
//     dir's own (.verso-users, .verso-files, .verso), and CREATE DATABASE
//     refuses them, names with '/', '\', NUL or other control characters,
//     invalid UTF-8, names that are only white space or end with a space
//     (MySQL's error 1102, ER_WRONG_DB_NAME), and names longer than 64
//     characters (1059, ER_TOO_LONG_IDENT, as MySQL) (names.go). A
//     database folder that cannot be opened (a garbled manifest or
//     journal, a root naming no chunk) does not stop the others:
//     NewProvider keeps it aside (Provider.Damaged; the wire server logs
//     a warning), and using it (USE, a query,
//     DROP DATABASE) fails with MySQL's 1194 (ER_CRASHED_ON_USAGE) saying
//     it is damaged, what is wrong (paths relative to the data dir) and
//     to restore it; its folder is left alone. A store that another
//     process holds open still fails NewProvider (damaged.go).
//     NewReadOnlyProvider and AddDatabaseDirReadOnly open stores
//     read-only instead (readonly.go: chunks.Options.ReadOnly, no lock, a
//     snapshot that holds every commit acknowledged before it, those
//     only in the redo log replayed in memory), for reading while a
//     server writes; writes are refused.
//     NewMemoryProvider keeps databases in memory.
//     The name "db/branch" is a revision database: db on the working set of
//     another branch (USE `db/feature`); "db/<tag>", "db/<hash>" and
//     "db/main~2" are read-only revision databases at a commit, whose HEAD
//     (dolt_log) is that commit and whose procedures that would change a
//     branch are refused as Dolt refuses a detached head. SHOW DATABASES
//     lists the revision database the session is using, as Dolt's does.
//   - Database: a sql.Database over the working root of its branch, with
//     CREATE, DROP and RENAME TABLE, views, triggers, stored procedures,
//     foreign keys and temporary tables.
//   - Table: a sql.Table over a tables.Table, with inserts, updates,
//     deletes, replaces, TRUNCATE, auto-increment, checks, ALTER TABLE (by
//     rewriting the table) and index lookups (Index) that run as prolly
//     key-range scans.
//   - Session and Transaction: a transaction holds one verso.Txn per
//     database and branch it touches (the engine's: a snapshot of the
//     working root, merged at commit with group commit), with the SQL
//     layer's pending writes per statement (editor.go) and row locks
//     (rowlocks.go); COMMIT (or the end of an autocommit statement)
//     flushes the writes and commits each Txn (verso's commitqueue.go and
//     merge.go), then releases the locks.
//   - Embedded: the engine a program runs over a Provider (embed.go), with
//     verso's parser and analyzer rules and the fast path of primary-key
//     selects, and the maker of its sessions: the wire server's (package
//     server, which also calls EnforceAccounts to hold its sessions to
//     their accounts) and the database/sql driver's. NewEngine is the
//     same engine without the fast path and the analyzer's checks of
//     accounts and damaged databases (`verso sql`, tests).
//     Errors get MySQL's numbers and SQLSTATEs (mysqlerrors.go): a syntax
//     error is 1064 with MySQL's message, where the engine would send
//     1105. MySQLError gives in-process callers what a client of the
//     server gets; the server uses its two halves, MapError and
//     ScrubError (scrub.go).
//   - The event log (package eventindex) as SQL: the procedures
//     dolt_append_events, dolt_stream_metadata and dolt_delete_stream
//     (events_procs.go) and the nodes of the table functions dolt_read_all
//     and dolt_read_stream (events_funcs.go). The tables dolt_events,
//     dolt_streams and dolt_event_stats, and what the table functions
//     read, are package systables'. See "Events" below.
//   - System tables: every dolt_* table is package systables'. This
//     package hands it a systables.View (systables.go): the commit graph,
//     the refs of the transaction's snapshot and its working root for the
//     commit-indexed tables (systemView), the session's transaction
//     (txSession, a systables.Session) for the tables that follow it
//     (sessionView), and its own schema and value conversions
//     (tableReader).
//
// # Accounts
//
// For a server's sessions (Embedded.EnforceAccounts), the engine's
// privilege checks are completed where they leave holes (access.go):
//
//   - LOAD_FILE, SELECT ... INTO OUTFILE and INTO DUMPFILE, and LOAD DATA
//     INFILE read and write files of the server's host: they need the
//     global FILE privilege (1227 otherwise; LOAD_FILE gives NULL) and
//     reach only the folder of secure_file_priv, symbolic links resolved
//     (files.go; 1290, ER_OPTION_PREVENTS_STATEMENT, otherwise, and NULL
//     from LOAD_FILE). secure_file_priv is the server's, given to
//     Embedded.EnforceAccounts at start-up only (SET GLOBAL answers 1238;
//     package server chooses the folder, by default the data dir's
//     .verso-files); none disables the statements. LOAD DATA
//     LOCAL INFILE reads a file the client sends: it needs INSERT on the
//     table (and DELETE with REPLACE), not FILE, and @@local_infile on.
//   - SET GLOBAL, SET PERSIST and SET PERSIST_ONLY need SUPER or
//     SYSTEM_VARIABLES_ADMIN (1227, ER_SPECIFIC_ACCESS_DENIED_ERROR). The
//     engine cannot GRANT SYSTEM_VARIABLES_ADMIN yet: grant SUPER.
//   - CREATE DATABASE and DROP DATABASE need CREATE or DROP on the
//     database they name (a grant on db.*, or a global one), as in MySQL;
//     an account with no privilege there gets 1044 ("Access denied for
//     user ... to database ..."). Privileges on the current database do
//     not count.
//   - The per-database variables (@@<db>_head and the others, below) of a
//     database an account has no privilege on are unknown to it (1193),
//     as those of a database that does not exist, and SHOW VARIABLES
//     leaves them out.
//
// # Versioning
//
// Each branch has a working set (commitgraph.WorkingSet): the working root
// that transactions read and write, and the staged root. Dolt's procedures
// move changes between them and the branch's head (versioning.go):
// dolt_add, dolt_commit (proc_commit.go), dolt_branch, dolt_checkout,
// dolt_tag, dolt_reset (proc_branch.go), with Dolt's arguments (procargs.go)
// and result columns. A procedure folds the calling transaction's writes
// into the working root, then writes the new head and working set with one
// compare-and-swap of the store root (commitgraph.UpdateBranch): an INSERT
// and a dolt_commit in one transaction are one store commit, one fsync, and
// the COMMIT after them writes nothing. Other writers of the branch are
// retried over, never overwritten.
//
// Each session has its own current branch per database (dolt_checkout;
// by default the database's, .verso/HEAD), which GetTableInsensitive, the
// procedures and active_branch() follow. Functions (functions.go):
// active_branch(), hashof() and dolt_hashof(), dolt_merge_base(),
// has_ancestor(). System tables: package systables (dolt_branches,
// dolt_tags, dolt_status, dolt_log, ...). AS OF (asof.go,
// sql.VersionedDatabase) takes a commit spec or a time. Session variables
// (sysvars.go): @@<db>_head, @@<db>_head_ref (settable: checks a branch
// out), @@<db>_working, @@<db>_staged, and @@dolt_committer_name /
// @@dolt_committer_email for the identity commits record (else
// Provider.SetCommitter's, else the SQL user).
//
// What dolt_add and dolt_status call a table (the engine's staging.go): the entries
// tables/<t> and tableopts/<t>; views, triggers and events are the one
// item dolt_schemas, stored procedures the item dolt_procedures, as Dolt
// names the tables that hold them; other entries (foreign keys, the event
// log) are items under their own root value names.
//
// The stored system tables (storedsystables.go) are tables of the root
// value made by their first write and left out of SHOW TABLES: dolt_ignore,
// dolt_docs (with a built-in AGENT.md, docs.go), dolt_tests (run by
// dolt_test_run(), testrun.go) and dolt_query_catalog. Scheduled events
// (CREATE EVENT, sqlevents.go) are stored as Dolt stores them, and run on
// the server (package server's events.go). dolt_statistics shows what
// ANALYZE TABLE measured (statistics.go), dolt_branch_activity what
// Provider.TrackBranchActivity tracks (activity.go), and
// @@dolt_show_system_tables lists the system tables (showsystables.go).
//
// # Root value layout
//
// Names in a database's root value (commitgraph.RootValue):
//
//	tables/<name>       a table value (tables.Write)
//	tableopts/<name>    its comment and default collation, if any (tableopts.go)
//	views/<name>        a view        (object chunks, objects.go)
//	triggers/<name>     a trigger
//	procedures/<name>   a stored procedure
//	sqlevents/<name>    a scheduled event (sqlevents.go)
//	foreignkeys/<name>  a foreign key (foreignkeys.go)
//	events/...          the event log and its indexes (eventindex.Names)
//	conflicts/<name>    the table's rows in conflict after a merge
//	                    (package tablemerge, conflicts.go there)
//
// Names keep the case they were created with; lookups ignore case.
//
// # Events
//
// The tables dolt_events (INSERT appends; UPDATE, DELETE and TRUNCATE
// fail: retention removes events), dolt_streams and dolt_event_stats,
// the reads of dolt_read_all and dolt_read_stream, and the diffs of the
// event log (dolt_diff(..., 'dolt_events'), dolt_diff_dolt_events) are
// package systables'; its doc describes their columns and indexes.
//
// CALL dolt_append_events(stream, expected_version, events) appends a JSON
// array of {"event_type", "data", "metadata", "event_id"} objects if the
// stream's version matches expected_version ('any', 'no_stream',
// 'stream_exists' or the number of its last event) and returns
// first_position, last_position and version (the stream's new version).
// CALL dolt_stream_metadata(stream, '{"$maxCount": n, "$maxAge": seconds,
// "$tb": n}') replaces the stream's retention rules; CALL
// dolt_delete_stream(stream [, '--hard']) soft or hard deletes it.
//
// Event writes go into the transaction's root as a new log (one Batch per
// statement or CALL): they commit, roll back and roll back to savepoints
// with it. At COMMIT, if another transaction changed the log meanwhile, the
// two logs merge (eventindex.Merge): the committing transaction's new
// events get positions after the other's; if both changed one stream
// (appends, metadata, deletes), the second commit fails with
// ER_LOCK_DEADLOCK (1213) naming the stream. Positions returned inside a
// transaction may so change at COMMIT; event numbers do not.
//
// # Merges
//
// dolt_merge, dolt_cherry_pick and dolt_revert (proc_merge.go) merge root
// values with package tablemerge: table by table, row by row over prolly
// diffs, cell by cell where the two sides changed different columns of a
// row. A merge that fast-forwards moves the branch; any other commits a
// merge commit unless it leaves conflicts or is asked not to (--no-commit,
// --squash). Merges are refused while the branch has uncommitted changes
// or a merge in progress. Rows in conflict stay as ours in the table and
// are listed by dolt_conflicts and dolt_conflicts_<table> (package
// systables);
// delete them from dolt_conflicts_<table> once the table holds what it
// should, or run dolt_conflicts_resolve('--ours' | '--theirs', ...)
// (proc_conflicts.go); then
// dolt_add and dolt_commit make the merge commit, or dolt_merge('--abort')
// returns to before the merge. dolt_merge_status shows the merge in
// progress. Schema conflicts, a table dropped on one side and changed on
// the other, and merged rows that break a unique key fail the merge and
// change nothing; the error says what to change.
//
// # Limits
//
// What one statement can take, and what its client sees when it passes a
// bound. The wire server adds its own (package server: connections,
// max_execution_time, memory):
//
//   - Errors (scrub.go): no error a client gets carries a Go stack trace or
//     an absolute path of the server's machine. A panic in a statement,
//     recovered by the engine or by the server, is 1105 "internal error
//     in the server: <the panic>; the server log has the details", and the
//     server logs the stack trace with the statement. A path in a message
//     becomes relative to the data dir, or ".../<name>" outside it, unless
//     the statement itself names it.
//   - Built values (packetlimit.go): REPEAT, LPAD, RPAD, SPACE, REPLACE,
//     INSERT, CONCAT, CONCAT_WS and TO_BASE64 return NULL with warning 1301
//     ("Result of repeat() was larger than max_allowed_packet (N) -
//     truncated") instead of a value longer than the session's
//     max_allowed_packet, as MySQL's do, without building it. The default
//     is the engine's, 1 GiB (MySQL's is 64 MiB: SET GLOBAL
//     max_allowed_packet = 67108864 to have it). Other functions (LOWER,
//     HEX, JSON functions, GROUP_CONCAT past group_concat_max_len...) are
//     not checked.
//   - Time (interrupt.go): a statement whose context is cancelled (KILL
//     QUERY and KILL, the client's disconnect, the server's
//     max_execution_time) stops. That reaches REGEXP (ICU, which calls
//     back every few thousand steps), sorts (each comparison), table
//     scans (every 1024 rows) and the engine's own checks between rows; a
//     loop of the engine that touches none of these (a recursive CTE's
//     iterations, for one) ends only at its next check. As in MySQL, a
//     REGEXP past regexp_time_limit steps (default 32: milliseconds of a
//     pathological pattern) fails with 3699, past regexp_stack_limit with
//     3698 (regexp.go; Go's regexp in gms_pure_go builds has neither and
//     needs neither: it matches in linear time).
//
// REGEXP and sorts stop this way in every engine of NewEngine and
// NewEmbedded, whose parser rewrites the REGEXP operators to verso's
// functions and whose analyzer wraps the sorts' keys; REGEXP_LIKE and its
// kin by name come from the Provider.
//
// # Logging
//
// The package is quiet unless given a *slog.Logger (logging.go):
// Provider.SetLogger for the sessions of its engines, or the wire
// server's (package server, which logs its connections and statements
// there). What the engine logs through a session's logrus logger
// (ctx.GetLogger()) is forwarded to the slog logger at the matching level
// (logrus's Trace is LevelTrace); engine lines that repeat the server's
// own, or concern one client's connection or statement, are demoted (see
// demoted).
//
// # Caveats
//
//   - Isolation is InnoDB's REPEATABLE READ, without gap locks (rowlocks.go,
//     lockplan.go): plain SELECTs read the transaction's snapshot; INSERT,
//     UPDATE, DELETE, REPLACE and SELECT ... FOR UPDATE / FOR SHARE / LOCK
//     IN SHARE MODE lock the rows they touch until the transaction ends
//     and read their latest committed versions, so a second writer of a
//     row waits (innodb_lock_wait_timeout, default 50 s, then 1205), a
//     deadlock fails the youngest transaction of the cycle whole (1213),
//     NOWAIT fails at once (3572) and SKIP LOCKED leaves locked rows out.
//     `n = n + 1` from many sessions counts exactly. A locking read of a
//     range locks the rows it reads, not the gaps: rows inserted into the
//     range meanwhile are not seen by it (phantoms), and two transactions
//     that read each other's rows without locking them and write others
//     (write skew) both commit. Rows of tables without a primary key are
//     not locked. At COMMIT a row that the transaction and another writer
//     both changed since the transaction's base of it is refused with a
//     serialization failure (1213), whatever the values: that catches
//     writers that take no row locks (procedures that rewrite a working
//     set, such as dolt_reset; rows of tables without a primary key; a
//     schema change beside writes to the table). Values of unique indexes
//     are locked as rows are: a second transaction that takes a value
//     another holds waits, then gets 1062 if it was committed. Locking
//     reads of a view lock the rows of its tables; locking clauses inside
//     stored procedures and the bodies of triggers do not lock (the
//     UPDATEs and DELETEs there do). Foreign-key checks read the parent
//     rows from the snapshot without locking them.
//   - Auto-increment counters are shared by all sessions of a process (as
//     MySQL's are), held in memory from the stored counter: values handed
//     out and rolled back are not reused.
//   - Reads are pruned to the columns a query names (project.go,
//     sql.ProjectedTable): only those fields of each stored row are decoded,
//     and large values are loaded only for them. A projected Table's Schema
//     and rows hold only the projected columns; editors always work on whole
//     rows. An index lookup checks each row against its ranges unless the
//     key spans are exact (integer bounds, index.go's exactRange).
//   - A statement's writes join the transaction's root when the statement
//     completes; a statement reads the transaction as it was when the engine
//     resolved the table, plus writes of inner statements that completed
//     (triggers).
//   - System tables (package systables: dolt_log, dolt_diff_<t>, ...) and
//     the table functions dolt_log(), dolt_diff(), dolt_diff_stat(),
//     dolt_diff_summary(), dolt_schema_diff() and dolt_patch()
//     (historyfuncs.go, difffuncs.go) read the refs of the transaction's
//     snapshot, taken with its working set (systables.go): commits made by
//     others after the transaction began are not seen until it ends.
//     dolt_query_diff() (querydiff.go) runs its two SELECTs in the
//     statement's transaction, on an engine of its own over the provider.
//   - A COMMIT is durable when it returns: the working-set update is one
//     store commit with one fsync. Nothing is committed to the commit graph
//     but by dolt_commit (and the merges).
//   - dolt_checkout('-b', new) starts the new branch clean at HEAD, as
//     Dolt's does (the old branch keeps its working set; the command
//     line's verso checkout -b takes it along). dolt_branch('-f') and
//     dolt_checkout('-B') move the session's own branch only when nothing
//     of its tracked tables is uncommitted (Dolt drops such changes);
//     untracked tables stay.
//     dolt_reset('--hard') keeps untracked tables (in the working root
//     only), as git and Dolt do; there is no dolt_clean yet. dolt_branch
//     refuses to delete or rename the database's default branch
//     (.verso/HEAD). dolt_checkout of tables restores them from the staged
//     root (or, after '--', from a revision). AS OF a time takes the
//     newest commit of the branch's history (log order) made at or before
//     it.
//   - ALTER TABLE changes of columns, keys, indexes and checks rebuild the
//     table: O(rows).
//   - Prefix lengths in a primary key are refused (rows are keyed by whole
//     values); secondary indexes take them. Database collations other
//     than the default are refused. Scheduled events (CREATE EVENT),
//     spatial columns and FULLTEXT, spatial and VECTOR indexes are not
//     supported yet.
//   - Keyless tables return rows in storage order (by content), not in
//     insertion order.
//   - A merge refuses uncommitted changes (staged ones, and changes to
//     tables of HEAD), even to tables the merge does not touch; new
//     tables never staged (untracked) stay in the working set, unless the
//     merge brings a table of the same name. A column added on one side of a
//     merge gets its default in the other side's rows only when the
//     default is constant or CURRENT_TIMESTAMP (proc_merge.go). Constraint
//     violations fail the merge (Dolt records them in
//     dolt_constraint_violations, which verso lacks); foreign keys are not
//     checked across merged tables. A --squash merge that leaves
//     conflicts records no merge state: dolt_merge_status does not show
//     it, and dolt_reset('--hard') undoes it. dolt_revert fails on
//     conflicts and changes nothing (Dolt leaves them to resolve and
//     continue), and makes all its revert commits or none.
//   - secure_file_priv is checked before a file statement runs, and the
//     engine opens the file afterwards: an account that can also change
//     the host's files (replace a folder by a link between the two) can
//     race the check. The engine keeps @@GLOBAL.secure_file_priv
//     process-wide: with several servers in one process it shows the last
//     one's (each server enforces its own, and @@secure_file_priv shows a
//     session its server's). Sessions of an engine that enforces no
//     accounts (the driver's, `verso sql`) reach any file the process
//     can.
//   - The engine and its protocol library also log through logrus's
//     standard logger (logrus.StandardLogger(): the engine's connection
//     lines, "Server ready", handshake errors, an invalid DECIMAL in a
//     CAST), which by default writes lines of Info and above to stderr.
//     The package never changes that logger, which is the program's: route
//     it into the program's log with ForwardLogrus(logrus.StandardLogger(),
//     logger) (cmd/verso does), or silence it with
//     logrus.SetOutput(io.Discard).
//   - Each Provider has its own catalog of procedures, functions and
//     system tables (built from static tables, registry.go) and its own
//     caches of tables, schemas and commits: two providers in one process
//     share none. What is process-wide is the engine's: its registry of
//     system variables, to which the first provider made adds verso's
//     (and each database opened its @@<db>_... ones), and
//     @@GLOBAL.secure_file_priv above.
//   - Error messages are the engine's (for example "table not found: t"
//     for 1146); only syntax errors and the errors of the limits (1317,
//     3024, 3170: the server's; 3698, 3699) use MySQL's wording.
//   - A point lookup on an all-integer primary key (WHERE id = 5) skips
//     the engine's index costing (pointlookup.go); other filters are
//     costed as usual.
//   - In engines of NewEmbedded (the server's and the driver's), selects by
//     an integer primary key (= or BETWEEN, with placeholders of a
//     prepared statement or integer literals of a text query; plain
//     columns, DISTINCT, ORDER BY one column or SUM) skip the engine's
//     bind and analysis (fastpath.go): the engine runs them as an injected
//     statement whose plan is a primary-key lookup, and anything the fast
//     path does not cover falls back to the engine's planning. The first
//     execution against each table schema also plans the statement, to
//     learn the result columns. Engines of NewEngine (the `verso sql`
//     command) and EmbeddedOptions.NoFastPath plan every statement.
//   - The wire server skips the engine's connection handler as well for
//     four kinds of statement, doing what the handler does around them
//     itself (process list, privileges, transaction, warnings, counters,
//     autocommit): executions of the fast path's prepared selects
//     (ExecPrepared, fastdirect.go), plain BEGIN, START TRANSACTION and
//     COMMIT (ExecTxnStatement), plain reads of dolt_read_all and
//     dolt_read_stream, written to the client as text straight from the
//     log's events (ExecEventRead, fastevents.go), and single-row INSERTs
//     and UPDATEs and DELETEs by primary key, prepared or with literal
//     values, written through the table's editor as the engine's plan
//     writes them (ExecWrite, ExecPreparedWrite, fastwrite.go). Anything
//     else, and anything these decline, goes through the handler
//     untouched.
//   - A plain string literal compared with a text column (=, <=>, <, <=,
//     >, >=) takes the column's type after the engine's validation
//     (littypes.go), so each row's comparison skips the engine's
//     conversions; the column's collation decides it, as before.
package sqlserver
