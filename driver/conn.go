package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/sqlserver"
)

// conn is a database/sql connection: one session of the engine, as a
// server client has, with its own current database and branch, user and
// session variables, prepared statements and transaction. database/sql
// uses it from one goroutine at a time.
type conn struct {
	b       *backend
	cfg     *Config
	id      uint32
	sess    *sqlserver.Session
	release func() error // drops the connection's reference to b

	// prepared counts the open statements (Stmt) of each statement text,
	// as the session keeps one parsed statement per text.
	prepared map[string]int
	closed   bool
	// killed is set by KILL CONNECTION (from any goroutine).
	killed atomic.Bool
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
)

// user is the SQL user of every connection: the process that embeds the
// database owns it (there are no accounts to check, see sqlserver's
// embed.go), and USER() says so as a server's superuser would.
const user, host = sqlserver.DefaultUser, "localhost"

func newConn(ctx context.Context, b *backend, cfg *Config, release func() error) (*conn, error) {
	id := b.connIDs.Add(1)
	base := gms.NewBaseSessionWithClientServer("verso", gms.Client{User: user, Address: host}, id)
	base.SetLogger(b.log)
	c := &conn{b: b, cfg: cfg, id: id, sess: b.emb.NewSession(base), release: release, prepared: map[string]int{}}
	e := b.engine()
	e.ProcessList.AddConnection(id, host)
	e.ProcessList.ConnectionReady(c.sess)
	b.addConn(c)
	if err := c.setup(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// setup gives a new session the DSN's identity and database.
func (c *conn) setup(ctx context.Context) error {
	if c.cfg.CommitName != "" {
		sctx := c.newContext(ctx, "")
		if err := c.sess.SetSessionVariable(sctx, "dolt_committer_name", c.cfg.CommitName); err != nil {
			return err
		}
		if err := c.sess.SetSessionVariable(sctx, "dolt_committer_email", c.cfg.CommitEmail); err != nil {
			return err
		}
	}
	if c.cfg.Database != "" {
		if _, err := c.exec(ctx, "USE "+quoteName(c.cfg.Database), nil); err != nil {
			return err
		}
	}
	return nil
}

// quoteName quotes a database name for SQL.
func quoteName(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// newContext returns the engine's context of a statement of the session.
func (c *conn) newContext(ctx context.Context, query string) *gms.Context {
	e := c.b.engine()
	return gms.NewContext(ctx,
		gms.WithSession(c.sess),
		gms.WithPid(c.b.pids.Add(1)),
		gms.WithQuery(query),
		gms.WithMemoryManager(e.MemoryManager),
		gms.WithProcessList(e.ProcessList),
		gms.WithServices(gms.Services{KillConnection: c.b.killConnection}),
	)
}

// usable reports why the connection cannot run a statement.
func (c *conn) usable() error {
	if c.closed || c.killed.Load() {
		return driver.ErrBadConn
	}
	return nil
}

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
	r.sch, r.iter, _, err = e.QueryWithBindings(sctx, r.query, parsed, bindings, nil)
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

// next returns the statement's next row, or io.EOF.
func (r *running) next() (gms.Row, error) {
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

// exec runs every statement of query (one unless multistatements) to its
// end.
func (c *conn) exec(ctx context.Context, query string, args []driver.NamedValue) (*result, error) {
	b, err := bindings(args)
	if err != nil {
		return nil, err
	}
	res := &result{}
	for {
		r, err := c.start(ctx, query, b, c.cfg.MultiStatements && b == nil)
		if err != nil {
			return nil, err
		}
		affected, id, err := r.drain()
		if err != nil {
			return nil, err
		}
		res.affected = append(res.affected, affected)
		res.insertIDs = append(res.insertIDs, id)
		if r.rest == "" {
			return res, nil
		}
		query = r.rest
	}
}

// ExecContext implements driver.ExecerContext.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.exec(ctx, query, args)
}

// QueryContext implements driver.QueryerContext.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	b, err := bindings(args)
	if err != nil {
		return nil, err
	}
	r, err := c.start(ctx, query, b, c.cfg.MultiStatements && b == nil)
	if err != nil {
		return nil, err
	}
	return newRows(r)
}

// PrepareContext implements driver.ConnPrepareContext: the statement is
// parsed and checked once (a missing table is an error here, as in
// MySQL); each execution binds the arguments to the parsed statement.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	e := c.b.engine()
	sctx, err := e.ProcessList.BeginQuery(c.newContext(ctx, query), query)
	if err != nil {
		return nil, err
	}
	defer e.ProcessList.EndQuery(sctx)
	open := sctx.GetTransaction() != nil
	_, err = e.PrepareQuery(sctx, query)
	if tx := sctx.GetTransaction(); !open && tx != nil {
		// Preparing began a transaction (and took its snapshot); the
		// first execution begins its own, as a server's does.
		c.sess.Rollback(sctx, tx)
		sctx.SetTransaction(nil)
	}
	if err != nil {
		return nil, statementError(ctx, err, query)
	}
	key := gms.RemoveSpaceAndDelimiter(query, ';')
	parsed, _ := c.sess.BaseSession.GetPreparedQuery(key)
	c.prepared[key]++
	return &stmt{c: c, query: query, key: key, n: placeholders(parsed)}, nil
}

// Prepare implements driver.Conn.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// placeholders counts the ? of a parsed statement (the parser names them
// :v1, :v2, ...), as the server's protocol does for COM_STMT_PREPARE.
func placeholders(stmt ast.Statement) int {
	if stmt == nil {
		return -1
	}
	n := 0
	ast.Walk(func(node ast.SQLNode) (bool, error) {
		if v, ok := node.(*ast.SQLVal); ok && v.Type == ast.ValArg && strings.HasPrefix(string(v.Val), ":v") {
			n++
		}
		return true, nil
	}, stmt)
	return n
}

// unprepare forgets a Stmt's statement text once no Stmt has it.
func (c *conn) unprepare(key string) {
	if c.prepared[key]--; c.prepared[key] <= 0 {
		delete(c.prepared, key)
		c.sess.UnprepareQuery(key)
	}
}

// BeginTx implements driver.ConnBeginTx: START TRANSACTION, READ ONLY if
// asked. verso's transactions are REPEATABLE READ (InnoDB's, with row
// locks for writes); other isolation levels are refused.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	switch level := sql.IsolationLevel(opts.Isolation); level {
	case sql.LevelDefault, sql.LevelRepeatableRead:
	default:
		return nil, fmt.Errorf("%w: %s; verso's transactions are REPEATABLE READ (InnoDB's: reads see the transaction's snapshot, writes lock rows and read their latest version); use sql.LevelDefault or sql.LevelRepeatableRead", ErrIsolationLevel, level)
	}
	q := "START TRANSACTION"
	if opts.ReadOnly {
		q += " READ ONLY"
	}
	if _, err := c.exec(ctx, q, nil); err != nil {
		return nil, err
	}
	return &tx{c: c}, nil
}

