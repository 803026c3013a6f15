// Package systables holds verso's commit-indexed system tables for
// go-mysql-server, with Dolt's names, columns and types:
//
//	dolt_log               the commits reachable from the session branch's
//	                       head, in Dolt's log order
//	  commit_hash  text     PRIMARY KEY
//	  committer    text     the committer's name (the author's if none)
//	  email        text     the committer's email
//	  date         datetime the commit's time, UTC, to the millisecond
//	  message      text
//	  commit_order bigint unsigned  the commit's height (1 for a root
//	                       commit, 1 + the greatest parent's otherwise):
//	                       equal for commits at one level of the graph
//
//	dolt_commits           every commit of every branch's history, once
//	  commit_hash, committer, email, date, message   as in dolt_log
//
//	dolt_commit_ancestors  a row per (commit, parent) of dolt_commits
//	  commit_hash  text     PRIMARY KEY (commit_hash, parent_index)
//	  parent_hash  text     NULL for a root commit (one row, index 0)
//	  parent_index int      0 for the first (mainline) parent
//
// # Main types
//
//   - Table: one system table, opened by Open with the commit graph of a
//     database and the session's branch; sqlserver's Database returns it
//     from GetTableInsensitive.
//   - commitIndex: the index on commit_hash. There is no index structure:
//     the chunk store's own address index is the index, and the closure
//     answers "is it in this table's history".
//
// # How queries run
//
//   - A full scan streams: dolt_log follows commitgraph's Log iterator
//     (head's closure read downwards, a height at a time); dolt_commits and
//     dolt_commit_ancestors merge the branch heads' closures (each sorted by
//     height, then address) from the top down, dropping entries that
//     several histories share, and read each commit once. LIMIT n reads
//     about n commits.
//   - commit_hash = 'x' and commit_hash IN ('x', ...) are index lookups
//     (Table implements sql.IndexSearchableTable and picks the lookup
//     itself; EXPLAIN PLAN shows IndexedTableAccess). Each hash is parsed
//     (a malformed one gives no rows, as does an upper-case one: the column
//     compares binary), its commit is read with one chunk read (an unknown
//     address or a chunk that is not a commit gives no rows), and the commit
//     is checked to be in the table's histories: the head itself, or one
//     lookup of (height, address) in the head's closure, per head.
//   - RowCount of dolt_log is exact from the head's closure count + 1, so
//     the engine may answer COUNT(*) without a scan.
//
// # Caveats
//
//   - A Table reads the branch heads when it is opened (for each statement),
//     not the session transaction's snapshot: a commit made by another
//     session between two statements of a transaction shows in the second.
//   - dolt_log has the six columns Dolt documents (commit_order since
//     Dolt 1.54). Newer Dolt releases may add columns (parents, refs,
//     signature, author, author_email, author_date); none of these could be
//     confirmed from Dolt's documentation when this was written, so they
//     are left out.
//   - dolt_commits covers branches only: commits reachable only from tags
//     or from no ref are not listed.
//   - Lookups of hashes that are not string literals (a join on
//     commit_hash, which the engine plans as a lookup join, or a
//     prepared-statement parameter) go through the engine's costing of the
//     index; a NULL key matches no row.
//   - Tables are read-only; every method is safe for concurrent use.
package systables
