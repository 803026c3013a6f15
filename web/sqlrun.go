package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/sqlserver"
)

// sqlConn is a session of the server's engine held to one account: every
// page and API of the console reads through one, so it sees what the
// account's grants let SQL see, no more. It lives for one request.
type sqlConn struct {
	c    *Console
	sess *sqlserver.Session
	id   uint32
}

// connIDs numbers the console's sessions from webConnBase up, apart from
// the wire's connection ids (which count from 1), so that SHOW
// PROCESSLIST and KILL tell them apart.
const webConnBase = 1 << 31

// open returns a session of acct, in database db at revision rev (the
// branch or commit of db/rev; "" for the database's default branch).
func (c *Console) open(ctx context.Context, acct account, db, rev string) (*sqlConn, error) {
	id := uint32(webConnBase + c.connIDs.Add(1)%(1<<30))
	base := gms.NewBaseSessionWithClientServer("verso-web", gms.Client{User: acct.User, Address: acct.Host}, id)
	s := &sqlConn{c: c, sess: c.emb.NewSession(base), id: id}
	c.emb.StartSession(s.sess, id, acct.Host)
	if db != "" {
		name := db
		if rev != "" {
			name = db + "/" + rev
		}
		if _, err := s.exec(ctx, "USE "+ident(name)); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// close ends the session as a client's disconnection does: its open
// transaction rolls back and its locks are released.
func (s *sqlConn) close() {
	s.c.emb.EndSession(s.newContext(context.Background(), ""), s.sess, s.id)
}

var pids atomic.Uint64

func (s *sqlConn) newContext(ctx context.Context, query string) *gms.Context {
	e := s.c.emb.Engine
	return gms.NewContext(ctx,
		gms.WithSession(s.sess),
		gms.WithPid(pids.Add(1)),
		gms.WithQuery(query),
		gms.WithMemoryManager(e.MemoryManager),
		gms.WithProcessList(e.ProcessList),
	)
}

// result is a statement's result as text, as a MySQL client shows it:
// column names, and rows of values (nil for NULL).
type result struct {
	Columns []string    `json:"columns"`
	Rows    [][]*string `json:"rows"`
	// More says that rows beyond the ones asked for exist.
	More bool `json:"more,omitempty"`
	// Affected is the count of rows a write changed.
	Affected *uint64 `json:"affected,omitempty"`
}

// exec runs one statement to its end and returns every row.
func (s *sqlConn) exec(ctx context.Context, query string) (*result, error) {
	return s.query(ctx, query, 0, -1)
}

// query runs one statement, skipping its first skip rows and keeping at
// most limit (limit < 0: all); More says whether another row followed.
// Its error is what a client of the server would get (SQLError).
func (s *sqlConn) query(ctx context.Context, query string, skip, limit int) (res *result, err error) {
	e := s.c.emb.Engine
	sctx, err := e.ProcessList.BeginQuery(s.newContext(ctx, query), query)
	if err != nil {
		return nil, sqlError(err, query)
	}
	defer e.ProcessList.EndQuery(sctx)
	if err := gms.SessionCommandBegin(s.sess); err != nil {
		return nil, sqlError(err, query)
	}
	defer gms.SessionCommandEnd(s.sess)
	sch, iter, _, err := e.QueryWithBindings(sctx, query, nil, nil, nil)
	if err != nil {
		return nil, sqlError(err, query)
	}
	defer func() {
		if cerr := iter.Close(sctx); cerr != nil && err == nil {
			res, err = nil, sqlError(cerr, query)
		}
	}()
	res = &result{Rows: [][]*string{}}
	okResult := types.IsOkResultSchema(sch)
	if !okResult {
		for _, c := range sch {
			res.Columns = append(res.Columns, c.Name)
		}
	}
	for n := 0; ; n++ {
		row, err := iter.Next(sctx)
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, sqlError(err, query)
		}
		if okResult {
			if len(row) == 1 {
				if ok, is := row[0].(types.OkResult); is {
					a := ok.RowsAffected
					res.Affected = &a
				}
			}
			continue
		}
		if n < skip {
			continue
		}
		if limit >= 0 && len(res.Rows) >= limit {
			res.More = true
			return res, nil
		}
		out := make([]*string, len(row))
		for i, v := range row {
			if v == nil || i >= len(sch) {
				continue
			}
			sv, err := sch[i].Type.SQL(sctx, nil, v)
			if err != nil {
				return nil, sqlError(err, query)
			}
			if sv.IsNull() {
				continue
			}
			t := sv.ToString()
			out[i] = &t
		}
		res.Rows = append(res.Rows, out)
	}
}

// SQLError is a statement's error as the console shows it: MySQL's
// number, SQLSTATE and message, scrubbed as the wire's are (no stack
// trace, no server path).
type SQLError struct {
	Num     int    `json:"errno"`
	State   string `json:"sqlstate"`
	Message string `json:"message"`
}

func (e *SQLError) Error() string {
	return fmt.Sprintf("ERROR %d (%s): %s", e.Num, e.State, e.Message)
}

// sqlError maps an engine error as the server maps a client's.
func sqlError(err error, query string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &SQLError{Num: 3024, State: "HY000", Message: "Query execution was interrupted, maximum statement execution time exceeded"}
	}
	me := sqlserver.MySQLError(err, query)
	return &SQLError{Num: me.Num, State: me.State, Message: me.Message}
}

// ident quotes a name for SQL.
func ident(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// lit quotes a string as a SQL literal, under the default sql_mode (in
// which backslash escapes).
func lit(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`)
	return "'" + r.Replace(s) + "'"
}
