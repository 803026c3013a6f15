package server

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verso-db/verso/sqlserver"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// The statements a server runs, and the limits that stop them.
//
// Each command that runs a statement (a query, each statement of a
// multi-statement query, the execution of a prepared statement) runs
// under a context of its own, which connHandler cancels, with a cause the
// client then gets as its error, when the statement passes a limit:
//
//   - max_execution_time: a SELECT (a statement whose first keyword is
//     SELECT or WITH) that runs longer than the session's
//     @@max_execution_time milliseconds, or than the MAX_EXECUTION_TIME(n)
//     optimizer hint right after its SELECT (/*+ MAX_EXECUTION_TIME(1000)
//     */, which wins over the variable), fails with MySQL's error 3024.
//     0 is no limit. As in MySQL, other statements are not timed.
//   - The per-statement memory limit (querymemory.go): error 3170.
//
// A statement that KILL QUERY or KILL stops fails with MySQL's 1317
// (Query execution was interrupted). How soon a statement notices its
// context is done is sqlserver's (interrupt.go).

// Errors of stopped statements, with MySQL's numbers (new values: the
// protocol library may annotate them).
func errQueryInterrupted() *mysql.SQLError {
	return mysql.NewSQLError(1317, "70100", "Query execution was interrupted")
}

func errMaxExecutionTime() *mysql.SQLError {
	return mysql.NewSQLError(3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded")
}

// statements tracks a server's sessions (for their limits) and running
// statements.
type statements struct {
	mem *memoryWatch // nil without a memory limit

	mu       sync.Mutex
	sessions map[uint32]sql.Session // by connection id
}

func newStatements(mem *memoryWatch) *statements {
	return &statements{mem: mem, sessions: map[uint32]sql.Session{}}
}

// addSession and removeSession follow the sessions of connections.
func (ss *statements) addSession(id uint32, s sql.Session) {
	ss.mu.Lock()
	ss.sessions[id] = s
	ss.mu.Unlock()
}

func (ss *statements) removeSession(id uint32) {
	ss.mu.Lock()
	delete(ss.sessions, id)
	ss.mu.Unlock()
}

// statement is a running statement.
type statement struct {
	conn   uint32
	query  string
	start  time.Time
	cancel context.CancelCauseFunc
	timer  *time.Timer // max_execution_time's, or nil

	// base is the lowest live heap seen while the statement ran (guarded
	// by memoryWatch.mu).
	base uint64

	mu    sync.Mutex
	cause *mysql.SQLError // why it was stopped, if it was
}

// begin starts statement query of connection c: its context, derived
// from ctx, and its limits.
func (ss *statements) begin(ctx context.Context, c *mysql.Conn, query string) (context.Context, *statement) {
	ctx, cancel := context.WithCancelCause(ctx)
	st := &statement{conn: c.ConnectionID, query: query, start: time.Now(), cancel: cancel}
	if d := ss.executionLimit(c.ConnectionID, query); d > 0 {
		st.timer = time.AfterFunc(d, func() { st.stop(errMaxExecutionTime()) })
	}
	if ss.mem != nil {
		ss.mem.add(st)
	}
	return ctx, st
}

// end ends a statement begun by begin. If the statement failed (err is
// not nil), it returns the error the client gets: the limit that stopped
// it, 1317 if it was killed, else err.
func (ss *statements) end(st *statement, err error) error {
	if st.timer != nil {
		st.timer.Stop()
	}
	if ss.mem != nil {
		ss.mem.remove(st)
	}
	st.cancel(nil)
	if err == nil {
		return nil
	}
	st.mu.Lock()
	cause := st.cause
	st.mu.Unlock()
	if cause != nil {
		return cause
	}
	if strings.Contains(err.Error(), context.Canceled.Error()) {
		return errQueryInterrupted()
	}
	return err
}

// stop stops the statement with cause, unless it was stopped already.
func (st *statement) stop(cause *mysql.SQLError) bool {
	st.mu.Lock()
	if st.cause != nil {
		st.mu.Unlock()
		return false
	}
	st.cause = cause
	st.mu.Unlock()
	st.cancel(cause)
	return true
}

// executionLimit is how long statement query of connection id may run:
// 0 for no limit (see above).
func (ss *statements) executionLimit(id uint32, query string) time.Duration {
	rest, ok := afterSelect(query)
	if !ok {
		return 0
	}
	if ms, ok := executionTimeHint(rest); ok {
		return time.Duration(ms) * time.Millisecond
	}
	ss.mu.Lock()
	s := ss.sessions[id]
	ss.mu.Unlock()
	if s == nil {
		return 0
	}
	// The variable is the session's own (the context is not used).
	v, err := s.GetSessionVariable(nil, "max_execution_time")
	if err != nil {
		return 0
	}
	switch v := v.(type) {
	case int64:
		return time.Duration(max(v, 0)) * time.Millisecond
	case uint64:
		return time.Duration(min(v, 1<<62/uint64(time.Millisecond))) * time.Millisecond
	}
	return 0
}

// afterSelect returns query past its first keyword, when that is SELECT
// or WITH (after spaces, comments and opening parentheses).
func afterSelect(q string) (string, bool) { return sqlserver.AfterKeyword(q, "select", "with") }

// maxExecutionTimeHint matches MySQL's optimizer hint in a hint comment.
var maxExecutionTimeHint = regexp.MustCompile(`(?i)\bmax_execution_time\s*\(\s*(\d+)\s*\)`)

// executionTimeHint returns the MAX_EXECUTION_TIME(n) of the optimizer
// hint comment that rest (the statement past SELECT) begins with.
func executionTimeHint(rest string) (int64, bool) {
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, "/*+") {
		return 0, false
	}
	hint, _, ok := strings.Cut(rest[3:], "*/")
	if !ok {
		return 0, false
	}
	m := maxExecutionTimeHint.FindStringSubmatch(hint)
	if m == nil {
		return 0, false
	}
	ms, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || ms <= 0 {
		return 0, false
	}
	return min(ms, int64(1<<62/time.Millisecond)), true
}
