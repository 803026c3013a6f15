package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"

	gms "github.com/dolthub/go-mysql-server/sql"
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

// sessionUser is the SQL user of every connection: the process that embeds the
// database owns it (there are no accounts to check, see sqlserver's
// embed.go), and USER() says so as a server's superuser would.
const sessionUser, sessionHost = sqlserver.DefaultUser, "localhost"

func newConn(ctx context.Context, b *backend, cfg *Config, release func() error) (*conn, error) {
	id := b.connIDs.Add(1)
	base := gms.NewBaseSessionWithClientServer("verso", gms.Client{User: sessionUser, Address: sessionHost}, id)
	base.SetLogger(b.log)
	c := &conn{b: b, cfg: cfg, id: id, sess: b.emb.NewSession(base), release: release, prepared: map[string]int{}}
	b.emb.StartSession(c.sess, id, sessionHost)
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
	// A command, as the server runs COM_STMT_PREPARE: under autocommit
	// the transaction preparing began ends with it (sqlserver's
	// Session.CommandEnd), so the first execution reads the latest data.
	if err := gms.SessionCommandBegin(c.sess); err != nil {
		return nil, err
	}
	_, err = e.PrepareQuery(sctx, query)
	gms.SessionCommandEnd(c.sess)
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
// args.go lists, uint64 included.
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
	c.b.emb.EndSession(c.newContext(context.Background(), ""), c.sess, c.id)
	c.b.removeConn(c)
	return c.release()
}
