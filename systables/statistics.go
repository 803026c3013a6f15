package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_statistics, with Dolt's columns: a row per histogram bucket of each
// index that ANALYZE TABLE measured, in the database.
//
//	database_name, table_name, index_name  text
//	row_count        bigint unsigned  the rows in the bucket
//	distinct_count   bigint unsigned  the distinct keys among them
//	null_count       bigint unsigned  the rows whose key holds a NULL
//	columns, types   text             the index's columns and their types,
//	                                  ", " between them
//	upper_bound      text             the bucket's greatest key, its
//	                                  values ", " between them
//	upper_bound_cnt  bigint unsigned  the rows holding that key
//	created_at       datetime         when ANALYZE TABLE measured it (UTC)
//	mcv1..mcv4, mcv_counts  text      the most common values ("" here:
//	                                  verso keeps none)
//
// Every column is NOT NULL, as Dolt declares them. The table is read-only
// (ANALYZE TABLE fills it), as Dolt's. Its rows come from the database's
// statistics (View.Statistics, package sqlserver's).

const StatisticsName = "dolt_statistics"

var statisticsSchema = sql.Schema{
	textCol(StatisticsName, "database_name", false, false),
	textCol(StatisticsName, "table_name", false, false),
	textCol(StatisticsName, "index_name", false, false),
	col(StatisticsName, "row_count", types.Uint64, false),
	col(StatisticsName, "distinct_count", types.Uint64, false),
	col(StatisticsName, "null_count", types.Uint64, false),
	textCol(StatisticsName, "columns", false, false),
	textCol(StatisticsName, "types", false, false),
	textCol(StatisticsName, "upper_bound", false, false),
	col(StatisticsName, "upper_bound_cnt", types.Uint64, false),
	col(StatisticsName, "created_at", types.Datetime, false),
	textCol(StatisticsName, "mcv1", false, false),
	textCol(StatisticsName, "mcv2", false, false),
	textCol(StatisticsName, "mcv3", false, false),
	textCol(StatisticsName, "mcv4", false, false),
	textCol(StatisticsName, "mcv_counts", false, false),
}

// Statistics gives dolt_statistics' rows of the database db, in its
// columns.
type Statistics func(ctx *sql.Context, db string) ([]sql.Row, error)

func openStatistics(v *View) sql.Table {
	return &rowsTable{name: StatisticsName, sch: statisticsSchema, rows: func(ctx *sql.Context) ([]sql.Row, error) {
		if v.Statistics == nil {
			return nil, nil
		}
		return v.Statistics(ctx, v.DB)
	}}
}
