package driver

import "database/sql/driver"

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
