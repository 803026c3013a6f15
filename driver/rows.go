package driver

import (
	"database/sql/driver"
	"io"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql/types"
)

// rows is the result of QueryContext: the rows of its statement, then,
// with multistatements=true, those of each next statement
// (NextResultSet), run when the caller moves to it. As with
// go-sql-driver/mysql, the statements that return no rows (INSERT, SET,
// ...) are no result sets: they run to their end when the caller reaches
// them, so that their errors are the query's or NextResultSet's.
type rows struct {
	c    *conn
	r    *running
	cols []column
	// done: the current result set has no more rows (its statement is
	// closed).
	done bool
}

var (
	_ driver.Rows                           = (*rows)(nil)
	_ driver.RowsNextResultSet              = (*rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*rows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*rows)(nil)
)

func newRows(r *running) (*rows, error) {
	rs := &rows{c: r.c}
	if err := rs.set(r); err != nil {
		return nil, err
	}
	return rs, nil
}

// set makes r, or the first statement from r on that returns rows, the
// current result set.
func (rs *rows) set(r *running) error {
	for {
		rs.r, rs.done = r, false
		if !types.IsOkResultSchema(r.sch) && len(r.sch) > 0 {
			rs.cols = newColumns(r.sch)
			return nil
		}
		rs.cols, rs.done = nil, true
		if _, _, err := r.drain(); err != nil {
			r.rest = ""
			return err
		}
		if r.rest == "" {
			return nil
		}
		next, err := rs.c.start(r.ctx, r.rest, nil, true)
		if err != nil {
			r.rest = ""
			return err
		}
		r = next
	}
}

// Columns implements driver.Rows.
func (rs *rows) Columns() []string {
	names := make([]string, len(rs.cols))
	for i, c := range rs.cols {
		names[i] = c.name
	}
	return names
}

// Next implements driver.Rows. At the end of the rows the statement is
// closed (committing it under autocommit) and an error doing so is Next's.
func (rs *rows) Next(dest []driver.Value) error {
	if rs.done {
		return io.EOF
	}
	row, err := rs.r.next()
	if err == io.EOF {
		rs.done = true
		if len(rs.r.sets) > 0 {
			return io.EOF // the CALL has more result sets
		}
		if err := rs.r.close(); err != nil {
			return err
		}
		return io.EOF
	}
	if err != nil {
		rs.done = true
		rs.r.close()
		return err
	}
	for i := range dest {
		if dest[i], err = rs.cols[i].value(rs.r.sctx, row[i]); err != nil {
			rs.done = true
			rs.r.close()
			return err
		}
	}
	return nil
}

// HasNextResultSet implements driver.RowsNextResultSet.
func (rs *rows) HasNextResultSet() bool { return len(rs.r.sets) > 0 || rs.r.rest != "" }

// NextResultSet implements driver.RowsNextResultSet: the next result set
// of a CALL, or else the current statement is closed and the next one
// runs.
func (rs *rows) NextResultSet() error {
	if rs.r.nextSet() {
		rs.cols, rs.done = newColumns(rs.r.sch), false
		return nil
	}
	if err := rs.r.close(); err != nil {
		return err
	}
	if rs.r.rest == "" {
		return io.EOF
	}
	next, err := rs.c.start(rs.r.ctx, rs.r.rest, nil, true)
	if err != nil {
		rs.r.rest = ""
		return err
	}
	if err := rs.set(next); err != nil {
		return err
	}
	if rs.cols == nil {
		return io.EOF // the statements left return no rows
	}
	return nil
}

// Close implements driver.Rows. The statements of the query not read yet
// run to their end, as a server runs every statement of a query: the
// first error is Close's.
func (rs *rows) Close() error {
	err := rs.r.close()
	for rs.r.rest != "" && err == nil {
		var next *running
		if next, err = rs.c.start(rs.r.ctx, rs.r.rest, nil, true); err != nil {
			break
		}
		rs.r = next
		_, _, err = next.drain()
	}
	rs.r.rest = ""
	return err
}

// ColumnTypeDatabaseTypeName implements
// driver.RowsColumnTypeDatabaseTypeName: go-sql-driver/mysql's names
// (INT, UNSIGNED BIGINT, VARCHAR, TEXT, BLOB, DECIMAL, DATETIME, JSON...).
func (rs *rows) ColumnTypeDatabaseTypeName(i int) string { return rs.cols[i].databaseTypeName() }

// ColumnTypeNullable implements driver.RowsColumnTypeNullable.
func (rs *rows) ColumnTypeNullable(i int) (nullable, ok bool) { return rs.cols[i].null, true }

// ColumnTypeScanType implements driver.RowsColumnTypeScanType: the Go
// type of the column's values (columns.go), its sql.Null form when the
// column is nullable.
func (rs *rows) ColumnTypeScanType(i int) reflect.Type { return rs.cols[i].scanType() }

// ColumnTypePrecisionScale implements
// driver.RowsColumnTypePrecisionScale, for DECIMAL columns.
func (rs *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	return rs.cols[i].precisionScale()
}
