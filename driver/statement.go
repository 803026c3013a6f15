package driver

import (
	"context"
	"io"
	"strings"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/sqlserver"
)

// running is a statement running on the connection, from its start to
// its close: it is in the engine's process list (KILL QUERY stops it,
// SHOW PROCESSLIST lists it) and its context is the caller's.
type running struct {
	c     *conn
	ctx   context.Context // the caller's
	sctx  *gms.Context
	query string
	sch   gms.Schema
	iter  gms.RowIter
	// rest is the text of the statements after this one (a query of
	// several with multistatements=true).
	rest   string
	closed bool
	// A CALL of a stored procedure answers with each of its result sets
	// (sqlserver.CallResult): set reads the current one, sets are those
	// after it. The engine's own result (the last of them again) is
	// read at the start and stays open until close, which ends the
	// statement.
	set  gms.RowIter
	sets []sqlserver.CallResult
}

// start starts the first statement of query with the arguments bindings.
// With multi (multistatements=true, no arguments), query may hold more
// statements: the running statement's rest.
func (c *conn) start(ctx context.Context, query string, bindings map[string]ast.Expr, multi bool) (*running, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return nil, errEmptyQuery()
	}
	e := c.b.engine()
	sctx, err := e.ProcessList.BeginQuery(c.newContext(ctx, query), query)
	if err != nil {
		return nil, err
	}
	if err := gms.SessionCommandBegin(c.sess); err != nil {
		e.ProcessList.EndQuery(sctx)
		return nil, err
	}
	r := &running{c: c, ctx: ctx, sctx: sctx, query: query}
	var parsed ast.Statement
	if multi {
		var text string
		parsed, text, r.rest, err = e.Parser.Parse(sctx, query, true)
		if err != nil {
			r.close()
			return nil, statementError(ctx, err, query)
		}
		r.query = text
		r.rest = strings.TrimSpace(r.rest)
	}
	_, call := sqlserver.AfterKeyword(r.query, "call")
	if call {
		c.sess.CaptureCallResults()
	}
	r.sch, r.iter, _, err = e.QueryWithBindings(sctx, r.query, parsed, bindings, nil)
	if sets := c.sess.TakeCallResults(); call && err == nil && len(sets) > 0 {
		for err == nil {
			_, err = r.iter.Next(sctx)
		}
		if err == io.EOF {
			err = nil
		}
		r.sets = sets
		r.nextSet()
	}
	if len(bindings) > 0 {
		// The engine prepared the statement to bind its arguments; its
		// parsed form stays only while a Stmt of the same text is open.
		if key := gms.RemoveSpaceAndDelimiter(r.query, ';'); c.prepared[key] == 0 {
			c.sess.UnprepareQuery(key)
		}
	}
	if err != nil {
		r.close()
		return nil, statementError(ctx, err, r.query)
	}
	return r, nil
}

// nextSet makes the next of a CALL's result sets the current one, if one
// is left.
func (r *running) nextSet() bool {
	if len(r.sets) == 0 {
		return false
	}
	r.sch, r.set, r.sets = r.sets[0].Schema, gms.RowsToRowIter(r.sets[0].Rows...), r.sets[1:]
	return true
}

// next returns the statement's next row, or io.EOF.
func (r *running) next() (gms.Row, error) {
	if r.set != nil {
		return r.set.Next(r.sctx)
	}
	row, err := r.iter.Next(r.sctx)
	if err != nil && err != io.EOF {
		return nil, statementError(r.ctx, err, r.query)
	}
	return row, err
}

// close ends the statement: its rows are closed, which commits its
// transaction under autocommit. It may be called more than once.
func (r *running) close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	if r.iter != nil {
		err = r.iter.Close(r.sctx)
	}
	gms.SessionCommandEnd(r.c.sess)
	r.c.b.engine().ProcessList.EndQuery(r.sctx)
	return statementError(r.ctx, err, r.query)
}

// drain reads the statement to its end and closes it: the counts of its
// OK result, if it has one.
func (r *running) drain() (affected, insertID int64, err error) {
	isOK := types.IsOkResultSchema(r.sch)
	for {
		row, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.close()
			return 0, 0, err
		}
		if ok, is := okResult(row); isOK && is {
			affected, insertID = int64(ok.RowsAffected), int64(ok.InsertID)
		}
	}
	return affected, insertID, r.close()
}

// okResult reads the result of a statement that returns none (INSERT,
// UPDATE, ...): its row, if it is one.
func okResult(row gms.Row) (types.OkResult, bool) {
	if len(row) == 1 {
		ok, isOK := row[0].(types.OkResult)
		return ok, isOK
	}
	return types.OkResult{}, false
}
