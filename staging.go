package verso

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Items: what dolt_add, dolt_reset, dolt_checkout and dolt_status call a
// table. A root value entry belongs to one item:
//
//	tables/<t>, tableopts/<t>         the table t
//	views/, triggers/, sqlevents/     dolt_schemas (as Dolt keeps them)
//	procedures/                       dolt_procedures (as Dolt keeps them)
//	conflicts/<t>/...                 the table t's conflicts (not staged)
//	violations/<t>, schemaconflicts/<t>  its constraint violations and
//	                                  schema conflict (not staged either)
//	any other name                    itself (foreign keys, the event log)
const (
	SchemasItem    = "dolt_schemas"
	ProceduresItem = "dolt_procedures"
)

// IsObjectItem reports whether the item name holds schema objects
// (SchemasItem, ProceduresItem) rather than a table: such an item is
// tracked from the moment it exists, as Dolt's tables of them are.
func IsObjectItem(name string) bool { return name == SchemasItem || name == ProceduresItem }

// Stage copies the named tables (items, matched without case) from the
// branch's working root, with the transaction's writes, to its staged
// root, as dolt_add does: a table the working root lacks is staged as
// deleted. A name in neither root is a *TableNotFoundError, and nothing is
// staged. A merge in progress stays.
//
// An untracked table that dolt_ignore ignores (ignore.go) is skipped, as
// Dolt's dolt_add skips it; StageForced stages it too.
func (t *Txn) Stage(ctx context.Context, names ...string) error {
	return t.stage(ctx, false, names)
}

// StageForced is Stage of ignored tables too (dolt_add('-f', ...)).
func (t *Txn) StageForced(ctx context.Context, names ...string) error {
	return t.stage(ctx, true, names)
}

func (t *Txn) stage(ctx context.Context, force bool, names []string) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		if !force {
			rules, err := t.db.IgnoreRules(ctx, s.Working)
			if err != nil {
				return nil, err
			}
			ignored, err := untrackedIgnored(ctx, rules, s.Staged, s.Working)
			if err != nil {
				return nil, err
			}
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
				return slices.ContainsFunc(ignored, func(i string) bool { return strings.EqualFold(i, n) })
			})
		}
		names, err := withRenames(ctx, s.Staged, s.Working, names)
		if err != nil {
			return nil, err
		}
		staged, err := copyItems(ctx, s.Working, s.Staged, names)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: s.Working, Staged: staged, Merge: s.WS.Merge}, nil
	})
}

// withRenames returns the names to stage from working onto staged for
// names, as Dolt's dolt_add takes a renamed table: by its new name, which
// stages the rename whole (the old name's removal too); its old name
// alone stages nothing.
func withRenames(ctx context.Context, staged, working commitgraph.RootValue, names []string) ([]string, error) {
	changes, err := ChangedItems(ctx, staged, working)
	if err != nil {
		return nil, err
	}
	renames, err := itemRenames(ctx, staged, working, changes)
	if err != nil || len(renames) == 0 {
		return names, err
	}
	var out []string
	for _, n := range names {
		r, ok := renames[n]
		if !ok {
			for k, v := range renames {
				if strings.EqualFold(k, n) {
					r, ok = v, true
				}
			}
		}
		switch {
		case !ok:
			out = append(out, n)
		case strings.EqualFold(n, r.To):
			out = append(out, r.To, r.From)
		}
	}
	return out, nil
}

// StageAll stages every change of the branch's working root, with the
// transaction's writes (dolt_add -A): the staged root becomes the working
// root without its conflicts, and without the untracked tables
// dolt_ignore ignores. A merge in progress stays.
func (t *Txn) StageAll(ctx context.Context) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		staged, err := t.db.stageAll(ctx, s.Staged, s.Working)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: s.Working, Staged: staged, Merge: s.WS.Merge}, nil
	})
}

// stageAll returns what StageAll stages: working without its conflicts
// and with the ignored untracked tables as staged has them (absent).
func (db *DB) stageAll(ctx context.Context, staged, working RootValue) (RootValue, error) {
	all, err := StageAll(ctx, working)
	if err != nil {
		return all, err
	}
	rules, err := db.IgnoreRules(ctx, working)
	if err != nil {
		return all, err
	}
	ignored, err := untrackedIgnored(ctx, rules, staged, working)
	if err != nil || len(ignored) == 0 {
		return all, err
	}
	return dropItems(ctx, all, ignored)
}

