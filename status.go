package verso

import (
	"context"
	"slices"
)

// TableStatus is how a table of a branch's working set differs: from the
// head commit to the staged root (staged), or from the staged root to the
// working root (not staged).
type TableStatus uint8

// The statuses of a table, as dolt_status names them (String).
const (
	StatusNew            TableStatus = iota + 1 // "new table": the older root lacks it
	StatusModified                              // "modified"
	StatusDeleted                               // "deleted": the newer root lacks it
	StatusConflict                              // "conflict": a merge left rows in conflict
	StatusSchemaConflict                        // "schema conflict": a merge could not merge its schemas
	StatusViolation                             // "constraint violation": rows break a constraint
	StatusRenamed                               // "renamed": the table goes by another name (StatusEntry.From)
)

// String returns Dolt's word for s (dolt_status's status column).
func (s TableStatus) String() string {
	switch s {
	case StatusNew:
		return "new table"
	case StatusModified:
		return "modified"
	case StatusDeleted:
		return "deleted"
	case StatusConflict:
		return "conflict"
	case StatusSchemaConflict:
		return "schema conflict"
	case StatusViolation:
		return "constraint violation"
	case StatusRenamed:
		return "renamed"
	}
	return "unknown"
}

// StatusEntry is one change of a working set: a table (an item,
// staging.go), whether the change is staged, and what it is.
type StatusEntry struct {
	Table  string
	Staged bool
	Status TableStatus
	// From is a renamed table's name in the older root (Table its name
	// in the newer one).
	From string
	// Ignored: an untracked table dolt_ignore ignores (StatusWithIgnored
	// lists them; Status leaves them out).
	Ignored bool
}

// Name returns how dolt_status names the entry's table: "old -> new" for a
// renamed one, else its name.
func (e StatusEntry) Name() string {
	if e.Status == StatusRenamed {
		return e.From + " -> " + e.Table
	}
	return e.Table
}

// Status returns the changes of the transaction's branch as they stand
// now, with the transaction's own writes: first the staged ones (head to
// staged root), then those not staged (staged to working root), each by
// table name, then the tables with conflicts, schema conflicts and
// constraint violations (not staged), as Dolt lists them: a table a merge
// left unmerged shows as such, not as modified in the working root. A
// read-only
// transaction (at a commit) has no working set, and no changes.
//
// The untracked tables that dolt_ignore ignores are left out.
func (t *Txn) Status(ctx context.Context) ([]StatusEntry, error) {
	return t.status(ctx, false)
}

// StatusWithIgnored is Status with the ignored untracked tables too,
// marked, as dolt_status_ignored lists them.
func (t *Txn) StatusWithIgnored(ctx context.Context) ([]StatusEntry, error) {
	return t.status(ctx, true)
}

func (t *Txn) status(ctx context.Context, withIgnored bool) ([]StatusEntry, error) {
	if t.readOnly {
		return nil, nil
	}
	g := t.db.graph
	head, ws, err := g.BranchState(ctx, t.branch)
	if err != nil {
		return nil, err
	}
	working, err := t.PendingWorking(ctx, ws)
	if err != nil {
		return nil, err
	}
	headRoot, err := g.OpenRoot(ctx, head.Root)
	if err != nil {
		return nil, err
	}
	staged, err := g.OpenRoot(ctx, ws.Staged)
	if err != nil {
		return nil, err
	}
	rules, err := t.db.IgnoreRules(ctx, working)
	if err != nil {
		return nil, err
	}
	unmerged, err := UnmergedTables(ctx, working)
	if err != nil {
		return nil, err
	}
	var out []StatusEntry
	for _, pair := range []struct {
		from, to RootValue
		staged   bool
	}{{headRoot, staged, true}, {staged, working, false}} {
		changes, err := ChangedItems(ctx, pair.from, pair.to)
		if err != nil {
			return nil, err
		}
		renames, err := itemRenames(ctx, pair.from, pair.to, changes)
		if err != nil {
			return nil, err
		}
		var entries []StatusEntry
		for _, c := range changes {
			e := StatusEntry{Table: c.Name, Staged: pair.staged, Status: StatusModified}
			if r, ok := renames[c.Name]; ok {
				if r.To != c.Name {
					continue // listed under its new name
				}
				e.From, e.Status = r.From, StatusRenamed
			}
			switch {
			case e.Status == StatusRenamed:
			case !c.InFrom:
				e.Status = StatusNew
				if !pair.staged && c.IsTable {
					if e.Ignored, err = rules.Ignored(c.Name); err != nil {
						return nil, err
					}
				}
			case !c.InTo:
				e.Status = StatusDeleted
			}
			if !pair.staged && slices.Contains(unmerged, c.Name) {
				continue
			}
			if !e.Ignored || withIgnored {
				entries = append(entries, e)
			}
		}
		out = append(out, entries...)
	}
	conflicts, err := ConflictedTables(ctx, working)
	if err != nil {
		return nil, err
	}
	schema, err := SchemaConflictedTables(ctx, working)
	if err != nil {
		return nil, err
	}
	for _, tb := range conflicts {
		if !slices.Contains(schema, tb) {
			out = append(out, StatusEntry{Table: tb, Status: StatusConflict})
		}
	}
	for _, tb := range schema {
		out = append(out, StatusEntry{Table: tb, Status: StatusSchemaConflict})
	}
	violated, err := ViolatedTables(ctx, working)
	if err != nil {
		return nil, err
	}
	for _, tb := range violated {
		out = append(out, StatusEntry{Table: tb, Status: StatusViolation})
	}
	return out, nil
}
