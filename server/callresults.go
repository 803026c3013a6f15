package server

import (
	"context"
	"sync"

	gmsserver "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/sqlserver"
)

// Every result set of a CALL, on the wire.
//
// A CALL of a stored procedure answers, as MySQL's does, with one result
// set for each of the procedure's statements that answers with rows (the
// session keeps them: sqlserver.Session.CaptureCallResults), each with
// SERVER_MORE_RESULTS_EXISTS, and then an OK packet; an error after some
// of them comes after them in place of the OK.
//
// The protocol library sends one result set a statement: after a
// command's statement has sent its rows it writes the final EOF or OK
// itself, with SERVER_MORE_RESULTS_EXISTS only when the handler hands
// back more statements of the query to run (ComMultiQuery's rest). So
// callResultsHandler hands back callResultsMarker while result sets
// remain, and answers the marker, when the library passes it back, with
// the next of them; after the last it hands back the query's remaining
// statements. Every connection therefore runs its queries through
// ComMultiQuery: the handler turns the client's CLIENT_MULTI_STATEMENTS
// on at login, and runs the query of a client that did not ask for it as
// one statement, as before (ComQuery). A client that turns multiple
// statements off later (COM_SET_OPTION) gets, as from the engine alone,
// only a CALL's last result set.
type callResultsHandler struct {
	mysql.Handler
	conns *sync.Map // connection id → *callConn
}

// callConn is a connection's state for its CALLs' result sets.
type callConn struct {
	// multi is whether the client asked for several statements a query
	// at login.
	multi bool
	// pending holds the result sets still to send and, last, the
	// CALL's end: nil for its OK, or end's error.
	pending []*sqltypes.Result
	end     error
	// rest is the query's statements after the CALL.
	rest string
}

// callResultsMarker is the statement callResultsHandler hands the
// protocol library back while a CALL's result sets remain; a statement of
// a client's query could not start with a NUL byte, and it means nothing
// on a connection without pending result sets.
const callResultsMarker = "\x00verso: the next result set of a CALL"

func (h callResultsHandler) ConnectionAuthenticated(c *mysql.Conn) error {
	err := h.Handler.ConnectionAuthenticated(c)
	if err == nil {
		h.conns.Store(c.ConnectionID, &callConn{multi: c.Capabilities&mysql.CapabilityClientMultiStatements != 0})
		c.Capabilities |= mysql.CapabilityClientMultiStatements
	}
	return err
}

func (h callResultsHandler) ConnectionClosed(c *mysql.Conn) {
	h.conns.Delete(c.ConnectionID)
	h.Handler.ConnectionClosed(c)
}

func (h callResultsHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	v, _ := h.conns.Load(c.ConnectionID)
	cc, _ := v.(*callConn)
	sess, _ := c.ClientData.(*sqlserver.Session)
	switch {
	case cc == nil || sess == nil:
		return h.Handler.ComMultiQuery(ctx, c, query, callback)
	case query == callResultsMarker && cc.pending != nil:
		return cc.next(callback)
	}
	run := func(cb mysql.ResultSpoolFn) (string, error) {
		if cc.multi {
			return h.Handler.ComMultiQuery(ctx, c, query, cb)
		}
		return "", h.Handler.ComQuery(ctx, c, query, cb)
	}
	if _, isCall := sqlserver.AfterKeyword(query, "call"); !isCall {
		return run(callback)
	}

	// The procedure runs while the engine builds the CALL's result, so
	// by its first piece every result set is kept: that piece, the last
	// of them again, goes, and the kept ones are sent instead.
	sess.CaptureCallResults()
	var sets []sqlserver.CallResult
	taken := false
	rest, err := run(func(r *sqltypes.Result, more bool) error {
		if !taken {
			sets, taken = sess.TakeCallResults(), true
		}
		if len(sets) > 0 {
			return nil
		}
		return callback(r, more)
	})
	if !taken {
		sets = sess.TakeCallResults()
	}
	if len(sets) == 0 {
		return rest, err
	}
	sctx := sql.NewContext(ctx, sql.WithSession(sess))
	cc.pending = make([]*sqltypes.Result, 0, len(sets)+1)
	for _, set := range sets {
		r := &sqltypes.Result{Fields: sqlserver.ResultFields(sctx, set.Schema), Rows: make([][]sqltypes.Value, len(set.Rows))}
		for i, row := range set.Rows {
			vals, cerr := gmsserver.RowToSQL(sctx, set.Schema, row, nil, nil)
			if cerr != nil {
				cc.pending = nil
				return "", cerr
			}
			r.Rows[i] = vals
		}
		cc.pending = append(cc.pending, r)
	}
	cc.pending = append(cc.pending, nil)
	cc.end, cc.rest = err, rest
	return cc.next(callback)
}

// next sends the next of cc's pending result sets, or the CALL's end.
func (cc *callConn) next(callback mysql.ResultSpoolFn) (string, error) {
	r := cc.pending[0]
	cc.pending = cc.pending[1:]
	if r != nil {
		return callResultsMarker, callback(r, true)
	}
	end, rest := cc.end, cc.rest
	cc.pending, cc.end, cc.rest = nil, nil, ""
	if end != nil {
		return "", end
	}
	return rest, callback(&sqltypes.Result{}, rest != "")
}
