package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	vtmysql "github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	gomysql "github.com/go-sql-driver/mysql"
)

// verso sql through the server that holds the database (serverinfo.go).
//
// When a running verso sql-server holds the database, verso sql sends
// every statement to it over one connection (as the command line's
// author), so writes work and reads see the server's latest state; the
// local engine, opened read-only, only splits and parses the statements.
// Results print as they do locally: values as the server sent them as
// text, numbers right-aligned by their column type.

// rawText is a value as the server sent it, printed unchanged (cell).
type rawText string

// runRemote runs one statement on r.remote and prints its result.
func (r *sqlRunner) runRemote(query string, stmt ast.Statement, vertical bool) error {
	ctx := context.Background()
	if !returnsRows(stmt) {
		res, err := r.remote.ExecContext(ctx, query)
		if err != nil {
			return remoteError(err)
		}
		if _, isUse := stmt.(*ast.Use); !isUse && (r.format == "table" || vertical) {
			n, _ := res.RowsAffected()
			fmt.Fprintf(r.out, "Query OK, %d %s affected\n", n, plural(uint64(max(n, 0)), "row", "rows"))
		}
		if u, isUse := stmt.(*ast.Use); isUse {
			r.ctx.SetCurrentDatabase(strings.Trim(u.DBName.String(), "`"))
		}
		return nil
	}
	rows, err := r.remote.QueryContext(ctx, query)
	if err != nil {
		return remoteError(err)
	}
	defer rows.Close()
	format := r.formatFor(vertical)
	for {
		cts, err := rows.ColumnTypes()
		if err != nil {
			return remoteError(err)
		}
		if len(cts) > 0 {
			sch := make(sql.Schema, len(cts))
			for i, ct := range cts {
				sch[i] = &sql.Column{Name: ct.Name(), Type: remoteType(ct.DatabaseTypeName())}
			}
			next := func() (sql.Row, error) {
				if !rows.Next() {
					if err := rows.Err(); err != nil {
						return nil, remoteError(err)
					}
					return nil, io.EOF
				}
				vals := make([]gosql.NullString, len(cts))
				ptrs := make([]any, len(cts))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					return nil, err
				}
				row := make(sql.Row, len(cts))
				for i, v := range vals {
					if v.Valid {
						row[i] = rawText(v.String)
					}
				}
				return row, nil
			}
			if err := r.print(format, sch, next); err != nil {
				return err
			}
		}
		if !rows.NextResultSet() {
			return remoteError(rows.Err())
		}
	}
}

// returnsRows reports whether stmt is one that answers with rows.
func returnsRows(stmt ast.Statement) bool {
	switch stmt.(type) {
	case ast.SelectStatement, *ast.Show, *ast.Explain, *ast.Call, *ast.OtherRead:
		return true
	}
	return false
}

// remoteType is a column type for printing a server's column of the
// type name dbType: numbers are numbers (right-aligned, JSON numbers),
// JSON is JSON, the rest text.
func remoteType(dbType string) sql.Type {
	switch strings.ToUpper(dbType) {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT", "YEAR":
		return types.Int64
	case "DECIMAL", "FLOAT", "DOUBLE":
		return types.Float64
	case "JSON":
		return types.JSON
	}
	return types.LongText
}

// remoteError is a server's error as the engine's own, so it prints in
// the mysql client's form with the server's number and SQLSTATE.
func remoteError(err error) error {
	if me, ok := err.(*gomysql.MySQLError); ok {
		return vtmysql.NewSQLError(int(me.Number), string(me.SQLState[:]), "%s", me.Message)
	}
	return err
}
