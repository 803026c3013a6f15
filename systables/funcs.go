package systables

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// ErrBadArgument is returned for arguments that a table function does not
// take.
var ErrBadArgument = errors.New("systables: bad argument")

// Staged names the staged root in a revision argument.
const Staged = verso.Staged

// revision is a resolved revision argument: a commit's root, or the
// working or staged root (commit nil).
type revision struct {
	name   string
	commit *commitgraph.Commit
	root   commitgraph.RootValue
}

// resolve resolves a revision spec: WORKING and STAGED (the session's
// working and staged roots), HEAD (the snapshot's head), or any spec
// commitgraph.Resolve takes (branches and tags as they are now, hashes,
// ~ and ^ steps).
func (v *View) resolve(ctx context.Context, spec string) (*revision, error) {
	r := &revision{name: spec}
	var err error
	switch strings.ToUpper(spec) {
	case Working:
		r.root = v.Working
		return r, nil
	case Staged:
		r.root, err = v.staged(ctx)
		return r, err
	case "HEAD":
		r.commit, err = v.head(ctx)
	default:
		r.commit, err = v.Graph.Resolve(ctx, spec, v.Branch)
	}
	if err != nil {
		return nil, err
	}
	r.root, err = v.openRoot(ctx, r.commit)
	return r, err
}

func (r *revision) date() any {
	if r.commit == nil {
		return nil
	}
	return r.commit.Meta.Time
}

// TableDiff is dolt_diff('from', 'to', 'table'): the rows of a table that
// differ between two revisions, whose cost follows the size of the change.
type TableDiff struct {
	schema sql.Schema
	rows   func(ctx *sql.Context) ([]sql.Row, error)
}

// NewTableDiff prepares the diff of table from revision from to revision
// to, for the table function named source. The columns are the table's at
// to (at from if to lacks it). from may be "a..b" (then to is "") for the
// diff from a to b, or "a...b" for the diff from their merge base to b.
func NewTableDiff(ctx *sql.Context, v *View, source, from, to, table string) (*TableDiff, error) {
	if to == "" {
		a, b, three, ok := splitRange(from)
		if !ok {
			return nil, fmt.Errorf("%w: dolt_diff takes ('from', 'to', 'table') or ('from..to', 'table'), not %q", ErrBadArgument, from)
		}
		from, to = a, b
		if three {
			ra, err := v.resolve(ctx, a)
			if err != nil {
				return nil, err
			}
			rb, err := v.resolve(ctx, b)
			if err != nil {
				return nil, err
			}
			if ra.commit == nil || rb.commit == nil {
				return nil, fmt.Errorf("%w: %q: a merge base needs two commits", ErrBadArgument, from+"..."+to)
			}
			mb, err := v.Graph.MergeBase(ctx, ra.commit.Addr, rb.commit.Addr)
			if err != nil {
				return nil, err
			}
			from = mb.Addr.String()
		}
	}
	rf, err := v.resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	rt, err := v.resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	ft, err := v.readTable(ctx, rf.root, table)
	if err != nil {
		return nil, err
	}
	tt, err := v.readTable(ctx, rt.root, table)
	if err != nil {
		return nil, err
	}
	cols := sql.Schema(nil)
	switch {
	case tt != nil:
		cols = tt.Schema
	case ft != nil:
		cols = ft.Schema
	case strings.EqualFold(table, EventsTable):
		return newEventLogDiff(ctx, v, source, rf, rt)
	default:
		return nil, sql.ErrTableNotFound.New(table)
	}
	d := NewRowDiff(source, cols)
	fs := Side{Table: ft, Commit: rf.name, Date: rf.date()}
	ts := Side{Table: tt, Commit: rt.name, Date: rt.date()}
	return &TableDiff{schema: d.Schema(), rows: func(ctx *sql.Context) ([]sql.Row, error) {
		if ft != nil && tt != nil && ft.Table.Rows().Address() == tt.Table.Rows().Address() {
			return nil, nil
		}
		return d.Rows(ctx, fs, ts)
	}}, nil
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

// splitRange splits "a..b" or "a...b".
func splitRange(s string) (a, b string, three, ok bool) {
	if i := strings.Index(s, "..."); i > 0 && i+3 < len(s) {
		return s[:i], s[i+3:], true, true
	}
	if i := strings.Index(s, ".."); i > 0 && i+2 < len(s) {
		return s[:i], s[i+2:], false, true
	}
	return "", "", false, false
}

// Schema returns the diff's columns.
func (t *TableDiff) Schema() sql.Schema { return t.schema }

// Rows returns the rows that differ.
func (t *TableDiff) Rows(ctx *sql.Context) ([]sql.Row, error) { return t.rows(ctx) }

// ChangedTables returns the tables that differ from revision from to
// revision to (specs as dolt_diff() takes them, WORKING and STAGED
// included).
func ChangedTables(ctx *sql.Context, v *View, from, to string) ([]TableChange, error) {
	rf, err := v.resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	rt, err := v.resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	return RootChanges(ctx, v.Graph, rf.root, rt.root)
}

// IsRevision reports whether spec names a revision of v: WORKING, STAGED,
// HEAD, a branch, a tag, a commit hash, with steps.
func IsRevision(ctx *sql.Context, v *View, spec string) bool {
	_, err := v.resolve(ctx, spec)
	return err == nil
}