// itemOf returns the item a root value entry belongs to.
func itemOf(name string) string {
	switch {
	case strings.HasPrefix(name, commitgraph.TablePrefix):
		return strings.TrimPrefix(name, commitgraph.TablePrefix)
	case strings.HasPrefix(name, commitgraph.TableOptsPrefix):
		return strings.TrimPrefix(name, commitgraph.TableOptsPrefix)
	case strings.HasPrefix(name, commitgraph.ViewPrefix), strings.HasPrefix(name, commitgraph.TriggerPrefix), strings.HasPrefix(name, commitgraph.SQLEventPrefix):
		return SchemasItem
	case strings.HasPrefix(name, commitgraph.ProcedurePrefix):
		return ProceduresItem
	}
	return name
}

// ItemChange is an item that differs between two roots.
type ItemChange struct {
	Name           string
	InFrom, InTo   bool // the item has entries in the from / to root
	IsTable        bool // one of its entries is a table's
	FromAll, ToAll []commitgraph.RootEntry
}

// ChangedItems returns the items that differ from one root to another,
// sorted by name, without conflicts (see ConflictedTables).
func ChangedItems(ctx context.Context, from, to commitgraph.RootValue) ([]ItemChange, error) {
	names := map[string]bool{}
	err := from.Diff(ctx, to, func(c commitgraph.RootChange) error {
		if !isMergeArtifact(c.Name) {
			names[itemOf(c.Name)] = true
		}
		return nil
	})
	if err != nil || len(names) == 0 {
		return nil, err
	}
	fromItems, err := itemEntries(ctx, from)
	if err != nil {
		return nil, err
	}
	toItems, err := itemEntries(ctx, to)
	if err != nil {
		return nil, err
	}
	out := make([]ItemChange, 0, len(names))
	for n := range names {
		c := ItemChange{Name: n, FromAll: fromItems[n], ToAll: toItems[n]}
		c.InFrom, c.InTo = len(c.FromAll) > 0, len(c.ToAll) > 0
		c.IsTable = hasTableEntry(c.FromAll) || hasTableEntry(c.ToAll)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func hasTableEntry(es []commitgraph.RootEntry) bool {
	for _, e := range es {
		if strings.HasPrefix(e.Name, commitgraph.TablePrefix) {
			return true
		}
	}
	return false
}

// HasItem reports whether root holds the item name (a table, or
// SchemasItem, ...), spelled exactly so.
func HasItem(ctx context.Context, root commitgraph.RootValue, name string) (bool, error) {
	items, err := itemEntries(ctx, root)
	return len(items[name]) > 0, err
}

// itemEntries groups root's entries (conflicts aside) by item.
func itemEntries(ctx context.Context, root commitgraph.RootValue) (map[string][]commitgraph.RootEntry, error) {
	ents, err := root.Entries(ctx, "")
	if err != nil {
		return nil, err
	}
	out := map[string][]commitgraph.RootEntry{}
	for _, e := range ents {
		if isMergeArtifact(e.Name) {
			continue
		}
		n := itemOf(e.Name)
		out[n] = append(out[n], e)
	}
	return out, nil
}

// findItem returns the item of root named name, ignoring case, or "".
func findItem(items map[string][]commitgraph.RootEntry, name string) string {
	if _, ok := items[name]; ok {
		return name
	}
	for n := range items {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

// copyItems returns dst with the named items as src has them (an item src
// lacks is removed from dst). Names are matched without case; a name in
// neither root is a *TableNotFoundError.
func copyItems(ctx context.Context, src, dst commitgraph.RootValue, names []string) (commitgraph.RootValue, error) {
	return copyItemsOf(ctx, src, dst, names, false)
}

// copyItemsOf is copyItems; with missingOK, a name in neither root is
// skipped.
func copyItemsOf(ctx context.Context, src, dst commitgraph.RootValue, names []string, missingOK bool) (commitgraph.RootValue, error) {
	srcItems, err := itemEntries(ctx, src)
	if err != nil {
		return dst, err
	}
	dstItems, err := itemEntries(ctx, dst)
	if err != nil {
		return dst, err
	}
	var edits []commitgraph.RootEdit
	for _, name := range names {
		s, d := findItem(srcItems, name), findItem(dstItems, name)
		if s == "" && d == "" {
			if missingOK {
				continue
			}
			return dst, &TableNotFoundError{Table: name}
		}
		for _, e := range dstItems[d] {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Delete: true})
		}
		for _, e := range srcItems[s] {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Addr: e.Addr})
		}
	}
	return dst.Edit(ctx, dedupEdits(edits)...)
}

// dedupEdits keeps the last edit of each name.
func dedupEdits(edits []commitgraph.RootEdit) []commitgraph.RootEdit {
	last := map[string]int{}
	for i, e := range edits {
		last[e.Name] = i
	}
	out := edits[:0:0]
	for i, e := range edits {
		if last[e.Name] == i {
			out = append(out, e)
		}
	}
	return out
}

