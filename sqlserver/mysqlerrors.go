package sqlserver

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// MySQL's error numbers and SQLSTATEs for the engine's errors.
//
// The engine falls back to 1105 (ER_UNKNOWN_ERROR) or HY000 for many
// errors that MySQL numbers: here a syntax error becomes 1064
// (ER_PARSE_ERROR, 42000) with MySQL's message, an unknown column 1054
// (42S22), and the SQLSTATE follows the number as in MySQL (1146 is
// 42S02, 1062 is 23000, ...). The wire server (package server) sends
// clients these errors, scrubbed (scrub.go); the database/sql driver and
// `verso sql` get the same through MySQLError.

// sqlStates is the SQLSTATE MySQL sends with each error number the engine
// reports with HY000 (from MySQL's errmsg list).
var sqlStates = map[int]string{
	mysql.ERDbCreateExists:                        "HY000",
	mysql.ERBadDb:                                 "42000",
	mysql.ERNoDb:                                  "3D000",
	mysql.ERNoSuchTable:                           "42S02",
	mysql.ERBadTable:                              "42S02",
	mysql.ERTableExists:                           "42S01",
	mysql.ERBadFieldError:                         "42S22",
	mysql.ERDupFieldName:                          "42S21",
	mysql.ERDupKeyName:                            "42000",
	mysql.ERDupEntry:                              "23000",
	mysql.ERParseError:                            "42000",
	mysql.ERBadNullError:                          "23000",
	mysql.ERNonUniq:                               "23000",
	mysql.ERWrongValueCountOnRow:                  "21S01",
	mysql.EROperandColumns:                        "21000",
	mysql.ERSubqueryNo1Row:                        "21000",
	mysql.ERMultiplePriKey:                        "42000",
	mysql.ERKeyColumnDoesNotExist:                 "42000",
	mysql.ERCantDropFieldOrKey:                    "42000",
	mysql.ErNoReferencedRow2:                      "23000",
	mysql.ERRowIsReferenced2:                      "23000",
	mysql.ERWrongAutoKey:                          "42000",
	mysql.ERFieldSpecifiedTwice:                   "42000",
	mysql.ERDataOutOfRange:                        "22003",
	mysql.ERDataTooLong:                           "22001",
	mysql.ERAccessDeniedError:                     "28000",
	mysql.ERDBAccessDenied:                        "42000",
	1142 /* ER_TABLEACCESS_DENIED_ERROR */ :       "42000",
	1264 /* ER_WARN_DATA_OUT_OF_RANGE */ :         "22003",
	1265 /* WARN_DATA_TRUNCATED */ :               "01000",
	mysql.ERSpecifiedAccessDenied:                 "42000",
	mysql.ERMixOfGroupFuncAndFields:               "42000",
	1305 /* ER_SP_DOES_NOT_EXIST */ :              "42000",
	mysql.ERLockDeadlock:                          "40001",
	1292 /* ER_TRUNCATED_WRONG_VALUE */ :          "22007",
	3140 /* ER_INVALID_JSON_TEXT */ :              "22032",
	1582 /* ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT */ : "42000",
}

// unknownErrors gives MySQL's number to engine errors that reach the
// handler as 1105, matched by their message (the engine's error kinds
// named beside each).
var unknownErrors = []struct {
	re  *regexp.Regexp
	num int
}{
	{regexp.MustCompile(`could not be found in any table in scope$`), mysql.ERBadFieldError}, // ErrColumnNotFound
	{regexp.MustCompile(`^command denied to user `), 1142},                                   // ErrPrivilegeCheckFailed: ER_TABLEACCESS_DENIED_ERROR
	{regexp.MustCompile(`^Access denied for user .* to table `), 1142},                       // ErrTableAccessDeniedForUser
	{regexp.MustCompile(`^Access denied for user .* to database `), mysql.ERDBAccessDenied},  // ErrDatabaseAccessDeniedForUser
	{regexp.MustCompile(`^string '.*' is too large for column '`), mysql.ERDataTooLong},      // types.ErrLengthBeyondLimit
	{regexp.MustCompile(` out of range for `), 1264},
	{regexp.MustCompile(`^Out of range value for column`), 1264},                                             // ErrOutOfRange of DECIMAL: ER_WARN_DATA_OUT_OF_RANGE
	{regexp.MustCompile(`^Data truncated for column '`), 1265},                                               // ErrDataTruncatedForColumn (an ENUM or SET value): WARN_DATA_TRUNCATED                                                         // ErrValueOutOfRange: ER_WARN_DATA_OUT_OF_RANGE
	{regexp.MustCompile(`^Incorrect (date|datetime|time|timestamp) value: `), 1292},                          // types.ErrConvertingToTime: ER_TRUNCATED_WRONG_VALUE
	{regexp.MustCompile(`^Invalid JSON text`), 3140},                                                         // ErrInvalidJson, ErrInvalidJSONText: ER_INVALID_JSON_TEXT
	{regexp.MustCompile(`^function '.*' expected .* arguments?, \d+ received$`), 1582},                       // ErrInvalidArgumentNumber: ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
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
	{regexp.MustCompile(`^database server is set to read only mode$`), mysql.EROptionPreventsStatement},                      // ErrReadOnly (--readonly): ER_OPTION_PREVENTS_STATEMENT, by which clients know a read-only server
	{regexp.MustCompile(`^Timeout exceeded in regular expression match`), 3699},                                              // ER_REGEXP_TIME_OUT (regexp.go)
	{regexp.MustCompile(`^Overflow in the regular expression backtrack stack`), 3698},                                        // ER_REGEXP_STACK_OVERFLOW
}

// doltArity matches a wrong count of arguments to one of Dolt's own
// functions (dolt_*, active_branch, hashof, has_ancestor), which Dolt
// answers with 1105; MySQL's functions answer with 1582 (unknownErrors).
var doltArity = regexp.MustCompile(`(?i)^function '(dolt_[^']*|active_branch|hashof|has_ancestor)' expected .* arguments?, \d+ received$`)

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
		if doltArity.MatchString(se.Message) {
			return se
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
// paths in its data dir relative to it). It is ScrubError(MapError(err,
// query), query, ""). nil for nil.
func MySQLError(err error, query string) *mysql.SQLError {
	if err == nil {
		return nil
	}
	se, _ := ScrubError(MapError(err, query), query, "")
	return se
}

// MapError returns err with MySQL's error number, SQLSTATE and, for a
// syntax error, message (query is the statement that failed), before
// ScrubError: the wire server (package server) logs this form and sends
// its client the scrubbed one. nil for nil.
func MapError(err error, query string) *mysql.SQLError {
	if err == nil {
		return nil
	}
	err = mysqlError(sql.CastSQLError(err), query)
	se, ok := err.(*mysql.SQLError)
	if !ok {
		se = mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%v", err)
	}
	return se
}
