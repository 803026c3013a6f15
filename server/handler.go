package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/verso-db/verso/sqlserver"
)

// connHandler wraps the engine's connection handler of each client: it
// runs each statement under the server's limits (statements.go), makes
// the errors clients get MySQL's (numbers and SQLSTATEs where the engine
// falls back to 1105 or HY000: sqlserver.MapError), recovers panics,
// keeps stack traces and server paths from clients (sqlserver.ScrubError;
// the trace goes to the log), ends the handshake's deadline of a client
// that logged in (limitListener), and logs connections and statements.
type connHandler struct {
	mysql.Handler
	log     *slog.Logger
	dataDir string // the server's data dir, "" for none
	stmts   *statements
	// requireSecure turns away clients on TCP without TLS (Config's
	// RequireSecureTransport).
	requireSecure bool
	// maxQueryLen is how much of a statement the log shows (negative: all).
	maxQueryLen int
}

// defaultLoggedQueryLen is Config.MaxLoggedQueryLen's default.
const defaultLoggedQueryLen = 1000

func (h connHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (err error) {
	query = sqlserver.PlainMariaDBComments(query)
	ctx, st := h.stmts.begin(ctx, c, query)
	defer h.finish(c, query, st, &err)
	return h.Handler.ComQuery(ctx, c, query, callback)
}

func (h connHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (rest string, err error) {
	if query == callResultsMarker {
		// The next result set of a CALL that ran (callresults.go).
		defer h.finish(c, "", nil, &err)
		return h.Handler.ComMultiQuery(ctx, c, query, callback)
	}
	query = sqlserver.PlainMariaDBComments(query)
	ctx, st := h.stmts.begin(ctx, c, query)
	defer h.finish(c, query, st, &err)
	return h.Handler.ComMultiQuery(ctx, c, query, callback)
}

func (h connHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) (f []*querypb.Field, err error) {
	query = sqlserver.PlainMariaDBComments(query)
	prepare.PrepareStmt = query
	defer h.finish(c, query, nil, &err)
	return h.Handler.ComPrepare(ctx, c, query, prepare)
}

func (h connHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	ctx, st := h.stmts.begin(ctx, c, prepare.PrepareStmt)
	defer h.finish(c, prepare.PrepareStmt, st, &err)
	return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
}

func (h connHandler) ComInitDB(c *mysql.Conn, schemaName string) (err error) {
	defer h.finish(c, "", nil, &err)
	return h.Handler.ComInitDB(c, schemaName)
}

func (h connHandler) ComResetConnection(c *mysql.Conn) (err error) {
	defer h.finish(c, "", nil, &err)
	return h.Handler.ComResetConnection(c)
}

// NewConnection logs the connection.
func (h connHandler) NewConnection(c *mysql.Conn) {
	h.log.Debug("connection opened", "conn", c.ConnectionID, "remote", c.RemoteAddr().String())
	h.Handler.NewConnection(c)
}

// ConnectionAborted logs why a connection's handshake failed.
func (h connHandler) ConnectionAborted(c *mysql.Conn, reason string) error {
	h.log.Debug("connection aborted", "conn", c.ConnectionID, "reason", reason)
	return h.Handler.ConnectionAborted(c, reason)
}

// ConnectionClosed forgets the connection's session.
func (h connHandler) ConnectionClosed(c *mysql.Conn) {
	h.stmts.removeSession(c.ConnectionID)
	h.Handler.ConnectionClosed(c)
	h.log.Debug("connection closed", "conn", c.ConnectionID)
}

// ConnectionAuthenticated ends the handshake's deadline (limitListener)
// of a client that logged in; an error making its session reaches the
// client as any other.
func (h connHandler) ConnectionAuthenticated(c *mysql.Conn) (err error) {
	endHandshake(c)
	defer h.finish(c, "", nil, &err)
	if h.requireSecure && !c.TLSEnabled() && !isUnixConn(c.Conn) {
		h.log.Debug("refused a connection without TLS (require_secure_transport)", "conn", c.ConnectionID, "user", c.User)
		return mysql.NewSQLError(ERSecureTransportRequired, mysql.SSUnknownSQLState,
			"Connections using insecure transport are prohibited while --require_secure_transport=ON.")
	}
	h.log.Debug("logged in", "conn", c.ConnectionID, "user", c.User)
	return h.Handler.ConnectionAuthenticated(c)
}

// ERSecureTransportRequired is MySQL's error for a client without TLS
// under require_secure_transport.
const ERSecureTransportRequired = 3159

// finish, deferred by each command, turns a panic of the command into an
// error, ends its statement st (if it runs one), and makes *errp the
// error the client gets: the limit that stopped the statement, MySQL's
// number and SQLSTATE, no stack trace (logged instead) and no server
// path.
func (h connHandler) finish(c *mysql.Conn, query string, st *statement, errp *error) {
	if r := recover(); r != nil {
		*errp = recovered(r)
	}
	if st != nil {
		*errp = h.stmts.end(st, *errp)
	}
	if *errp == nil {
		h.logCommand(c, query, st, nil)
		return
	}
	se := sqlserver.MapError(*errp, query)
	h.logCommand(c, query, st, se)
	out, trace := sqlserver.ScrubError(se, query, h.dataDir)
	if trace {
		h.log.Error("internal error", "conn", c.ConnectionID, "query", truncate(query, h.maxQueryLen), "error", se.Message)
	}
	*errp = out
}

// logCommand logs a client's command at Debug: a statement (st) with its
// duration, a statement prepared, or another command that failed. A
// failure is the client's concern: its error is logged with MySQL's
// number and the first line of its message, unscrubbed (a panic's stack
// trace goes to Error, in finish).
func (h connHandler) logCommand(c *mysql.Conn, query string, st *statement, err error) {
	if (query == "" && err == nil) || !h.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"conn", c.ConnectionID}
	msg := "command failed"
	if query != "" {
		attrs = append(attrs, "query", truncate(query, h.maxQueryLen))
		msg = "prepared"
		if st != nil {
			msg = "statement"
			attrs = append(attrs, "duration", time.Since(st.start).Round(time.Microsecond))
		}
	}
	if err != nil {
		text := err.Error()
		if se, ok := err.(*mysql.SQLError); ok {
			text = se.Message
			attrs = append(attrs, "errno", se.Num)
		}
		first, _, _ := strings.Cut(text, "\n")
		attrs = append(attrs, "error", first)
	}
	h.log.Debug(msg, attrs...)
}

// recovered turns a panic that reached connHandler into an error of the
// engine's form, "panic recovered: " and the stack trace, which
// sqlserver.ScrubError recognizes and hides from the client.
func recovered(r any) error {
	return fmt.Errorf("panic recovered: %v\n%s", r, debug.Stack())
}

// truncate returns s cut to at most n bytes, marked when cut.
func truncate(s string, n int) string {
	if n < 0 || len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
