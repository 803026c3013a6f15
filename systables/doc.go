// Package systables holds every dolt_* system table of verso for
// go-mysql-server, with Dolt's names, columns and types: the
// commit-indexed tables (Open) and the tables over the refs as they are
// now and the session's transaction (OpenSession). The commit-indexed
// ones:
//
//	dolt_log               the commits reachable from HEAD (the session
//	                       branch's head; the revision's commit in a
//	                       revision database at a tag or commit, and AS
//	                       OF), in Dolt's log order
//	  commit_hash  text     PRIMARY KEY, and UNIQUE KEY commit_hash as
//	                       Dolt declares it
//	  committer    text     the committer's name (the author's if none)
//	  email        text     the committer's email
//	  date         datetime(3) the commit's time, UTC, to the millisecond
//	  message      text
//	  commit_order bigint unsigned  the commit's height (1 for a root
//	                       commit, 1 + the greatest parent's otherwise)
//	  parents      text     the parents' hashes, mainline first, ", "
//	                       between them ("" for a root commit); nullable
//	  refs         text     the refs naming the commit as Dolt lists them:
//	                       the branches by name, then the tags, after
//	                       "HEAD -> " on HEAD: "HEAD -> b1, main, tag:
//	                       v1" ("" if none)
//	  signature    text     "": verso does not sign commits
//	  author, author_email text; author_date datetime(3) (date where
//	                       the commit records no author time of its own:
//	                       @@dolt_author_date, --date)
//
//	dolt_commits           every commit reachable from a branch or a tag
//	  commit_hash, committer, email, date, message, author, author_email,
//	  author_date          as in dolt_log (its two keys too)
//
//	dolt_commit_ancestors  a row per (commit, parent) of dolt_commits
//	  commit_hash  text     PRIMARY KEY (commit_hash, parent_hash,
//	                       parent_index), as Dolt declares it
//	  parent_hash  text     NULL for a root commit (one row, index 0),
//	                       though declared NOT NULL as Dolt does
//	  parent_index int      0 for the first (mainline) parent
//
//	dolt_diff              the tables each commit of HEAD's history changed
//	                       against its first parent, and the uncommitted
//	                       changes: those staged (HEAD's root to the staged
//	                       root, commit_hash STAGED) and those not (the
//	                       staged root to the working root, WORKING), with
//	                       committer, email, date and message NULL
//	  commit_hash, table_name text, committer, email text, date
//	  datetime(6), message text, data_change, schema_change boolean,
//	  author, author_email text, author_date datetime(6); all declared NOT
//	  NULL, as Dolt declares them, though STAGED's and WORKING's metadata
//	  is NULL
//	                       A table's rows changed: data_change; its schema
//	                       or options changed, or it was created or
//	                       dropped: schema_change. A change to any events/
//	                       entry of the root value (the event log and its
//	                       indexes) is the table dolt_events, data_change;
//	                       a change of views, triggers or events is the
//	                       table dolt_schemas, of stored procedures
//	                       dolt_procedures (data_change, and schema_change
//	                       where the first object came or the last went,
//	                       as Dolt's tables of them are made and dropped).
//
//	dolt_column_diff       for each change dolt_diff lists, a row per
//	                       column it touched in each table: every column of
//	                       a table made (added) or dropped (removed), the
//	                       columns added to and dropped from a table, and
//	                       the columns whose value differs in one of the
//	                       rows that differ (modified); dolt_events' columns
//	                       for the event log
//	  commit_hash, table_name, column_name text (the primary key),
//	  committer, email text, date datetime, message, diff_type, author,
//	  author_email text, author_date datetime; all declared NOT NULL, as
//	  Dolt declares them
//
//	dolt_diff_<t>          the rows of t that differ between each commit
//	                       of HEAD's history and each of its parents (a
//	                       root commit: against no table), and between
//	                       HEAD and the working root (to_commit WORKING)
//	  to_<c>...            the row after, in t's current columns
//	  to_commit varchar(1023), to_commit_date datetime(6)
//	  from_<c>...          the row before
//	  from_commit varchar(1023), from_commit_date datetime(6)
//	  diff_type varchar(1023)  added, modified or removed
//	                       Keys, as Dolt declares them: to_pks and from_pks
//	                       on t's key columns of each side (plain keys:
//	                       Dolt declares them UNIQUE, which they are not),
//	                       to_commit and from_commit. A keyless t has none
//	                       declared, as in Dolt; its to_commit and
//	                       from_commit literals are still looked up.
//	                       A keyless t keeps equal rows as one entry with a
//	                       count: a count that changes is that many rows
//	                       added or removed, a row changed a removal and an
//	                       addition. A row whose stored values differ only
//	                       in columns added since, NULL in it, did not
//	                       change (verso rewrites rows when a column is
//	                       added, Dolt does not); a column dropped or
//	                       retyped changes every row, as in Dolt. The same
//	                       holds for dolt_diff(), dolt_commit_diff_<t> and
//	                       dolt_blame_<t>.
//
//	dolt_commit_diff_<t>   the rows of t that differ between the two
//	                       revisions a query names with to_commit = 'x'
//	                       AND from_commit = 'y' (hashes, branches, tags,
//	                       HEAD~n, WORKING, STAGED), as dolt_diff('y', 'x',
//	                       't') gives them, to_commit and from_commit
//	                       spelled as the query wrote them; the columns of
//	                       dolt_diff_<t>
//	                       Its one key is commits (to_commit, from_commit)
//	                       (plain: Dolt declares it UNIQUE). A query
//	                       without to_commit fails with "error querying
//	                       table dolt_commit_diff_t: dolt_commit_diff_*
//	                       tables must be filtered to a single
//	                       'to_commit'", one without a single pair with
//	                       "commit_diff_<table> requires one 'to_commit' and
//	                       one 'from_commit'"; a revision that names nothing
//	                       as the procedures word it.
//
//	dolt_blame_<t>         for each row of t at HEAD (t a table of the
//	                       working root with a primary key), the commit
//	                       that last changed it
//	  <k>...               t's key columns, nullable and not keys (Dolt's
//	                       blame is a view)
//	  commit varchar(1023), commit_date datetime(6), committer, email,
//	  message text         the commit, its time, committer and message
//	                       The commit is the first, in log order from HEAD,
//	                       whose diff against one of its parents adds or
//	                       modifies the row (as dolt_diff_<t> lists those
//	                       diffs; a merge that takes a row from one parent
//	                       changed it against the other). A keyless t
//	                       fails with "unable to generate blame view for
//	                       table without primary key", an unknown one with
//	                       "table not found: t"; an INSERT as into Dolt's
//	                       view.
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
//	  <c>...               t's current columns (its key columns the
//	                       primary key, as Dolt declares them)
//	  commit_hash char(32) ascii, committer varchar(1024) ascii,
//	  commit_date datetime(3)
//
// t's current columns are those of the session's working root; rows of
// older commits are matched to them by column name (a column they lack is
// NULL; a value whose type changed since is converted to the current
// type). Values are converted exactly as the ordinary table read does: the
// View's TableReader is package sqlserver's.
//
// Table functions over the commit graph (package sqlserver registers
// them; the logic is here):
// dolt_log('rev', ...) has dolt_log's twelve columns and takes Dolt's
// arguments, parsed as Dolt parses them: revisions, ^rev, --not rev...,
// a..b, a...b, --parents (the parents column is NULL without it),
// --decorate short|full|no|auto, --show-signature, --merges, --min-parents
// N, --tables/-t, -n N and --all (LogQuery says what each does, and where
// verso departs from Dolt). The diff functions take
// two revisions as Dolt reads them (revisions.go: 'from', 'to'; 'a..b';
// 'a...b', from the merge base; WORKING and STAGED in upper case, which
// show the time of the query as their date), answer in Dolt's words
// ("branch not found: x", "invalid ancestor spec", "target commit not
// found"), and cost what the change costs: the root diff skips what both
// roots share, and prolly.DiffMaps the subtrees both row maps share.
// deltas.go pairs the tables that differ, a renamed table under its two
// names by the identity RENAME TABLE keeps (verso.Renames; tableDelta); rowdiff.go gives the rows that differ, a keyless row
// once per copy, and a row an ALTER stored again with the same values not
// at all (rowChange):
//
//	dolt_diff('from', 'to', 't')   difffunc.go: t's rows that differ; to_
//	                               columns of t at to, from_ columns of t
//	                               at from. 'dolt_events' diffs the event
//	                               log instead, with dolt_diff_dolt_events'
//	                               columns (eventindex.Diff).
//	dolt_diff_stat(...[, 't'])     diffstat.go: rows and cells added,
//	                               deleted and modified per table, counted
//	                               as Dolt counts them
//	dolt_diff_summary(...[, 't'])  diffsummary.go: a row per table added,
//	                               dropped, renamed or modified, with
//	                               data_change and schema_change
//	dolt_schema_diff(...[, 't'])   schemadiff.go: the CREATE TABLE statements
//	                               of each table whose definition changed
//	                               (TableReader.Definition: SHOW CREATE
//	                               TABLE's, without AUTO_INCREMENT)
//	dolt_patch(...[, 't'])         patch.go: the statements that turn one
//	                               revision into the other, schema (CREATE,
//	                               DROP, RENAME, ALTER) then data (INSERT,
//	                               UPDATE, DELETE) per table; SQL text in
//	                               sqltext.go
//	dolt_query_diff('q1', 'q2')    querydiff.go: two queries' rows compared
//	                               (package sqlserver runs the queries)
//
// # Tables over the refs and the session's transaction
//
// OpenSession's tables read when a statement runs (View.Session reaches
// the session's transaction then), and are plain scans unless said:
//
//	dolt_branches  name text PRIMARY KEY, hash text, latest_committer text,
//	               latest_committer_email text, latest_commit_date
//	               datetime(3), latest_commit_message text, remote text,
//	               branch text, dirty tinyint (the working set differs
//	               from the head), latest_author text, latest_author_email
//	               text, latest_author_date datetime(3); the branches as
//	               they are now
//	dolt_tags      tag_name text, tag_hash text (the primary key), tagger
//	               text, email text, date datetime(3), message text
//	dolt_status    table_name text, staged tinyint, status text: the
//	               session branch's staged changes (HEAD to staged, staged
//	               = 1), unstaged ones (staged to working, as the session's
//	               transaction sees it, its pending writes flushed) and
//	               conflicts (verso.Txn.Status). status is "new table",
//	               "modified", "deleted" or "conflict".
//	dolt_status_ignored      dolt_status's columns and ignored tinyint:
//	                         the untracked tables dolt_ignore ignores too
//	dolt_remotes, dolt_remote_branches
//	                         empty until verso has remotes (remotes.go)
//	dolt_conflicts           table text, num_conflicts bigint unsigned
//	dolt_conflicts_<table>   from_root_ish text, base_<col>..., our_<col>...,
//	                         our_diff_type text, their_<col>...,
//	                         their_diff_type text, dolt_conflict_id text
//	dolt_merge_status        is_merging tinyint, source text,
//	                         source_commit text, target text,
//	                         unmerged_tables text
//
// The conflict tables read the conflicts of the transaction's root
// (written by a merge under conflicts/<table>, format in package
// tablemerge). A diff type is "added", "modified" or "removed" (from base
// to that side). dolt_conflict_id is the row's primary key (its stored
// key, base64): a DELETE of rows of dolt_conflicts_<table> marks them
// resolved in the transaction's root, keeping the table's rows as they are
// (ours, or what the user wrote). from_root_ish is the merged commit.
// dolt_merge_status names as source the revision a cherry-pick was given
// (the working set records it), or else a branch whose head is the merged
// commit, or else the commit's hash. dolt_conflicts_<table> takes its
// columns when it is opened: from the schema the conflicts were recorded
// in, or, without conflicts, the table's own (and no rows). The table
// functions dolt_preview_merge_conflicts_summary('ours', 'theirs') and
// dolt_preview_merge_conflicts('ours', 'theirs', 't') (preview.go) show
// the conflicts a merge would leave, from a verso.MergePreview: the same
// columns, nothing merged.
//
// # Tables of schema objects
//
// Open serves the tables that hold Dolt's schema objects, as rows of the
// objects verso keeps one chunk each (objects.go; package sqlserver's
// TableReader.ObjectRows decodes them). Both are read-only, as Dolt's
// (CREATE, ALTER and DROP change them):
//
//	dolt_schemas     type, name varchar(64) (the key, compared without
//	                 case), fragment longtext (the CREATE statement),
//	                 extra json ({"CreatedAt": seconds; 0 for a view}),
//	                 sql_mode varchar(256): views, triggers and events
//	dolt_procedures  name varchar(1023) PRIMARY KEY, create_stmt
//	                 varchar(8191), created_at, modified_at datetime(6),
//	                 sql_mode varchar(1023)
//
// The tables of a table exist for them too: dolt_diff_ and dolt_history_
// (while the working root holds the item; each commit's objects are read
// whole and paired by key), dolt_workspace_ (below), and dolt_conflicts_
// and dolt_constraint_violations_, empty (a merge of objects conflicts by
// failing; objects have no constraints) with Dolt's columns.
//
// # Workspaces
//
// OpenSession serves dolt_workspace_<t> (workspace.go): t's rows that
// differ between the branch's head and staged root (staged = 1), then
// between the staged and working roots (staged = 0), each in key order, as
// verso.Txn.Workspace gives them:
//
//	id bigint unsigned PRIMARY KEY, staged tinyint(1), diff_type
//	varchar(1023), to_<c>... (t's columns in the working root), from_<c>...
//	(in the head)
//
// UPDATE ... SET staged = 1 stages a row's change, = 0 unstages one (at
// the statement's end, durable at once as dolt_add is:
// verso.Txn.StageWorkspace); DELETE undoes a change not staged, in the
// transaction (RevertWorkspace); every other edit is refused in Dolt's
// words. A name no root holds is an empty table of the first three
// columns, as Dolt's.
//
// # The tables of features, and the functions
//
// OpenSession serves the rest of Dolt's fixed tables, each with Dolt's
// columns, saying what is true of verso where it lacks the feature, and
// refusing writes it would not honour (refuse.go):
//
//	dolt_help          Dolt 2.3.1's own rows (help.json): each procedure's
//	                   synopsis, descriptions and arguments; read-only
//	dolt_backups       empty: verso has no backups; read-only as Dolt's
//	dolt_branch_control, dolt_branch_namespace_control
//	                   the row '%', '%', '%', '%', 'write' (every user
//	                   writes every branch) and nothing: verso has no
//	                   branch permissions; writes refused
//	dolt_nonlocal_tables  empty: verso has no nonlocal tables; writes
//	                   refused
//	dolt_branch_activity  each branch's last read and write and its
//	                   sessions (View.Activity), or Dolt's error while
//	                   the server does not track them
//	dolt_statistics    what ANALYZE TABLE measured of each index
//	                   (View.Statistics): a row per index, read-only
//
// dolt_test_run([names]) runs the tests of dolt_tests (testrun.go: the
// assertions; package sqlserver reads the tests and runs their queries).
// ListedNames gives the system tables @@dolt_show_system_tables lists.
//
// # The event log
//
// dolt_events has a row per event of the log the session's transaction
// sees (its own appends included): position (the primary key), stream_id,
// event_number, event_id, event_type, category, created (UTC, datetime(6)),
// data and metadata (JSON, NULL when empty; returned as stored, compact).
// Names compare binary. Its indexes are the log's maps: PRIMARY
// (position), stream (stream_id, event_number), category (category,
// position), event_type (event_type, position) and category_event_type
// (category, event_type, position), which has no map of its own: the two
// index ranges are joined on position. The table picks its lookup from
// literal filters (= and IN on names, comparisons on position and
// event_number) and leaves the rest as a filter; joins and parameters go
// through the engine's costing of the same indexes. EXPLAIN PLAN shows
// IndexedTableAccess(dolt_events) with the index. PRIMARY is ordered and
// reversible: ORDER BY position [DESC] LIMIT n reads n events, not the
// log (Log.ReadBackwards for DESC).
//
// INSERT INTO dolt_events (stream_id, event_type, data, metadata,
// event_id, event_number) appends: the statement's rows are one batch,
// each with expected version any, or, when it gives event_number n, only
// if the event gets number n. position, category and created are the
// log's: an INSERT that sets them (category differently from the stream's)
// fails. UPDATE, DELETE and TRUNCATE fail: retention removes events.
//
// dolt_read_all(filter [, from_position [, max_count]]) reads with a
// KurrentDB-style filter: $all, $idx-ce-<category>, $idx-et-<type>, a
// stream id, several of these joined by '&' ($idx-ce-Order&$idx-et-
// OrderCreated: a conjunction), or a JSON object with any of category,
// event_type, stream, stream_prefix and to_position (exclusive).
// dolt_read_stream(stream [, from_event_number [, max_count [,
// 'backwards']]]) reads a stream. max_count defaults to 2000, a page;
// larger counts are read a page at a time.
//
// dolt_streams has a row per stream (counts, first and last event number,
// version, retention rules, deleted 'soft' or 'hard'; stream_id = and IN
// are lookups of those streams' records); dolt_event_stats a
// row for the whole log, per category, per event type and per (category,
// event type) pair (count, first and last position and created time),
// from index counts in O(log n) each.
//
// INSERT INTO dolt_events and the procedures of package sqlserver write a
// Batch into the transaction's root (verso.Txn.StoreEvents, WriteEvents);
// a READ ONLY transaction refuses them (ErrEventsReadOnlyTx), as does a
// revision at a commit. OpenEventsAt opens the event tables of a given
// root value instead of the transaction's: read-only.
//
// # Main types
//
//   - View: what the tables of one database read: the commit graph, the
//     refs of the transaction's snapshot (commitgraph.Snapshot), the
//     session's branch, its working root, a TableReader (the engine's
//     schemas and values) and a Session (the session's transaction, a
//     *verso.Txn, when a statement reads or writes).
//   - Table: one system table, opened by Open; sqlserver's Database
//     returns it from GetTableInsensitive.
//   - commitIndex: an index on a commit-hash column (commit_hash,
//     to_commit, from_commit). There is no index structure: the chunk
//     store's own address index is the index, and the closure answers "is
//     it in this table's history".
//   - LogQuery, TableDiff: dolt_log() and dolt_diff(); DiffStat,
//     DiffSummary, SchemaDiff, Patch, QueryDiff: the other diff functions,
//     over DiffArgs (their revision and table arguments).
//   - tableDelta: a table that differs between two roots (deltas.go);
//     rowChange: a row that differs (rowdiff.go).
//   - PreviewSummaryRows, PreviewConflicts: the merge preview functions.
//     it in this table's history". Its kinds (indexKind): hash lookups,
//     hidden hash lookups (keyless dolt_diff_<t>), dolt_commit_diff_<t>'s
//     pair of revisions, and dolt_diff_<t>'s row-key keys.
//   - RowDiff: the rows of a diff of a table, in its current columns:
//     dolt_diff_<t>, dolt_commit_diff_<t> and dolt_diff() lay them out,
//     dolt_column_diff and dolt_blame_<t> read them.
//   - EventDiff: the rows of a diff of the event log, in dolt_events'
//     columns.
//   - OpenSession's tables: rowsTable (dolt_branches, dolt_tags,
//     dolt_status, dolt_conflicts, dolt_merge_status), conflictsTable,
//     eventsTable (dolt_events, with eventIndex), infoTable (dolt_streams,
//     with streamIDIndex; dolt_event_stats).
//   - ReadEvents: dolt_read_all() and dolt_read_stream().
//   - RootChanges: the tables that differ between two root values.
//
// # How queries run
//
//   - Full scans stream: dolt_log, dolt_diff, dolt_column_diff,
//     dolt_diff_<t> and dolt_history_<t> follow commitgraph's Log iterator
//     (HEAD's closure
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
//   - dolt_column_diff's commit_hash = 'x' (and IN, STAGED, WORKING) is
//     an index lookup as dolt_diff's is, then one diff of the commit
//     against its first parent: the tables that differ, and the rows of
//     each, at a cost that follows the change.
//   - dolt_commit_diff_<t>'s to_commit = 'x' AND from_commit = 'y' is a
//     lookup of the pair index: each revision resolved (a hash with a
//     chunk read, a name through the refs, HEAD~n by n first parents),
//     then one diff of the two tables. The table picks the lookup from
//     literals itself; other expressions (user variables, parameters) go
//     through the engine's costing of the same index.
//   - dolt_blame_<t> walks HEAD's history in log order only as far as it
//     must: it reads HEAD's rows (their keys are held until the walk
//     ends), diffs t between each commit and its parents where their
//     tables differ (a header compare where they do not), and stops once
//     every row is named. A row last changed n commits ago costs a walk
//     of n commits; a row unchanged since t was made, a walk to the commit
//     that made it. A filter on the key is applied to its rows: the walk
//     still names every row.
//   - dolt_diff_<t>'s to_pks and from_pks (filters on to_<k> and from_<k>)
//     read what a scan reads and keep the rows in the ranges: a walk of
//     HEAD's history, as Dolt's lookups by them are.
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
// The commit-indexed tables read the refs of the transaction's snapshot:
// package sqlserver takes a commitgraph.Snapshot with the working set when
// the transaction first touches the database. A transaction that began
// before another session committed sees neither the commit nor the moved
// branch, in any of them, until it ends. When the transaction's own working set
// moves (its own commit), the refs are read again: it sees its own commit,
// and with it those of others made meanwhile. The WORKING rows are the
// transaction's working root, its uncommitted writes included.
//
// # Caveats
//
//   - A table's identity is the name it was created with, which RENAME
//     TABLE keeps in its options (verso.TableOrigin): a table dropped and
//     another created under that name share it. Where two tables dropped
//     (or added) carry one identity, neither pairs: they show as dropped
//     and added.
//   - A column keeps no identity either: columns are matched by name, and
//     by place and type where the rows were not stored again (ALTER ...
//     RENAME COLUMN). A row is changed when its stored value differs and
//     so do its values by name; one that kept its stored value across a
//     column dropped and another added is not.
//   - The diff functions list SQL tables only: the event log (but for
//     dolt_diff(..., 'dolt_events')), views, triggers, events, procedures
//     and foreign keys are not tables of dolt_diff_summary or dolt_patch; a foreign key
//     change alone is no change, though CREATE TABLE statements name the
//     table's foreign keys.
//   - dolt_diff and dolt_column_diff compare a merge with its first parent
//     only (what the merge brought to its branch); dolt_diff_<t> compares
//     it with every parent, and so does dolt_blame_<t>. Dolt's
//     dolt_diff_<t> leaves out the changes of a merge's first parent
//     (corpus c-diff-merge); verso lists them.
//   - dolt_blame_<t> shows HEAD's rows, each with its last commit: a row
//     with uncommitted changes keeps its row (Dolt's blame drops it,
//     corpus c-blame). Log order (height, then time) decides which commit
//     is the last; Dolt's blame orders by commit time, which agrees unless
//     clocks went backwards.
//   - Revisions other than HEAD, WORKING and STAGED in the table functions
//     (branches, tags, hashes with steps; in dolt_diff(), HEAD's steps too)
//     resolve against the refs as they are now, not the snapshot.
//   - dolt_diff_<t>, dolt_commit_diff_<t>, dolt_history_<t> and
//     dolt_blame_<t> exist for the tables of the working root; the history
//     of a dropped table is not reachable by name.
//   - dolt_diff_<t> and dolt_history_<t> exist for the tables of the
//     working root; the history of a dropped table is not reachable by
//     name.
//   - dolt_diff_ and dolt_history_ of dolt_schemas and dolt_procedures
//     read every commit of HEAD's history (the objects of a commit whose
//     object entries are its parent's are not decoded): they have no
//     index, and a filter on a commit filters that walk.
//   - A row of dolt_workspace_<t> is named by its place (id) in the
//     workspace as it was read: an UPDATE or DELETE applies to the rows
//     it read, checked against the workspace at its end
//     (verso.ErrWorkspaceMoved if another session changed them between).
//     Its undo writes the table's rows directly: foreign keys are not
//     checked then (Dolt's checks them).
//   - Lookups of hashes that are not string literals (a join's keys, a
//     prepared-statement parameter) go through the engine's costing of the
//     index; a NULL key matches no row.
//   - The event diffs compare the logs as stored: an event past its
//     stream's max age but not yet swept is hidden from dolt_events yet
//     not removed in a diff until the Batch or sweep that removes it.
//   - Decoded commits and what is derived from a refs snapshot are kept in
//     a Cache, bounded, that the caller owns: View.Cache, one per provider
//     in package sqlserver (a view given none keeps its own). Nothing is
//     cached at package level.
//   - The commit-indexed tables are read-only; every method of theirs is
//     safe for concurrent use. OpenSession's tables follow the session's
//     transaction, which is not: use them in their session.
//   - dolt_branches, dolt_tags and dolt_merge_status read the refs as they
//     are now, not the transaction's snapshot.
package systables
