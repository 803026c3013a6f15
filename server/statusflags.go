package server

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/verso-db/verso/sqlserver"
)

// The status flags of the protocol (mysql_com.h) that follow the session.
// The protocol library sends mysql.Conn.StatusFlags in the handshake and in
// every OK and EOF packet, and adds SERVER_MORE_RESULTS_EXISTS itself to
// each result of a multi-statement query but the last.
const (
	statusFlagInTrans         = mysql.ServerInTransaction    // SERVER_STATUS_IN_TRANS
	statusFlagAutocommit      = mysql.ServerStatusAutocommit // SERVER_STATUS_AUTOCOMMIT
	statusFlagInTransReadOnly = 0x2000                       // SERVER_STATUS_IN_TRANS_READONLY
	sessionStatusFlags        = statusFlagInTrans | statusFlagAutocommit | statusFlagInTransReadOnly
)

// statusHandler keeps a connection's status flags in step with its
// session, as MySQL's are: clients trust them (PyMySQL, for one, sends
// SET autocommit only when the flags say the server's setting differs
// from its own, and its rollback() does nothing useful if they lie). The
// handshake carries the global @@autocommit (there is no session yet);
// the OK packet of the login and every packet after a command carry the
// session's: autocommit, in a transaction, in a read-only one. The
// engine's handler sets some of them only after a statement succeeds, and
// never for the handshake, the login or a failed statement (a COMMIT that
// failed and rolled back).
//
// The session is the connection's ClientData, set by the server's
// session builder (New).
type statusHandler struct {
	mysql.Handler
	noAutocommit bool // sessions start with autocommit off (Config)
}

func (h statusHandler) NewConnection(c *mysql.Conn) {
	h.Handler.NewConnection(c)
	c.StatusFlags &^= sessionStatusFlags
	if _, v, ok := sql.SystemVariables.GetGlobal("autocommit"); ok && isTrue(v) && !h.noAutocommit {
		c.StatusFlags |= statusFlagAutocommit
	}
}

func (h statusHandler) ConnectionAuthenticated(c *mysql.Conn) error {
	err := h.Handler.ConnectionAuthenticated(c)
	setStatusFlags(c)
	return err
}

func (h statusHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	err := h.Handler.ComQuery(ctx, c, query, func(r *sqltypes.Result, more bool) error {
		setStatusFlags(c)
		mysqlText(r)
		return callback(r, more)
	})
	setStatusFlags(c)
	return err
}

func (h statusHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, func(r *sqltypes.Result, more bool) error {
		setStatusFlags(c)
		mysqlText(r)
		return callback(r, more)
	})
	setStatusFlags(c)
	return rest, err
}

func (h statusHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	err := h.Handler.ComStmtExecute(ctx, c, prepare, func(r *sqltypes.Result) error {
		setStatusFlags(c)
		return callback(r)
	})
	setStatusFlags(c)
	return err
}

func (h statusHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	f, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	setStatusFlags(c)
	return f, err
}

func (h statusHandler) ComResetConnection(c *mysql.Conn) error {
	err := h.Handler.ComResetConnection(c)
	setStatusFlags(c)
	return err
}

// mysqlText makes r, a result of the text protocol, read as MySQL's: the
// info message of an OK packet that clients cannot read goes, and FLOAT
// and DOUBLE values are written as MySQL writes them
// (sqlserver.FormatFloat: 1e15 and 0.00001, where the engine writes
// 1e+15 and 1e-05).
//
// The protocol library writes the info message after a '#' byte, which
// MariaDB's client library reads as the message's length-encoded size,
// 35: a shorter message ("Statement prepared") makes it fail with 2027
// "Received malformed packet" (PREPARE did), while it shows a longer one
// whole ("Rows matched: 1  Changed: 1  Warnings: 0"). So the messages
// shorter than that go.
func mysqlText(r *sqltypes.Result) {
	if r == nil {
		return
	}
	if len(r.Fields) == 0 && len(r.Info) < '#' {
		r.Info = ""
	}
	for i, f := range r.Fields {
		bits := 0
		switch f.Type {
		case querypb.Type_FLOAT64:
			bits = 64
		case querypb.Type_FLOAT32:
			bits = 32
		default:
			continue
		}
		for _, row := range r.Rows {
			if i < len(row) && !row[i].IsNull() {
				row[i] = sqltypes.MakeTrusted(f.Type, sqlserver.MySQLFloatText(row[i].Raw(), bits))
			}
		}
	}
}

// setStatusFlags sets the session's flags in c.StatusFlags, keeping the
// protocol library's own (the cursor flags).
func setStatusFlags(c *mysql.Conn) {
	if s, ok := c.ClientData.(*sqlserver.Session); ok {
		c.StatusFlags = c.StatusFlags&^sessionStatusFlags | statusFlags(s)
	}
}

// statusFlags returns the session's status flags: autocommit, and
// whether it is in a transaction (as MySQL counts one:
// Session.InTransaction) and whether that is read-only.
func statusFlags(s *sqlserver.Session) uint16 {
	var f uint16
	if v, err := s.BaseSession.GetSessionVariable(nil, "autocommit"); err == nil && isTrue(v) {
		f |= statusFlagAutocommit
	}
	if s.InTransaction() {
		f |= statusFlagInTrans
		if s.GetTransaction().IsReadOnly() {
			f |= statusFlagInTransReadOnly
		}
	}
	return f
}

// isTrue reports whether a boolean system variable's value is on.
func isTrue(v any) bool {
	b, err := sql.ConvertToBool(nil, v)
	return err == nil && b
}