// mergeArtifacts are the prefixes of what a merge leaves to resolve in a
// working root: rows in conflict, constraint violations, schema
// conflicts. They belong to no item: never staged, nor committed.
var mergeArtifacts = []string{commitgraph.ConflictsPrefix, commitgraph.ViolationsPrefix, commitgraph.SchemaConflictsPrefix}

// isMergeArtifact reports whether a root value name is a merge artifact.
func isMergeArtifact(name string) bool {
	for _, p := range mergeArtifacts {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// withoutConflicts returns root without its merge artifacts (conflicts,
// violations, schema conflicts).
func withoutConflicts(ctx context.Context, root commitgraph.RootValue) (commitgraph.RootValue, error) {
	var edits []commitgraph.RootEdit
	for _, p := range mergeArtifacts {
		ents, err := root.Entries(ctx, p)
		if err != nil {
			return root, err
		}
		for _, e := range ents {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Delete: true})
		}
	}
	if len(edits) == 0 {
		return root, nil
	}
	return root.Edit(ctx, edits...)
}

// StageAll returns the staged root after "dolt_add -A": the working root,
// without its conflicts.
func StageAll(ctx context.Context, working commitgraph.RootValue) (commitgraph.RootValue, error) {
	return withoutConflicts(ctx, working)
}

// stageTracked returns staged with every item that changed from staged to
// working and exists in staged ("dolt_commit -a": modified and deleted
// tables, not new ones).
func stageTracked(ctx context.Context, staged, working commitgraph.RootValue) (commitgraph.RootValue, error) {
	changes, err := ChangedItems(ctx, staged, working)
	if err != nil {
		return staged, err
	}
	renames, err := itemRenames(ctx, staged, working, changes)
	if err != nil {
		return staged, err
	}
	var names []string
	for _, c := range changes {
		if _, renamed := renames[c.Name]; c.InFrom || renamed {
			names = append(names, c.Name) // a renamed table under both names
		}
	}
	if len(names) == 0 {
		return staged, nil
	}
	return copyItems(ctx, working, staged, names)
}

// itemRenames returns the renamed tables among changes (ChangedItems of
// from and to), under both their names.
func itemRenames(ctx context.Context, from, to commitgraph.RootValue, changes []ItemChange) (map[string]Rename, error) {
	var dropped, added []string
	for _, c := range changes {
		switch {
		case !c.IsTable:
		case !c.InTo:
			dropped = append(dropped, c.Name)
		case !c.InFrom:
			added = append(added, c.Name)
		}
	}
	rs, err := Renames(ctx, from, to, dropped, added)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	out := make(map[string]Rename, 2*len(rs))
	for _, r := range rs {
		out[r.From], out[r.To] = r, r
	}
	return out, nil
}

// ConflictedTables returns the tables with merge conflicts in root.
func ConflictedTables(ctx context.Context, root commitgraph.RootValue) ([]string, error) {
	return artifactTables(ctx, root, commitgraph.ConflictsPrefix)
}

// ViolatedTables returns the tables with constraint violations in root.
func ViolatedTables(ctx context.Context, root commitgraph.RootValue) ([]string, error) {
	return artifactTables(ctx, root, commitgraph.ViolationsPrefix)
}

// SchemaConflictedTables returns the tables with a schema conflict in
// root.
func SchemaConflictedTables(ctx context.Context, root commitgraph.RootValue) ([]string, error) {
	return artifactTables(ctx, root, commitgraph.SchemaConflictsPrefix)
}

// UnmergedTables returns the tables with conflicts, violations or a
// schema conflict in root, sorted, each once.
func UnmergedTables(ctx context.Context, root commitgraph.RootValue) ([]string, error) {
	var out []string
	for _, p := range mergeArtifacts {
		ts, err := artifactTables(ctx, root, p)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// artifactTables returns the tables with entries under the merge
// artifact prefix p in root.
func artifactTables(ctx context.Context, root commitgraph.RootValue, p string) ([]string, error) {
	ents, err := root.Entries(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		t, _, _ := strings.Cut(strings.TrimPrefix(e.Name, p), "/")
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out, nil
}

// FindTable returns the exact name and address of the table named name
// (case-insensitively) in root.
func FindTable(ctx context.Context, root commitgraph.RootValue, name string) (string, chunks.Address, bool, error) {
	addr, ok, err := root.Get(ctx, commitgraph.TablePrefix+name)
	if err != nil || ok {
		return name, addr, ok, err
	}
	ents, err := root.Entries(ctx, commitgraph.TablePrefix)
	if err != nil {
		return "", chunks.Address{}, false, err
	}
	for _, e := range ents {
		n := strings.TrimPrefix(e.Name, commitgraph.TablePrefix)
		if strings.EqualFold(n, name) {
			return n, e.Addr, true, nil
		}
	}
	return "", chunks.Address{}, false, nil
}
