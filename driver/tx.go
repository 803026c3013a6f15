package driver

import (
	"context"
	"database/sql/driver"
)

// tx is a transaction begun by BeginTx: the session's, as START
// TRANSACTION makes it. Its statements are the connection's until Commit
// or Rollback.
type tx struct {
	c *conn
}

var _ driver.Tx = (*tx)(nil)

// Commit implements driver.Tx: COMMIT. A commit verso refuses (a write
// conflict the row locks did not prevent: error 1213) rolls the
// transaction back, as MySQL's does; retry it from the start.
func (t *tx) Commit() error {
	_, err := t.c.exec(context.Background(), "COMMIT", nil)
	return err
}

// Rollback implements driver.Tx: ROLLBACK.
func (t *tx) Rollback() error {
	_, err := t.c.exec(context.Background(), "ROLLBACK", nil)
	return err
}
