package systables

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"
)

// dolt_branch_control and dolt_branch_namespace_control, with Dolt's
// columns:
//
//	dolt_branch_control            database, branch, user, host (the
//	                               primary key; varchar(16383), all but
//	                               user compared without case) and
//	                               permissions set('admin', 'write',
//	                               'merge', 'read')
//	dolt_branch_namespace_control  database, branch, user, host
//
// verso has no branch permissions: every user may write every branch, as
// Dolt's default row says, and no branch name is reserved. The tables say
// so: dolt_branch_control holds that one row ('%', '%', '%', '%',
// 'write'), dolt_branch_namespace_control nothing, and both refuse writes
// (verso would not honour them). Unlike Dolt, making a branch does not
// add an admin row for its maker: no one administers branch permissions.

const (
	BranchControlName          = "dolt_branch_control"
	BranchNamespaceControlName = "dolt_branch_namespace_control"
)

var (
	bcCI   = types.MustCreateString(sqltypes.VarChar, 16383, sql.Collation_utf8mb4_0900_ai_ci)
	bcUser = types.MustCreateString(sqltypes.VarChar, 16383, sql.Collation_utf8mb4_0900_bin)

	branchControlKey = func(table string) sql.Schema {
		return sql.Schema{
			{Name: "database", Type: bcCI, PrimaryKey: true, Source: table},
			{Name: "branch", Type: bcCI, PrimaryKey: true, Source: table},
			{Name: "user", Type: bcUser, PrimaryKey: true, Source: table},
			{Name: "host", Type: bcCI, PrimaryKey: true, Source: table},
		}
	}
	branchPermissions      = types.MustCreateSetType([]string{"admin", "write", "merge", "read"}, sql.Collation_utf8mb4_0900_ai_ci)
	branchControlSchema    = append(branchControlKey(BranchControlName), &sql.Column{Name: "permissions", Type: branchPermissions, Source: BranchControlName})
	branchNamespaceSchema  = branchControlKey(BranchNamespaceControlName)
	errNoBranchPermissions = errors.New("verso has no branch permissions: every user may write every branch, and dolt_branch_control and dolt_branch_namespace_control cannot be changed")
)

// permissionWrite is the value of the set member 'write' (the second).
const permissionWrite = uint64(1 << 1)

func openBranchControl(name string) sql.Table {
	if name == BranchNamespaceControlName {
		return &refusingTable{rowsTable{name: name, sch: branchNamespaceSchema, rows: noRows}, errNoBranchPermissions}
	}
	return &refusingTable{rowsTable{name: name, sch: branchControlSchema, rows: func(*sql.Context) ([]sql.Row, error) {
		return []sql.Row{{"%", "%", "%", "%", permissionWrite}}, nil
	}}, errNoBranchPermissions}
}
