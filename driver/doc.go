// Package driver is verso's database/sql driver, "verso": SQL over a data
// directory of verso databases, run in the calling process (no server,
// no network), with the engine the server runs.
//
//	import _ "github.com/verso-db/verso/driver"
//
//	db, err := sql.Open("verso", "file:///var/lib/app/data?commitname=Jane%20Doe&commitemail=jane@example.com&database=shop")
//
// # DSN
//
// A DSN is a file URL of the data directory (a folder holding one folder
// per database, as `verso sql-server --data-dir` serves) with the
// connections' settings as parameters: commitname and commitemail (the
// committer identity), database (the current database, db or db/branch)
// and multistatements. ParseDSN parses one into a Config and says what
// is wrong with a bad one (ErrBadDSN); Config.FormatDSN writes one. The
// directory is made when missing, and CREATE DATABASE makes a database
// folder in it.
//
// A data directory is opened once per process, however many sql.DB (or
// connectors from OpenConnector) use it: they share its databases and its
// engine, and the last one closed closes them. (Its stores are locked by
// the process that opens them, so a second open would fail.)
//
// NewConnector serves a *verso.DB that the program opened itself (with the
// engine's root package) through sql.OpenDB: the program uses the engine's
// API and SQL on one database. Its connections' current database is that
// one; SQL sessions and the program's transactions share its row locks;
// closing the sql.DB leaves the program's DB open. CREATE DATABASE through
// such a connector makes a database in memory.
//
// # Connections
//
// Each database/sql connection is a session of the engine, as a client of
// the server has: its own current database and branch (USE,
// dolt_checkout), session variables, prepared statements, temporary
// tables and transaction. Statements run through the server's engine:
// verso's parser and locking reads, the fast path of primary-key selects,
// and the server's mapping of errors to MySQL's numbers.
//
// Transactions are verso's, InnoDB's at REPEATABLE READ: reads see the
// transaction's snapshot, writes lock rows and read their latest version
// (so concurrent `n = n + 1` counts exactly). BeginTx takes
// sql.LevelDefault or sql.LevelRepeatableRead and refuses other levels
// (ErrIsolationLevel); TxOptions.ReadOnly is START TRANSACTION READ ONLY,
// whose writes fail with 1792. A COMMIT refused for a write conflict
// (1213) or a lock wait that timed out (1205) is to be retried.
//
// Prepared statements (DB.Prepare, Conn.PrepareContext) are parsed and
// checked once, with ? placeholders (NumInput counts them); each
// execution binds its arguments. Queries with arguments but no Stmt are
// prepared for the one execution.
//
// A statement's context stops it: cancel it, or let its deadline pass,
// and the statement fails with 1317 (Query execution was interrupted),
// whose Unwrap is the context's error. KILL QUERY from another connection
// stops it the same way; KILL ends a connection (database/sql then makes
// another).
//
// With multistatements=true a query may hold several statements; each
// that returns rows is a result set (Rows.NextResultSet), Exec runs them
// all and Rows.Close runs those not read. Without it such a query is a
// syntax error, as with go-sql-driver/mysql. Arguments go with one
// statement only.
//
// # Values
//
// Integers come back as int64 (unsigned ones and BIT as uint64), FLOAT
// and DOUBLE as float64, DECIMAL as a string holding the exact value
// ("12.50"), CHAR, VARCHAR, TEXT, ENUM, SET, TIME and JSON as strings,
// BINARY, VARBINARY, BLOB and GEOMETRY as []byte, DATE, DATETIME and
// TIMESTAMP as time.Time in UTC, NULL as nil (columns.go has the details,
// and args.go those of arguments).
// Rows report each column's type name (as go-sql-driver/mysql names it),
// nullability, scan type and, for DECIMAL, precision and scale.
//
// # Errors
//
// A statement's error is a *MySQLError with MySQL's number, SQLSTATE and
// message, as the server sends it: 1062 for a duplicate key, 1146 for a
// missing table, 1064 for a syntax error. Its fields are those of
// go-sql-driver/mysql's MySQLError, so code written for that driver
// checks them the same way. A commit, merge or tag on a connection whose
// DSN names no committer fails with ErrNoCommitter (found by errors.Is),
// until the connection sets @@dolt_committer_name and
// @@dolt_committer_email or the procedure gets '--author'.
//
// # Caveats
//
//   - One process per data directory: a server or another program over
//     the same folder cannot open it while this process has it open (and
//     this one cannot open a folder a server has). Share the data through
//     the server and go-sql-driver/mysql instead.
//   - A connection's state is its own, and database/sql hands out any
//     connection of its pool: USE, dolt_checkout, SET and temporary tables
//     made on one are not on the next statement's. Give the database (or
//     db/branch) in the DSN, or hold one connection (DB.Conn) or a
//     transaction.
//   - There are no accounts: every connection is root@localhost with
//     every privilege, and LOAD_FILE, SELECT ... INTO OUTFILE and LOAD
//     DATA INFILE reach any file the process can (the server's
//     secure_file_priv does not apply). The program owns the data.
//   - The server's statement limits (max_execution_time, the
//     per-statement memory limit) are not applied: give statements a
//     context with a deadline.
//   - Durability is the server's: a COMMIT, or an autocommit statement, is
//     on disk when it returns. A connection closed with its transaction
//     open rolls it back. A query's autocommit transaction commits when
//     its rows have been read to the end or closed, and an error doing so
//     is Rows.Err's (or Close's).
//   - Times are read and written in UTC: a time.Time argument is sent as
//     its UTC wall clock, to the microsecond.
//   - Databases of the data directory that cannot be opened are left out
//     without a word; using one fails with 1194, naming what is wrong.
//   - The driver prints nothing; the engine's own process-wide log (KILL
//     QUERY's line, for one) is not the driver's to silence.
package driver
