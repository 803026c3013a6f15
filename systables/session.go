package systables

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/tables"
)

// Session is the session's transaction on a view's database, as the
// tables that follow it reach it each time a statement reads or writes
// them (a plan may outlive the transaction it was made in): package
// sqlserver's transactions implement it.
type Session interface {
	// Txn returns the session's transaction on the database, beginning
	// it if the session has none.
	Txn(ctx *sql.Context) (*verso.Txn, error)
	// Flush puts the statement's pending table writes into the
	// transaction's root (dolt_status reads them; the other tables read
	// only entries those writes do not touch).
	Flush(ctx *sql.Context) error
	// ReplaceRow replaces, in the transaction's root, the row old of the
	// table named table (exactly) with row, as an UPDATE would (the
	// table's indexes follow; the statement's pending writes are
	// flushed first).
	ReplaceRow(ctx *sql.Context, table string, old, row []tables.Value) error
}

// Names of the tables OpenSession serves, as Dolt spells them.
const (
	BranchesName    = "dolt_branches"
	TagsName        = "dolt_tags"
	StatusName      = "dolt_status"
	StatusIgnName   = "dolt_status_ignored"
	ConflictsName   = "dolt_conflicts"
	ConflictsPrefix = "dolt_conflicts_"
	MergeStatusName = "dolt_merge_status"
	StreamsName     = "dolt_streams"
	EventStatsName  = "dolt_event_stats"
	StashesName     = "dolt_stashes"
)

// OpenSession returns the table named name (any case) among those over
// the refs as they are now and the session's transaction: dolt_branches,
// dolt_tags, dolt_status, dolt_stashes, dolt_conflicts, dolt_merge_status,
// dolt_conflicts_<t> (for a table t of the transaction's root),
// dolt_constraint_violations, dolt_constraint_violations_<t>,
// dolt_schema_conflicts, and the
// event log's dolt_events, dolt_streams and dolt_event_stats. ok is false
// for any other name. It reads v's DB, Graph, Branch, Tables and Session;
// Refs and Working may be unset. The tables read when a statement runs,
// not when they are opened (dolt_conflicts_<t> fixes its columns at open).
func OpenSession(ctx *sql.Context, name string, v *View) (sql.Table, bool, error) {
	l := strings.ToLower(name)
	switch {
	case l == ConflictsName:
		return &rowsTable{name: ConflictsName, sch: conflictsSchema, rows: v.conflictRows}, true, nil
	case l == MergeStatusName:
		return &rowsTable{name: MergeStatusName, sch: mergeStatusSchema, rows: v.mergeStatusRows}, true, nil
	case strings.HasPrefix(l, ConflictsPrefix) && isObjectTable(l[len(ConflictsPrefix):]):
		return openObjectConflicts(l[len(ConflictsPrefix):]), true, nil
	case strings.HasPrefix(l, ConstraintViolationsPrefix) && isObjectTable(l[len(ConstraintViolationsPrefix):]):
		return openObjectViolations(l[len(ConstraintViolationsPrefix):]), true, nil
	case l == ViolationsName:
		return &rowsTable{name: ViolationsName, sch: violationsSchema, rows: v.violationRows}, true, nil
	case l == SchemaConflictsName:
		return &rowsTable{name: SchemaConflictsName, sch: schemaConflictsSchema, rows: v.schemaConflictRows}, true, nil
	case isViolationsName(l):
		return v.openViolationsTable(ctx, name[len(ViolationsPrefix):])
	case strings.HasPrefix(l, ConflictsPrefix):
		return v.openConflictsTable(ctx, name[len(ConflictsPrefix):])
	case l == EventsTable || l == StreamsName || l == EventStatsName:
		t, ok := eventTable(l, eventSource{v: v})
		return t, ok, nil
	case l == BranchesName:
		// Indexed by name as Dolt declares it (dolt_branches_name_idx).
		return &Table{name: BranchesName, v: v, sch: branchesSchema, impl: branchesImpl{v},
			indexes: []indexSpec{onHash("dolt_branches_name_idx", "name", true)}}, true, nil
	case l == TagsName:
		return &rowsTable{name: TagsName, sch: tagsSchema, rows: v.tagRows}, true, nil
	case l == StatusName:
		return &rowsTable{name: StatusName, sch: statusTableSchema, rows: v.statusRows}, true, nil
	case l == StatusIgnName:
		return &rowsTable{name: StatusIgnName, sch: statusIgnoredSchema, rows: v.statusIgnoredRows}, true, nil
	case l == StashesName:
		return &rowsTable{name: StashesName, sch: stashesSchema, rows: v.stashRows}, true, nil
	case strings.HasPrefix(l, WorkspacePrefix) && len(l) > len(WorkspacePrefix):
		return v.openWorkspace(ctx, name[len(WorkspacePrefix):])
	case l == RemotesName || l == RemoteBranchesName:
		return openRemotes(l, v), true, nil
	case l == HelpName:
		return &rowsTable{name: HelpName, sch: helpSchema, rows: helpRows}, true, nil
	case l == BackupsName:
		return openBackups(), true, nil
	case l == BranchControlName || l == BranchNamespaceControlName:
		return openBranchControl(l), true, nil
	case l == BranchActivityName:
		return openBranchActivity(v), true, nil
	case l == NonlocalTablesName:
		return openNonlocalTables(), true, nil
	case l == StatisticsName:
		return openStatistics(v), true, nil
	}
	return nil, false, nil
}

// rowsTable is a read-only table of rows computed per scan.
type rowsTable struct {
	name string
	sch  sql.Schema
	rows func(*sql.Context) ([]sql.Row, error)
}

var _ sql.Table = (*rowsTable)(nil)

func (t *rowsTable) Name() string                   { return t.name }
func (t *rowsTable) String() string                 { return t.name }
func (t *rowsTable) Schema(*sql.Context) sql.Schema { return t.sch }
func (t *rowsTable) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *rowsTable) IsTemporary() bool              { return false }
func (t *rowsTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

func (t *rowsTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := t.rows(ctx)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}
