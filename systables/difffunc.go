package systables

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

// TableDiff is dolt_diff('from', 'to', 'table'): the rows of a table that
// differ between two revisions, whose cost follows the size of the change.
// Its to_ columns are the table's at to, its from_ columns the table's at
// from (each side's own at the other where one lacks the table), as Dolt
// lays them out. The table is found by its name at to, else at from (a
// renamed table is diffed across the rename), else in either revision
// unchanged; 'dolt_events' diffs the event log.
type TableDiff struct {
	schema sql.Schema
	rows   func(ctx *sql.Context) ([]sql.Row, error)
}

// NewTableDiff prepares the diff of a's table between a's revisions, for
// the table function named source.
func NewTableDiff(ctx *sql.Context, v *View, source string, a DiffArgs) (*TableDiff, error) {
	rf, rt, err := v.revisionEnds(ctx, a)
	if err != nil {
		return nil, err
	}
	d, err := v.deltaOf(ctx, rf.root, rt.root, a.Table)
	if err != nil {
		return nil, err
	}
	if d == nil {
		if strings.EqualFold(a.Table, EventsTable) {
			return newEventLogDiff(ctx, v, source, rf, rt)
		}
		return nil, sql.ErrTableNotFound.New(a.Table)
	}
	fromCols, toCols := sideSchemas(d)
	rd := NewSidesRowDiff(source, fromCols, toCols)
	fs := Side{Table: d.from, Commit: rf.name, Date: rf.date()}
	ts := Side{Table: d.to, Commit: rt.name, Date: rt.date()}
	return &TableDiff{schema: rd.Schema(), rows: func(ctx *sql.Context) ([]sql.Row, error) {
		return rd.Rows(ctx, fs, ts)
	}}, nil
}

// sideSchemas returns the columns of each side of a delta: the table's
// own, or the other side's where it lacks the table.
func sideSchemas(d *tableDelta) (from, to sql.Schema) {
	if d.from != nil {
		from = d.from.Schema
	}
	if d.to != nil {
		to = d.to.Schema
	}
	if from == nil {
		from = to
	}
	if to == nil {
		to = from
	}
	return from, to
}

// deltaOf returns the delta of the table named name between two roots: the
// changed table whose name at to (else at from) is name, or the table
// unchanged; nil if neither root has it.
func (v *View) deltaOf(ctx *sql.Context, from, to commitgraph.RootValue, name string) (*tableDelta, error) {
	ds, err := v.tableDeltas(ctx, from, to)
	if err != nil {
		return nil, err
	}
	if d := matchingDelta(ds, name); d != nil {
		return d, nil
	}
	return v.unchangedDelta(ctx, from, to, name)
}

// newEventLogDiff returns dolt_diff(from, to, 'dolt_events'): the events
// added and removed between the two revisions' logs.
func newEventLogDiff(ctx *sql.Context, v *View, source string, rf, rt *revision) (*TableDiff, error) {
	fl, err := v.eventLog(ctx, rf.root)
	if err != nil {
		return nil, err
	}
	tl, err := v.eventLog(ctx, rt.root)
	if err != nil {
		return nil, err
	}
	d := NewEventDiff(source)
	fs := EventSide{Log: fl, Commit: rf.name, Date: rf.date()}
	ts := EventSide{Log: tl, Commit: rt.name, Date: rt.date()}
	return &TableDiff{schema: d.Schema(), rows: func(ctx *sql.Context) ([]sql.Row, error) {
		return d.Rows(ctx, fs, ts)
	}}, nil
}

// Schema returns the diff's columns.
func (t *TableDiff) Schema() sql.Schema { return t.schema }

// Rows returns the rows that differ.
func (t *TableDiff) Rows(ctx *sql.Context) ([]sql.Row, error) { return t.rows(ctx) }
