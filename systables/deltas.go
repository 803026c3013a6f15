package systables

import (
	"errors"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
)

// tableDelta is one table that differs between two roots, as the diff
// table functions list them: a table on both sides (under one name, or
// renamed), added (from nil) or dropped (to nil).
//
// A table renamed between the two roots (verso.Renames: it carries the
// identity RENAME TABLE keeps, as Dolt's columns keep their tags) is one
// delta under its two names.
type tableDelta struct {
	fromName, toName string
	from, to         *StoredTable
	// data and schema say whether the rows and the schema (or the
	// table's options) differ; an added or dropped table's schema
	// changed, and its data if it holds rows.
	data, schema bool
}

func (d *tableDelta) isAdd() bool    { return d.from == nil }
func (d *tableDelta) isDrop() bool   { return d.to == nil }
func (d *tableDelta) isRename() bool { return d.from != nil && d.to != nil && d.fromName != d.toName }

// name returns the table's name: its name at to, or at from if dropped.
func (d *tableDelta) name() string {
	if d.to != nil {
		return d.toName
	}
	return d.fromName
}

// tableDeltas returns the tables that differ from root from to root to,
// renames paired, in the order of their names at from (then at to). Its
// cost follows the change: the root diff skips what both roots share, and
// only changed tables are read. The event log is not a table here.
func (v *View) tableDeltas(ctx *sql.Context, from, to commitgraph.RootValue) ([]*tableDelta, error) {
	chs, err := RootChanges(ctx, v.Graph, from, to)
	if err != nil {
		return nil, err
	}
	var out []*tableDelta
	for _, ch := range chs {
		d := &tableDelta{data: ch.DataChange, schema: ch.SchemaChange}
		fromName := ch.Table
		if ch.From != "" {
			fromName = ch.From
		}
		if fa, ok, err := from.Get(ctx, TablePrefix+fromName); err != nil {
			return nil, err
		} else if ok {
			if d.from, err = v.Tables.ReadTable(ctx, fromName, fa); err != nil {
				return nil, err
			}
			d.fromName = fromName
		}
		if ta, ok, err := to.Get(ctx, TablePrefix+ch.Table); err != nil {
			return nil, err
		} else if ok {
			if d.to, err = v.Tables.ReadTable(ctx, ch.Table, ta); err != nil {
				return nil, err
			}
			d.toName = ch.Table
		}
		if d.from == nil && d.to == nil {
			continue // the event log, or options of a table neither root holds
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].fromName != out[j].fromName {
			return out[i].fromName < out[j].fromName
		}
		return out[i].toName < out[j].toName
	})
	return out, nil
}

// sortByToName orders deltas by their names at to (a dropped table's is
// "": first), then at from, as Dolt lists them.
func sortByToName(ds []*tableDelta) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].toName != ds[j].toName {
			return ds[i].toName < ds[j].toName
		}
		return ds[i].fromName < ds[j].fromName
	})
}

// matchingDelta returns the delta of table name: the one whose name at to
// is name (matched without case), else whose name at from is; nil if the
// table did not change.
func matchingDelta(ds []*tableDelta, name string) *tableDelta {
	for _, d := range ds {
		if d.to != nil && strings.EqualFold(d.toName, name) {
			return d
		}
	}
	for _, d := range ds {
		if d.from != nil && strings.EqualFold(d.fromName, name) {
			return d
		}
	}
	return nil
}

// unchangedDelta returns the delta of a table that did not change between
// the two roots: the table on both sides, or nil if neither root has it.
func (v *View) unchangedDelta(ctx *sql.Context, from, to commitgraph.RootValue, name string) (*tableDelta, error) {
	ft, err := v.readTable(ctx, from, name)
	if err != nil {
		return nil, err
	}
	tt, err := v.readTable(ctx, to, name)
	if err != nil {
		return nil, err
	}
	if ft == nil && tt == nil {
		return nil, nil
	}
	d := &tableDelta{from: ft, to: tt}
	if ft != nil {
		d.fromName, _, _, _ = findTable(ctx, from, name)
	}
	if tt != nil {
		d.toName, _, _, _ = findTable(ctx, to, name)
	}
	return d, nil
}

// errFound stops a diff at its first row.
var errFound = errors.New("systables: found")

// dataChanged reports whether the table's rows changed: its rows on either
// side if it was added or dropped; otherwise whether a row's values
// changed. A table rewritten by a schema change (an ALTER stores every row
// again) whose values all stayed the same did not change its data.
func (d *tableDelta) dataChanged(ctx *sql.Context) (bool, error) {
	if !d.data || d.from == nil || d.to == nil || !d.schema {
		return d.data, nil
	}
	err := diffRows(ctx, d.from, d.to, func(rowChange) error { return errFound })
	if err == errFound {
		return true, nil
	}
	return false, err
}

// primaryKeyChanged reports whether the table's primary key columns differ
// between the two sides (rows then do not pair by key).
func (d *tableDelta) primaryKeyChanged() bool {
	if d.from == nil || d.to == nil {
		return false
	}
	fs, ts := d.from.Table.Schema(), d.to.Table.Schema()
	if len(fs.PrimaryKey) != len(ts.PrimaryKey) {
		return true
	}
	for i, p := range fs.PrimaryKey {
		fc, tc := fs.Columns[p], ts.Columns[ts.PrimaryKey[i]]
		if !strings.EqualFold(fc.Name, tc.Name) || fc.Type != tc.Type {
			return true
		}
	}
	return false
}
