// Package sqlserver is verso's storage backend for go-mysql-server (GMS):
// databases, tables, indexes, sessions and transactions over the commit
// graph and the table storage below it, and the MySQL-protocol server.
//
// # Main types
//
//   - Provider: the engine's sql.DatabaseProvider and
//     sql.MutableDatabaseProvider. NewProvider opens the database folders of
//     a data dir (each holds .verso/chunks, a chunks.FileStore, and
//     .verso/HEAD, the branch sessions use); CREATE DATABASE makes a folder,
//     DROP DATABASE removes it. NewMemoryProvider keeps databases in memory.
//     The name "db/branch" is a revision database: db on the working set of
//     another branch (USE `db/feature`).
//   - Database: a sql.Database over the working root of its branch, with
//     CREATE, DROP and RENAME TABLE, views, triggers, stored procedures,
//     foreign keys and temporary tables.
//   - Table: a sql.Table over a tables.Table, with inserts, updates,
//     deletes, replaces, TRUNCATE, auto-increment, checks, ALTER TABLE (by
//     rewriting the table) and index lookups (Index) that run as prolly
//     key-range scans.
//   - Session and Transaction: a transaction reads a snapshot of each
//     database (the working root when it first touches it); its writes build
//     a new root; COMMIT (or the end of an autocommit statement) writes it to
//     the branch's working set, merging row by row with transactions that
//     committed meanwhile (commit.go, merge.go).
//   - Server: the MySQL-protocol server over a Provider (server.go): the
//     superuser of ServerConfig (made at each start, never stored; without
//     a password only on a loopback address, ErrNoPassword otherwise),
//     accounts and grants from CREATE USER, GRANT, REVOKE and DROP USER
//     kept in the users file (users.go: a versioned, checksummed envelope
//     around the engine's encoding, rewritten atomically with fsync, and
//     verified by usersverify.go before the engine decodes it), a
//     connection limit answered with MySQL's error 1040, and Shutdown.
//     Errors reach clients with MySQL's numbers and SQLSTATEs
//     (mysqlerrors.go): a syntax error is 1064 with MySQL's message, where
//     the engine would send 1105; MySQLError gives the same mapping to
//     in-process callers.
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
//	foreignkeys/<name>  a foreign key (foreignkeys.go)
//
// Names keep the case they were created with; lookups ignore case.
//
// # Caveats
//
//   - Isolation is snapshot isolation with first-committer-wins per row: two
//     transactions that change the same row, take the same unique key, or
//     change a table's schema while the other writes it cannot both commit;
//     the second gets a serialization failure (ER_LOCK_DEADLOCK, 1213) and
//     should retry. Two transactions that read each other's rows and write
//     others (write skew) both commit. Two that make the same change to a
//     row both commit (the merge converges, as Dolt's does), so two
//     concurrent "SET v = v + 1" that read the same v lose one increment
//     (SELECT ... FOR UPDATE takes no locks yet). Where MySQL would make a
//     second writer of a row wait, verso fails its commit instead.
//   - Auto-increment counters are shared by all sessions of a process (as
//     MySQL's are), held in memory from the stored counter: values handed
//     out and rolled back are not reused.
//   - A statement's writes join the transaction's root when the statement
//     completes; a statement reads the transaction as it was when the engine
//     resolved the table, plus writes of inner statements that completed
//     (triggers).
//   - A COMMIT is durable when it returns: the working-set update is one
//     store commit with one fsync. Nothing is committed to the commit graph
//     (dolt_commit) here.
//   - ALTER TABLE changes of columns, keys, indexes and checks rebuild the
//     table: O(rows).
//   - Prefix lengths in a primary key are refused (rows are keyed by whole
//     values); secondary indexes take them. Database collations other
//     than the default are refused. Events,
//     spatial columns and FULLTEXT, spatial and VECTOR indexes are not
//     supported yet.
//   - Keyless tables return rows in storage order (by content), not in
//     insertion order.
//   - A syntax error in a server-side prepared statement (COM_STMT_PREPARE)
//     is reported by the protocol library before the engine sees it: 1105
//     with the parser's message, not 1064. Text queries get 1064.
//   - Error messages are the engine's (for example "table not found: t"
//     for 1146); only syntax errors use MySQL's wording.
//   - A point lookup on an all-integer primary key (WHERE id = 5) skips
//     the engine's index costing (pointlookup.go); other filters are
//     costed as usual.
package sqlserver
