package sqlserver

import (
	"context"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// errorHandler wraps the engine's connection handler so that errors reach
// clients with MySQL's error numbers and SQLSTATE values where the engine
// falls back to 1105 (ER_UNKNOWN_ERROR) or HY000: a syntax error is 1064
// (ER_PARSE_ERROR, 42000) with MySQL's message, an unknown column 1054
// (42S22), and the SQLSTATE follows the number as in MySQL (1146 is
// 42S02, 1062 is 23000, ...). It recovers panics, and keeps stack traces
// and server paths from clients (scrub.go).
type errorHandler struct {
	mysql.Handler
	log     *slog.Logger
	dataDir string // the server's data dir, "" for none
	stmts   *statements
}

func (h errorHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (err error) {
	ctx, st := h.stmts.begin(ctx, c, query)
	defer h.finish(c, query, st, &err)
	return h.Handler.ComQuery(ctx, c, query, callback)
}

func (h errorHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (rest string, err error) {
	ctx, st := h.stmts.begin(ctx, c, query)
	defer h.finish(c, query, st, &err)
	return h.Handler.ComMultiQuery(ctx, c, query, callback)
}

func (h errorHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) (f []*querypb.Field, err error) {
	defer h.finish(c, query, nil, &err)
	return h.Handler.ComPrepare(ctx, c, query, prepare)
}

func (h errorHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	ctx, st := h.stmts.begin(ctx, c, prepare.PrepareStmt)
	defer h.finish(c, prepare.PrepareStmt, st, &err)
	return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
}

func (h errorHandler) ComInitDB(c *mysql.Conn, schemaName string) (err error) {
	defer h.finish(c, "", nil, &err)
	return h.Handler.ComInitDB(c, schemaName)
}

func (h errorHandler) ComResetConnection(c *mysql.Conn) (err error) {
	defer h.finish(c, "", nil, &err)
	return h.Handler.ComResetConnection(c)
}

// NewConnection logs the connection.
func (h errorHandler) NewConnection(c *mysql.Conn) {
	h.log.Debug("connection opened", "conn", c.ConnectionID, "remote", c.RemoteAddr().String())
	h.Handler.NewConnection(c)
}

// ConnectionAborted logs why a connection's handshake failed.
func (h errorHandler) ConnectionAborted(c *mysql.Conn, reason string) error {
	h.log.Debug("connection aborted", "conn", c.ConnectionID, "reason", reason)
	return h.Handler.ConnectionAborted(c, reason)
}

// ConnectionClosed forgets the connection's session.
func (h errorHandler) ConnectionClosed(c *mysql.Conn) {
	h.stmts.removeSession(c.ConnectionID)
	h.Handler.ConnectionClosed(c)
	h.log.Debug("connection closed", "conn", c.ConnectionID)
}

// ConnectionAuthenticated ends the handshake's deadline (limitListener)
// of a client that logged in; an error making its session reaches the
// client as any other.
func (h errorHandler) ConnectionAuthenticated(c *mysql.Conn) (err error) {
	endHandshake(c)
	defer h.finish(c, "", nil, &err)
	h.log.Debug("logged in", "conn", c.ConnectionID, "user", c.User)
	return h.Handler.ConnectionAuthenticated(c)
}

// finish, deferred by each command, turns a panic of the command into an
// error, ends its statement st (if it runs one), and makes *errp the
// error the client gets: the limit that stopped the statement, MySQL's
// number and SQLSTATE, no stack trace (logged instead) and no server
// path.
func (h errorHandler) finish(c *mysql.Conn, query string, st *statement, errp *error) {
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
	se, ok := mysqlError(sql.CastSQLError(*errp), query).(*mysql.SQLError)
	if !ok {
		h.logCommand(c, query, st, *errp)
		return
	}
	h.logCommand(c, query, st, se)
	out, trace := scrubError(se, query, h.dataDir)
	if trace {
		h.log.Error("internal error", "conn", c.ConnectionID, "query", truncate(query, 1000), "error", se.Message)
	}
	*errp = out
}

// logCommand logs a client's command at Debug: a statement (st) with its
// duration, a statement prepared, or another command that failed. A
// failure is the client's concern: its error is logged with MySQL's
// number and the first line of its message, unscrubbed (a panic's stack
// trace goes to Error, in finish).
func (h errorHandler) logCommand(c *mysql.Conn, query string, st *statement, err error) {
	if (query == "" && err == nil) || !h.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"conn", c.ConnectionID}
	msg := "command failed"
	if query != "" {
		attrs = append(attrs, "query", truncate(query, 1000))
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

// truncate returns s cut to at most n bytes, marked when cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// sqlStates is the SQLSTATE MySQL sends with each error number the engine
// reports with HY000 (from MySQL's errmsg list).
var sqlStates = map[int]string{
	mysql.ERDbCreateExists:                  "HY000",
	mysql.ERBadDb:                           "42000",
	mysql.ERNoDb:                            "3D000",
	mysql.ERNoSuchTable:                     "42S02",
	mysql.ERBadTable:                        "42S02",
	mysql.ERTableExists:                     "42S01",
	mysql.ERBadFieldError:                   "42S22",
	mysql.ERDupFieldName:                    "42S21",
	mysql.ERDupKeyName:                      "42000",
	mysql.ERDupEntry:                        "23000",
	mysql.ERParseError:                      "42000",
	mysql.ERBadNullError:                    "23000",
	mysql.ERNonUniq:                         "23000",
	mysql.ERWrongValueCountOnRow:            "21S01",
	mysql.EROperandColumns:                  "21000",
	mysql.ERSubqueryNo1Row:                  "21000",
	mysql.ERMultiplePriKey:                  "42000",
	mysql.ERKeyColumnDoesNotExist:           "42000",
	mysql.ERCantDropFieldOrKey:              "42000",
	mysql.ErNoReferencedRow2:                "23000",
	mysql.ERRowIsReferenced2:                "23000",
	mysql.ERWrongAutoKey:                    "42000",
	mysql.ERFieldSpecifiedTwice:             "42000",
	mysql.ERDataOutOfRange:                  "22003",
	mysql.ERDataTooLong:                     "22001",
	mysql.ERAccessDeniedError:               "28000",
	mysql.ERDBAccessDenied:                  "42000",
	1142 /* ER_TABLEACCESS_DENIED_ERROR */ : "42000",
	1264 /* ER_WARN_DATA_OUT_OF_RANGE */ :   "22003",
	mysql.ERSpecifiedAccessDenied:           "42000",
	mysql.ERMixOfGroupFuncAndFields:         "42000",
	1305 /* ER_SP_DOES_NOT_EXIST */ :        "42000",
	mysql.ERLockDeadlock:                    "40001",
}

// unknownErrors gives MySQL's number to engine errors that reach the
// handler as 1105, matched by their message (the engine's error kinds
// named beside each).
var unknownErrors = []struct {
	re  *regexp.Regexp
	num int
}{
	{regexp.MustCompile(`could not be found in any table in scope$`), mysql.ERBadFieldError},                 // ErrColumnNotFound
	{regexp.MustCompile(`^command denied to user `), 1142},                                                   // ErrPrivilegeCheckFailed: ER_TABLEACCESS_DENIED_ERROR
	{regexp.MustCompile(`^Access denied for user .* to table `), 1142},                                       // ErrTableAccessDeniedForUser
	{regexp.MustCompile(`^Access denied for user .* to database `), mysql.ERDBAccessDenied},                  // ErrDatabaseAccessDeniedForUser
	{regexp.MustCompile(`^string '.*' is too large for column '`), mysql.ERDataTooLong},                      // types.ErrLengthBeyondLimit
	{regexp.MustCompile(` out of range for `), 1264},                                                         // ErrValueOutOfRange: ER_WARN_DATA_OUT_OF_RANGE
	{regexp.MustCompile(`^number of values does not match number of columns`), mysql.ERWrongValueCountOnRow}, // ErrInsertIntoMismatchValueCount
	{regexp.MustCompile(`^table with name .* already exists$`), mysql.ERTableExists},                         // ErrTableAlreadyExists
	{regexp.MustCompile(`^the view .* already exists$`), mysql.ERTableExists},                                // ErrExistingView
	{regexp.MustCompile(`^Column ".*" already exists$`), mysql.ERDupFieldName},
	{regexp.MustCompile(`^stored procedure ".*" does not exist$`), 1305},                                                     // ErrStoredProcedureDoesNotExist: ER_SP_DOES_NOT_EXIST
	{regexp.MustCompile(`^Operation [A-Z ]+ failed for `), 1396},                                                             // ErrUserCreationFailure and kin: ER_CANNOT_USER
	{regexp.MustCompile(`^no database selected`), mysql.ERNoDb},                                                              // ErrNoDatabaseSelected
	{regexp.MustCompile(`^Unknown system variable '`), 1193},                                                                 // ErrUnknownSystemVariable: ER_UNKNOWN_SYSTEM_VARIABLE
	{regexp.MustCompile(`^Variable '.*' is a read only variable$`), 1238},                                                    // ErrSystemVariableReadOnly: ER_INCORRECT_GLOBAL_LOCAL_VAR
	{regexp.MustCompile(`^Variable '.*' is a GLOBAL variable and should be set with SET GLOBAL$`), 1229},                     // ErrSystemVariableGlobalOnly: ER_GLOBAL_VARIABLE
	{regexp.MustCompile(`^The MySQL server is running with the --secure-file-priv option`), mysql.EROptionPreventsStatement}, // ErrSecureFilePriv
	{regexp.MustCompile(`^Timeout exceeded in regular expression match`), 3699},                                              // ER_REGEXP_TIME_OUT (regexp.go)
	{regexp.MustCompile(`^Overflow in the regular expression backtrack stack`), 3698},                                        // ER_REGEXP_STACK_OVERFLOW
}

// vitessSyntax matches the parser's syntax errors: "syntax error at
// position 6 near 'SELEC'" (the position is just past the token).
var vitessSyntax = regexp.MustCompile(`^syntax error at position (\d+)(?: near '(.*)')?$`)

// mysqlError returns err with MySQL's number, SQLSTATE and, for syntax
// errors, message. query is the statement that failed.
func mysqlError(err error, query string) error {
	se, ok := err.(*mysql.SQLError)
	if !ok {
		return err
	}
	if se.Num == mysql.ERUnknownError {
		if vitessSyntax.MatchString(se.Message) {
			return parseError(se.Message, query)
		}
		for _, m := range unknownErrors {
			if m.re.MatchString(se.Message) {
				se = &mysql.SQLError{Num: m.num, Message: se.Message, Query: se.Query}
				break
			}
		}
	}
	if state, ok := sqlStates[se.Num]; ok && (se.State == "" || se.State == mysql.SSUnknownSQLState) && state != se.State {
		se = &mysql.SQLError{Num: se.Num, State: state, Message: se.Message, Query: se.Query}
	}
	return se
}

// parseError turns the parser's message into MySQL's ER_PARSE_ERROR: the
// text of the statement from the offending token on (at most 80 bytes) and
// its line.
func parseError(msg, query string) error {
	m := vitessSyntax.FindStringSubmatch(msg)
	pos, _ := strconv.Atoi(m[1])
	near := m[2]
	start := -1
	if near != "" {
		// The position is one past the end of the token; find the token
		// at or before it.
		lim := min(max(pos, 0), len(query))
		start = strings.LastIndex(query[:lim], near)
		if start < 0 {
			start = strings.Index(query, near)
		}
	} else if pos > 0 && pos-1 <= len(query) {
		start = pos - 1
	}
	text, line := "", 1
	if start >= 0 {
		text = query[start:]
		line += strings.Count(query[:start], "\n")
	}
	if len(text) > 80 {
		text = text[:80]
	}
	return mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError,
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line %d", text, line)
}

// MySQLError returns err as the server sends it to a client: a
// *mysql.SQLError with MySQL's error number, SQLSTATE and message (query
// is the statement that failed, for the position of a syntax error),
// without a stack trace or absolute paths the query does not name (see
// scrub.go; a path becomes ".../<name>" here, while the server writes
// paths in its data dir relative to it).
func MySQLError(err error, query string) *mysql.SQLError {
	if err == nil {
		return nil
	}
	err = mysqlError(sql.CastSQLError(err), query)
	se, ok := err.(*mysql.SQLError)
	if !ok {
		se = mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%v", err)
	}
	se, _ = scrubError(se, query, "")
	return se
}