// Begin implements driver.Conn.
func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// CheckNamedValue implements driver.NamedValueChecker: the arguments
// values.go lists, uint64 included.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error { return checkValue(nv) }

// Ping implements driver.Pinger.
func (c *conn) Ping(ctx context.Context) error { return c.usable() }

// ResetSession implements driver.SessionResetter: a killed connection is
// not reused.
func (c *conn) ResetSession(ctx context.Context) error { return c.usable() }

// IsValid implements driver.Validator.
func (c *conn) IsValid() bool { return c.usable() == nil }

// Close implements driver.Conn: the session ends as a server client's
// does when it disconnects: its open transaction rolls back and its locks
// are released.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	e := c.b.engine()
	sctx := c.newContext(context.Background(), "")
	gms.SessionEnd(c.sess)
	e.LS.ReleaseAll(sctx)
	e.Analyzer.Catalog.UnlockTables(sctx, c.id)
	e.CloseSession(c.id)
	e.ProcessList.RemoveConnection(c.id)
	c.b.removeConn(c)
	return c.release()
}

// result is the result of ExecContext: the counts of each statement.
type result struct {
	affected  []int64
	insertIDs []int64
}

var _ driver.Result = (*result)(nil)

// LastInsertId implements driver.Result: the last statement's.
func (r *result) LastInsertId() (int64, error) { return r.insertIDs[len(r.insertIDs)-1], nil }

// RowsAffected implements driver.Result: the last statement's.
func (r *result) RowsAffected() (int64, error) { return r.affected[len(r.affected)-1], nil }

// AllRowsAffected returns the rows affected by each statement of the
// query, as go-sql-driver/mysql's Result does (reach it through
// sql.Conn.Raw).
func (r *result) AllRowsAffected() []int64 { return append([]int64(nil), r.affected...) }

// AllLastInsertIds returns the last insert id of each statement.
func (r *result) AllLastInsertIds() []int64 { return append([]int64(nil), r.insertIDs...) }

// Result is the driver's driver.Result, reached through sql.Conn.Raw: as
// go-sql-driver/mysql's, it has the counts of each statement of a
// multi-statement Exec.
type Result interface {
	driver.Result
	// AllRowsAffected returns the rows affected by each statement.
	AllRowsAffected() []int64
	// AllLastInsertIds returns the last insert id of each statement.
	AllLastInsertIds() []int64
}

var _ Result = (*result)(nil)
