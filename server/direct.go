package server

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/sqlserver"
)

// directHandler runs the executions of prepared primary-key selects that
// sqlserver.Embedded.ExecPrepared takes without the engine's handler
// (sqlserver/fastdirect.go), the single-row writes that ExecWrite and
// ExecPreparedWrite take (sqlserver/fastwrite.go), BEGIN and COMMIT (as
// text or prepared), and the reads of the event
// log that ExecEventRead takes (sqlserver/fastevents.go), and passes every
// other command on. It sits
// under statusHandler (whose status flags follow the session either way)
// and connHandler (the statement's limits, error mapping and logging).
type directHandler struct {
	mysql.Handler
	emb *sqlserver.Embedded
}

func (h directHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	if s, ok := c.ClientData.(*sqlserver.Session); ok {
		handled, err := h.emb.ExecPrepared(ctx, s, prepare.PrepareStmt, prepare.BindVars, callback)
		if !handled {
			handled, err = h.emb.ExecPreparedWrite(ctx, s, prepare.PrepareStmt, prepare.BindVars, callback)
		}
		if !handled {
			// sysbench prepares its BEGIN and COMMIT.
			handled, err = h.emb.ExecTxnStatement(ctx, s, prepare.PrepareStmt, func(r *sqltypes.Result, _ bool) error { return callback(r) })
		}
		if handled {
			if err != nil {
				// As the engine's handler gives its errors.
				err = sql.CastSQLError(err)
			}
			return err
		}
	}
	return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
}

func (h directHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if handled, err := h.textQuery(ctx, c, query, callback); handled {
		return err
	}
	return h.Handler.ComQuery(ctx, c, query, callback)
}

func (h directHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if handled, err := h.textQuery(ctx, c, query, callback); handled {
		return "", err
	}
	return h.Handler.ComMultiQuery(ctx, c, query, callback)
}

// textQuery runs query when it is BEGIN, START TRANSACTION or COMMIT
// (sqlserver.Embedded.ExecTxnStatement), a single-row write
// (ExecWrite), or a read of the event log that
// ExecEventRead takes (sqlserver/fastevents.go).
func (h directHandler) textQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (bool, error) {
	s, ok := c.ClientData.(*sqlserver.Session)
	if !ok {
		return false, nil
	}
	handled, err := h.emb.ExecTxnStatement(ctx, s, query, callback)
	if !handled {
		handled, err = h.emb.ExecWrite(ctx, s, query, callback)
	}
	if !handled {
		handled, err = h.emb.ExecEventRead(ctx, s, query, callback)
	}
	if handled && err != nil {
		err = sql.CastSQLError(err)
	}
	return handled, err
}
