// Package sqlserver is verso's storage backend for go-mysql-server (GMS):
// databases, tables, indexes, sessions and transactions over the commit
// graph and the table storage below it.
//
// # Main types
//
//   - Provider: the engine's sql.DatabaseProvider and
//     sql.MutableDatabaseProvider. NewProvider opens the database folders of
//     a data dir (each holds .verso/chunks, a chunks.FileStore, and
//     .verso/HEAD, the branch sessions use); CREATE DATABASE makes a folder,
//     DROP DATABASE removes it. NewMemoryProvider keeps databases in memory.
//   - Database: a sql.Database whose tables are the entries "tables/<name>"
//     of the working root of its branch (see tablePrefix), with CREATE, DROP
//     and RENAME TABLE.
//   - Table: a sql.Table over a tables.Table, with inserts, updates,
//     deletes, replaces, auto-increment, checks, CREATE/DROP INDEX and index
//     lookups (Index) that run as prolly key-range scans.
//   - Session and Transaction: a transaction reads a snapshot of each
//     database (the working root when it first touches it); its writes build
//     a new root; COMMIT (or the end of an autocommit statement) writes it to
//     the branch's working set, merging row by row with transactions that
//     committed meanwhile (commit.go, merge.go).
//
// # Caveats
//
//   - Isolation is snapshot isolation with first-committer-wins per row: two
//     transactions that change the same row, take the same unique key, or
//     both change a table's schema cannot both commit; the second gets a
//     serialization failure (ER_LOCK_DEADLOCK, 1213) and should retry. Two
//     transactions reading each other's rows and writing others (write skew)
//     both commit.
//   - Auto-increment counters are per transaction: concurrent inserts that
//     take the same value conflict at commit.
//   - A statement's writes become part of the transaction's root when the
//     statement completes; reads within a statement see the transaction as it
//     was when the statement began.
//   - A COMMIT is durable when it returns: the working-set update is one
//     store commit with one fsync. Nothing is committed to the commit graph
//     (dolt_commit) here.
//   - ALTER TABLE ... ADD/DROP INDEX and CHECK rebuild the table (O(rows)).
//   - Index lookups are supersets of the matching rows (PreciseMatch is
//     false): the engine keeps its filter.
package sqlserver
