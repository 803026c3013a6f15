package systables

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"
)

// dolt_nonlocal_tables, with Dolt's columns:
//
//	table_name  varchar(65535) PRIMARY KEY   a table name or pattern
//	target_ref  varchar(65535)               the branch it is read from
//	ref_table   varchar(65535)               the table there
//	options     varchar(65535)
//
// In Dolt its rows make tables of one branch resolve to another branch's.
// verso has no such tables: dolt_nonlocal_tables is empty, and refuses
// writes rather than keep rows it would not honour.

const NonlocalTablesName = "dolt_nonlocal_tables"

var (
	nonlocalText         = types.MustCreateString(sqltypes.VarChar, 65535, sql.Collation_Default)
	nonlocalTablesSchema = sql.Schema{
		{Name: "table_name", Type: nonlocalText, PrimaryKey: true, Source: NonlocalTablesName},
		{Name: "target_ref", Type: nonlocalText, Nullable: true, Source: NonlocalTablesName},
		{Name: "ref_table", Type: nonlocalText, Nullable: true, Source: NonlocalTablesName},
		{Name: "options", Type: nonlocalText, Nullable: true, Source: NonlocalTablesName},
	}
	errNoNonlocalTables = errors.New("verso has no nonlocal tables: dolt_nonlocal_tables cannot be changed")
)

func openNonlocalTables() sql.Table {
	return &refusingTable{rowsTable{name: NonlocalTablesName, sch: nonlocalTablesSchema, rows: noRows}, errNoNonlocalTables}
}
