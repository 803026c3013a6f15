package sqlserver

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
)

// Transactions merge at commit in the engine (verso.Txn.Commit); its
// conflicts come back as verso.SerializationError, which the SQL layer
// reports as the engine's serialization failure.

// errSerialization returns the engine's serialization failure
// (ER_LOCK_DEADLOCK, 1213), as Dolt reports a transaction that conflicts
// with a committed one.
func errSerialization(format string, args ...any) error {
	return sql.ErrLockDeadlock.New("this transaction conflicts with a committed transaction from another client: " + fmt.Sprintf(format, args...))
}

// engineError returns an error of the engine as the SQL layer reports it:
// a serialization failure as ER_LOCK_DEADLOCK (1213), which clients
// retry; anything else as is.
func engineError(err error) error {
	var se *verso.SerializationError
	if errors.As(err, &se) {
		return sql.ErrLockDeadlock.New(se.Error())
	}
	return err
}
