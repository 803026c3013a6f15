package systables

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
)

// EventSide is one end of an event diff: the log of a root value and the
// commit and date the columns show.
type EventSide struct {
	Log    eventindex.Log
	Commit any // string, or nil
	Date   any // time.Time, or nil
}

// EventDiff describes the rows of a diff of the event log: dolt_events'
// columns twice, to_ and from_, with the commit and date of each side and
// the diff type, as RowDiff lays out a table's.
type EventDiff struct {
	d *RowDiff
}

// NewEventDiff returns the shape of a diff of the event log for the table
// (or table function) named source.
func NewEventDiff(source string) *EventDiff {
	return &EventDiff{d: NewRowDiff(source, eventsSchema)}
}

// Schema returns the diff's columns.
func (d *EventDiff) Schema() sql.Schema { return d.d.Schema() }

// Rows returns the events added and removed from side from to side to,
// in position order: diff_type added or removed, or modified where one
// position holds different events on the two sides (as after a merge
// renumbered theirs). Events removed by retention (max count,
// truncate-before, deletes, swept max age) are removed. Its cost follows
// the size of the change (eventindex.Diff skips the subtrees both logs
// share).
func (d *EventDiff) Rows(ctx *sql.Context, from, to EventSide) ([]sql.Row, error) {
	n := len(eventsSchema)
	var out []sql.Row
	// A position that differs gives a removal then an addition
	// (eventindex.Diff): the addition completes the removal's row.
	var last sql.Row
	var lastPos eventindex.Position
	var rows eventRows
	err := eventindex.Diff(ctx, from.Log, to.Log, func(ch eventindex.EventChange) error {
		if ch.Added && last != nil && lastPos == ch.Event.Position {
			rows.fill(last[:n], &ch.Event)
			last[n], last[n+1] = to.Commit, to.Date
			last[2*n+4] = DiffModified
			last = nil
			return nil
		}
		row := make(sql.Row, 2*n+5)
		row[n], row[n+1] = to.Commit, to.Date
		row[2*n+2], row[2*n+3] = from.Commit, from.Date
		if ch.Added {
			rows.fill(row[:n], &ch.Event)
			row[2*n+4] = DiffAdded
			last = nil
		} else {
			rows.fill(row[n+2:2*n+2], &ch.Event)
			row[2*n+4] = DiffRemoved
			last, lastPos = row, ch.Event.Position
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

// eventLog loads the event log of root.
func (v *View) eventLog(ctx *sql.Context, root commitgraph.RootValue) (eventindex.Log, error) {
	return eventindex.LoadLog(ctx, v.Graph.NodeStore(), root)
}

// eventsPair diffs the event log of commit from (nil: no events) to that
// of commit to (nil: the working root), for dolt_diff_dolt_events.
type eventsPair struct {
	v *View
	d *EventDiff
}

func (p eventsPair) side(ctx *sql.Context, c *commitgraph.Commit) (EventSide, error) {
	if c == nil {
		l, err := p.v.eventLog(ctx, p.v.Working)
		return EventSide{Log: l, Commit: Working}, err
	}
	root, err := p.v.openRoot(ctx, c)
	if err != nil {
		return EventSide{}, err
	}
	l, err := p.v.eventLog(ctx, root)
	return EventSide{Log: l, Commit: c.Addr.String(), Date: c.Meta.Time}, err
}

func (p eventsPair) pair(ctx *sql.Context, from, to *commitgraph.Commit) ([]sql.Row, error) {
	fs := EventSide{Log: eventindex.NewLog(p.v.Graph.NodeStore())}
	var err error
	if from != nil {
		if fs, err = p.side(ctx, from); err != nil {
			return nil, err
		}
	}
	ts, err := p.side(ctx, to)
	if err != nil {
		return nil, err
	}
	return p.d.Rows(ctx, fs, ts)
}

// openEventsDiff opens dolt_diff_dolt_events: dolt_diff_<t>'s walk of
// HEAD's history and its to_commit and from_commit lookups, over the
// event log.
func openEventsDiff(v *View) (*Table, bool, error) {
	tn := DiffTablePrefix + EventsTable
	d := NewEventDiff(tn)
	td := &tableDiff{v: v, differ: eventsPair{v: v, d: d}}
	return &Table{name: tn, v: v, sch: d.Schema(), impl: td, indexes: []indexSpec{
		onHash("to_commit", "to_commit", false), onHash("from_commit", "from_commit", false),
	}}, true, nil
}
