package systables

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_branch_activity, with Dolt's columns:
//
//	branch             text PRIMARY KEY
//	last_read          datetime(6)   when a session last read the branch
//	last_write         datetime(6)   when a transaction last wrote it
//	active_sessions    int           the sessions on the branch now
//	system_start_time  datetime(6)   when the server started
//
// Dolt tracks branch activity only when its server is configured to; so
// does verso's server, whose config file takes behavior.
// branch_activity_tracking too (package sqlserver's ActivityTracker).
// Without tracking, a read fails with Dolt's error.

const BranchActivityName = "dolt_branch_activity"

var (
	branchActivitySchema = sql.Schema{
		textCol(BranchActivityName, "branch", true, false),
		col(BranchActivityName, "last_read", types.DatetimeMaxPrecision, true),
		col(BranchActivityName, "last_write", types.DatetimeMaxPrecision, true),
		col(BranchActivityName, "active_sessions", types.Int32, false),
		col(BranchActivityName, "system_start_time", types.DatetimeMaxPrecision, false),
	}
	// ErrBranchActivityOff is Dolt's error for a read of
	// dolt_branch_activity while tracking is off.
	ErrBranchActivityOff = errors.New("branch activity tracking is not enabled; enable it in the server config with 'behavior.branch_activity_tracking: true'")
)

// BranchActivity gives dolt_branch_activity's rows, in its columns; nil
// when tracking is off.
type BranchActivity func(ctx *sql.Context, db string) ([]sql.Row, error)

func openBranchActivity(v *View) sql.Table {
	return &rowsTable{name: BranchActivityName, sch: branchActivitySchema, rows: func(ctx *sql.Context) ([]sql.Row, error) {
		if v.Activity == nil {
			return nil, ErrBranchActivityOff
		}
		return v.Activity(ctx, v.DB)
	}}
}
