// Package server is verso's MySQL-protocol server: the listener and its
// connections, the superuser and the accounts of the users file, the
// limits of each statement, the errors and status flags clients get, and
// the log of connections and statements. It runs go-mysql-server's
// protocol handler over the engine of package sqlserver
// (sqlserver.Embedded, whose sessions it holds to their accounts with
// EnforceAccounts); what the engine does with a statement is sqlserver's.
//
// # Main types
//
//   - Server: the server over a sqlserver.Provider (server.go). New
//     listens on Config.Address; Start serves until Close or Shutdown
//     (which also closes the clients' connections, rolling back their
//     uncommitted transactions, and waits for them). The superuser of
//     Config (made at each start, never stored) needs a password unless
//     the address is a loopback one (ErrNoPassword otherwise).
//   - Config: its settings, which cmd/verso's sql-server flags and config
//     file set.
//
// # Connections
//
// The listener (listener.go) turns away a client beyond
// Config.MaxConnections with MySQL's error 1040 in place of the
// handshake, and gives each connection Config.ConnectTimeout (MySQL's
// connect_timeout, default 10 s) from its accept to the end of its login,
// or closes it and frees its place; the read and write timeouts (hours,
// for idle clients) apply only after the login.
//
// With Config.BackLog, clients beyond MaxConnections wait for a place
// instead (Dolt's back_log), each up to Config.MaxConnectionsTimeout.
//
// TLS (tls.go): with Config.TLS the handshake offers it; LoadTLS reads a
// certificate, AutoTLS makes one on first start as MySQL 8 does.
// Config.RequireSecureTransport turns away clients on TCP without TLS
// with 3159. The Unix socket (socket.go, Config.Socket) shares the
// connection limits, counts as secure, and its clients come from
// localhost. The account checker (sha2auth.go) adds
// caching_sha2_password's fast path to the engine's methods: the first
// login of such an account after a start needs TLS, later ones work on
// any connection.
//
// Config.ReadOnly refuses every write with 1290; Config.NoAutocommit and
// Config.SessionVars set sessions' variables at login.
//
// The status flags of the handshake and of every OK and EOF packet follow
// the session as MySQL's do (statusflags.go), since clients such as
// PyMySQL trust them: SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS
// (from BEGIN, or with autocommit off from the first statement that reads
// or writes a database, to COMMIT or ROLLBACK:
// sqlserver.Session.InTransaction), SERVER_STATUS_IN_TRANS_READONLY and
// SERVER_MORE_RESULTS_EXISTS.
//
// # Accounts
//
// Clients log in as the superuser or as accounts made with CREATE USER,
// GRANT, REVOKE and DROP USER, kept in Config.UsersFile (users.go: a
// versioned, checksummed envelope around the engine's encoding, rewritten
// atomically with fsync after each such statement, and verified by
// usersverify.go before the engine decodes it; ErrUsersFile marks a file
// that cannot be read). Without a users file they last until the server
// stops. What accounts may do beyond the engine's own checks (files,
// SET GLOBAL, CREATE and DROP DATABASE) is enforced in sqlserver
// (access.go), for the folder of secure_file_priv the server chooses
// (files.go: Config.SecureFilePriv, by default the data dir's
// DefaultFilesDir, made at start; NULL disables file statements).
//
// # Errors
//
// Each command of a client goes through connHandler (handler.go): its
// error gets MySQL's number and SQLSTATE (sqlserver.MapError: 1064 with
// MySQL's message for a syntax error, where the engine would send 1105),
// a panic becomes an error, and neither a stack trace nor an absolute path
// of the server's machine reaches the client (sqlserver.ScrubError): the
// client gets 1105 "internal error in the server: ...", and the stack
// trace goes to the log at Error with the statement. A syntax error in a
// server-side prepared statement, which the protocol library answers
// itself, is rewritten on the connection to the same 1064
// (prepareerrors.go).
//
// Under connHandler, statusHandler keeps the connection's status flags
// with its session (statusflags.go), directHandler gives the statements
// sqlserver runs without the engine's handler (prepared primary-key
// selects, plain BEGIN and COMMIT, reads of the event log, single-row
// writes by primary key: direct.go, sqlserver/fastdirect.go, fastevents.go
// and fastwrite.go) to sqlserver, and
// callResultsHandler sends every result set of a CALL (callresults.go),
// above the engine's handler.
//
// # Limits
//
// Beside the engine's (sqlserver's doc.go, "Limits"):
//
//   - Time (statements.go): a SELECT stops with 3024 after
//     @@max_execution_time milliseconds, or those of a
//     MAX_EXECUTION_TIME(n) hint right after its SELECT; a statement
//     stopped by KILL QUERY, KILL or its client's disconnect gets 1317
//     "Query execution was interrupted". Where a statement stops is the
//     engine's (sqlserver's interrupt.go).
//   - Memory (querymemory.go): a statement under which the server's live
//     Go heap grows by more than Config.MaxQueryMemory (default 1 GiB;
//     --max-query-memory) is stopped with 3170 "Memory capacity of N
//     bytes for 'max_query_memory' exceeded. ...", and logged at Warn.
//   - Connections: MaxConnections and ConnectTimeout, above.
//
// # Logging
//
// The server logs to Config.Logger (log/slog; by default the Provider's,
// which discards everything): internal errors with the stack trace their
// client does not see at Error, damaged databases of the data dir (which
// it does not serve) and statements stopped by the memory limit at Warn,
// and each connection (opened, logged in, aborted, closed) and command
// (query, duration, MySQL's error number and message) at Debug. What the
// engine logs for the server's sessions goes to the same logger
// (sqlserver.ForwardLogrus).
//
// # Caveats
//
//   - There is no TLS yet: passwords and data cross the network in the
//     clear. Listen on loopback, or put the server behind a tunnel.
//   - The memory limit is a watchdog, not an account: it sees growth at
//     the end of each garbage collection, so a statement can pass the
//     limit by up to about the limit again before it stops; concurrent
//     statements share the growth (the youngest that saw it is stopped);
//     memory outside Go's heap (ICU's) is not counted.
//   - @@connect_timeout does not show or set Config.ConnectTimeout.
//   - The users file is rewritten whole after each statement that changes
//     accounts: fine for the few accounts of a database, slow for
//     thousands. The superuser is never in it.
//   - The engine keeps @@GLOBAL.secure_file_priv process-wide: with
//     several servers in one process it shows the last one's (each server
//     enforces its own, and @@secure_file_priv shows a session its
//     server's).
//   - The engine and its protocol library also log through logrus's
//     standard logger (the engine's connection lines, "Server ready",
//     handshake errors), which the package never changes: route it into
//     the program's log with
//     sqlserver.ForwardLogrus(logrus.StandardLogger(), logger) (cmd/verso
//     does), or silence it with logrus.SetOutput(io.Discard).
//   - The prepared-statement syntax errors are rewritten by following the
//     protocol's packets on the connection, which works because the
//     server offers neither TLS nor compression; either would need the
//     rewrite moved into the protocol library's handler.
package server
