package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/sqlserver"
)

// Errors of the driver itself (those of statements are *MySQLError).
var (
	// ErrBadDSN marks a DSN the driver cannot use; the error says why.
	ErrBadDSN = errors.New("driver: bad DSN")
	// ErrClosed is the error of a connector, connection or statement used
	// after Close.
	ErrClosed = errors.New("driver: closed")
	// ErrIsolationLevel is the error of BeginTx with an isolation level
	// verso does not have.
	ErrIsolationLevel = errors.New("driver: isolation level not supported")
	// ErrNoCommitter is the cause of the error of a commit, merge, tag,
	// cherry-pick or revert made on a connection that names no committer
	// identity: errors.Is finds it through the *MySQLError.
	ErrNoCommitter = errors.New("driver: no committer identity")
)

// noCommitter is the error the provider gives a commit without an
// identity (sqlserver's SetNoDefaultCommitter): it says what to do.
var noCommitter = fmt.Errorf("%w for this commit: give commitname and commitemail in the DSN (file:///path/to/datadir?commitname=Jane%%20Doe&commitemail=jane@example.com), or SET @@dolt_committer_name and @@dolt_committer_email on the connection, or pass '--author', 'Name <email>'", ErrNoCommitter)

// MySQLError is the error of a statement, as a MySQL server reports it: its
// error number, SQLSTATE and message, the same the verso server sends for
// it. It has the fields and methods of github.com/go-sql-driver/mysql's
// MySQLError, so that code written for that driver can check Number (1062
// for a duplicate key, 1146 for a missing table, 1213 for a deadlock or a
// transaction to retry, 1205 for a lock wait timeout, 1317 for a statement
// stopped by its context or KILL QUERY).
type MySQLError struct {
	Number   uint16
	SQLState [5]byte
	Message  string

	// cause is the engine's error the statement failed with, or the
	// context's error for a statement its context stopped.
	cause error
}

func (e *MySQLError) Error() string {
	if e.SQLState != [5]byte{} {
		return fmt.Sprintf("Error %d (%s): %s", e.Number, e.SQLState, e.Message)
	}
	return fmt.Sprintf("Error %d: %s", e.Number, e.Message)
}

// Is reports whether err is a *MySQLError with the same Number, as
// go-sql-driver/mysql's does.
func (e *MySQLError) Is(err error) bool {
	if me, ok := err.(*MySQLError); ok {
		return me.Number == e.Number
	}
	return false
}

// Unwrap returns the cause: context.Canceled or context.DeadlineExceeded
// for a statement its context stopped, else the engine's error.
func (e *MySQLError) Unwrap() error { return e.cause }

// erInterrupted is MySQL's ER_QUERY_INTERRUPTED.
const erInterrupted = 1317

func interrupted(cause error) *MySQLError {
	e := &MySQLError{Number: erInterrupted, Message: "Query execution was interrupted", cause: cause}
	copy(e.SQLState[:], "70100")
	return e
}

// errEmptyQuery is MySQL's ER_EMPTY_QUERY, for a query of no statement.
func errEmptyQuery() *MySQLError {
	e := &MySQLError{Number: 1065, Message: "Query was empty"}
	copy(e.SQLState[:], "42000")
	return e
}

// statementError returns err, the error of statement query run under ctx,
// as a *MySQLError: the server's mapping (sqlserver.MySQLError), or 1317
// for a statement that ctx or KILL QUERY stopped.
func statementError(ctx context.Context, err error, query string) error {
	if err == nil {
		return nil
	}
	var me *MySQLError
	if errors.As(err, &me) {
		return err
	}
	if ctx.Err() != nil {
		return interrupted(ctx.Err())
	}
	if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), context.Canceled.Error()) {
		return interrupted(context.Canceled) // KILL QUERY, or the connection closed
	}
	se := sqlserver.MySQLError(err, query)
	out := &MySQLError{Number: uint16(se.Num), Message: se.Message, cause: err}
	copy(out.SQLState[:], se.State)
	return out
}
